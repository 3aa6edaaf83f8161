"""Last-move and last-N-moves problems: every candidate but the answer is *proved* impossible.

For each candidate sequence of N retractions, the position it leads to is
  * impossible — an AND-proof: every retraction from it leads to an impossible position, down to
    leaves closed by a static rule (retrologic.legality.rules), a verified cage, or no retraction at all;
  * possible — a further line of retractions without contradiction was found (support, not a
    proof of legality: the problem stipulates that the diagram is legal);
  * unknown — neither within the limits.
Under the stipulation of legality the last move is among the candidates not proved impossible,
so the answer is *proved* when every other candidate has a proof and none is unknown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic.legality import rules as legality
from retrologic.certificate import Rejected, verdict_of
from retrologic.limits import Budget, LimitHit, budget_for
from retrologic.position import Position
from retrologic.retract import Retraction, apply, in_check, retractions

# A closer proves a position illegal by outside knowledge (a cage): it has `known(pos)` (cheap,
# tried at every node) and `discover(pos, budget)` (expensive, tried only where the search is
# stuck, under the solve's Budget: LimitHit when it is spent); each returns the rule and a
# JSON-able justification, or None.
Closer = Any


@dataclass
class Limits:
    """Resource guards: hitting one makes a candidate unknown, never impossible.

    Everything that decides what gets tried is a count (plies, positions), so a verdict does
    not depend on the machine's load; time and Ctrl-C come from the shared `budget`
    (retrologic.limits.Budget, made from `timeout` and `nodes` when not given)."""

    depth: int = 6            # plies of the refutation search below a candidate
    support: int = 6          # plies of a supporting line for a possible candidate
    nodes: int = 200_000      # positions examined per problem (the budget's node limit)
    branching: int = 40       # a refutation gives up on a node with more retractions than this
    discover_depth: int = 2   # plies below a candidate where stuck nodes try cage discovery
    timeout: float | None = None
    budget: Budget | None = None


@dataclass
class Search:
    """Shared state of one last-move solve: limits, counters, memo tables, closers."""

    limits: Limits
    closers: list[Closer] = field(default_factory=list)
    discovering: bool = False   # second pass: call the closers' discover() where stuck
    nodes: int = 0
    started: float = field(default_factory=time.perf_counter)
    refuted: dict[tuple, dict[str, Any]] = field(default_factory=dict)
    unrefuted: dict[tuple, int] = field(default_factory=dict)   # key -> depth that failed
    budget: Budget | None = None   # time, Ctrl-C and the node limit (see solve)

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = _budget(self.limits)

    def tick(self) -> None:
        """Count a position examined: LimitHit at the node limit, the deadline or Ctrl-C
        (the clock is read every 16 positions: a position costs about a millisecond)."""
        self.nodes += 1
        self.budget.check(1, every=16)


def _budget(limits: Limits) -> Budget:
    """The budget of a solve: the caller's (with the question's node limit when it has none,
    so its reason quotes that figure) or one of `limits.timeout` and `limits.nodes`."""
    if limits.budget is None:
        return budget_for(limits.timeout, limits.nodes)
    if limits.budget.nodes is not None:
        return limits.budget
    return limits.budget.share(nodes=limits.nodes)


def _key(pos: Position) -> tuple:
    return (pos.placement, pos.turn, pos.castling, pos.ep_square)


def _memo_key(pos: Position, search: "Search") -> tuple:
    return (_key(pos), search.discovering)


def static_rule(pos: Position) -> legality.Reason | None:
    """The first static rule that proves `pos` illegal (retro-stalemate is found by search);
    Retractor's cages, the dearer rules, only when the cheap ones find nothing."""
    found = legality.state_and_count_reasons(pos) or legality.cage_rule_reasons(pos)
    return found[0] if found else None


def refute(pos: Position, depth: int, search: Search) -> dict[str, Any] | None:
    """An AND-proof that `pos` cannot arise in a game, or None (not refuted within `depth`)."""
    search.tick()
    key = _memo_key(pos, search)
    if _key(pos) in search.refuted:
        return search.refuted[_key(pos)]
    if search.unrefuted.get(key, -1) >= depth:
        return None
    proof = _refute(pos, depth, search)
    if proof is None:
        search.unrefuted[key] = depth
    else:
        search.refuted[_key(pos)] = proof
    return proof


