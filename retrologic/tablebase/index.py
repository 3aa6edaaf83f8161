"""Dense indexing of 8x8 endgame positions by material signature, with board symmetries.

A signature such as "KQKR" names White's men then Black's, each side starting with its king.
Units are ordered white king, black king, White's other men, Black's other men (by type), and an
index is `side * S + mixed-radix squares`. Without pawns the white king is confined to the
a1-d1-d4 triangle (10 squares) and the eight symmetries of the board are divided out; with pawns
only the a<->h mirror is. Each position has exactly one canonical index (ties on the diagonal and
between identical men are broken by the smallest square tuple); other indices are not legal.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np

from retrologic.errors import InputError

LETTERS = "KQRBNP"
TYPE_OF = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
           "N": chess.KNIGHT, "P": chess.PAWN}
VALUE = {"K": 0, "Q": 9, "R": 5, "B": 3, "N": 3, "P": 1}
MAX_MEN = 4          # a five-man table would need 335 M entries per side: beyond this module

_F = np.arange(64) % 8
_R = np.arange(64) // 8
# the eight symmetries of the square as square -> square tables; index 4 = transpose (a1-h8)
TRANSFORMS = np.array([
    _R * 8 + _F, _R * 8 + (7 - _F), (7 - _R) * 8 + _F, (7 - _R) * 8 + (7 - _F),
    _F * 8 + _R, _F * 8 + (7 - _R), (7 - _F) * 8 + _R, (7 - _F) * 8 + (7 - _R),
], dtype=np.int64)
MIRROR = TRANSFORMS[1]                # a<->h
FLIP = TRANSFORMS[2]                  # rank r <-> 9-r: the colour flip's board part
TRANSPOSE = TRANSFORMS[4]
TRIANGLE = np.array([sq for sq in range(64) if _F[sq] <= 3 and _R[sq] <= _F[sq]], dtype=np.int64)
TRI_INDEX = np.full(64, -1, dtype=np.int64)
TRI_INDEX[TRIANGLE] = np.arange(len(TRIANGLE))
ON_DIAGONAL = _F == _R
# for each white-king square, one symmetry that brings it into the triangle
TO_TRIANGLE = np.array([next(t for t in range(8) if TRI_INDEX[TRANSFORMS[t][sq]] >= 0)
                        for sq in range(64)], dtype=np.int64)


def parse_signature(text: str, field: str = "signature") -> tuple[str, str]:
    """'KQKR' -> ('KQ', 'KR'): White's letters and Black's; InputError if malformed."""
    sig = str(text).strip().upper()
    if not sig.startswith("K") or sig.count("K") != 2 or any(c not in LETTERS for c in sig):
        raise InputError("a material signature is White's men then Black's, each starting with "
                         "its king, letters KQRBNP (e.g. KRK, KPK, KQKR)", field=field, value=text)
    cut = sig.index("K", 1)
    white, black = sig[:cut], sig[cut:]
    if len(sig) > MAX_MEN:
        raise InputError(f"at most {MAX_MEN} men are supported", field=field, value=text)
    return _sorted_side(white), _sorted_side(black)


def _sorted_side(side: str) -> str:
    return "K" + "".join(sorted(side[1:], key=LETTERS.index))


def oriented(white: str, black: str) -> tuple[str, bool]:
    """The signature with the stronger side as White, and whether the colours were flipped."""
    def strength(side: str) -> tuple:
        return (sum(VALUE[c] for c in side), len(side), [-LETTERS.index(c) for c in side[1:]])
    if strength(black) > strength(white):
        return black + white, True
    return white + black, False


@dataclass(frozen=True)
class Layout:
    """The index layout of one signature: units, radices, symmetry, the index space."""

    signature: str
    white: str
    black: str
    units: tuple[tuple[bool, int], ...]     # (colour, python-chess piece type) per unit
    pawns: bool
    radix: tuple[int, ...]
    per_side: int
    groups: tuple[tuple[int, ...], ...]     # runs of identical units (sorted in canonical form)

    @property
    def size(self) -> int:
        return 2 * self.per_side

    @property
    def k(self) -> int:
        return len(self.units)


def layout(signature: str) -> Layout:
    """The Layout of a signature (colours as written)."""
    white, black = parse_signature(signature)
    letters = [(True, "K"), (False, "K")] + [(True, c) for c in white[1:]] + [(False, c) for c in black[1:]]
    units = tuple((colour, TYPE_OF[c]) for colour, c in letters)
    pawns = any(t == chess.PAWN for _, t in units)
    radix = tuple([64 if pawns else 10] + [64] * (len(units) - 1))
    groups, start = [], 2
    for i in range(3, len(units) + 1):
        if i == len(units) or units[i] != units[start]:
            if i - start > 1:
                groups.append(tuple(range(start, i)))
            start = i
    return Layout(signature=white + black, white=white, black=black, units=units, pawns=pawns,
                  radix=radix, per_side=int(np.prod(radix)), groups=tuple(groups))


def decode(lay: Layout, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices -> (side to move: bool[B], True = White; squares: int64[B, k])."""
    idx = np.asarray(idx, dtype=np.int64)
    side = idx < lay.per_side
    rest = idx % lay.per_side
    squares = np.empty((len(idx), lay.k), dtype=np.int64)
    for j in range(lay.k - 1, -1, -1):
        rest, squares[:, j] = np.divmod(rest, lay.radix[j])
    if not lay.pawns:
        squares[:, 0] = TRIANGLE[squares[:, 0]]
    return side, squares


