"""Independent forward check of a table: python-chess generates every legal move and detects mate
and stalemate, and each position's stored value must equal the best value over its children.

Rule: this module imports python-chess, numpy and, to read the table it checks, the table's
storage (tablebase.table: the library and its probes; tablebase.index: decoding an index to
squares; tablebase.retrograde: the outcome codes WIN, LOSS, DRAW, INVALID only); never
tablebase.moves, the engine's move and unmove generator whose result it checks.

Checked on every position of a table this proves it correct (by induction on the distance: the
first wrong position would have correct children), given its sub-tables, which `check` then
checks the same way (the captures and promotions of its positions look values up there);
checked on a sample, it samples that proof. Which indices are INVALID is checked too, by this
module's own rule (`valid`): a legal position hidden as INVALID (a mate, say) would otherwise
drop out of the check and count as a draw among its parent's children.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import chess
import numpy as np

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.tablebase.table import Library, Table, squares_of


SHOWN = 20   # wrong INVALID markings kept in a report (their count is kept in full)


@dataclass
class Report:
    """How many positions were checked and which disagreed (FEN, stored, expected)."""

    checked: int = 0
    children: int = 0
    mismatches: list[tuple[str, tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    indices: int = 0            # indices whose INVALID marking was checked
    wrong_marks: int = 0        # ... and found wrong; the first SHOWN of them:
    misplaced: list[tuple[str, int, str]] = field(default_factory=list)  # (table, index, why)
    tables: list[str] = field(default_factory=list)   # the table, then its sub-tables checked
    stopped: str | None = None  # why the check ended early (a limit, Ctrl-C): not all checked

    @property
    def faults(self) -> int:
        """Wrong values and wrong INVALID markings, all counted."""
        return len(self.mismatches) + self.wrong_marks

    @property
    def ok(self) -> bool:
        return (self.checked > 0 or self.indices > 0) and not self.faults and not self.stopped


class _Stop(Exception):
    """The caller's `step` asked the check to end (its reason in `Report.stopped`)."""


# told how many positions come next; a reason to stop (a step may also have `room()`: the
# positions its node limit still allows, None without one; batches are cut to fit it)
Step = Callable[[int], "str | None"]


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


def valid(lay: ti.Layout, idx: np.ndarray) -> np.ndarray:
    """Which indices are positions the table must hold (this module's rule, not the engine's):
    the canonical index of its squares under the layout's symmetries, no two units on one
    square, no pawn on the first or last rank, and the side not to move not in check
    (python-chess: `was_into_check`)."""
    idx = np.asarray(idx, dtype=np.int64)
    side, squares = ti.decode(lay, idx)
    ok = ti.index_of(lay, side, squares) == idx
    for a in range(lay.k):
        for b in range(a + 1, lay.k):
            ok &= squares[:, a] != squares[:, b]
        if lay.units[a][1] == chess.PAWN:
            rank = squares[:, a] // 8
            ok &= (rank != 0) & (rank != 7)
    for row in np.flatnonzero(ok):
        ok[row] = not board_of(lay, side[row], squares[row]).was_into_check()
    return ok


def expected(children: list[tuple[int, int]], board: chess.Board) -> tuple[int, int]:
    """The value a position must have, from its children's values (negamax on plies);
    (INVALID, -1), which no stored value equals, when a child is marked INVALID: python-chess
    reached it by a legal move, so it is a position the table must hold."""
    if any(o == rg.INVALID for o, _ in children):
        return rg.INVALID, -1
    if not children:
        return (rg.LOSS, 0) if board.is_check() else (rg.DRAW, -1)
    wins = [d + 1 for o, d in children if o == rg.LOSS]
    if wins:
        return rg.WIN, min(wins)
    if all(o == rg.WIN for o, _ in children):
        return rg.LOSS, max(d for _, d in children) + 1
    return rg.DRAW, -1


def check(lib: Library, signature: str, indices: np.ndarray | None = None, *,
          sample: int | None = None, seed: int = 0, step: Step | None = None) -> Report:
    """Forward-check `indices` of the table, their INVALID markings included. Without them:
    every index of the table (or, with `sample`, that many random legal positions and as many
    INVALID indices), then the same for every sub-table the children's values came from,
    recursively, so that the values the check leans on are checked too. `step` (the caller's
    limits and progress) is told each batch's size before it is checked; a reason it returns
    ends the check there, the report kept with `stopped` (a full check of KRK: about a minute)."""
    report = Report()
    todo = [signature]
    step = step or (lambda _n: None)
    try:
        while todo:
            table = lib.table(todo.pop(0))
            if table.layout.signature in report.tables:
                continue
            report.tables.append(table.layout.signature)
            subtables = _check_table(lib, table, indices, sample, seed, report, step)
            if indices is not None:
                break                       # the given positions only: no sub-table
            todo += sorted(subtables - {table.layout.signature})
    except _Stop:
        pass
    return report


