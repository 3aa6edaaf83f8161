"""Units a problem stipulates never moved (`Position.frozen`), for the game finders (issue #19).

A legal game for a position with frozen units must never move nor take them. Inside
`stipulated(mask)` every finder treats them as it treats a castling right's king and rook
(`immobile`: they stand from the initial array on, the bounds and walls count them as fixed, no
move touches them), and `touches` is the test `find_game` applies to whatever a finder returns
(the proof-game route knows no frozen units). The mask is a context variable so that the
finders, their tails and the positions before a target's last move all see it without each
signature carrying it.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator

import chess

from retrologic.position import castling_frozen

_FROZEN: ContextVar[int] = ContextVar("stipulated_frozen", default=0)


@contextmanager
def stipulated(mask: int) -> Iterator[None]:
    """Run the block with the units on `mask` stipulated never to move."""
    token = _FROZEN.set(mask)
    try:
        yield
    finally:
        _FROZEN.reset(token)


def immobile(board: chess.Board) -> int:
    """The units of `board` no move of a game to it may touch: a castling right's king and rook,
    and the stipulated frozen units that stand there."""
    return castling_frozen(board.clean_castling_rights()) | _FROZEN.get() & board.occupied


def touches(moves: Iterable[chess.Move], mask: int) -> bool:
    """Whether a move of `moves` starts or ends on `mask` (moves or takes a unit there: a unit
    that stands there at the end and was never touched has stood there since the start)."""
    return any((chess.BB_SQUARES[m.from_square] | chess.BB_SQUARES[m.to_square]) & mask
               for m in moves)
