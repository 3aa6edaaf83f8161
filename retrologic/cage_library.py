"""The verified-cage library (`encodings/cages/*.toml`): entries, sub-board matching with the
colour swap, and learning a newly verified cage.

A verified cage is illegal in every extension, so any position containing its units (with its
frozen units frozen, under restrictions at least as strong) is illegal too: Hwa's bootstrapping.
Nothing here is trusted blindly: an entry is verified again before its first use in a search
(cached), the tests re-verify every entry, and a proof that uses an entry embeds the entry's own
proof for the checker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import chess

from retrologic.cage_rules import MODELS, NoPawnCaptures, covers, restrictions_from, squares_of, zone_mask
from retrologic.errors import InputError
from retrologic.position import Placement, Position
from retrologic.paths import encodings
from retrologic.schema import Field, one_of, parse_squares, validate

FORMAT = "retrologic-cage/1"
DEFAULT_DIR = encodings("cages")

ENTRY = {
    "format": Field(str, required=True),
    "name": Field(str, required=True),
    "board": Field(str, required=True),
    "zone": Field((str, list), default="auto"),
    "frozen": Field(list, default=[]),
    "restrictions": Field(list, default=[]),
    "model": Field(str, default="lines",
                   check=one_of(*MODELS)),
    "uses": Field(list, default=[]),
    "source": Field(str, default=""),
    "comment": Field(str, default=""),
    "states": Field(int),
}


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
            return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

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


@dataclass(frozen=True)
class _Variant:
    entry: CageEntry
    swapped: bool
    masks: tuple[int, ...]      # 6 piece-type masks
    white: int
    black: int
    frozen: int
    restrictions: tuple[NoPawnCaptures, ...]


@dataclass
class Library:
    """A set of cages, matched as sub-boards in both colour orientations. An entry is used only
    once it has been verified again (lazily, on its first match; the result is cached)."""

    entries: list[CageEntry] = field(default_factory=list)
    _variants: list[_Variant] = field(default_factory=list, repr=False)
    _proofs: dict[str, Any] = field(default_factory=dict, repr=False)
    _busy: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        entries, self.entries = self.entries, []
        for e in entries:
            self.add(e)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def get(self, name: str) -> CageEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def add(self, entry: CageEntry) -> None:
        """Add an entry (names are unique within a library)."""
        if self.get(entry.name) is not None:
            raise InputError("duplicate cage name in the library", field="name", value=entry.name)
        self.entries.append(entry)
        for swapped in (False, True):
            pl = entry.placement.colour_swapped() if swapped else entry.placement
            frozen = chess.flip_vertical(entry.frozen) if swapped else entry.frozen
            rs = tuple(r.swapped() for r in entry.restrictions) if swapped else entry.restrictions
            occ = pl.occupied
            self._variants.append(_Variant(entry, swapped, tuple(pl[:6]), pl.white, occ & ~pl.white,
                                           frozen, rs))

    def subset(self, names: Iterable[str]) -> "Library":
        """The entries named (for re-verifying an entry with only what its proof may use)."""
        out = []
        for n in names:
            e = self.get(n)
            if e is None:
                raise InputError("unknown cage named in 'uses'", field="uses", value=n)
            out.append(e)
        lib = Library(out)
        lib._proofs, lib._busy = self._proofs, self._busy    # one cache, one cycle guard
        return lib

    def matches(self, position: Position | Placement,
                restrictions: Iterable[NoPawnCaptures] = ()) -> Match | None:
        """A verified entry whose units all stand in `position` (same type, colour, square),
        directly or with White and Black exchanged and the board flipped top to bottom; its
        frozen units must be immobile in `position` and its restrictions implied by
        `restrictions`. (The swap is sound: nothing in the model depends on who moves first.)"""
        if isinstance(position, Placement):
            pl, immobile = position, 0
        else:
            pl, immobile = position.placement, position.immobile
        masks = pl[:6]
        white = pl.white
        black = pl.occupied & ~white
        restrictions = tuple(restrictions)
        for v in self._variants:
            if v.white & ~white or v.black & ~black or v.frozen & ~immobile:
                continue
            if any(m & ~have for m, have in zip(v.masks, masks)):
                continue
            if v.restrictions and not covers(restrictions, v.restrictions):
                continue
            proof = self.proof(v.entry)
            if proof is None or not proof.proved:
                continue                    # not (or not yet) verified: never trusted
            return Match(v.entry, v.swapped)
        return None

    def proof(self, entry: CageEntry):
        """The entry's own verification (cached): a CageResult, proved or not; None while it is
        being verified (an entry relying on itself through `uses` gets no help from itself)."""
        if entry.name not in self._proofs:
            if entry.name in self._busy:
                return None
            from retrologic.cage import verify
            self._busy.add(entry.name)
            try:
                lib = self.subset(entry.uses) if entry.uses else None
                self._proofs[entry.name] = verify(entry.position(), entry.zone, entry.restrictions,
                                                  lib, model=entry.model)
            finally:
                self._busy.discard(entry.name)
        return self._proofs[entry.name]

    def check_uses(self) -> None:
        """Every name in `uses` exists and the relation has no cycle (a proof may not rely on
        itself)."""
        state: dict[str, int] = {}

        def visit(e: CageEntry, trail: tuple[str, ...]) -> None:
            if state.get(e.name) == 2:
                return
            if state.get(e.name) == 1:
                raise InputError("cages rely on each other in a cycle", field="uses",
                                 value=" -> ".join(trail + (e.name,)))
            state[e.name] = 1
            for n in e.uses:
                dep = self.get(n)
                if dep is None:
                    raise InputError("unknown cage named in 'uses'", file=e.path, field="uses", value=n)
                visit(dep, trail + (e.name,))
            state[e.name] = 2
        for e in self.entries:
            visit(e, ())


def parse_entry(data: dict[str, Any], *, file: str = "<cage>") -> CageEntry:
    """A library entry from its decoded TOML table; InputError names file, field and value."""
    t = validate(data, ENTRY, file=file, where="")
    if t["format"] != FORMAT:
        raise InputError(f"unsupported format (expected {FORMAT!r})", file=file, field="format",
                         value=t["format"])
    from retrologic.position import parse
    try:
        pos = parse(board=t["board"])
    except ValueError as e:
        raise InputError(str(e), file=file, field="board", value=t["board"]) from None
    try:
        frozen = 0
        for sq in parse_squares(t["frozen"]):
            if not pos.placement.occupied & chess.BB_SQUARES[sq]:
                raise ValueError(f"frozen square {chess.square_name(sq)} is empty")
            frozen |= chess.BB_SQUARES[sq]
    except ValueError as e:
        raise InputError(str(e), file=file, field="frozen", value=t["frozen"]) from None
    try:
        zone = zone_mask(t["zone"], pos.placement)
    except InputError as e:
        raise e.located(file) from None
    rules, more = [], 0
    for i, text in enumerate(t["restrictions"]):
        if not isinstance(text, str):
            raise InputError("must be a string (an expression)", file=file, field=f"restrictions[{i}]",
                             value=text)
        try:
            got, never = restrictions_from([text], pos)
        except InputError as e:
            raise InputError(e.message, file=file, field=f"restrictions[{i}]", value=text) from None
        rules += got
        more |= never
    for i, n in enumerate(t["uses"]):
        if not isinstance(n, str):
            raise InputError("must be a string (a cage name)", file=file, field=f"uses[{i}]", value=n)
    return CageEntry(t["name"], pos.placement, zone, frozen | more, tuple(rules), t["model"],
                     tuple(t["uses"]), t["source"], t["comment"], file)


def load_entry(path: str | Path) -> CageEntry:
    """Read one library file."""
    from retrologic.schema import read_toml
    return parse_entry(read_toml(path), file=str(path))


def load_library(path: str | Path | Iterable[str | Path] = DEFAULT_DIR) -> Library:
    """A library from a directory of entries (`*.toml`), one entry file, or a list of either."""
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    lib = Library()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for f in sorted(p.glob("*.toml")):
                lib.add(load_entry(f))
        elif p.exists():
            lib.add(load_entry(p))
        else:
            raise InputError("no such file or directory", file=str(p), field="library")
    lib.check_uses()
    return lib


def slug(text: str) -> str:
    """A file-name-safe name."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "cage"


def write_entry(entry: CageEntry, directory: str | Path, states: int | None = None) -> Path:
    """Write an entry as `<directory>/<name>.toml` (never overwriting another file)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{slug(entry.name)}.toml"
    if path.exists():
        raise InputError("a library file of that name exists already", file=str(path), field="name",
                         value=entry.name)
    path.write_text(entry.to_toml(states))
    return path