def _refute(pos: Position, depth: int, search: Search) -> dict[str, Any] | None:
    fen = pos.fen()
    reason = static_rule(pos)
    if reason is not None:
        return {"fen": fen, "rule": reason.rule, "message": reason.message}
    if pos == Position.from_board(chess.Board()):
        return None  # the game array itself
    rs = retractions(pos)
    if not rs:
        side = chess.COLOR_NAMES[not pos.turn] if pos.turn is not None else "either side"
        return {"fen": fen, "rule": "retro-stalemate",
                "message": f"{side} made the last move but has no retraction"}
    for closer in search.closers:
        closed = closer.known(pos)
        if closed is not None:
            rule, why = closed
            return {"fen": fen, "rule": rule, **why}
    if depth <= 0 or len(rs) > search.limits.branching:
        if search.discovering:
            for closer in search.closers:
                closed = closer.discover(pos, search.budget)
                if closed is not None:
                    rule, why = closed
                    return {"fen": fen, "rule": rule, **why}
        return None
    children = []
    # Forced replies first: they fail or succeed fastest.
    for r in sorted(rs, key=lambda r: r.uncapture is not None):
        child = refute(apply(pos, r), depth - 1, search)
        if child is None:
            return None
        children.append({"retraction": r.notation(), "uci": r.move().uci(),
                         "uncapture": r.uncapture, "proof": child})
    return {"fen": fen, "retractions": children}


def support(pos: Position, plies: int, search: Search) -> list[Retraction] | None:
    """A line of `plies` retractions from `pos` through positions no rule or cage refutes."""
    search.tick()
    if static_rule(pos) is not None:
        return None
    if plies == 0 or pos == Position.from_board(chess.Board()):
        return []
    if any(closer.known(pos) is not None for closer in search.closers):
        return None
    # Plain retractions first: a line that adds no material stays easiest to accept.
    for r in sorted(retractions(pos), key=lambda r: (r.uncapture is not None, r.unpromotion)):
        child = apply(pos, r)
        if _key(child) in search.refuted:
            continue
        rest = support(child, plies - 1, search)
        if rest is not None:
            return [r, *rest]
    return None


@dataclass
class Candidate:
    """One candidate sequence of retractions (last move first) and its verdict."""

    line: list[Retraction]
    notation: str
    positions: list[Position]          # after each retraction (the last is the leaf)
    status: str = "unknown"            # impossible | possible | unknown
    proof: dict[str, Any] | None = None
    support: list[Retraction] = field(default_factory=list)   # the supporting line, from the leaf
    support_line: list[str] = field(default_factory=list)     # its notation
    reason: str | None = None


def candidates(pos: Position, plies: int, budget: Budget | None = None) -> list[Candidate]:
    """Every sequence of `plies` retractions from `pos` (alternating sides); a shorter prefix
    after which no retraction exists is a candidate too (refuted by retro-stalemate). With a
    `budget`, its deadline and Ctrl-C stop the enumeration (LimitHit)."""
    out: list[Candidate] = []

    def walk(p: Position, line: list[Retraction], names: list[str], seen: list[Position]) -> None:
        if budget is not None:
            budget.check(every=16)
        if len(line) == plies:
            out.append(Candidate(list(line), " ".join(names), list(seen)))
            return
        checked = {c: in_check(p, not c) for c in chess.COLORS}
        rs = retractions(p)
        if not rs and line:
            # A prefix that cannot be extended: a candidate refuted by retro-stalemate.
            out.append(Candidate(list(line), " ".join(names), list(seen)))
            return
        for r in rs:
            q = apply(p, r)
            walk(q, line + [r], names + [r.notation(checked[r.color])], seen + [q])

    walk(pos, [], [], [])
    return out


def classify(c: Candidate, search: Search) -> str | None:
    """Decide one candidate: impossible (with proof), possible (with a line) or unknown; returns
    the reason of a limit of the budget hit meanwhile (the candidate is then unknown), else None."""
    leaf = c.positions[-1]
    try:
        # First pass: static rules, retro-stalemate and known cages; second pass: also discover
        # cages where the search is stuck (shallower: each discovery runs the cage verifier).
        for discovering, depth in ((False, search.limits.depth),
                                   (True, min(search.limits.depth, search.limits.discover_depth))):
            if discovering and not search.closers:
                break
            search.discovering = discovering
            for d in range(0, depth + 1):
                proof = refute(leaf, d, search)
                if proof is not None:
                    c.status, c.proof = "impossible", proof
                    return None
        search.discovering = False
        line = support(leaf, search.limits.support, search)
    except LimitHit as e:
        c.status, c.reason = "unknown", e.reason
        return e.reason
    if line is not None:
        c.status = "possible"
        c.support, c.support_line = line, _names(leaf, line)
    else:
        c.status, c.reason = "unknown", (f"no proof within {search.limits.depth} plies and no "
                                         f"supporting line of {search.limits.support} plies")
    return None


