"""Last-move and last-N-moves problems: every candidate but the answer is *proved* impossible.

For each candidate sequence of N retractions, the position it leads to is
  * impossible — an AND-proof: every retraction from it leads to an impossible position, down to
    leaves closed by a static rule (retrologic.legality), a verified cage, or no retraction at all;
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

from retrologic import legality
from retrologic.position import Position
from retrologic.retract import Retraction, apply, in_check, retractions

# A closer proves a position illegal by outside knowledge (a cage): it has `known(pos)` (cheap,
# tried at every node) and `discover(pos)` (expensive, tried only where the search is stuck);
# each returns the rule and a JSON-able justification, or None.
Closer = Any


@dataclass
class Limits:
    """Resource guards: hitting one makes a candidate unknown, never impossible."""

    depth: int = 6            # plies of the refutation search below a candidate
    support: int = 6          # plies of a supporting line for a possible candidate
    nodes: int = 200_000      # positions examined per problem
    branching: int = 40       # a refutation gives up on a node with more retractions than this
    discover_depth: int = 2   # plies below a candidate where stuck nodes try cage discovery
    timeout: float | None = None


class LimitHit(Exception):
    """A node or time limit was reached."""


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

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.limits.nodes:
            raise LimitHit(f"node limit {self.limits.nodes}")
        if self.limits.timeout is not None and self.nodes % 256 == 0 and \
                time.perf_counter() - self.started > self.limits.timeout:
            raise LimitHit(f"time limit {self.limits.timeout}s")


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
                closed = closer.discover(pos)
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


def candidates(pos: Position, plies: int) -> list[Candidate]:
    """Every sequence of `plies` retractions from `pos` (alternating sides); a shorter prefix
    after which no retraction exists is a candidate too (refuted by retro-stalemate)."""
    out: list[Candidate] = []

    def walk(p: Position, line: list[Retraction], names: list[str], seen: list[Position]) -> None:
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


def classify(c: Candidate, search: Search) -> None:
    """Decide one candidate: impossible (with proof), possible (with a line) or unknown."""
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
                    return
        search.discovering = False
        line = support(leaf, search.limits.support, search)
    except LimitHit as e:
        c.status, c.reason = "unknown", str(e)
        return
    if line is not None:
        c.status = "possible"
        c.support, c.support_line = line, _names(leaf, line)
    else:
        c.status, c.reason = "unknown", (f"no proof within {search.limits.depth} plies and no "
                                         f"supporting line of {search.limits.support} plies")


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
    """Solve "what were the last `plies` single moves?" for a full position."""
    limits = limits or Limits()
    search = Search(limits, list(closers or []))
    sides = [chess.WHITE, chess.BLACK] if pos.turn is None else [not pos.turn]
    all_cands: list[Candidate] = []
    illegal_for = []
    for side in sides:
        sided = pos.with_turn(not side)
        cands = candidates(sided, plies)
        for c in cands:
            classify(c, search)
        if all(c.status == "impossible" for c in cands):
            illegal_for.append(chess.COLOR_NAMES[side])
        all_cands.extend(cands)
    survivors = [c for c in all_cands if c.status != "impossible"]
    unknown = [c for c in all_cands if c.status == "unknown"]
    answer = [c.notation for c in survivors]
    if unknown:
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
    return {
        "type": "lastmove-proof",
        "fen": diagram.fen(),
        "to_move": None if diagram.turn is None else chess.COLOR_NAMES[diagram.turn],
        "plies": plies,
        "candidates": [
            {"notation": c.notation, "uci": [r.move().uci() for r in c.line],
             "uncaptures": [r.uncapture for r in c.line],
             "en_passant": [r.en_passant for r in c.line],
             "status": c.status, "proof": c.proof} for c in result.candidates],
    }


def check_proof(cert: dict[str, Any]):
    """Check a last-move proof: the candidate list is complete and every proof tree is closed
    (static rules re-derived, retractions re-generated, cages re-verified)."""
    from retrologic.certificate import Verdict
    diagram = Position.from_fen(cert["fen"])
    if cert.get("to_move") is None:
        diagram = diagram.with_turn(None)
    sides = [chess.WHITE, chess.BLACK] if diagram.turn is None else [not diagram.turn]
    generated = []
    for side in sides:
        generated += candidates(diagram.with_turn(not side), cert["plies"])
    want = {c.notation for c in generated}
    have = {c["notation"] for c in cert["candidates"]}
    if want != have:
        return Verdict("lastmove-proof", False,
                       f"candidate list differs: missing {sorted(want - have)}, extra {sorted(have - want)}")
    by_name = {c.notation: c for c in generated}
    for entry in cert["candidates"]:
        if entry["status"] != "impossible":
            continue
        leaf = by_name[entry["notation"]].positions[-1]
        ok, why = _check_tree(leaf, entry["proof"])
        if not ok:
            return Verdict("lastmove-proof", False, f"{entry['notation']}: {why}")
    return Verdict("lastmove-proof", True)


def _check_tree(pos: Position, node: dict[str, Any]) -> tuple[bool, str]:
    if node.get("fen") != pos.fen():
        return False, f"proof node {node.get('fen')} is not the position {pos.fen()}"
    rule = node.get("rule")
    if rule == "retro-stalemate":
        return (not retractions(pos)), "retractions exist where retro-stalemate is claimed"
    if rule == "cage":
        return _check_cage_leaf(pos, node)
    if rule is not None:
        found = {r.rule for r in legality.state_and_count_reasons(pos) + legality.cage_rule_reasons(pos)}
        return (rule in found), f"rule {rule} does not hold in {pos.fen()}"
    kids = node.get("retractions")
    if kids is None:
        return False, "a node with neither rule nor retractions"
    rs = retractions(pos)
    have = {(k["uci"], k["uncapture"]) for k in kids}
    want = {(r.move().uci(), r.uncapture) for r in rs}
    if have != want:
        return False, f"retractions of {pos.fen()} differ from the proof's"
    for r in rs:
        kid = next(k for k in kids if (k["uci"], k["uncapture"]) == (r.move().uci(), r.uncapture)
                   and k["retraction"] == r.notation())
        ok, why = _check_tree(apply(pos, r), kid["proof"])
        if not ok:
            return ok, why
    return True, ""


def _check_cage_leaf(pos: Position, node: dict[str, Any]) -> tuple[bool, str]:
    """A cage leaf: the cage's units stand in the position and the cage verifies again."""
    from retrologic.position import Placement
    cage = Placement.from_board_fen(node["cage"])
    for sq in chess.scan_forward(cage.occupied):
        if cage.piece_at(sq) != pos.placement.piece_at(sq):
            return False, f"cage {node['cage']} is not part of {pos.fen()}"
    from retrologic.lastmove_cages import reverify
    return reverify(node)
