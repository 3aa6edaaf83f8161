"""Candidates shown possible by a game the user gives (issue #19, `legalgame.given`): the game's
last moves are the candidate's, played from the candidate's own positions, and it reaches the
diagram -- the test the `lastmove-proof` checker applies to a possible candidate's game
(`lastmove.checker._check_game`), made here before the engine decides the rest.

Why: on record problems the engine refutes every candidate but the published answer and then
needs a game for it that its finders do not find (bench/lastmove-collection); the composer's
game closes the answer. A candidate so shown is also put through a depth-0 refutation: a static
rule that calls it impossible contradicts a replayed game, a bug the user hears of.
"""

from __future__ import annotations

from typing import Any, Callable

import chess

from retrologic.lastmove.checker import Status, diagram_fault
from retrologic.legalgame.given import GivenGame
from retrologic.legalgame.stipulated import touches
from retrologic.limits import LimitHit


def shows(game: GivenGame, c: Any, plies: int) -> bool:
    """Whether `game` is a game of candidate `c` (`lastmove.search.Candidate`) of a question
    on the last `plies` moves: it ends with the candidate's moves, from each of the candidate's
    positions (placement and side to move: the unit each retraction uncaptured), reaches the
    candidate's diagram (`checker.diagram_fault`) and moves no unit stated frozen. A candidate
    shorter than `plies` says the game began where it ends, so the game must be that long."""
    if c.diagram is None or (len(c.line) < plies and len(game.moves) != len(c.line)):
        return False
    want = [r.move() for r in reversed(c.line)]
    if len(game.moves) < len(want) or list(game.moves[len(game.moves) - len(want):]) != want:
        return False
    board = game.board()
    if diagram_fault(board, c.diagram.to_board()) is not None:
        return False
    for before in c.positions[:len(c.line)]:    # before the last move, then earlier ones
        board.pop()
        if board.board_fen() != before.placement.board_fen() or board.turn != before.turn:
            return False
    return not touches(game.moves, c.diagram.frozen)


def mark_shown(cands: list[Any], games: list[GivenGame], plies: int, side: chess.Color,
               refuted: Callable[[Any], Any]) -> str | None:
    """Mark each candidate of `side` (the side that moved last; `cands` its whole list) that a
    game of `games` ending with that side's move shows (`shows`) possible, with the game and
    the field it was given in. A game ending there that shows no candidate, or a candidate so
    shown whose leaf `refuted` proves impossible (a depth-0 proof tree, None when there is
    none), is a contradiction: AssertionError (an internal error: the candidates or the rules
    are wrong, the game is replayed). Returns the reason of a limit the cross-check hit (the
    solve's budget: a candidate not yet marked stays unresolved), else None."""
    try:
        _mark(cands, games, plies, side, refuted)
    except LimitHit as e:
        return e.reason
    return None


def _mark(cands: list[Any], games: list[GivenGame], plies: int, side: chess.Color,
          refuted: Callable[[Any], Any]) -> None:
    """`mark_shown` without the limit's handling."""
    for game in games:
        if game.board().turn == side:
            continue                    # the other side moved last in this game
        shown = [c for c in cands if shows(game, c, plies)]
        if not shown:
            raise AssertionError(f"contradiction: the game of {game.field} reaches the diagram "
                                 "but ends with no candidate listed (a bug: please report it)")
        for c in shown:
            if refuted(c.positions[-1]) is not None:
                raise AssertionError(f"contradiction: {c.notation} is shown by the game of "
                                     f"{game.field} but proved impossible (a bug: please "
                                     "report it)")
            if c.status != Status.POSSIBLE:
                c.status, c.game, c.given = Status.POSSIBLE, list(game.moves), game.field
