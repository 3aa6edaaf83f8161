"""The legal-game finders' entry (issue #19): `find_game` runs the plain finder
(`legalgame.finder.Finder`), then the plan finder (`legalgame.plan_tail`), and for a position
near the initial array takes turns with the proof-game route (`legalgame.proof_route`);
`Finders` is that schedule, resumable between turns. A target whose last move must have been a
capture, a promotion or a pawn's check goes through the positions before it
(`legalgame.last_move`). What it returns is a game to replay, never a proof: `legalgame.checker`
replays it with python-chess.
"""

from __future__ import annotations

from typing import Callable

import chess

from retrologic.collector import paused_collector, sparing_collector
from retrologic.legalgame.finder import FIND_NODES, Finder
from retrologic.legalgame.stipulated import stipulated, touches
from retrologic.limits import Budget, LimitHit


def find_game(target: chess.Board, budget: Budget, node_cap: int = FIND_NODES, *,
              plain: bool = True, plan: bool = True, victims: bool = True,
              route: bool = False, frozen: int = 0) -> list[chess.Move] | None:
    """A legal game from the initial array to `target` (see `Finder`); an e.p. square in the
    target is the double step just played: the game reaches the position before it, then plays
    it. None: no game found within the tries or `node_cap` positions (LimitHit: the budget ran
    out). `plain` and `plan` choose the finders (both: the plain finder, then the plan finder
    on what it left of the cap); `victims` False leaves the plain finder's capture cut
    (`kernel.victims_fit`) off. The cap is a cap: all together charge at most `node_cap`
    positions to `budget` (issue #19). `route`: a position whose proof-game bound is small is
    also searched by `legalgame.proof_route` (its search nodes are charged besides the cap).
    The search runs with full garbage collections ten times rarer
    (`collector.sparing_collector`: the memo tables made them a quarter to a third of the
    CPU), and the finders' turns with none (`Finders`). `frozen`: units stipulated never to
    move (`legalgame.stipulated`): the finders leave them alone, and a game that moves or takes
    one is not returned."""
    with sparing_collector(), stipulated(frozen):
        game = _find_game(target, budget, node_cap, plain, plan, victims, route)
    return None if game is not None and touches(game, frozen) else game


def _find_game(target: chess.Board, budget: Budget, node_cap: int, plain: bool, plan: bool,
               victims: bool, route: bool) -> list[chess.Move] | None:
    """`find_game` inside the collector's policy."""
    ep = target.ep_square
    if ep is None:
        from retrologic.legalgame.last_move import Turns, bound_last_move
        # the last move took, promoted or checked by pawn: the finders go through its
        # predecessors, near the initial array in turns with the proof-game route (which
        # searches the target itself); the finders on the target alone cannot end on such a
        # move (2026-12-05: 0 of the 3 such near targets among 5,200 fresh seeds at 10 s)
        before = bound_last_move(target)
        if before is None:
            return _find_any(target, budget, node_cap, plain, plan, victims, route)
        turns = Turns(target, before, node_cap, lambda board, cap: Finders(
            board, cap, plain, plan, victims))
        if not (route and _near(target)):
            return turns.run(budget)
        from retrologic.legalgame.proof_route import with_route
        return with_route(target, budget, turns.run, turns.run)
    mover = not target.turn
    step = 8 if mover == chess.WHITE else -8
    pawn_to, pawn_from = ep + step, ep - step
    if target.piece_at(pawn_to) != chess.Piece(chess.PAWN, mover) or \
            target.piece_at(ep) is not None or target.piece_at(pawn_from) is not None:
        return None                     # no double step can have made this e.p. square
    before = target.copy(stack=False)
    before.ep_square = None
    before.remove_piece_at(pawn_to)
    before.set_piece_at(pawn_from, chess.Piece(chess.PAWN, mover))
    before.turn = mover
    head = _find_any(before, budget, node_cap, plain, plan, victims, route)
    if head is None:
        return None
    board = chess.Board()
    for move in head:
        board.push(move)
    double_step = chess.Move(pawn_from, pawn_to)
    return head + [double_step] if board.is_legal(double_step) else None


def _near(target: chess.Board) -> bool:
    """A position the proof-game route takes turns on (`proof_route.near_initial_array`)."""
    from retrologic.legalgame.proof_route import near_initial_array
    return near_initial_array(target)


def _find_any(target: chess.Board, budget: Budget, node_cap: int, plain: bool = True,
              plan: bool = True, victims: bool = True,
              route: bool = False) -> list[chess.Move] | None:
    """The finders (`Finders`), in turns with the proof-game route when `route` asks for it."""
    finders = Finders(target, node_cap, plain, plan, victims)
    if not route:
        return finders.run(budget)
    from retrologic.legalgame.proof_route import with_route
    return with_route(target, budget, finders.run, finders.first_round)


class Finders:
    """The plain finder (two thirds of the cap when the plan finder follows), then the
    plan-guided one on the rest (`legalgame.plan_tail`: cages, issue #19); the cap counts what
    the budgets are charged (a finder over its own cap charges one position more: hence the
    -1). Resumable: `run` may be called again with another budget after a LimitHit (the
    proof-game route's turns), and the plain finder goes on where it stopped (`Finder.find`);
    the plan finder starts afresh each turn (it runs only after the plain finder's cap). A
    turn runs with the automatic garbage collector paused (`collector.paused_collector`: the
    finders make no reference cycles, and its sweeps of their memo tables cost about 6 % of
    their CPU); what a turn leaves is frozen until `find_game`'s sparing block ends."""

    def __init__(self, target: chess.Board, node_cap: int, plain: bool = True,
                 plan: bool = True, victims: bool = True) -> None:
        self.target, self.node_cap = target, node_cap
        self.plain, self.plan, self.victims = plain, plan, victims
        self.finder: Finder | None = None
        self.spent = 0             # positions charged over every turn

    def run(self, budget: Budget) -> list[chess.Move] | None:
        """A turn under `budget` to the end of the cap: the game found, or None when the cap is
        spent (LimitHit: the budget ran out; call again to go on)."""
        return self._turn(budget, None)

    def first_round(self, budget: Budget) -> list[chess.Move] | None:
        """A short turn: the plain finder's first round of tries (`Finder.find`, 300 positions
        each), no plan finder; None: not found there (`run` goes on from it)."""
        return self._turn(budget, 1) if self.plain else None

    def _turn(self, budget: Budget, rounds: int | None) -> list[chess.Move] | None:
        start = budget.spent
        try:
            with paused_collector():
                return self._run(budget, rounds,
                                 lambda: self.node_cap - self.spent - (budget.spent - start))
        finally:
            self.spent += budget.spent - start

    def _run(self, budget: Budget, rounds: int | None,
             left: Callable[[], int]) -> list[chess.Move] | None:
        game = None
        if self.plain and (self.finder is not None or left() >= 2):
            if self.finder is None:
                cap = (self.node_cap * 2 // 3 if self.plan else self.node_cap) - 1
                self.finder = Finder(self.target, budget, max(cap, 1))
                self.finder.check_victims = self.finder.check_victims and self.victims
            finder = self.finder
            finder.budget = budget
            game = finder.find(rounds)
        if game is None and rounds is None and self.plan and left() >= 2:
            from retrologic.legalgame.plan_tail import find_with_tail
            game = find_with_tail(Finder, self.target, budget, left())
        return game


__all__ = ["Finders", "LimitHit", "find_game"]
