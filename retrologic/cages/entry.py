"""A verified cage's record (CageEntry), its library-file form, and a match of one in a position.

Plain data shared by the cage search (which closes positions with matched entries and embeds
their proofs) and the library (which loads, verifies and writes entries); it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from retrologic.cages.rules import NoPawnCaptures, squares_of
from retrologic.position import Placement, Position

FORMAT = "retrologic-cage/1"    # the format of a library file


@dataclass(frozen=True)
class CageEntry:
    """One verified cage: its units, the zone and model it was verified with, the units it
    assumes frozen and the restrictions it assumes; `uses` names entries its proof relies on."""

    name: str
    placement: Placement
    zone: int
    frozen: int = 0
    restrictions: tuple[NoPawnCaptures, ...] = ()
    model: str = "lines"
    uses: tuple[str, ...] = ()
    source: str = ""
    comment: str = ""
    path: str | None = None

    @property
    def board(self) -> str:
        return self.placement.board_fen()

    def position(self) -> Position:
        return Position(self.placement, None, 0, None, self.frozen, True)

    def to_toml(self, states: int | None = None) -> str:
        """The entry as a library file."""
        def q(s: str) -> str:
            return toml_string(s)

        def arr(items: Iterable[str]) -> str:
            return "[" + ", ".join(q(i) for i in items) + "]"
        lines = [f"format = {q(FORMAT)}", f"name = {q(self.name)}", f"board = {q(self.board)}",
                 f"zone = {arr(squares_of(self.zone))}", f"frozen = {arr(squares_of(self.frozen))}",
                 f"restrictions = {arr(r.expr() for r in self.restrictions)}",
                 f"model = {q(self.model)}", f"uses = {arr(self.uses)}", f"source = {q(self.source)}"]
        if self.comment:
            lines.append(f"comment = {q(self.comment)}")
        if states is not None:
            lines.append(f"states = {states}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Match:
    """A library entry found in a position; `swapped`: found after exchanging the colours."""

    entry: CageEntry
    swapped: bool


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
