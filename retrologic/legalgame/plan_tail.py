"""The plan finder's entry: a short tail of retractions first, then the target (issue #19).

The finder makes its captures before it places the pieces, so a target whose last moves were
captures (or a promotion) inside a closed region cannot be reached that way: in Brandis'
position before Ka2-a1 (8/8/8/8/8/1P6/KPkPP3/1R1b4 w) the rook on b1 and the black king on c2
can only have arrived by Ra1xXb1+ Kc1-c2, a capture in the cage after it was closed. So the
tail retracts up to `TAIL_PLIES` plies (`retrologic.retract`, typed uncaptures), drops the
predecessors a static rule refutes (`legality.rules`) or the proof-game analysis finds
impossible, orders the rest (a capture retracted first, no check, then by how closed they are:
`plan_order.settle_layers`) and runs the staged search (`plan.plan_finder`) on the first
`TAIL_TRIES`; the tail's moves are then played forward, each checked legal by python-chess,
and the end compared with the target. Last, the staged search runs on the target itself.

Nothing here is a proof: the game found is replayed by the caller (`legalgame.checker`); no
game found is *unknown*. Limits: the same `Budget` (LimitHit) and a node cap (a count) shared by
all the tries.
"""

from __future__ import annotations

import chess

from retrologic.legalgame.checker import reaches
from retrologic.legalgame.plan import plan_finder
from retrologic.legalgame.plan_order import settle_layers, settle_steps
from retrologic.legalgame.stipulated import immobile
from retrologic.legality.rules import reasons
from retrologic.limits import Budget
from retrologic.position import Position
from retrologic.retract import Retraction, apply, retractions
from retrologic.spg.analysis import Analysis

TAIL_PLIES = 2        # plies retracted at most before the staged search
TAIL_WEIGHTS = (4, 2, 1)  # the tails' shares of the cap against the target's (1), best first
TAIL_TRIES = len(TAIL_WEIGHTS)  # predecessors the staged search is run on, best first
TAIL_POSITIONS = 200  # predecessors looked at, at most (each costs an analysis)
TAIL_SHARE = 10       # ... and at most this fraction of the node cap (1/TAIL_SHARE)
UNREACHABLE = (1 << 30, 0, 0, 0, 0)  # closedness of a predecessor proved unreachable


def closedness(board: chess.Board, uncaptures: int) -> tuple[int, ...]:
    """How promising a predecessor is (lower first): a capture retracted (the finder cannot
    end on one), not in check (a check asks the game to end on a checking move), fewer settle
    layers, its pieces weighted by the depth of their layer (how closed), fewer units added."""
    analysis = Analysis(chess.Board(), board, extra_frozen=immobile(board))
    if analysis.impossible:
        return UNREACHABLE
    layers = settle_layers(board, analysis.frozen)
    depth = sum(i * len(layer) for i, layer in enumerate(layers))
    return (int(uncaptures == 0), int(board.is_check()), len(layers), depth, uncaptures)


def tails(target: chess.Board, budget: Budget,
          limit: int = TAIL_POSITIONS) -> list[tuple[chess.Board, list[chess.Move]]]:
    """Predecessors of `target` up to TAIL_PLIES plies back that no static rule refutes, best
    first, each with the moves that lead forward from it to the target; at most `limit`
    (and TAIL_POSITIONS) predecessors are looked at, each charged to `budget`."""
    limit = min(limit, TAIL_POSITIONS)
    looked = 0
    found: list[tuple[tuple[int, ...], int, chess.Board, list[chess.Move]]] = []
    frontier: list[tuple[Position, list[Retraction]]] = [(Position.from_board(target), [])]
    for _ in range(TAIL_PLIES):
        nxt = []
        for pos, line in frontier:
            for r in retractions(pos):
                if looked >= limit:
                    break
                looked += 1
                budget.check(1)
                before = apply(pos, r)
                if reasons(before):
                    continue
                board = before.to_board()
                new_line = [r] + line
                score = closedness(board, sum(x.uncapture is not None for x in new_line))
                if score == UNREACHABLE:
                    continue
                found.append((score, len(found), board, [x.move() for x in new_line]))
                nxt.append((before, new_line))
        frontier = nxt
    found.sort(key=lambda row: (row[0], row[1]))
    return [(board, moves) for _, _, board, moves in found]


def find_with_tail(base: type, target: chess.Board, budget: Budget,
                   node_cap: int) -> list[chess.Move] | None:
    """A game to `target` (no e.p. square) by the staged search on the plain finder class
    `base`: through the best TAIL_TRIES predecessors, then to the target itself; None when
    none is found (LimitHit: the budget ran out). The tails come first: measured, the games
    the plain finder misses end on a capture or a promotion in a closed corner (Brandis:
    Rxb1+ Kc2; Stambuk's record: ...f2-f1=B Kh2-g2), which only a tail supplies.

    `node_cap` is a cap on everything charged to `budget` here, the predecessors looked at
    included: each try gets its weight's share of what is left (`TAIL_WEIGHTS`: the best tail
    half, the next a quarter, the third and the target itself an eighth each: the plain finder
    already failed on the target), so what one try leaves unspent goes to the next (issue #19:
    this was up to 3.5 times the cap; Brandis' best tail needs about 27,000 positions)."""
    start = budget.spent

    def left() -> int:
        return node_cap - (budget.spent - start)

    cls = plan_finder(base)
    probe = cls(target, budget, 1)
    if probe.analysis.impossible:
        return None
    found = tails(target, budget, max(left() // TAIL_SHARE, 0))[:TAIL_TRIES]
    weights = list(TAIL_WEIGHTS[:len(found)]) + [1]
    tries = found + [(target, [])]
    if any(hold for _goal, hold in settle_steps(target, probe.frozen)):
        # a pawn of the target must wait for a piece to pass (a door: `settle_steps`), which
        # the plain finder cannot know and no tail supplies: the target itself first, with
        # the best share (Ceriani 1951 before Kg8xQh8: 3,225 positions so, 55,750 last)
        tries = [(target, [])] + found
    for number, (board, tail) in enumerate(tries):
        # a finder charges one position over its own cap before it gives up: hence the -1
        cap = left() * weights[number] // sum(weights[number:]) - 1
        if cap < 1:
            continue
        finder = cls(board, budget, cap)
        finder.plan()
        head = finder.find()
        # compared as the checker compares (the e.p. state included: a tail ending on a double
        # step that leaves an e.p. capture legal reaches another position than the target)
        if head is not None and reaches(head + tail, target):
            return head + tail
    return None


__all__ = ["TAIL_PLIES", "TAIL_TRIES", "find_with_tail", "tails"]