def _names(pos: Position, line: list[Retraction]) -> list[str]:
    out = []
    for r in line:
        out.append(r.notation(in_check(pos, not r.color)))
        pos = apply(pos, r)
    return out


@dataclass
class LastMoveResult:
    """All candidates with their verdicts, per side that may have moved last."""

    candidates: list[Candidate]
    verdict: str
    answer: list[str]
    reason: str | None
    illegal_for: list[str]
    nodes: int
    seconds: float


def solve(pos: Position, plies: int = 1, limits: Limits | None = None,
          closers: list[Closer] | None = None) -> LastMoveResult:
    """Solve "what were the last `plies` single moves?" for a full position.

    Once a limit of the budget is hit (nodes, time, Ctrl-C) the candidates not yet decided are
    left unknown with its reason, without searching them."""
    limits = limits or Limits()
    search = Search(limits, list(closers or []))
    sides = [chess.WHITE, chess.BLACK] if pos.turn is None else [not pos.turn]
    all_cands: list[Candidate] = []
    illegal_for = []
    hit: str | None = None
    for side in sides:
        sided = pos.with_turn(not side)
        try:
            cands = [] if hit else candidates(sided, plies, search.budget)
        except LimitHit as e:
            hit, cands = e.reason, []
        for c in cands:
            if hit:
                c.status, c.reason = "unknown", hit
                continue
            hit = classify(c, search)
        if hit is None and all(c.status == "impossible" for c in cands):
            illegal_for.append(chess.COLOR_NAMES[side])
        all_cands.extend(cands)
    survivors = [c for c in all_cands if c.status != "impossible"]
    unknown = [c for c in all_cands if c.status == "unknown"]
    answer = [c.notation for c in survivors]
    if hit is not None:
        verdict = "unknown"
        reason = f"{hit}: {len(unknown)} candidate(s) undecided" + ("" if not unknown else (
            ": " + ", ".join(c.notation for c in unknown[:5]) + (", ..." if len(unknown) > 5 else "")))
    elif unknown:
        verdict = "unknown"
        reason = f"{len(unknown)} candidate(s) undecided: " + "; ".join(
            f"{c.notation}: {c.reason}" for c in unknown[:5])
    elif not survivors:
        verdict, reason = "proved", "every candidate is impossible: the position is illegal"
    else:
        verdict, reason = "proved", None
    return LastMoveResult(all_cands, verdict, answer, reason, illegal_for, search.nodes,
                          time.perf_counter() - search.started)


def support_pgn(c: Candidate) -> str | None:
    """PGN of a possible candidate: from the earliest position of its supporting line, forward
    through the support moves and the candidate's moves, to the diagram."""
    import chess.pgn
    if c.status != "possible":
        return None
    start = c.positions[-1]
    for r in c.support:
        start = apply(start, r)
    board = start.to_board()
    game = chess.pgn.Game()
    game.setup(board)
    node: Any = game
    for r in reversed(c.support):
        node = node.add_variation(r.move())
    for r in reversed(c.line):
        node = node.add_variation(r.move())
    game.headers["Event"] = f"retrologic last-move support: {c.notation}"
    return str(game)


def certificate(diagram: Position, plies: int, result: LastMoveResult) -> dict[str, Any]:
    """The proof of a last-move answer: every candidate, each impossible one with its proof."""
    from retrologic.certificate import stamp
    return stamp({
        "type": "lastmove-proof",
        "fen": diagram.fen(),
        "to_move": None if diagram.turn is None else chess.COLOR_NAMES[diagram.turn],
        "frozen": [chess.square_name(s) for s in chess.scan_forward(diagram.frozen)],
        "plies": plies,
        "candidates": [
            {"notation": c.notation, "uci": [r.move().uci() for r in c.line],
             "uncaptures": [r.uncapture for r in c.line],
             "en_passant": [r.en_passant for r in c.line],
             "status": c.status, "proof": c.proof} for c in result.candidates],
    })


# --- the independent checker ------------------------------------------------------------------

