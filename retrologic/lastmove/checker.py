"""The independent checker of last-move certificates ("lastmove-proof").

Rule: this module imports python-chess, the flat core (retrologic.position, .retract,
.certformat), its own brute-force retractions (retrologic.lastmove.unmoves, python-chess alone),
retrologic.legality.rules, the game replay of retrologic.legalgame.checker (for the games of
possible candidates), and, to verify cage leaves again, the cage verifier retrologic.cages.search
(from scratch, with no library); never lastmove.search nor lastmove.cages, the engine whose
answer it checks. It re-runs the candidate generation with the engine's retraction generator
(retrologic.retract) and requires, at every position of the candidate walk and every node of a
proof tree, that each retraction python-chess finds by brute force (`unmoves`) is among them:
completeness rests on python-chess's move generator, not on the engine's (a partial position,
which python-chess cannot build, still trusts retract). It re-derives every candidate step and
proof-tree edge with python-chess, every static rule with legality.rules (whose `unreachable` rule asks the
proof-game bound, retrologic.spg.bound: a leaf so closed trusts that bound, tested by the
admission oracle over real games, as the proof-game verdicts do; a `pawn-columns` leaf runs the
kernel search of retrologic.legality.pawn_columns again, tested over real games the same way;
a `tempo-parity` leaf re-runs retrologic.legality.tempo).

The statuses of a candidate (Status) are defined here, with the certificate they appear in;
the engine imports them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

import chess

from retrologic.certformat import (Rejected, Verdict, check_budget, frozen_mask,
                                   same_stated_position, shown, square_names,
                                   stated_position, tick, verdict_of, whole_or_counted)
from retrologic.lastmove.unmoves import unmoves
from retrologic.legality import rules as legality
from retrologic.position import GAME_START, Position
from retrologic.retract import Retraction, apply, in_check, retractions


class Status(StrEnum):
    """The status of a last-move candidate: proved impossible (a proof tree), possible (proved:
    a legal game from the initial array whose last moves are the candidate), or unresolved
    (neither within the limits: at most a line of retractions no rule refutes, "not refuted").
    A str: JSON and comparisons see its value."""

    IMPOSSIBLE = "impossible"
    POSSIBLE = "possible"
    UNRESOLVED = "unresolved"


STATUSES = tuple(s.value for s in Status)


class _Line(NamedTuple):
    """A candidate as the checker generates it: its retractions (last move first), notation,
    and the positions after each retraction (the last is the leaf)."""

    line: list[Retraction]
    notation: str
    positions: list[Position]


MAX_CHECK_PLIES = 8          # longer candidate lists are not checked (they explode anyway)
REVERIFY_NODES = 20_000      # positions a cage leaf may take to verify again (as in discovery)
REVERIFY_TOTAL = 100_000     # and all the cage leaves of one certificate together


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


def _complete(pos: Position, rs: list[Retraction]) -> None:
    """Every retraction python-chess finds by brute force (`unmoves`) is among the generator's
    `rs` (Rejected naming the first one missing): a proof tree or candidate list built on an
    incomplete generator is refused. Partial positions and an open side to move are left to the
    generator (python-chess builds full boards only)."""
    if pos.partial or pos.turn is None:
        return
    have = {(r.move().uci(), r.uncapture, r.en_passant) for r in rs}
    missing = unmoves(chess.Board(pos.fen()), pos.frozen) - have
    if missing:
        uci, uncaptured, ep = min(missing, key=str)
        what = " e.p." if ep else (f" taking a {chess.piece_name(uncaptured)}" if uncaptured
                                   else "")
        raise Rejected(f"python-chess finds the retraction {uci}{what} in {pos.fen()}, which the "
                       "candidates or proof leave out")


def _diagram(cert: dict[str, Any]) -> Position:
    to_move = cert.get("to_move")
    diagram = stated_position(cert)
    if to_move is None:
        diagram = diagram.with_turn(None)
    elif to_move not in ("white", "black"):
        raise Rejected("'to_move' must be 'white', 'black' or null (either side moved last)")
    elif (to_move == "white") != diagram.turn:
        raise Rejected(f"'to_move' {to_move} contradicts the FEN's side to move")
    try:
        frozen = frozen_mask(cert.get("frozen", []), diagram.placement)
    except ValueError as e:
        raise Rejected(str(e)) from None
    from dataclasses import replace
    return replace(diagram, frozen=frozen)


def _metadata(cert: dict[str, Any], diagram: Position, plies: int) -> None:
    """The problem's position and question (when stated) must be the certificate's own."""
    same_stated_position(cert.get("position"), diagram)
    q = cert.get("question")
    if isinstance(q, dict) and "plies" in q and q["plies"] != plies:
        raise Rejected(f"the question asks for {q['plies']!r} plies, the certificate has {plies}")


def check_proof(cert: dict[str, Any]) -> Verdict:
    """Check a last-move proof: the candidate list is complete and every candidate marked
    impossible has a closed proof tree; the claim accepted is "under the stipulation that the
    diagram is legal, its last move(s) are among the candidates not marked impossible".

    What it relies on: the candidate list and each proof node's retractions are generated by the
    engine's retraction generator (retrologic.retract), and every retraction python-chess finds
    by brute force (`unmoves`) must be among them, so completeness rests on python-chess (for
    full positions with a side to move; partial ones trust retract); every candidate step and every proof-tree edge is
    re-derived by python-chess (the forward move is legal and gives back the position above);
    static rules are re-derived by retrologic.legality.rules, and a leaf's message must be the
    one they give; a cage leaf's units must stand in the position, its frozen units must be
    immobile there (frozen in the diagram or pinned by a castling right), and the cage is
    verified again from scratch. The diagram's castling rights, e.p. square, side to move and
    frozen units are those of the certificate's `fen`, `to_move` and `frozen`, which the
    verdict repeats."""
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
        if e["status"] == "possible" and not isinstance(e.get("game"), list):
            raise Rejected(f"candidate {e['notation'][:40]}: possible without a game")
        if e["status"] != "impossible" and e.get("proof") is not None:
            raise Rejected(f"candidate {e['notation'][:40]}: a proof, but not impossible")
        key = (e["notation"], tuple(e["uci"]))
        if key in have:
            raise Rejected(f"candidate {e['notation'][:40]} is listed twice")
        have[key] = e
    sides = [chess.WHITE, chess.BLACK] if diagram.turn is None else [not diagram.turn]
    generated: dict[tuple, _Line] = {}
    for side in sides:
        for c in _candidates_capped(diagram.with_turn(not side), plies, len(have) - len(generated),
                                    diagram.turn is None):
            generated[(c.notation, tuple(r.move().uci() for r in c.line))] = c
    if set(generated) != set(have):
        missing = sorted(n for n, _ in set(generated) - set(have))
        extra = sorted(n for n, _ in set(have) - set(generated))
        raise Rejected(f"candidate list differs: missing {missing[:4]}, extra {extra[:4]}")
    cages = _Cages()
    for key, c in generated.items():
        tick()                              # the check's time limit and Ctrl-C, per candidate
        e = have[key]
        flags = (e.get("uncaptures", [r.uncapture for r in c.line]),
                 e.get("en_passant", [r.en_passant for r in c.line]))
        if flags != ([r.uncapture for r in c.line], [r.en_passant for r in c.line]) or \
                not all(type(x) in (int, type(None)) for x in flags[0]) or \
                not all(type(x) is bool for x in flags[1]):       # 2.0 == 2, 0 == False
            raise Rejected(f"candidate {c.notation}: uncaptures or e.p. flags differ from its moves")
        above = diagram
        for r, pos in zip(c.line, c.positions):
            try:
                _replay(pos, r, above)
            except Rejected as why:
                raise Rejected(f"candidate {c.notation}: {why}") from None
            above = pos
        if e["status"] == "possible":
            if 0 < len(c.line) < plies and \
                    e["game"] != [r.move().uci() for r in reversed(c.line)]:
                # a history shorter than asked began at the array: its game is its own moves
                # (the empty history's, the empty game: `_check_game`)
                raise Rejected(f"candidate {c.notation}: a history of {len(c.line)} of "
                               f"{plies} plies, so its game is its own moves from the start")
            _check_game(e["game"], c, diagram.with_turn(not c.line[0].color if c.line
                                                        else chess.WHITE))
            continue
        if e["status"] != "impossible":
            continue
        if not c.line:
            raise Rejected(f"{GAME_START}: the empty history is not impossible")
        try:
            _check_tree(c.positions[-1], e["proof"], cages)
        except Rejected as why:
            raise Rejected(f"{c.notation}: {why}") from None
    left = [c.notation for key, c in generated.items() if have[key]["status"] != "impossible"]
    shown_possible = [c.notation for key, c in generated.items()
                      if have[key]["status"] == "possible"]
    boards = [on_board(diagram, c.line, diagram.turn is None) for key, c in generated.items()
              if have[key]["status"] == "possible"]
    side = "either side" if diagram.turn is None else chess.COLOR_NAMES[not diagram.turn]
    head = f"diagram {diagram.fen()}" + (
        f" frozen {square_names(diagram.frozen)}" if diagram.frozen else "") + \
        f", {side} moved last, {plies} pl{'y' if plies == 1 else 'ies'}: "
    if not generated:       # the game's start has its empty history (`_candidates_capped`)
        return head + "no candidate last move (no retraction): the diagram is illegal"
    if left == [GAME_START] and len(shown_possible) == 1:
        others = len(generated) - 1
        return head + ("no move has been played: the diagram is the initial array (the empty "
                       "game); " + (f"the other {others} candidate(s) impossible" if others
                                    else "no other candidate"))
    if not left:
        return head + f"all {len(generated)} candidates impossible: the diagram is illegal"
    if len(left) == len(shown_possible):
        which = "unique" if len(left) == 1 else f"several ({len(left)})"
        board = board_moves(boards, plies)
        return head + f"{which}, each shown by a legal game: {_listed(left)}; " \
                      f"every other of the {len(generated)} candidates impossible" + (
                          f"; {board}" if board else "")
    several = len(shown_possible) >= 2      # two games ending with different candidates
    return head + f"{len(generated) - len(left)} of {len(generated)} candidates impossible, " \
                  f"{len(shown_possible)} shown possible by a game" + (
                      f" ({_listed(shown_possible)}): {shown_differ(boards, plies)}"
                      if several else "") + f"; {_last(plies)} among: {_listed(left)}"


Board = tuple[bool | None, str]     # who moved last and the moves as played (`on_board`)


def on_board(diagram: Position, line: list[Retraction], named: bool = False) -> Board:
    """A candidate as played on the board, the units taken unnamed, with the side that moved
    last (None for the empty history): f2xQg1=N and f2xNg1=N are both f2xg1=N, one last move
    to a solver who asks what it was, two candidates here (each predecessor has its own history
    to prove or refute). Only the last move keeps its check mark (the diagram's, whoever is to
    move in it): an earlier move's check may hang on a unit taken after it (review of
    2026-12-06: h5xQg4 Ne6-g5+ and h5xNg4 Ne6-g5, the queen on g4 giving the check). `named`:
    a castling names its side, as the candidates do when the side to move is open."""
    names = [r.notation(n == 0 and in_check(diagram, not r.color), taken=False, side=named)
             for n, r in enumerate(line)]
    return (line[0].color if line else None), " ".join(names) or GAME_START


def board_labels(boards: list[Board]) -> list[str]:
    """The distinct moves on the board, in order, each as `on_board` writes it, with the side
    that moved where two sides' moves read alike (White's and Black's O-O with the side to move
    open, review of 2026-12-06; the solve and the checker now name a castling's side there
    themselves, `on_board(named=True)`, so this stays as a defence for other callers)."""
    distinct = list(dict.fromkeys(boards))
    texts = [text for _, text in distinct]
    return [text if texts.count(text) == 1 or side is None
            else f"{chess.COLOR_NAMES[side]} {text}" for side, text in distinct]


def board_moves(boards: list[Board], plies: int) -> str:
    """What the candidates shown possible, and only they, say on the board, when some differ
    only in the units taken (`on_board`, distinct, in order); empty when none do."""
    labels = board_labels(boards)
    if len(labels) == len(boards):
        return ""
    if len(labels) == 1:
        return f"on the board {_last(plies)} {labels[0]} (only the units taken differ)"
    what = "moves" if plies == 1 else "sequences"
    return f"on the board {len(labels)} {what}: {_listed(labels)}"


def shown_differ(boards: list[Board], plies: int) -> str:
    """What two or more candidates shown possible prove while others are open: the last move
    not unique when they are two moves on the board, else only the units it took (found in
    review, 2026-12-06: three games ending f2xg1=N under a node limit were called "the last
    move is not unique", and proved one move on the board with more nodes)."""
    labels = board_labels(boards)
    if len(labels) >= 2:
        return not_unique(plies)
    return f"the units taken are not unique, all shown being {labels[0]} on the board"


def _last(plies: int) -> str:
    return "the last move is" if plies == 1 else f"the last {plies} single moves are"


def not_unique(plies: int) -> str:
    """What two candidates shown possible prove: with more than one ply, two sequences may
    share their last move (review of 2026-11-30: "the last move is not unique" was claimed of
    `e4 e5 Nf3 Nc6` and `Nf3 e5 e4 Nc6`)."""
    return f"{_last(plies)} not unique"


LISTED = 300   # characters of candidates an accepted claim lists whole (the rest: MAX_CLAIM)


def _listed(notations: list[str]) -> str:
    """The candidates an accepted claim names, whole or by count: a list cut at MAX_CLAIM would
    read as a shorter list of candidates (found in review, 2026-11-30: 163 candidates left, the
    claim ended `..., Nb5-c3, N…`)."""
    return whole_or_counted(notations, LISTED, "candidate", sep=", ")


def diagram_fault(board: chess.Board, diagram: chess.Board) -> str | None:
    """Why `board`, the end of a candidate's game, is not the last-move `diagram` (None: it is).

    The rule of the e.p. convention for retro diagrams: a diagram carries no e.p. information
    of its own; whether an e.p. capture is legal is what the retro analysis decides (e.p. is
    allowed only when the last move is proved to be the double step). So a FEN stating no e.p.
    square ("-") leaves the e.p. state open: the game must reach the placement, the side to
    move and the castling rights, with whatever e.p. state its final move implies (Amelung
    1897: g7-g5, after which h5xg6 e.p. is legal, under "-"). An e.p. square the FEN does state
    stays a hard fact: the game's last move must be that double step. Castling rights are
    compared exactly as the FEN states them (a right stated must still stand, a right missing
    must be lost: `legalgame.checker.reached_fault`). The engine (`lastmove.search`) applies
    this same function before it runs a finder and to every game it finds."""
    from retrologic.legalgame.checker import reached_fault
    return reached_fault(board, diagram, ep_open=True)


def _check_game(moves: Any, c: _Line, diagram: Position) -> None:
    """A possible candidate's game: legal from the initial array (python-chess), reaching the
    diagram (placement, side to move, castling rights, and the e.p. square when the FEN states
    one: `diagram_fault`), its last moves those of the candidate, played from the candidate's
    own positions (each retraction's placement and side to move: the unit uncaptured, a plain
    move or a capture, e.p. or not; a game of Qe1xNd1 is no game of Qe1-d1, though both play
    e1d1), and never moving nor taking a unit the diagram says is frozen."""
    from retrologic.legalgame.checker import replay, untouched
    want = [r.move().uci() for r in reversed(c.line)]
    if not c.line and moves != []:
        raise Rejected(f"candidate {c.notation}: the empty history's game is the empty game")
    if not isinstance(moves, list) or moves[len(moves) - len(want):] != want or \
            len(moves) < len(want):
        raise Rejected(f"candidate {c.notation}: its game does not end with {' '.join(want)}")
    try:
        end = replay(moves, chess.Board(diagram.fen()), ep_open=True)
    except Rejected as why:
        raise Rejected(f"candidate {c.notation}: game: {why}") from None
    for before in c.positions:          # the position before the last move, then earlier ones
        end.pop()
        if end.board_fen() != before.placement.board_fen() or end.turn != before.turn:
            raise Rejected(f"candidate {c.notation}: its game reaches {end.board_fen()} "
                           f"{'w' if end.turn else 'b'} before its last moves, not the "
                           f"candidate's {before.fen().split()[0]}")
    try:                                # the diagram's frozen units never moved nor were taken
        untouched(moves, diagram.frozen)
    except Rejected as why:
        raise Rejected(f"candidate {c.notation}: its game: {why}") from None


def _candidates_capped(pos: Position, plies: int, cap: int, named: bool = False) -> list[_Line]:
    """The engine's candidates(pos, plies) walk (lastmove.search), re-run here, raising Rejected as soon as there are more than
    `cap` (the certificate's list is then incomplete; a long walk is never finished)."""
    out: list[_Line] = [_Line([], GAME_START, [])] if pos.is_game_start() else []

    def walk(p: Position, line: list[Retraction], names: list[str], seen: list[Position]) -> None:
        if len(line) == plies:
            out.append(_Line(list(line), " ".join(names), list(seen)))
        else:
            checked = {c: in_check(p, not c) for c in chess.COLORS}
            rs = retractions(p)
            _complete(p, rs)
            if line and (not rs or p.at_initial_array()):   # no further, or the game's start
                out.append(_Line(list(line), " ".join(names), list(seen)))
            for r in rs:
                q = apply(p, r)
                walk(q, line + [r], names + [r.notation(checked[r.color], side=named)],
                     seen + [q])
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
    if pos.at_initial_array():   # no last move needed (frozen units or castling aside)
        raise Rejected("the initial array needs no last move: it is not impossible")
    rule = node.get("rule")
    if rule is not None:
        if not isinstance(rule, str):
            raise Rejected("a rule must be a string")
        if rule == "retro-stalemate":
            if retractions(pos):
                raise Rejected(f"retractions exist where retro-stalemate is claimed ({pos.fen()})")
            _complete(pos, [])
            _same_message(node, stalemate_message(pos))
            return
        if rule == "cage":
            _check_cage_leaf(pos, node, cages)
            return
        if rule == legality.UNREACHABLE:
            reasons = legality.reachability_reasons(pos)
        elif rule == legality.PAWN_COLUMNS:
            reasons = legality.pawn_column_reasons(pos)
        elif rule == legality.TEMPO:
            reasons = legality.tempo_reasons(pos)
        else:
            reasons = legality.state_and_count_reasons(pos) + legality.cage_rule_reasons(pos)
        found = [r.message for r in reasons if r.rule == rule]
        if not found:
            raise Rejected(f"rule {rule[:40]} does not hold in {pos.fen()}")
        _same_message(node, *found)
        return
    kids = node.get("retractions")
    if not isinstance(kids, list):
        raise Rejected("a node with neither rule nor retractions")
    by_key: dict[tuple, dict[str, Any]] = {}
    for k in kids:
        if not isinstance(k, dict) or not isinstance(k.get("uci"), str) or \
                not isinstance(k.get("retraction"), str) or "proof" not in k or \
                not isinstance(k.get("uncapture"), (int, type(None))):
            raise Rejected("a retraction of a proof node needs 'retraction', 'uci' and 'proof' "
                           "(and 'uncapture' a piece type or null)")
        key = (k["uci"], k.get("uncapture"), k["retraction"])
        if key in by_key:
            raise Rejected(f"retraction {k['retraction'][:40]} listed twice")
        by_key[key] = k
    rs = retractions(pos)
    _complete(pos, rs)
    want = {(r.move().uci(), r.uncapture, r.notation()): r for r in rs}
    if set(want) != set(by_key):
        raise Rejected(f"retractions of {pos.fen()} differ from the proof's")
    for key, r in want.items():
        child = apply(pos, r)
        _replay(child, r, pos)
        _check_tree(child, by_key[key]["proof"], cages)


def stalemate_message(pos: Position) -> str:
    """The words of a retro-stalemate leaf (the engine writes them, the checker compares)."""
    side = chess.COLOR_NAMES[not pos.turn] if pos.turn is not None else "either side"
    return f"{side} made the last move but has no retraction"


def cage_message(name: str, board: str) -> str:
    """The words of a cage leaf: the library entry's name and the cage's board."""
    return f"contains the verified cage {name} ({board})"


def _same_message(node: dict[str, Any], *derived: str) -> None:
    """A leaf's `message`, the words a reader sees, must be one the checker derives itself."""
    if node.get("message") not in derived:
        raise Rejected(f"the leaf's message {shown(node.get('message'), 60)} is not the rule's "
                       f"({shown(derived[0], 60)})")


def _check_cage_leaf(pos: Position, node: dict[str, Any], cages: _Cages) -> None:
    """A cage leaf: the cage's units stand in the position, its frozen units are immobile in
    the position (frozen, or pinned by a castling right) and its zone holds its units, and the
    cage verifies again from scratch (no library; at most REVERIFY_NODES positions). Its `name`
    (the library entry's) is shown only, in its `message`; the cage itself is checked."""
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
        if cages.left <= 0:
            raise Rejected(f"more than {REVERIFY_TOTAL} positions of cages to verify again")
        ok, why, states = reverify({"cage": board, "zone": zone, "frozen": frozen, "model": model},
                                   nodes=min(REVERIFY_NODES, cages.left))
        cages.done[key] = (ok, why)
        cages.left -= max(states, 1)
    ok, why = cages.done[key]
    if not ok:
        raise Rejected(why)
    name = node.get("name")
    if not isinstance(name, str):
        raise Rejected("a cage leaf needs its 'name', a string")
    _same_message(node, cage_message(name, board))



def reverify(node: dict[str, Any], nodes: int | None = None) -> tuple[bool, str, int]:
    """Re-verify the cage named by a proof leaf, from scratch (no library), in at most `nodes`
    positions; (proved, why not, positions reached). The caller validates the leaf's fields."""
    from retrologic.cages.search import verify
    from retrologic.errors import InputError
    from retrologic.position import Placement
    start = Position(Placement.from_board_fen(node["cage"]), None, 0, None, _mask(node["frozen"]), True)
    try:
        res = verify(start, _mask(node["zone"]), (), None, model=node["model"], nodes=nodes,
                     budget=check_budget())    # the check's time limit and Ctrl-C
    except InputError as e:
        return False, f"cage {node['cage']} cannot be verified: {e}", 0
    if res.verdict == "unknown":
        return False, f"cage {node['cage']} too large to verify again ({res.reason})", res.states
    return res.proved, f"cage {node['cage']} does not verify again ({res.verdict})", res.states


def _mask(names: list[str]) -> int:
    out = 0
    for n in names:
        out |= chess.BB_SQUARES[chess.parse_square(n)]
    return out
