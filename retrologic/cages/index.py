"""The sub-board index of the cage library: which entries may stand in a position.

Each entry is matched in two variants (directly, and with White and Black exchanged and the
board flipped top to bottom). A variant is filed under one of its units (square, colour, type),
the one whose list is shortest when it is filed, so the members of one closed set (which share
most units) spread over the squares their moving units visit. A position looks up one list per
unit it has and tests only the variants filed there: a lookup costs its units plus the few
variants filed under them, not the library's size. Plain data: imports the entry record and the
restriction rules only; the library decides which candidates are verified.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from retrologic.cages.entry import CageEntry
from retrologic.cages.rules import NoPawnCaptures, covers
from retrologic.position import Placement


@dataclass(frozen=True)
class Variant:
    entry: CageEntry
    swapped: bool
    seq: int                    # insertion order: the first matching variant is reported
    typed: tuple[tuple[int, int], ...]      # (piece type index, mask) of the types it has
    white: int
    black: int
    frozen: int
    castling: int
    restrictions: tuple[NoPawnCaptures, ...]


def variants(entry: CageEntry, seq: int) -> list[Variant]:
    """The entry as it is matched: directly, and with the colours exchanged (board flipped)."""
    out = []
    for swapped in (False, True):
        pl = entry.placement.colour_swapped() if swapped else entry.placement
        frozen = chess.flip_vertical(entry.frozen) if swapped else entry.frozen
        castling = chess.flip_vertical(entry.castling) if swapped else entry.castling
        rs = tuple(r.swapped() for r in entry.restrictions) if swapped else entry.restrictions
        typed = tuple((t, m) for t, m in enumerate(pl[:6]) if m)
        out.append(Variant(entry, swapped, 2 * seq + swapped, typed, pl.white,
                            pl.occupied & ~pl.white, frozen, castling, rs))
    return out


def unit_keys(pl: Placement) -> list[int]:
    """One key per unit: square * 16 + colour * 8 + piece type index."""
    keys = []
    for t, mask in enumerate(pl[:6]):
        for sq in chess.scan_forward(mask):
            keys.append(sq * 16 + (8 if pl.white & (1 << sq) else 0) + t)
    return keys


class Index:
    """Sub-board candidates by a per-square index (see the module docstring)."""

    def __init__(self) -> None:
        self.buckets: dict[int, list[Variant]] = {}
        self.keyless: list[Variant] = []       # a variant with no unit (never verifies)
        self.size = 0

    def add(self, v: Variant) -> None:
        self.size += 1
        keys = unit_keys(placement_of(v))
        if not keys:
            self.keyless.append(v)
            return
        key = min(keys, key=lambda k: len(self.buckets.get(k, ())))
        self.buckets.setdefault(key, []).append(v)

    def candidates(self, pl: Placement, immobile: int, castling: int,
                   restrictions: tuple[NoPawnCaptures, ...], *, every: bool = False
                   ) -> list[Variant]:
        """Variants whose units all stand in `pl`, frozen units immobile, castling rights held
        and restrictions implied, in insertion order. `every`: test every variant instead of
        the lists of `pl`'s units (what a library without the index costs; for comparison)."""
        masks = pl[:6]
        white = pl.white
        black = pl.occupied & ~white
        found = []
        if every:
            lists = [*self.buckets.values(), self.keyless]
        else:
            lists = [self.buckets.get(k) for k in unit_keys(pl)] + [self.keyless]
        for bucket in lists:
            if not bucket:
                continue
            for v in bucket:
                if v.white & ~white or v.black & ~black or v.frozen & ~immobile \
                        or v.castling & ~castling:
                    continue
                if any(m & ~masks[t] for t, m in v.typed):
                    continue
                if v.restrictions and not covers(restrictions, v.restrictions):
                    continue
                found.append(v)
        found.sort(key=lambda v: v.seq)
        return found


def placement_of(v: Variant) -> Placement:
    pl = v.entry.placement
    return pl.colour_swapped() if v.swapped else pl