MAX_CHECK_PLIES = 8          # longer candidate lists are not checked (they explode anyway)
REVERIFY_NODES = 20_000      # positions a cage leaf may take to verify again (as in discovery)
REVERIFY_TOTAL = 100_000     # and all the cage leaves of one certificate together
STATUSES = ("impossible", "possible", "unknown")


def _is_game_array(pos: Position) -> bool:
    """The initial array with White to move (or open): it needs no last move, so no proof may
    call it impossible."""
    start = Position.from_board(chess.Board())
    return pos.placement == start.placement and pos.turn in (chess.WHITE, None)


def _replay(child: Position, r: Retraction, parent: Position) -> None:
    """Re-derive one retraction with python-chess: the forward move is legal in the predecessor
    and gives back the placement and side to move of the position above."""
    board = chess.Board(child.fen())
    move = r.move()
    if not board.is_legal(move):
        raise Rejected(f"{move.uci()} is not legal in {child.fen()} (python-chess)")
    board.push(move)
    if board.board_fen() != parent.placement.board_fen() or \
            (parent.turn is not None and board.turn != parent.turn):
        raise Rejected(f"{move.uci()} from {child.fen()} does not give {parent.fen()} (python-chess)")


def _diagram(cert: dict[str, Any]) -> Position:
    fen, to_move = cert.get("fen"), cert.get("to_move")
    if not isinstance(fen, str):
        raise Rejected("'fen' must be a FEN string")
    try:
        diagram = Position.from_fen(fen)
    except ValueError as e:
        raise Rejected(f"bad fen: {str(e)[:80]}") from None
    if to_move is None:
        diagram = diagram.with_turn(None)
    elif to_move not in ("white", "black"):
        raise Rejected("'to_move' must be 'white', 'black' or null (either side moved last)")
    elif (to_move == "white") != diagram.turn:
        raise Rejected(f"'to_move' {to_move} contradicts the FEN's side to move")
    from retrologic.certificate import frozen_mask
    try:
        frozen = frozen_mask(cert.get("frozen", []), diagram.placement.occupied)
    except ValueError as e:
        raise Rejected(str(e)) from None
    from dataclasses import replace
    return replace(diagram, frozen=frozen)


def _metadata(cert: dict[str, Any], diagram: Position, plies: int) -> None:
    """The problem's position and question (when stated) must be the certificate's own."""
    from retrologic.position import parse
    pos = cert.get("position")
    if isinstance(pos, dict) and pos:
        try:
            stated = parse(fen=pos.get("fen"), board=pos.get("board"), frozen=pos.get("frozen"),
                           to_move=pos.get("to_move"))
        except (ValueError, TypeError) as e:
            raise Rejected(f"the stated position is malformed: {str(e)[:80]}") from None
        if (stated.placement, stated.turn, stated.castling, stated.ep_square, stated.frozen) != \
                (diagram.placement, diagram.turn, diagram.castling, diagram.ep_square, diagram.frozen):
            raise Rejected(f"the stated position {stated.fen()} is not the certificate's {diagram.fen()}")
    q = cert.get("question")
    if isinstance(q, dict) and "plies" in q and q["plies"] != plies:
        raise Rejected(f"the question asks for {q['plies']!r} plies, the certificate has {plies}")


def check_proof(cert: dict[str, Any]):
    """Check a last-move proof: the candidate list is complete and every candidate marked
    impossible has a closed proof tree; the claim accepted is "under the stipulation that the
    diagram is legal, its last move(s) are among the candidates not marked impossible".

    What it relies on: the candidate list and each proof node's retractions are generated by the
    engine's retraction generator (retrologic.retract, tested against python-chess and brute
    force), so completeness rests on it; every candidate step and every proof-tree edge is
    re-derived by python-chess (the forward move is legal and gives back the position above);
    static rules are re-derived by retrologic.legality.rules; a cage leaf's units must stand in the
    position, its frozen units must be immobile there (frozen in the diagram or pinned by a
    castling right), and the cage is verified again from scratch. The diagram's castling
    rights, e.p. square, side to move and frozen units are those of the certificate's `fen`,
    `to_move` and `frozen`, which the verdict repeats."""
    return verdict_of("lastmove-proof", _check, cert)


