"""Independent forward check of a table: python-chess generates every legal move and detects mate
and stalemate, and each position's stored value must equal the best value over its children.

Rule: this module imports python-chess, numpy and, to read the table it checks, the table's
storage (tablebase.table: the library and its probes; tablebase.index: decoding an index to
squares; tablebase.retrograde: the outcome codes WIN, LOSS, DRAW, INVALID only); never
tablebase.moves, the engine's move and unmove generator whose result it checks.

Checked on every position of a table this proves it correct (by induction on the distance: the
first wrong position would have correct children); checked on a sample, it samples that proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess
import numpy as np

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.tablebase.table import Library, squares_of


@dataclass
class Report:
    """How many positions were checked and which disagreed (FEN, stored, expected)."""

    checked: int = 0
    children: int = 0
    mismatches: list[tuple[str, tuple[int, int], tuple[int, int]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.checked > 0 and not self.mismatches


def board_of(lay: ti.Layout, side: bool, squares: np.ndarray) -> chess.Board:
    """A python-chess board from a decoded table position."""
    board = chess.Board(None)
    for (colour, t), sq in zip(lay.units, squares):
        board.set_piece_at(int(sq), chess.Piece(t, colour))
    board.turn = bool(side)
    return board


def _batch_values(lib: Library, keys: list[tuple[str, bool, list[int]]]) -> list[tuple[int, int]]:
    """Table values of many positions (signature, side, squares), looked up per signature."""
    groups: dict[str, list[int]] = {}
    for i, (sig, _, _) in enumerate(keys):
        groups.setdefault(sig, []).append(i)
    out: list[tuple[int, int]] = [(0, 0)] * len(keys)
    for sig, rows in groups.items():
        side = np.array([keys[i][1] for i in rows])
        sq = np.array([keys[i][2] for i in rows], dtype=np.int64)
        outcome, dist = lib.lookup(sig, side, sq)
        for i, o, d in zip(rows, outcome.tolist(), dist.tolist()):
            out[i] = (o, d)
    return out


def expected(children: list[tuple[int, int]], board: chess.Board) -> tuple[int, int]:
    """The value a position must have, from its children's values (negamax on plies)."""
    if not children:
        return (rg.LOSS, 0) if board.is_check() else (rg.DRAW, -1)
    wins = [d + 1 for o, d in children if o == rg.LOSS]
    if wins:
        return rg.WIN, min(wins)
    if all(o == rg.WIN for o, _ in children):
        return rg.LOSS, max(d for _, d in children) + 1
    return rg.DRAW, -1


def check(lib: Library, signature: str, indices: np.ndarray | None = None, *,
          sample: int | None = None, seed: int = 0) -> Report:
    """Forward-check `indices` (or a random sample of legal positions, or all of them)."""
    table = lib.table(signature)
    lay = table.layout
    legal = np.flatnonzero(table.outcome != rg.INVALID)
    if indices is None:
        if sample is not None and sample < len(legal):
            indices = np.sort(np.random.default_rng(seed).choice(legal, size=sample, replace=False))
        else:
            indices = legal
    report = Report()
    side, squares = ti.decode(lay, np.asarray(indices, dtype=np.int64))
    for start in range(0, len(indices), 2000):
        boards, kids, spans = [], [], []
        for i in range(start, min(start + 2000, len(indices))):
            b = board_of(lay, side[i], squares[i])
            boards.append(b)
            first = len(kids)
            for move in b.legal_moves:
                b.push(move)
                kids.append(squares_of(b))
                b.pop()
            spans.append((first, len(kids)))
        values = _batch_values(lib, kids)
        report.children += len(kids)
        for b, (lo, hi), i in zip(boards, spans, range(start, start + len(boards))):
            want = expected(values[lo:hi], b)
            have = (int(table.outcome[indices[i]]), int(table.dist[indices[i]]))
            if have[0] == rg.DRAW:
                have = (rg.DRAW, -1)
            report.checked += 1
            if have != want:
                report.mismatches.append((b.fen(), have, want))
    return report
