"""The symmetry-reduced set of starting positions of the 4x4 capture puzzle, densely indexed.

The 8 symmetries of the square map the rules onto themselves. Every orbit has a representative
with the white king on b4 (an edge square; each edge orbit meets b4 exactly once), on a4 (a
corner) or on b3 (a centre square); the last two squares lie on the a4-d1 diagonal, whose
reflection fixes them, so there the representative is the one whose key is not larger than its
mirror image's. Index i = block * M + rank: block 0/1/2 puts the king on b4/a4/b3, and rank is the
lexicographic rank (in piece-code order) of the other 15 units on the other 15 squares, a4 first;
M = 15!/2^6. Indices of non-representatives (mirror images in blocks 1 and 2) are skipped.
"""

from __future__ import annotations

from math import factorial
from typing import Iterator

from retrologic.puzzle4x4.game import CODE_OF, FULL_SET, WK

KING_SQUARES = (1, 0, 5)                                  # b4, a4, b3
OTHERS = sorted(CODE_OF[ch] for ch in FULL_SET if ch != "K")   # the 15 other units, as codes
BLOCK = factorial(15) // 2 ** 6                           # 20,432,412,000 arrangements per block
SIZE = 3 * BLOCK                                          # the index space
# mirror-symmetric arrangements per diagonal block: Q, k, q on the 3 free diagonal squares (3!),
# the 6 pairs of equal units on the 6 pairs of mirrored squares (6!)
SYMMETRIC_PER_BLOCK = factorial(3) * factorial(6)
CANONICAL = BLOCK + 2 * ((BLOCK + SYMMETRIC_PER_BLOCK) // 2)   # = 40,864,828,320 orbits


def _perm(r: int, c: int) -> int:
    return r * 4 + c


# the 8 symmetries as square permutations: image[s] is where square s goes
SYMMETRIES: list[list[int]] = []
for _transpose in (False, True):
    for _flip_r in (False, True):
        for _flip_c in (False, True):
            _img = []
            for _s in range(16):
                _r, _c = divmod(_s, 4)
                if _transpose:
                    _r, _c = _c, _r
                if _flip_r:
                    _r = 3 - _r
                if _flip_c:
                    _c = 3 - _c
                _img.append(_perm(_r, _c))
            SYMMETRIES.append(_img)
DIAGONAL = SYMMETRIES[4]          # transpose only: the reflection in the a4-d1 diagonal


def transform(key: int, image: list[int]) -> int:
    """The key with the unit on square s moved to image[s]."""
    out = 0
    for s in range(16):
        p = (key >> (4 * s)) & 15
        if p:
            out |= p << (4 * image[s])
    return out


def canonical(key: int) -> int:
    """The orbit representative that the index enumerates (king on b4, a4 or b3)."""
    best = None
    for image in SYMMETRIES:
        k = transform(key, image)
        ksq = next(s for s in range(16) if (k >> (4 * s)) & 15 == WK)
        if ksq in KING_SQUARES and (best is None or k < best):
            best = k
    assert best is not None
    return best


def is_representative(key: int) -> bool:
    """Whether a start with the king on b4, a4 or b3 is the one the index keeps."""
    ksq = next(s for s in range(16) if (key >> (4 * s)) & 15 == WK)
    if ksq == 1:
        return True
    if ksq in (0, 5):
        return key <= transform(key, DIAGONAL)
    return False


def _count(counts: dict[int, int], n: int) -> int:
    out = factorial(n)
    for c in counts.values():
        out //= factorial(c)
    return out


def unrank(rank: int) -> list[int]:
    """The rank-th arrangement (lexicographic) of the 15 other units."""
    if not 0 <= rank < BLOCK:
        raise ValueError(f"rank {rank} out of range [0, {BLOCK})")
    counts: dict[int, int] = {}
    for c in OTHERS:
        counts[c] = counts.get(c, 0) + 1
    out = []
    for left in range(15, 0, -1):
        for code in sorted(counts):
            if not counts[code]:
                continue
            counts[code] -= 1
            n = _count(counts, left - 1)
            if rank < n:
                out.append(code)
                break
            rank -= n
            counts[code] += 1
    return out


def rank_of(arrangement: list[int]) -> int:
    """The lexicographic rank of an arrangement of the 15 other units (inverse of unrank)."""
    counts: dict[int, int] = {}
    for c in arrangement:
        counts[c] = counts.get(c, 0) + 1
    rank = 0
    for i, code in enumerate(arrangement):
        for smaller in sorted(counts):
            if smaller >= code:
                break
            if counts[smaller]:
                counts[smaller] -= 1
                rank += _count(counts, 14 - i)
                counts[smaller] += 1
        counts[code] -= 1
    return rank


def next_arrangement(a: list[int]) -> bool:
    """Step `a` to the next arrangement in lexicographic order, in place; False after the last."""
    i = len(a) - 2
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = len(a) - 1
    while a[j] <= a[i]:
        j -= 1
    a[i], a[j] = a[j], a[i]
    a[i + 1:] = reversed(a[i + 1:])
    return True


def key_of(block: int, arrangement: list[int]) -> int:
    """The start of a block (king square) and an arrangement of the other units."""
    ksq = KING_SQUARES[block]
    key = WK << (4 * ksq)
    squares = [s for s in range(16) if s != ksq]
    for s, code in zip(squares, arrangement):
        key |= code << (4 * s)
    return key


def starts(lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """(index, key) of every representative start with lo <= index < hi."""
    lo, hi = max(lo, 0), min(hi, SIZE)
    i = lo
    while i < hi:
        block, rank = divmod(i, BLOCK)
        end = min(hi, (block + 1) * BLOCK)
        a = unrank(rank)
        ksq = KING_SQUARES[block]
        squares = [s for s in range(16) if s != ksq]
        shifts = [4 * s for s in squares]
        base = WK << (4 * ksq)
        check = block != 0
        while True:
            key = base
            for sh, code in zip(shifts, a):
                key |= code << sh
            if not check or key <= transform(key, DIAGONAL):
                yield i, key
            i += 1
            if i >= end or not next_arrangement(a):
                break
        i = end


def index_of(key: int) -> int:
    """The index of a start's orbit representative."""
    rep = canonical(key)
    ksq = next(s for s in range(16) if (rep >> (4 * s)) & 15 == WK)
    block = KING_SQUARES.index(ksq)
    arrangement = [(rep >> (4 * s)) & 15 for s in range(16) if s != ksq]
    return block * BLOCK + rank_of(arrangement)