def _sort_groups(lay: Layout, sq: np.ndarray) -> np.ndarray:
    for g in lay.groups:
        sq[:, g[0]:g[-1] + 1] = np.sort(sq[:, g[0]:g[-1] + 1], axis=1)
    return sq


def _key(sq: np.ndarray) -> np.ndarray:
    key = np.zeros(len(sq), dtype=np.int64)
    for j in range(sq.shape[1]):
        key = key * 64 + sq[:, j]
    return key


def canonical(lay: Layout, squares: np.ndarray) -> np.ndarray:
    """The canonical image of each square tuple under the layout's symmetries."""
    sq = np.asarray(squares, dtype=np.int64)
    if lay.pawns:
        a = _sort_groups(lay, sq.copy())
        b = _sort_groups(lay, MIRROR[sq])
        return np.where((_key(b) < _key(a))[:, None], b, a)
    t = TO_TRIANGLE[sq[:, 0]]
    a = sq.copy()
    moved = np.flatnonzero(t != 0)          # most rows need no transform at all
    if len(moved):
        a[moved] = TRANSFORMS[t[moved, None], sq[moved]]
    a = _sort_groups(lay, a)
    diag = ON_DIAGONAL[a[:, 0]]
    if diag.any():
        b = _sort_groups(lay, TRANSPOSE[a[diag]])
        better = _key(b) < _key(a[diag])
        rows = np.flatnonzero(diag)[better]
        a[rows] = b[better]
    return a


def encode(lay: Layout, side: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """(side to move, canonical squares) -> indices. Squares must already be canonical."""
    sq = np.asarray(squares, dtype=np.int64)
    idx = TRI_INDEX[sq[:, 0]] if not lay.pawns else sq[:, 0].copy()
    for j in range(1, lay.k):
        idx = idx * 64 + sq[:, j]
    return np.where(np.asarray(side, dtype=bool), 0, lay.per_side) + idx


def index_of(lay: Layout, side: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Indices of arbitrary square tuples (canonicalised first)."""
    return encode(lay, side, canonical(lay, squares))


def flip_colours(lay: Layout, side: np.ndarray, squares: np.ndarray) -> tuple[Layout, np.ndarray, np.ndarray]:
    """The same positions with colours swapped (board mirrored rank-wise): Black's men become
    White's, the side to move swaps. Returns the flipped layout and its (side, squares)."""
    flipped = layout(lay.black + lay.white)
    sq = FLIP[np.asarray(squares, dtype=np.int64)]
    pool = list(range(lay.k))
    cols = []
    for colour, t in flipped.units:
        j = next(j for j in pool if lay.units[j] == (not colour, t))
        pool.remove(j)
        cols.append(j)
    return flipped, ~np.asarray(side, dtype=bool), sq[:, cols]
