"""The deepest boards the legal-game finder's tries reached (issue #19): a try that runs out of
positions one or two captures short of the end leaves a board from which a longer try often
finishes (seed 24149: a board of its first round, ten of its eleven captures made, gave its
last capture in 42-137 positions to a try started there; the later rounds, jittered from the
initial array, never came back to it). `Elite` keeps the few boards with the most captures
made, so the finder's rounds also try again from them (`Finder.find`).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

ELITE_SIZE = 4   # boards kept
ELITE_USES = 2   # tries from one board before it is dropped for good


@dataclass
class Entry:
    """A kept board (with its move stack: the game to it) and its rank (lower first)."""

    rank: tuple[int, int, int]
    board: chess.Board
    uses: int = 0


class Elite:
    """The `size` boards with the most captures made, then the fewest moves left (the finder's
    bound), then the shortest game; each is handed out `uses` times (`take`), then dropped and
    never taken back (a position is kept once, however many games reach it)."""

    def __init__(self, size: int = ELITE_SIZE, uses: int = ELITE_USES) -> None:
        self.size, self.uses = size, uses
        self.entries: dict[object, Entry] = {}
        self.dropped: set[object] = set()

    def offer(self, board: chess.Board, moves_left: int | None) -> None:
        """Keeps `board` (copied) when a capture was made on the way (its move stack is the
        game to it), its `moves_left` is finite (not None), and it ranks among the best `size`
        seen and was never dropped."""
        if moves_left is None or chess.popcount(board.occupied) == 32 or not board.move_stack:
            return
        key = board._transposition_key()
        if key in self.entries or key in self.dropped:
            return
        rank = (chess.popcount(board.occupied), moves_left, len(board.move_stack))
        if len(self.entries) >= self.size:
            worst = max(self.entries, key=lambda k: self.entries[k].rank)
            if self.entries[worst].rank <= rank:
                return
            del self.entries[worst]
        self.entries[key] = Entry(rank, board.copy())

    def take(self) -> chess.Board | None:
        """A copy of the best board (None: none kept), dropped once handed out `uses` times."""
        if not self.entries:
            return None
        key = min(self.entries, key=lambda k: self.entries[k].rank)
        entry = self.entries[key]
        entry.uses += 1
        if entry.uses >= self.uses:
            del self.entries[key]
            self.dropped.add(key)
        return entry.board.copy()


__all__ = ["ELITE_SIZE", "ELITE_USES", "Elite"]
