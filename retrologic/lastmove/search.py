"""Last-move and last-N-moves problems: every candidate but the answer is *proved* impossible.

For each candidate sequence of N retractions, the position it leads to is
  * impossible — an AND-proof: every retraction from it leads to an impossible position, down to
    leaves closed by a static rule (retrologic.legality.rules), a verified cage, or no retraction at all;
  * possible — proved by a legal game from the initial array whose last moves are the
    candidate (a game to the position before it, by `legalgame.find`, then the candidate);
  * unresolved — neither within the limits (a further line of retractions no rule refutes may
    be shown: "not refuted", not a proof).
The candidates are decided in rounds over the whole list, cheapest first (`decide`): proof
trees, then proof trees with cage discovery, then games. The answer is *proved* when no
candidate is unresolved: *unique* (one possible, each other
impossible), *several* (two or more possible, each with its game: the problem is cooked) or
*none possible* (every candidate impossible: the diagram is illegal); and *several* too,
not complete, when two or more are shown possible and others are left unresolved (two games
ending with different candidates prove that the last move, or the last N, is not unique).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import chess

from retrologic.lastmove.checker import (Board, Status, diagram_fault, on_board, shown_differ,
                                         stalemate_message)
from retrologic.lastmove.given import mark_shown
from retrologic.legality import rules as legality
from retrologic.limits import Budget, LimitHit, active, budget_for
from retrologic.position import GAME_START, Position
from retrologic.result import Verdict
from retrologic.retract import Retraction, apply, in_check, retractions

CERTIFY_NODES = 144_000  # positions the game finders expand per candidate at most (a count)
PLAN_WEIGHT = 2          # the plan finder's share of the cap against each plain finder's (1)
SHORT_ROUND = 4_500      # the plain finder's restart schedule, its first two rounds (300, 600)
# the modes of a certification try: the plain finder's schedule cut short, the plan finder,
# the plain finder's whole schedule (its unjittered first pass, 7,500 positions, was dropped on
# 2026-12-01: bench/lastmove-collection/README.md)
SHORT, PLAN, PLAIN = "short", "plan", "plain"
FIXED = {SHORT: SHORT_ROUND}    # the modes with a fixed cap

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
        (the clock is read at every position: most cost a millisecond, but one whose static
        rules run the pawn-columns kernel search may take a tenth of a second or more, and 16
        of those overshot a 1 s limit by 8 s: review of 2026-11-30)."""
        self.nodes += 1
        self.budget.check(1, every=1)


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
    Retractor's cages, then the proof-game bound (`legality.reachability`: the record
    problems' capture and promotion counts), then the pawn columns (`legality.pawn_columns`),
    the dearer rules, only when the cheaper ones find nothing; last the tempo parity
    (`legality.tempo`, positions without a capture)."""
    found = legality.state_and_count_reasons(pos) or legality.cage_rule_reasons(pos) or \
        legality.reachability_reasons(pos) or legality.pawn_column_reasons(pos) or \
        legality.tempo_reasons(pos)
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
    if pos.at_initial_array():
        return None  # the game array itself (with frozen units too: audit of 2026-12-05)
    fen = pos.fen()
    reason = static_rule(pos)
    if reason is not None:
        return {"fen": fen, "rule": reason.rule, "message": reason.message}
    rs = retractions(pos)
    if not rs:
        return {"fen": fen, "rule": "retro-stalemate", "message": stalemate_message(pos)}
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
    if plies == 0 or pos.at_initial_array():
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
    status: Status = Status.UNRESOLVED
    proof: dict[str, Any] | None = None
    game: list[chess.Move] = field(default_factory=list)       # possible: the game to the diagram
    given: str | None = None            # possible by a game the user gave: the field it came in
    began: bool = False     # a line shorter than asked: the game began at its leaf, the array
    diagram: Position | None = None                             # with the side to move it fixes
    support: list[Retraction] = field(default_factory=list)   # the supporting line, from the leaf
    support_line: list[str] = field(default_factory=list)     # its notation
    reason: str | None = None
    named: bool = False     # a castling names its side (the side to move open: `candidates`)

    @property
    def board(self) -> Board:
        """Who moved last and the candidate as played on the board (`checker.on_board`)."""
        assert self.diagram is not None, "every listed candidate has its diagram"
        return on_board(self.diagram, self.line, self.named)


def candidates(pos: Position, plies: int, budget: Budget | None = None,
               named: bool = False) -> list[Candidate]:
    """Every sequence of `plies` retractions from `pos` (alternating sides), and a shorter one
    ending where no retraction exists (retro-stalemate) or at the initial array (the game may
    begin there: audit of 2026-12-05, 1.e4 was no 2-ply candidate); a diagram that is the
    game's start has the empty history too (`GAME_START`, possible by the empty game). Each
    position listed is one node of `budget`, whose limits and Ctrl-C stop the walk (LimitHit).
    `named`: a castling names its side (the diagram's side to move is open)."""
    out: list[Candidate] = []
    if pos.is_game_start():
        out.append(Candidate([], GAME_START, [pos], Status.POSSIBLE, diagram=pos))

    def walk(p: Position, line: list[Retraction], names: list[str], seen: list[Position]) -> None:
        if budget is not None:
            budget.check(1, every=16)
        if len(line) == plies:
            out.append(Candidate(list(line), " ".join(names), list(seen), diagram=pos,
                                 named=named))
            return
        checked = {c: in_check(p, not c) for c in chess.COLORS}
        rs = retractions(p)
        if line and (not rs or p.at_initial_array()):
            # a prefix that cannot be extended (refuted by retro-stalemate), or one from where
            # the game may have begun (`began`: the game is then its own moves)
            out.append(Candidate(list(line), " ".join(names), list(seen), diagram=pos,
                                 began=p.at_initial_array(), named=named))
        for r in rs:
            q = apply(p, r)
            walk(q, line + [r], names + [r.notation(checked[r.color], side=named)],
                 seen + [q])

    walk(pos, [], [], [])
    return out


def decide(cands: list[Candidate], search: Search) -> str | None:
    """Decide the candidates in rounds over the whole list, cheapest first: proof trees with
    static rules, retro-stalemate and known cages (depth 0 to `limits.depth`); then, where
    closers are given, the same with cage discovery where stuck (to `discover_depth`); then, for
    each candidate still standing, a supporting line and a legal game (`certify`). Returns the
    reason of a limit of the budget hit meanwhile (every candidate not decided by then is left
    unresolved with it), else None.

    Why rounds (issue #19): candidate by candidate, the answer's certification (up to
    CERTIFY_NODES positions) ran before the refutations of the candidates listed after it, so
    a time limit left them unresolved although each is refuted in a few nodes. Measured on
    `bench/lastmove-collection`: dawson-record-pxb (b6xNa7 and b6xPa7 retro-stalemate in one
    node each, unresolved behind b6xBa7's certification) and ceriani-1951 (Kg8xRh8, Kg8xNh8:
    1 and 3 nodes, behind Kg8xQh8's). The work per candidate is the same as before."""
    rounds = [(False, search.limits.depth)]
    if search.closers:
        rounds.append((True, min(search.limits.depth, search.limits.discover_depth)))
    try:
        for discovering, depth in rounds:
            search.discovering = discovering
            for c in cands:
                if c.status == Status.UNRESOLVED:    # the empty history is possible at once
                    _refuted(c, depth, search)
        search.discovering = False
        for c in cands:
            if c.status == Status.UNRESOLVED:
                _show(c, search)
    except LimitHit as e:
        for c in cands:
            if c.status == Status.UNRESOLVED and c.reason is None:
                c.reason = e.reason
        return e.reason
    finally:
        search.discovering = False
    return None


def classify(c: Candidate, search: Search) -> str | None:
    """Decide one candidate alone (the rounds of `decide` on it): impossible (with proof),
    possible (with a game) or unresolved; returns the reason of a limit of the budget hit
    meanwhile (the candidate is then unresolved), else None."""
    return decide([c], search)


def _refuted(c: Candidate, depth: int, search: Search) -> bool:
    """Iterative deepening of `refute` on the candidate's leaf, to `depth` plies (the search's
    current pass: with or without discovery); True (and the candidate impossible) when proved."""
    for d in range(0, depth + 1):
        proof = refute(c.positions[-1], d, search)
        if proof is not None:
            c.status, c.proof = Status.IMPOSSIBLE, proof
            return True
    return False


def _show(c: Candidate, search: Search) -> None:
    """A candidate no proof tree refuted: a legal game ending with it (`certify`: possible), or
    unresolved with its supporting line ("not refuted") when there is one."""
    leaf = c.positions[-1]
    line = support(leaf, search.limits.support, search)
    if certify(c, search, line or []):
        return
    c.status = Status.UNRESOLVED
    fault = tail_fault(c)
    if line is not None:
        c.support, c.support_line = line, _names(leaf, line)
        c.reason = "not refuted (a line of retractions no rule refutes), and no game found"
    else:
        c.reason = (f"no proof within {search.limits.depth} plies, no game found and no "
                    f"supporting line of {search.limits.support} plies")
    if fault is not None:
        c.reason += f" (no game can show it: its moves do not reach the diagram: {fault})"


def certify(c: Candidate, search: Search, line: list[Retraction]) -> bool:
    """Prove the candidate possible: a legal game to the position before it, followed by the
    candidate's moves, replayed by python-chess to the diagram exactly. True (and the
    candidate possible, with its game) when found.

    The tries, cheapest first (`certify_tries`), each on the position before the candidate
    and then on the earliest position of the supporting `line` (retracting further can undo
    what makes the position before it hard; the line's moves then played forward): the plain
    finder's restart schedule cut short (SHORT_ROUND); only when these failed the plan finder
    on the position before the candidate; last the plain finder's whole schedule on both. All
    share one cap of CERTIFY_NODES positions: after the fixed short tries each gets its
    weight's share of what the earlier ones left (PLAN_WEIGHT for the plan finder, 1 for a
    whole schedule: 9,000, then 67,500, 33,750 and 33,750 when all fail). Issue #19: the plan
    finder alone used to spend up to 3.5 times the finder's cap of 30,000, on each of the two
    positions. Measured: short schedules find most games (angelini-1995-3plies in 2,133
    positions; august-1924's in 1,283 since the walls of `legalgame.walls`: before them only
    an unjittered first pass of the plain finder found it, a try dropped on 2026-12-01); the
    line's earliest position gives the games of myllyniemi-1955, petrovic-last6 and
    stambuk-record-k (610 to 2,606 positions, while 30,000 on the position before fail); the
    plan finder Brandis' (27,074)."""
    if tail_fault(c) is not None:
        return False            # no game ending with these moves reaches the diagram
    if c.began:                 # its only game: its moves from the game's start
        c.status, c.game = Status.POSSIBLE, [r.move() for r in reversed(c.line)]
        return True
    tries = certify_tries(c, line)
    weights = [0 if mode in FIXED else PLAN_WEIGHT if mode == PLAN else 1
               for _, _, mode in tries]
    start = search.budget.spent
    for number, (begin, moves, mode) in enumerate(tries):
        left = CERTIFY_NODES - (search.budget.spent - start)
        later = sum(FIXED.get(m, 0) for _, _, m in tries[number + 1:])
        cap = min(FIXED[mode], left) if mode in FIXED else \
            (left - later) * weights[number] // sum(weights[number:])
        game = _game_through(begin, moves, c, search, cap, mode)
        if game is not None:
            c.status, c.game = Status.POSSIBLE, game
            return True
    return False


def tail_fault(c: Candidate) -> str | None:
    """Why the candidate's moves, played by python-chess from the position before it, do not
    reach its diagram (`checker.diagram_fault`: then no game ending with them can;
    `_game_through` makes the same comparison), or None. Found cheaply before any finder runs:
    e.g. a candidate that is not the double step over the e.p. square the diagram's FEN states.
    A FEN stating no e.p. square leaves the e.p. state open (the e.p. convention): before
    that rule, amelung-1897's g7-g5 (h5xg6 e.p. legal after it, under "-") was skipped here.
    A candidate that `began` at the initial array plays from the game's start, every castling
    right standing (review of 2026-12-06: its finder reached the array with rights lost, and
    a 9-ply game "showed" the history 1.e4 of a diagram stating Qq)."""
    if c.diagram is None:
        return "no diagram"
    board = chess.Board() if c.began else c.positions[-1].to_board()
    for r in reversed(c.line):
        move = r.move()
        if not board.is_legal(move):
            return f"{move.uci()} is not legal in {board.fen()}"
        if (chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]) \
                & c.diagram.frozen:
            return f"{move.uci()} moves a unit stipulated never to have moved"
        board.push(move)
    return diagram_fault(board, c.diagram.to_board())


