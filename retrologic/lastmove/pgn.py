"""The PGN of a last-move candidate (issue #19): a possible one's legal game from the initial
array, an unresolved one's supporting line ("not refuted") from its earliest position through the
candidate's moves to the diagram; what `lastmove --pgn` prints and the JSON's `pgn`."""

from __future__ import annotations

from typing import Any

import chess

from retrologic.lastmove.checker import Status
from retrologic.lastmove.search import Candidate
from retrologic.retract import apply


def support_pgn(c: Candidate) -> str | None:
    """PGN of an unresolved candidate's supporting line ("not refuted"): from the earliest
    position of the line, forward through it and the candidate's moves, to the diagram; for a
    possible candidate, its legal game from the initial array."""
    import chess.pgn
    if c.status == Status.POSSIBLE:
        game = chess.pgn.Game.from_board(_replayed(c.game))
        game.headers["Event"] = f"retrologic last-move proof: {c.notation}"
        return str(game)
    if not c.support:
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


def _replayed(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push(move)
    return board
