"""Named, typed memo tables for the proof-game analysis: one table per look-up, so keys never
need tags to tell look-ups apart. A table is a dict (a hit costs one C call, as before)."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """The values of one look-up by its key; `name` says which (for reports and debugging).
    Tables only grow: an entry, once computed, is the look-up's value for good."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self)} entries)"


def memo_sizes(*owners: object) -> dict[str, int]:
    """Entries per memo table of `owners` (their attributes that are `Memo`s), by table name."""
    out: dict[str, int] = {}
    for owner in owners:
        for value in vars(owner).values():
            if isinstance(value, Memo):
                out[value.name] = len(value)
    return out