def _check(cert: dict[str, Any]) -> str:
    diagram = _diagram(cert)
    plies = cert.get("plies")
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_CHECK_PLIES:
        raise Rejected(f"'plies' must be an integer from 1 to {MAX_CHECK_PLIES}")
    _metadata(cert, diagram, plies)
    entries = cert.get("candidates")
    if not isinstance(entries, list):
        raise Rejected("'candidates' must be a list")
    have: dict[tuple, dict[str, Any]] = {}
    for n, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("notation"), str) or \
                not isinstance(e.get("uci"), list) or not all(isinstance(u, str) for u in e["uci"]) \
                or e.get("status") not in STATUSES:
            raise Rejected(f"candidates[{n}]: needs 'notation', 'uci' (strings) and a status "
                       f"({', '.join(STATUSES)})")
        if e["status"] == "impossible" and not isinstance(e.get("proof"), dict):
            raise Rejected(f"candidate {e['notation'][:40]}: impossible without a proof")
        key = (e["notation"], tuple(e["uci"]))
        if key in have:
            raise Rejected(f"candidate {e['notation'][:40]} is listed twice")
        have[key] = e
    sides = [chess.WHITE, chess.BLACK] if diagram.turn is None else [not diagram.turn]
    generated: dict[tuple, Candidate] = {}
    for side in sides:
        for c in _candidates_capped(diagram.with_turn(not side), plies, len(have) - len(generated)):
            generated[(c.notation, tuple(r.move().uci() for r in c.line))] = c
    if set(generated) != set(have):
        missing = sorted(n for n, _ in set(generated) - set(have))
        extra = sorted(n for n, _ in set(have) - set(generated))
        raise Rejected(f"candidate list differs: missing {missing[:4]}, extra {extra[:4]}")
    cages = _Cages()
    for key, c in generated.items():
        e = have[key]
        if e.get("uncaptures", [r.uncapture for r in c.line]) != [r.uncapture for r in c.line] or \
                e.get("en_passant", [r.en_passant for r in c.line]) != [r.en_passant for r in c.line]:
            raise Rejected(f"candidate {c.notation}: uncaptures or e.p. flags differ from its moves")
        above = diagram
        for r, pos in zip(c.line, c.positions):
            try:
                _replay(pos, r, above)
            except Rejected as why:
                raise Rejected(f"candidate {c.notation}: {why}") from None
            above = pos
        if e["status"] != "impossible":
            continue
        try:
            _check_tree(c.positions[-1], e["proof"], cages)
        except Rejected as why:
            raise Rejected(f"{c.notation}: {why}") from None
    left = [c.notation for key, c in generated.items() if have[key]["status"] != "impossible"]
    side = "either side" if diagram.turn is None else chess.COLOR_NAMES[not diagram.turn]
    frozen = ",".join(chess.square_name(s) for s in chess.scan_forward(diagram.frozen))
    head = f"diagram {diagram.fen()}" + (f" frozen {frozen}" if frozen else "") + \
        f", {side} moved last, {plies} pl{'y' if plies == 1 else 'ies'}: "
    if not left:
        return head + f"all {len(generated)} candidates impossible: the diagram is illegal"
    return head + f"{len(generated) - len(left)} of {len(generated)} candidates impossible; " \
                  f"the last move is among: {', '.join(left)}"


def _candidates_capped(pos: Position, plies: int, cap: int) -> list[Candidate]:
    """candidates(pos, plies), the same walk, but raising Rejected as soon as there are more than
    `cap` (the certificate's list is then incomplete; a long walk is never finished)."""
    out: list[Candidate] = []

    def walk(p: Position, line: list[Retraction], names: list[str], seen: list[Position]) -> None:
        if len(line) == plies:
            out.append(Candidate(list(line), " ".join(names), list(seen)))
        else:
            checked = {c: in_check(p, not c) for c in chess.COLORS}
            rs = retractions(p)
            if not rs and line:
                out.append(Candidate(list(line), " ".join(names), list(seen)))
            for r in rs:
                q = apply(p, r)
                walk(q, line + [r], names + [r.notation(checked[r.color])], seen + [q])
        if len(out) > cap:
            raise Rejected("the candidate list is incomplete (more candidates than listed)")

    walk(pos, [], [], [])
    return out


@dataclass
class _Cages:
    """Cage leaves verified again during one check, and the positions that may still cost."""

    done: dict[tuple, tuple[bool, str]] = field(default_factory=dict)
    left: int = REVERIFY_TOTAL