def _ask(step: Step, count: int, report: Report) -> None:
    """Tell `step` that `count` positions come next; _Stop when it gives a reason."""
    why = step(count)
    if why:
        report.stopped = why
        raise _Stop


def _check_table(lib: Library, table: Table, indices: np.ndarray | None, sample: int | None,
                 seed: int, report: Report, step: Step) -> set[str]:
    """`check` on one table; the signatures (oriented) of the tables its children were looked
    up in."""
    lay = table.layout
    marked = table.outcome == rg.INVALID
    legal = np.flatnonzero(~marked)
    if indices is not None:
        indices = np.asarray(indices, dtype=np.int64)
        _check_marks(report, lay, indices, marked[indices], step)
        indices = indices[~marked[indices]]     # the values of the positions marked legal
    elif sample is not None and sample < len(legal):
        rng = np.random.default_rng(seed)
        indices = np.sort(rng.choice(legal, size=sample, replace=False))
        invalid = np.flatnonzero(marked)
        looked = np.concatenate([indices, rng.choice(invalid, size=min(sample, len(invalid)),
                                                     replace=False)])
        _check_marks(report, lay, looked, marked[looked], step)
    else:
        _check_marks(report, lay, np.arange(lay.size, dtype=np.int64), marked, step)
        indices = legal
    return _check_values(lib, table, indices, report, step)


def _fit(step: Step, size: int) -> int:
    """A batch of at most `size` that the step's node limit has room for (`room()`, when the
    step has it), so that a limit is met exactly; at least 1, so that a spent limit stops."""
    room = getattr(step, "room", None)
    left = room() if room is not None else None
    return size if left is None or left <= 0 else min(size, left)


def _check_marks(report: Report, lay: ti.Layout, indices: np.ndarray,
                 marked: np.ndarray, step: Step) -> None:
    """Each index marked INVALID must be no position of the table (`valid`), and each other
    one must be one."""
    start = 0
    while start < len(indices):
        part = indices[start:start + _fit(step, 20_000)]
        _ask(step, len(part), report)
        wrong = np.flatnonzero(valid(lay, part) == marked[start:start + len(part)])
        report.indices += len(part)
        report.wrong_marks += len(wrong)
        for row in wrong[:max(SHOWN - len(report.misplaced), 0)]:
            why = "a legal position marked INVALID" if marked[start + row] else \
                "no position of the table (not canonical, or illegal), given a value"
            report.misplaced.append((lay.signature, int(part[row]), why))
        start += len(part)


def _check_values(lib: Library, table: Table, indices: np.ndarray, report: Report,
                  step: Step) -> set[str]:
    """The forward check of the stored values of `indices` (legal positions): each must be the
    negamax of its children's values (`expected`); the oriented signatures looked up."""
    lay = table.layout
    side, squares = ti.decode(lay, indices)
    looked: set[str] = set()
    start = 0
    while start < len(indices):
        end = min(start + _fit(step, 500), len(indices))
        _ask(step, end - start, report)
        boards, kids, spans = [], [], []
        for i in range(start, end):
            b = board_of(lay, side[i], squares[i])
            boards.append(b)
            first = len(kids)
            for move in b.legal_moves:
                b.push(move)
                kids.append(squares_of(b))
                b.pop()
            spans.append((first, len(kids)))
        values = _batch_values(lib, kids)
        looked |= {ti.oriented(*ti.parse_signature(sig))[0] for sig in {k[0] for k in kids}}
        report.children += len(kids)
        for b, (lo, hi), i in zip(boards, spans, range(start, start + len(boards))):
            want = expected(values[lo:hi], b)
            have = (int(table.outcome[indices[i]]), int(table.dist[indices[i]]))
            if have[0] == rg.DRAW:
                have = (rg.DRAW, -1)
            report.checked += 1
            if have != want:
                report.mismatches.append((b.fen(), have, want))
        start = end
    return looked
