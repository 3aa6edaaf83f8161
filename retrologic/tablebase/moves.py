"""Vectorised move and un-move generation for one 8x8 material signature: the retrograde Game.

`ChessTable` implements the `retrologic.tablebase.retrograde` interface over `tablebase.index` layouts:
moves that keep the material are in-table; captures and promotions are exits, valued from the
sub-tables (already solved) they lead into. Attack tables come from python-chess; the work is
numpy over whole batches of positions.
"""

from __future__ import annotations

from typing import Callable

import chess
import numpy as np

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.limits import Budget

BIT = np.array([1 << s for s in range(64)], dtype=np.uint64)
BETWEEN = np.array([[chess.between(a, b) for b in range(64)] for a in range(64)], dtype=np.uint64)
SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


def _attacks(piece_type: int, sq: int, color: bool = True) -> int:
    """Empty-board attacks of a piece (pawns: captures of the given colour)."""
    board = chess.BaseBoard(None)
    board.set_piece_at(sq, chess.Piece(piece_type, color))
    return int(board.attacks_mask(sq))


ATTACKS = {t: np.array([_attacks(t, s) for s in range(64)], dtype=np.uint64)
           for t in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)}
PAWN_ATTACKS = {c: np.array([_attacks(chess.PAWN, s, c) for s in range(64)], dtype=np.uint64)
                for c in (True, False)}


def _targets(mask_row: np.ndarray) -> np.ndarray:
    lists = [list(chess.scan_forward(int(m))) for m in mask_row]
    width = max(len(x) for x in lists)
    return np.array([x + [-1] * (width - len(x)) for x in lists], dtype=np.int64)


TARGETS = {t: _targets(ATTACKS[t]) for t in ATTACKS}
PAWN_TARGETS = {c: _targets(PAWN_ATTACKS[c]) for c in (True, False)}
RANK = np.arange(64) // 8


def occupancy(squares: np.ndarray) -> np.ndarray:
    """Bitboard of the occupied squares of each row."""
    occ = np.zeros(len(squares), dtype=np.uint64)
    for j in range(squares.shape[1]):
        occ |= BIT[squares[:, j]]
    return occ


def attacked(lay: ti.Layout, squares: np.ndarray, occ: np.ndarray, target: np.ndarray,
             by_white: np.ndarray) -> np.ndarray:
    """Whether `target` is attacked by a unit of the colour `by_white` (per row)."""
    hit = np.zeros(len(target), dtype=bool)
    tbit = BIT[target]
    for j, (colour, t) in enumerate(lay.units):
        s = squares[:, j]
        if t == chess.PAWN:
            a = PAWN_ATTACKS[colour][s] & tbit
        else:
            a = ATTACKS[t][s] & tbit
            if t in SLIDERS:
                a = np.where(BETWEEN[s, target] & occ, np.uint64(0), a)
        hit |= (a != 0) & (by_white == colour)
    return hit


def in_check(lay: ti.Layout, side: np.ndarray, squares: np.ndarray, occ: np.ndarray) -> np.ndarray:
    """Whether the king of colour `side` is attacked (per row)."""
    king = np.where(side, squares[:, 0], squares[:, 1])
    return attacked(lay, squares, occ, king, ~side)


def static_legal(lay: ti.Layout, idx: np.ndarray) -> np.ndarray:
    """Legal positions: canonical index, distinct squares, pawns off the end ranks, and the
    side not to move not in check (so the kings are not adjacent either)."""
    side, sq = ti.decode(lay, idx)
    ok = ti.index_of(lay, side, sq) == idx
    for a in range(lay.k):
        for b in range(a + 1, lay.k):
            ok &= sq[:, a] != sq[:, b]
        if lay.units[a][1] == chess.PAWN:
            ok &= (RANK[sq[:, a]] != 0) & (RANK[sq[:, a]] != 7)
    occ = occupancy(sq)
    ok &= ~in_check(lay, ~side, sq, occ)
    return ok


