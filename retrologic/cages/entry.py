"""A verified cage's record (CageEntry), its library-file form, and a match of one in a position.

Plain data shared by the cage search (which closes positions with matched entries and embeds
their proofs) and the library (which loads, verifies and writes entries); it imports neither.

Members (Hwa's bootstrapping, every board of a verified closed set): an entry may list the
other boards of its proof's closed set (`members`, each a board with its frozen units and
castling rights, written compactly as one string). Each is a cage in its own right, with the
entry's zone, model and restrictions: the search is stateless (a zone position is its units,
frozen units and castling rights; no side to move, no memory), so every retraction of a member
lands in the closed set or is ruled out, and the part of the set reachable from the member is a
proof for it. The library turns each into a sub-entry tied to its parent (`parent`), used only
once the parent verifies again and the member is found in the parent's closed set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import chess

from retrologic.cages.rules import NoPawnCaptures, squares_of
from retrologic.position import Placement, Position, castling_fault

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
    castling: int = 0                       # castling rights the cage assumes (rook squares)
    members: tuple[Position, ...] = ()      # the other boards of its closed set (learned)
    parent: str = ""                        # a member's sub-entry: the entry it belongs to

    @property
    def board(self) -> str:
        return self.placement.board_fen()

    def position(self) -> Position:
        return Position(self.placement, None, self.castling, None, self.frozen, True)

    def to_toml(self, states: int | None = None) -> str:
        """The entry as a library file."""
        def q(s: str) -> str:
            return toml_string(s)

        def arr(items: Iterable[str]) -> str:
            return "[" + ", ".join(q(i) for i in items) + "]"
        lines = [f"format = {q(FORMAT)}", f"name = {q(self.name)}", f"board = {q(self.board)}",
                 f"zone = {arr(squares_of(self.zone))}", f"frozen = {arr(squares_of(self.frozen))}",
                 *([f"castling = {arr(squares_of(self.castling))}"] if self.castling else []),
                 f"restrictions = {arr(r.expr() for r in self.restrictions)}",
                 f"model = {q(self.model)}", f"uses = {arr(self.uses)}", f"source = {q(self.source)}"]
        if self.comment:
            lines.append(f"comment = {q(self.comment)}")
        if states is not None:
            lines.append(f"states = {states}")
        if self.members:
            lines.append("members = [")
            lines += [f"  {q(member_text(m))}," for m in self.members]
            lines.append("]")
        return "\n".join(lines) + "\n"


def member_text(pos: Position) -> str:
    """A member in a library file: its board, then `frozen=sq,...` and `castling=sq,...` when
    it has any (`8/5ppb/6p1/8/8/8/8/8`, `8/8/8/8/8/8/6PP/6Nr frozen=g1`)."""
    out = pos.placement.board_fen()
    if pos.frozen:
        out += " frozen=" + ",".join(squares_of(pos.frozen))
    if pos.castling:
        out += " castling=" + ",".join(squares_of(pos.castling))
    return out


def parse_member(text: str) -> Position:
    """A member from its library-file text (see member_text); ValueError if malformed. The
    frozen squares must hold units; castling rights need their king and rook in place."""
    if not isinstance(text, str):
        raise ValueError("a member is a string")
    board, *rest = text.split()
    placement = Placement.from_board_fen(board)
    masks = {"frozen": 0, "castling": 0}
    for item in rest:
        key, sep, value = item.partition("=")
        if not sep or key not in masks or masks[key]:
            raise ValueError(f"expected frozen=SQ,... or castling=SQ,..., got {item!r}")
        for name in value.split(","):
            masks[key] |= chess.BB_SQUARES[chess.parse_square(name)]
    if masks["frozen"] & ~placement.occupied:
        raise ValueError("frozen squares must hold a unit")
    check_castling(placement, masks["castling"])
    return Position(placement, None, masks["castling"], None, masks["frozen"], True)


def check_castling(placement: Placement, castling: int) -> None:
    """ValueError unless each castling square is a rook corner whose king and rook stand home
    (`position.castling_fault`: a problem file states the whole cage, so none is unseen)."""
    fault = castling_fault(placement, castling)
    if fault:
        raise ValueError(fault)


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