def _check_tree(pos: Position, node: Any, cages: _Cages | None = None) -> None:
    """Check that `node` proves `pos` impossible (raises Rejected with the reason otherwise)."""
    cages = _Cages() if cages is None else cages
    if not isinstance(node, dict):
        raise Rejected("a proof node must be an object")
    if node.get("fen") != pos.fen():
        raise Rejected(f"proof node {str(node.get('fen'))[:80]} is not the position {pos.fen()}")
    if _is_game_array(pos):
        raise Rejected("the initial array needs no last move: it is not impossible")
    rule = node.get("rule")
    if rule is not None:
        if not isinstance(rule, str):
            raise Rejected("a rule must be a string")
        if rule == "retro-stalemate":
            if retractions(pos):
                raise Rejected(f"retractions exist where retro-stalemate is claimed ({pos.fen()})")
            return
        if rule == "cage":
            _check_cage_leaf(pos, node, cages)
            return
        found = {r.rule for r in legality.state_and_count_reasons(pos) + legality.cage_rule_reasons(pos)}
        if rule not in found:
            raise Rejected(f"rule {rule[:40]} does not hold in {pos.fen()}")
        return
    kids = node.get("retractions")
    if not isinstance(kids, list):
        raise Rejected("a node with neither rule nor retractions")
    by_key: dict[tuple, dict[str, Any]] = {}
    for k in kids:
        if not isinstance(k, dict) or not isinstance(k.get("uci"), str) or \
                not isinstance(k.get("retraction"), str) or "proof" not in k:
            raise Rejected("a retraction of a proof node needs 'retraction', 'uci' and 'proof'")
        key = (k["uci"], k.get("uncapture"), k["retraction"])
        if key in by_key:
            raise Rejected(f"retraction {k['retraction'][:40]} listed twice")
        by_key[key] = k
    rs = retractions(pos)
    want = {(r.move().uci(), r.uncapture, r.notation()): r for r in rs}
    if set(want) != set(by_key):
        raise Rejected(f"retractions of {pos.fen()} differ from the proof's")
    for key, r in want.items():
        child = apply(pos, r)
        _replay(child, r, pos)
        _check_tree(child, by_key[key]["proof"], cages)


def _check_cage_leaf(pos: Position, node: dict[str, Any], cages: _Cages) -> None:
    """A cage leaf: the cage's units stand in the position, its frozen units are immobile in
    the position (frozen, or pinned by a castling right) and its zone holds its units, and the
    cage verifies again from scratch (no library; at most REVERIFY_NODES positions)."""
    from retrologic.position import Placement
    board, zone, frozen, model = (node.get(k) for k in ("cage", "zone", "frozen", "model"))
    if not isinstance(board, str) or model not in ("lines", "plain"):
        raise Rejected("a cage leaf needs 'cage' (a board) and 'model' (lines or plain)")
    for what, names in (("zone", zone), ("frozen", frozen)):
        if not isinstance(names, list) or not all(n in chess.SQUARE_NAMES for n in names):
            raise Rejected(f"a cage leaf's {what} must be a list of square names")
    try:
        cage = Placement.from_board(chess.BaseBoard(board))
    except ValueError:
        raise Rejected(f"bad cage board {board[:80]!r}") from None
    if not cage.occupied:
        raise Rejected("an empty cage")
    for sq in chess.scan_forward(cage.occupied):
        if cage.piece_at(sq) != pos.placement.piece_at(sq):
            raise Rejected(f"cage {board} is not part of {pos.fen()}")
    zmask = fmask = 0
    for n in zone:
        zmask |= chess.BB_SQUARES[chess.parse_square(n)]
    for n in frozen:
        fmask |= chess.BB_SQUARES[chess.parse_square(n)]
    if cage.occupied & ~zmask:
        raise Rejected(f"cage {board}: its zone does not hold its units")
    if fmask & ~cage.occupied:
        raise Rejected(f"cage {board}: a frozen square holds no unit of the cage")
    if fmask & ~pos.immobile:
        names = ",".join(chess.square_name(s) for s in chess.scan_forward(fmask & ~pos.immobile))
        raise Rejected(f"cage {board} assumes frozen units ({names}) that are not frozen in {pos.fen()}")
    key = (cage, zmask, fmask, model)
    if key not in cages.done:
        from retrologic.lastmove.cages import reverify
        if cages.left <= 0:
            raise Rejected(f"more than {REVERIFY_TOTAL} positions of cages to verify again")
        ok, why, states = reverify({"cage": board, "zone": zone, "frozen": frozen, "model": model},
                                   nodes=min(REVERIFY_NODES, cages.left))
        cages.done[key] = (ok, why)
        cages.left -= max(states, 1)
    ok, why = cages.done[key]
    if not ok:
        raise Rejected(why)