def certify_tries(c: Candidate, line: list[Retraction]
                  ) -> list[tuple[Position, list[chess.Move], str]]:
    """The order `certify` tries: (start position, moves from it to the diagram, mode) with
    mode SHORT (the plain finder's restart schedule cut short), PLAN (the plan finder) or PLAIN
    (its whole schedule): on the position before the candidate and on the supporting line's
    earliest position, the short schedule; then the plan finder on the position before the
    candidate; then the whole schedule on both."""
    leaf = c.positions[-1]
    tail = [r.move() for r in reversed(c.line)]
    starts = [(leaf, tail)]
    if line:
        earliest = leaf
        for r in line:
            earliest = apply(earliest, r)
        starts.append((earliest, [r.move() for r in reversed(line)] + tail))
    return ([(pos, moves, SHORT) for pos, moves in starts]
            + [(leaf, tail, PLAN)]
            + [(pos, moves, PLAIN) for pos, moves in starts])


def _game_through(start: Position, moves: list[chess.Move], c: Candidate, search: Search,
                  cap: int, mode: str) -> list[chess.Move] | None:
    """A game to `start` (the finder `mode` says, at most `cap` positions) followed by
    `moves`, when it replays legally to the candidate's diagram exactly (None otherwise)."""
    from retrologic.legalgame.find import find_game
    from retrologic.legalgame.stipulated import touches
    if cap < 2:
        return None
    spent = search.budget.spent
    try:
        # without the finder's capture cut: measured on bench/lastmove-collection, it made
        # husserl-1966's game cost 14,901 positions instead of 2,273 and myllyniemi-1955's
        # 17,167 instead of 6,763 (the cut helps `legal` on random positions, not here)
        head = find_game(start.to_board(), search.budget, node_cap=cap, plain=mode != PLAN,
                         plan=mode == PLAN, victims=False, frozen=start.frozen)
    finally:        # the finder's positions count as the solve's nodes (one budget)
        search.nodes += search.budget.spent - spent
    if head is None:
        return None
    board = chess.Board()
    for move in head:
        board.push(move)
    for move in moves:
        if not board.is_legal(move):
            return None
        board.push(move)
    if c.diagram is None or diagram_fault(board, c.diagram.to_board()) is not None:
        return None
    if touches(head + moves, c.diagram.frozen):   # units stipulated never to have moved
        return None
    return head + moves