Lookup = Callable[[str, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _score(outcome: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """A child's value turned into the mover's, as one orderable number (higher is better)."""
    return np.where(outcome == rg.LOSS, 100000 - dist,
                    np.where(outcome == rg.WIN, -100000 + dist, 0)).astype(np.int64)


NO_EXIT = np.int64(-10 ** 9)


class ChessTable:
    """One material signature as a retrograde Game.

    `lookup(signature, side, squares)` gives (outcome, dist) of positions of a solved sub-table,
    from its side to move's view (outcome INVALID = illegal position); signatures as written.
    """

    def __init__(self, signature: str, lookup: Lookup | None = None, chunk: int = 1 << 16):
        self.lay = ti.layout(signature)
        self.size = self.lay.size
        self.lookup = lookup
        self.chunk = chunk
        self.legal: np.ndarray | None = None
        self.on_chunk: Callable[[int, int], None] | None = None   # setup progress (done, total)
        self.budget: Budget | None = None        # time and Ctrl-C while setting up (seeds)

    # -- the retrograde interface ---------------------------------------------------------------
    def seeds(self) -> rg.Seeds:
        """Legal positions, mates and stalemates, and the best capture/promotion per position."""
        lay = self.lay
        legal = self.compute_legal()
        terminal = np.zeros(self.size, dtype=np.int8)
        exit_out = np.zeros(self.size, dtype=np.int8)
        exit_dist = np.zeros(self.size, dtype=np.int32)
        ids = np.flatnonzero(legal)
        for start in range(0, len(ids), self.chunk):
            idx = ids[start:start + self.chunk]
            side, sq = ti.decode(lay, idx)
            row, _ = self._moves(side, sq)
            moves = np.bincount(row, minlength=len(idx))
            best, n_exits = self._exits(side, sq)
            moves += n_exits
            stuck = moves == 0
            check = in_check(lay, side, sq, occupancy(sq))
            terminal[idx[stuck & check]] = rg.LOSS
            terminal[idx[stuck & ~check]] = rg.DRAW
            has = best != NO_EXIT
            exit_out[idx[has & (best > 0)]] = rg.WIN
            exit_out[idx[has & (best < 0)]] = rg.LOSS
            exit_out[idx[has & (best == 0)]] = rg.DRAW
            exit_dist[idx[has & (best > 0)]] = 100000 - best[has & (best > 0)]
            exit_dist[idx[has & (best < 0)]] = best[has & (best < 0)] + 100000
            self._tick(self.size + self.size * start // max(1, len(ids)), 2 * self.size)
        return rg.Seeds(legal, terminal, exit_out, exit_dist)

    def compute_legal(self) -> np.ndarray:
        """The legal mask of the whole index space (in chunks); moves and un-moves need it."""
        legal = np.zeros(self.size, dtype=bool)
        for start in range(0, self.size, self.chunk):
            idx = np.arange(start, min(start + self.chunk, self.size), dtype=np.int64)
            legal[idx] = static_legal(self.lay, idx)
            self._tick(start, 2 * self.size)
        self.legal = legal
        return legal

    def _tick(self, done: int, total: int) -> None:
        if self.on_chunk:
            self.on_chunk(done, total)
        if self.budget is not None:
            self.budget.check_now()             # LimitHit: rg.solve returns an incomplete table

    def successors(self, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        side, sq = ti.decode(self.lay, parents)
        return self._moves(side, sq)

    def predecessors(self, children: np.ndarray) -> np.ndarray:
        return self.unmoves(children)[1]

    def unmoves(self, children: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, parent) pairs: `parent[j]` moves (in-table) to `children[row[j]]`."""
        side, sq = ti.decode(self.lay, children)
        return self._unmoves(side, sq)

    # -- generation -----------------------------------------------------------------------------
    def _placed(self, side: np.ndarray, sq: np.ndarray, rows: np.ndarray, col: int,
                dest: np.ndarray, out_rows: list, out_idx: list) -> None:
        """Index of the position with unit `col` put on `dest` and the other side to move, kept if
        legal: a move's child and an un-move's parent alike."""
        child = sq[rows].copy()
        child[:, col] = dest
        idx = ti.index_of(self.lay, ~side[rows], child)
        keep = self.legal[idx]
        out_rows.append(rows[keep])
        out_idx.append(idx[keep])

    def _moves(self, side: np.ndarray, sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """In-table moves (no capture, no promotion) that are legal."""

        def pawn_steps(colour: bool, s: np.ndarray, o: np.ndarray):
            step = 8 if colour else -8
            one = s + step
            ok = (BIT[one] & o) == 0
            yield ok & (RANK[one] != (7 if colour else 0)), one
            two = np.clip(s + 2 * step, 0, 63)
            yield ok & (RANK[s] == (1 if colour else 6)) & ((BIT[two] & o) == 0), two

        return self._steps(side, sq, side, pawn_steps)

    def _unmoves(self, side: np.ndarray, sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Legal parents by in-table moves: the side not to move takes back a non-capture."""

        def pawn_steps(colour: bool, s: np.ndarray, o: np.ndarray):
            step = 8 if colour else -8
            start = 1 if colour else 6
            back = np.clip(s - step, 0, 63)
            ok = (RANK[s] != start) & ((BIT[back] & o) == 0)
            yield ok, back
            back2 = np.clip(s - 2 * step, 0, 63)
            yield ok & (RANK[s] == start + (2 if colour else -2)) & ((BIT[back2] & o) == 0), back2

        return self._steps(side, sq, ~side, pawn_steps)

    def _steps(self, side: np.ndarray, sq: np.ndarray, mover: np.ndarray,
               pawn_steps) -> tuple[np.ndarray, np.ndarray]:
        """(row, index) of every legal position one step of a `mover` unit away: pieces step
        alike forwards and backwards, pawns as `pawn_steps(colour, squares, occupancy)` says."""
        lay, occ = self.lay, occupancy(sq)
        out_rows: list[np.ndarray] = []
        out_idx: list[np.ndarray] = []
        for col, (colour, t) in enumerate(lay.units):
            rows = np.flatnonzero(mover == colour)
            if len(rows) == 0:
                continue
            s, o = sq[rows, col], occ[rows]
            steps = pawn_steps(colour, s, o) if t == chess.PAWN else _piece_steps(t, s, o)
            for ok, dd in steps:
                self._placed(side, sq, rows[ok], col, dd[ok], out_rows, out_idx)
        if not out_rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(out_rows), np.concatenate(out_idx)

    def _exits(self, side: np.ndarray, sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best exit score per row (NO_EXIT if none) and the number of legal exits."""
        lay, occ = self.lay, occupancy(sq)
        best = np.full(len(sq), NO_EXIT, dtype=np.int64)
        count = np.zeros(len(sq), dtype=np.int64)
        for col, (colour, t) in enumerate(lay.units):
            rows = np.flatnonzero(side == colour)
            if len(rows) == 0:
                continue
            s, o = sq[rows, col], occ[rows]
            # captures of each enemy man (never the king)
            for victim, (vcolour, vt) in enumerate(lay.units):
                if vcolour == colour or vt == chess.KING:
                    continue
                v = sq[rows, victim]
                if t == chess.PAWN:
                    ok = (PAWN_ATTACKS[colour][s] & BIT[v]) != 0
                else:
                    ok = (ATTACKS[t][s] & BIT[v]) != 0
                    if t in SLIDERS:
                        ok &= (BETWEEN[s, v] & o) == 0
                promos = [t]
                if t == chess.PAWN:
                    last = 7 if colour else 0
                    at_end = RANK[v] == last
                    self._exit(side, sq, rows[ok & ~at_end], col, victim, v[ok & ~at_end], t, best, count)
                    ok &= at_end
                    promos = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT]
                for p in promos:
                    self._exit(side, sq, rows[ok], col, victim, v[ok], p, best, count)
            if t == chess.PAWN:
                one = s + (8 if colour else -8)
                ok = ((BIT[one] & o) == 0) & (RANK[one] == (7 if colour else 0))
                for p in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
                    self._exit(side, sq, rows[ok], col, None, one[ok], p, best, count)
        return best, count

    def _exit(self, side, sq, rows, col, victim, dest, new_type, best, count) -> None:
        """Value a capture or promotion from the sub-table it leads into."""
        if len(rows) == 0:
            return
        if self.lookup is None:
            raise ValueError(f"{self.lay.signature}: captures/promotions need solved sub-tables")
        units = []
        for j, (colour, t) in enumerate(self.lay.units):
            if j == victim:
                continue
            units.append((colour, new_type if j == col else t, dest if j == col else sq[rows, j]))
        white = "".join(chess.piece_symbol(t).upper() for c, t, _ in units if c)
        black = "".join(chess.piece_symbol(t).upper() for c, t, _ in units if not c)
        white, black = ti._sorted_side(white), ti._sorted_side(black)
        sub = ti.layout(white + black)
        cols = []
        pool = list(range(len(units)))
        for colour, t in sub.units:
            j = next(j for j in pool if units[j][0] == colour and units[j][1] == t)
            pool.remove(j)
            cols.append(units[j][2])
        child = np.stack(cols, axis=1)
        outcome, dist = self.lookup(white + black, ~side[rows], child)
        legal = outcome != rg.INVALID
        score = _score(outcome[legal], dist[legal] + 1)
        r = rows[legal]
        best[r] = np.maximum(best[r], score)
        count[r] += 1


def _piece_steps(t: int, s: np.ndarray, o: np.ndarray):
    """For a non-pawn piece on squares `s` with occupancies `o`: per direction slot, the mask of
    rows where the step to an empty square is open, and that square. A piece's steps are the
    same forwards and backwards, so moves and un-moves share them."""
    table = TARGETS[t]
    for j in range(table.shape[1]):
        d = table[s, j]
        ok = d >= 0
        dd = np.where(ok, d, 0)
        ok &= (BIT[dd] & o) == 0
        if t in SLIDERS:
            ok &= (BETWEEN[s, dd] & o) == 0
        yield ok, dd
