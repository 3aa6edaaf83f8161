"""A target whose last move must have been a capture, a promotion or a pawn's check: the game
reaches a position before that move and then plays it (issue #19).

The finder makes its captures first and then places the units (`legalgame.finder`), so it ends a
game on a capture only when that capture happens to land on the target exactly. When every
retraction of the target (Hwa's retraction, `retrologic.retract`) that no static rule refutes is
an uncapture or an un-promotion, the last move took a unit or promoted -- in seed 10569 a
rook gives check along an open f-file from f4, so it took the unit that stood there (every
retraction uncaptures on f4); seed 10516's only retraction is f2-f1=Q++ -- and the finder's
two phases miss such a target. Its predecessors lose that bond: the finder runs on them in
turns (`Turns`, each turn's share of positions doubling per round), and a game found to one,
followed by the retraction's move, must reach the target exactly (the checker's
`reaches`). Measured
(bench/README-legal.md, 2026-11-29 night): such targets are 17 of 6,600 random positions (seeds
10000-16599); the finder on the target found none of them at 25 s of CPU, the turns on their
predecessors 13, in 1.0-22.3 s. A pawn that checks the side to move made the last move
(`checked_by_pawn`): the finder, which may place that pawn early and then finds the target
unreachable with the check on the wrong side's move, goes through the positions before it too.
"""

from __future__ import annotations

from typing import Callable, Protocol

import chess

from retrologic.legalgame.checker import reaches
from retrologic.legality import rules as legality
from retrologic.limits import Budget, in_share
from retrologic.position import Position
from retrologic.retract import Retraction, apply, retractions

FIRST_SLICE = 600      # positions of each start's first turn; doubled every round
MOST_BEFORE = 8        # predecessors tried at most (the target's retractions, best first)
INITIAL = chess.BaseBoard()   # the game array: how many units of each type a side starts with


class Resumable(Protocol):
    """What `legalgame.find.Finders` offers: a turn under a budget, resumed by the next call."""

    def run(self, budget: Budget) -> list[chess.Move] | None: ...


def retraction_order(target: chess.BaseBoard, r: Retraction) -> tuple[int, bool, bool]:
    """The order predecessors are tried in: no uncapture first (no unit to bring back), then
    an uncaptured unit of a type its side has fewer of than in the initial array (no extra
    promotion to explain), then the rest; within each, un-promotions last, pawns first."""
    if r.uncapture is None:
        return (0, r.unpromotion, False)
    kind, side = r.uncapture, not r.color
    fewer = chess.popcount(target.pieces_mask(kind, side)) < \
        chess.popcount(INITIAL.pieces_mask(kind, side))
    return (1 if fewer else 2, r.unpromotion, kind != chess.PAWN)


def checked_by_pawn(target: chess.Board) -> bool:
    """The side to move stands in check from a pawn: that pawn moved there last (had it stood
    there before, its side would have moved with the opponent's king in check), so every
    retraction moves it back. The finder, which places its units in any order, reached 33 of
    69 such targets at 10 s; through the positions before it, with the target itself one of
    the starts (`Turns`), 48 (bench/README-legal.md, 2026-12-02 morning)."""
    return bool(target.checkers_mask() & target.pawns)


def bound_last_move(target: chess.Board) -> list[tuple[chess.Board, chess.Move]] | None:
    """The positions before the target's last move that no static rule refutes, best first
    (`retraction_order`), at most MOST_BEFORE, as (position, its move to the target), when
    every such retraction is an uncapture or an un-promotion, or a pawn gives the target's
    check (`checked_by_pawn`); None when a plain move (no capture, no promotion) may have been
    the last one and no pawn checks, or no retraction fits."""
    pos = Position.from_board(target)
    found = []
    pawn_check = checked_by_pawn(target)
    for r in sorted(retractions(pos), key=lambda r: retraction_order(target, r)):
        before = apply(pos, r)
        if legality.state_and_count_reasons(before):
            continue
        if r.uncapture is None and not r.unpromotion and not pawn_check:
            return None
        found.append((before.to_board(), r.move()))
        if len(found) == MOST_BEFORE:
            break           # the plain retractions come first
    return found or None


class Turns:
    """The finder on the positions `before` the target in turns (round robin, each turn's
    positions doubling per round from FIRST_SLICE), all together within `node_cap` positions;
    `make(board, cap)` makes the resumable finders of one start. A target checked by a pawn is
    itself the first start (move None): its predecessors alone found 19 of 29 pawn-checked
    targets at 10 s, with it 22, the finder on the target alone 16 (bench/README-legal.md,
    2026-12-02 morning). Resumable like `find.Finders`: a call after a LimitHit goes on with
    the starts still live, the slice reached and the positions spent (the proof-game route's
    turns, `proof_route.with_route`)."""

    def __init__(self, target: chess.Board, before: list[tuple[chess.Board, chess.Move]],
                 node_cap: int, make: Callable[[chess.Board, int], Resumable]) -> None:
        self.target = target
        self.node_cap = node_cap
        starts: list[tuple[chess.Board, chess.Move | None]] = \
            [(target, None)] if checked_by_pawn(target) else []
        starts += before
        self.live = [(make(board, node_cap), move) for board, move in starts]
        self.slice = FIRST_SLICE
        self.spent = 0             # positions charged over every call

    def run(self, budget: Budget) -> list[chess.Move] | None:
        """A game to the target, or None when every start's finders stopped or the cap is
        spent; LimitHit when the budget runs out (call again to go on)."""
        spent_at_start = budget.spent
        try:
            return self._run(budget, lambda: self.node_cap - self.spent -
                             (budget.spent - spent_at_start))
        finally:
            self.spent += budget.spent - spent_at_start

    def _run(self, budget: Budget, left: Callable[[], int]) -> list[chess.Move] | None:
        while self.live:
            for start in list(self.live):
                if left() < 2:
                    return None
                finders, move = start
                # a search stops one position past its share: so the cap holds
                inner = budget.share(nodes=min(self.slice, left()) - 1)
                head = in_share(budget, inner, finders.run)
                if head is None and inner.nodes_left() < 0:
                    continue                    # its share spent: its turn again next round
                self.live.remove(start)         # its finders are done, or gave a game
                if head is not None:
                    game = self.ending(head, move)
                    if game is not None:
                        return game
            self.slice *= 2
        return None

    def ending(self, head: list[chess.Move], move: chess.Move | None) -> list[chess.Move] | None:
        """`head` and then `move` (None: the target's own start), when it replays legally to
        the target exactly."""
        game = head if move is None else head + [move]
        return game if reaches(game, self.target) else None


__all__ = ["FIRST_SLICE", "MOST_BEFORE", "Turns", "bound_last_move", "checked_by_pawn",
           "retraction_order"]