def _names(pos: Position, line: list[Retraction]) -> list[str]:
    out = []
    for r in line:
        out.append(r.notation(in_check(pos, not r.color)))
        pos = apply(pos, r)
    return out


class Finding(StrEnum):
    """What a proved answer found: exactly one candidate possible (each other impossible), two
    or more possible (each with its game: cooked; when candidates are left unresolved, at
    least those shown), or none (the diagram is illegal)."""

    UNIQUE = "unique"
    SEVERAL = "several"
    NONE = "none possible"


@dataclass
class LastMoveResult:
    """All candidates with their verdicts, per side that may have moved last."""

    candidates: list[Candidate]
    verdict: Verdict
    answer: list[str]
    reason: str | None
    illegal_for: list[str]
    nodes: int
    seconds: float
    finding: "Finding | None" = None     # proved: unique, several or none possible
    listed: bool = True                  # every side's candidate list generated whole
    complete: bool = True    # every candidate decided (a proved one not: several, at least)
    plies: int = 1           # the question's number of last single moves


def solve(pos: Position, plies: int = 1, limits: Limits | None = None,
          closers: list[Closer] | None = None, games: list | None = None) -> LastMoveResult:
    """Solve "what were the last `plies` single moves?" for a full position (`games`: given).

    Once a limit of the budget is hit (nodes, time, Ctrl-C) the candidates not yet decided are
    left unknown with its reason, without searching them."""
    limits = limits or Limits()
    search = Search(limits, list(closers or []))
    with active(search.budget):      # static rules deep in the search poll it
        sides = [chess.WHITE, chess.BLACK] if pos.turn is None else [not pos.turn]
        all_cands: list[Candidate] = []
        listed: list[tuple[chess.Color, list[Candidate]]] = []    # the sides whose list is complete
        illegal_for = []
        hit: str | None = None
        for side in sides:
            spent = search.budget.spent
            try:
                cands = [] if hit else candidates(pos.with_turn(not side), plies, search.budget,
                                                  named=pos.turn is None)
            except LimitHit as e:
                hit, cands = e.reason, []
            finally:        # the positions listed count as the solve's nodes (one budget)
                search.nodes += search.budget.spent - spent
            if hit is None:
                listed.append((side, cands))
                hit = mark_shown(cands, games or [], plies, side, lambda q: refute(q, 0, search))
            all_cands.extend(cands)
        if hit is None:
            hit = decide(all_cands, search)
        else:
            for c in all_cands:
                c.reason = hit
        for side, cands in listed:     # every candidate of the side proved impossible
            if all(c.status == Status.IMPOSSIBLE for c in cands):
                illegal_for.append(chess.COLOR_NAMES[side])
        survivors = [c for c in all_cands if c.status != Status.IMPOSSIBLE]
        unresolved = [c for c in all_cands if c.status == Status.UNRESOLVED]
        possible = [c for c in all_cands if c.status == Status.POSSIBLE]
        answer = [c.notation for c in survivors]
        finding = None
        if hit is not None and len(listed) < len(sides):
            verdict = Verdict.UNKNOWN       # not "0 candidate(s) unresolved": none was listed
            reason = f"{hit} before the candidates were all listed"
        elif unresolved and len(possible) >= 2:
            # two games ending with different candidates prove the answer not unique,
            # whatever the unresolved ones are: several, the possible ones a lower bound
            verdict, finding = Verdict.PROVED, Finding.SEVERAL
            reason = (f"{shown_differ([c.board for c in possible], plies)}: at least "
                      f"{len(possible)} candidates possible, "
                      f"each shown by a legal game; {len(unresolved)} unresolved: "
                      + (hit or unresolved[0].reason or "no game found"))
        elif hit is not None:
            verdict = Verdict.UNKNOWN
            reason = f"{hit}: {len(unresolved)} candidate(s) unresolved" + (
                "" if not unresolved else (
                    ": " + ", ".join(c.notation for c in unresolved[:5])
                    + (", ..." if len(unresolved) > 5 else "")))
        elif unresolved:
            verdict = Verdict.UNKNOWN
            reason = f"{len(unresolved)} candidate(s) unresolved: " + "; ".join(
                f"{c.notation}: {c.reason}" for c in unresolved[:5])
        elif not survivors:
            verdict, finding = Verdict.PROVED, Finding.NONE
            reason = "every candidate is impossible: the position is illegal" if all_cands \
                else _no_candidate(pos, sides)
        else:
            verdict, reason = Verdict.PROVED, None
            finding = Finding.UNIQUE if len(survivors) == 1 else Finding.SEVERAL
        return LastMoveResult(all_cands, verdict, answer, reason, illegal_for, search.nodes,
                              time.perf_counter() - search.started, finding,
                              listed=len(listed) == len(sides), complete=not unresolved,
                              plies=plies)


def _no_candidate(pos: Position, sides: list[chess.Color]) -> str:
    """Why no move at all can have been played last: per side, its retro-stalemate, with the
    diagram's first static fault beside it when it has one (review of 2026-11-30: "every
    candidate is impossible" said nothing when there was none; a static fault alone can be
    beside the point, e.g. a castling right, which leaves every retraction standing)."""
    why = []
    for side in sides:
        before = pos.with_turn(not side)
        found = legality.state_and_count_reasons(before)
        why.append(stalemate_message(before) + (
            f" (also: {found[0].message}, {found[0].rule})" if found else ""))
    # the game's start is no such position: its empty history is a candidate (`candidates`)
    return "no candidate last move: " + "; ".join(why) + ": the position is illegal"


def certificate(diagram: Position, plies: int, result: LastMoveResult) -> dict[str, Any]:
    """The proof of a last-move answer: every candidate, each impossible one with its proof
    tree, each possible one with its legal game from the initial array."""
    from retrologic.certformat import stamp
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
             "status": c.status, "proof": c.proof,
             **({"game": [m.uci() for m in c.game]} if c.status == Status.POSSIBLE else {})}
            for c in result.candidates],
    })
