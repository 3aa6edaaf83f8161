"""The verified-cage library (`encodings/cages/*.toml`): entries, sub-board matching with the
colour swap, and learning a newly verified cage (Hwa §5, bootstrapping).

A verified cage is illegal in every extension, so any position containing its units (with its
frozen units frozen, under restrictions at least as strong) is illegal too: Hwa's bootstrapping.
Nothing here is trusted blindly: an entry is verified again before its first use in a search
(cached), the tests re-verify every entry, and a proof that uses an entry embeds the entry's own
proof for the checker.

Imports: the verifier (cages.search) and the entry record (cages.entry); the search never
imports the library (it sees one through search.KnownCages), so the dependency goes one way.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import chess

from retrologic.cages.entry import FORMAT, CageEntry, Match, toml_string  # noqa: F401 (re-exported)
from retrologic.cages.rules import MODELS, NoPawnCaptures, covers, restrictions_from, zone_mask
from retrologic.cages.search import CageResult, verify
from retrologic.errors import InputError
from retrologic.limits import Budget, budget_for
from retrologic.position import Placement, Position
from retrologic.paths import encodings
from retrologic.schema import Field, one_of, parse_squares, validate

DEFAULT_DIR = encodings("cages")
MAX_NAME = 100              # characters of a cage's name
MAX_SLUG = 60               # characters of a file name's readable part
MAX_USES_DEPTH = 32         # longest chain of entries relying on each other through `uses`

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

    def proof(self, entry: CageEntry) -> CageResult | None:
        """The entry's own verification (cached): a CageResult, proved or not; None while it is
        being verified (an entry relying on itself through `uses` gets no help from itself)."""
        if entry.name not in self._proofs:
            if entry.name in self._busy:
                return None
            self._busy.add(entry.name)
            try:
                lib = self.subset(entry.uses) if entry.uses else None
                self._proofs[entry.name] = verify(entry.position(), entry.zone, entry.restrictions,
                                                  lib, model=entry.model)
            finally:
                self._busy.discard(entry.name)
        return self._proofs[entry.name]

    def check_uses(self) -> None:
        """Every name in `uses` exists, the relation has no cycle (a proof may not rely on
        itself) and no chain of `uses` is longer than MAX_USES_DEPTH (verifying an entry
        verifies what it uses first, one level of recursion each). Iterative: a long chain in
        a hostile library cannot exhaust Python's stack here."""
        by_name = {e.name: e for e in self.entries}
        height: dict[str, int] = {}                 # longest chain of uses below an entry
        for root in self.entries:
            if root.name in height:
                continue
            trail: list[CageEntry] = [root]
            on_trail = {root.name}
            pending = [iter(root.uses)]
            while trail:
                e = trail[-1]
                n = next(pending[-1], None)
                if n is None:
                    height[e.name] = 1 + max((height[u] for u in e.uses), default=0)
                    if height[e.name] > MAX_USES_DEPTH:
                        raise InputError(f"a chain of more than {MAX_USES_DEPTH} cages relying on "
                                         "each other through 'uses'", file=e.path, field="uses",
                                         value=e.name)
                    trail.pop()
                    pending.pop()
                    on_trail.discard(e.name)
                    continue
                dep = by_name.get(n)
                if dep is None:
                    raise InputError("unknown cage named in 'uses'", file=e.path, field="uses", value=n)
                if dep.name in on_trail:
                    cycle = [t.name for t in trail[[t.name for t in trail].index(dep.name):]]
                    raise InputError("cages rely on each other in a cycle", field="uses",
                                     value=" -> ".join(cycle + [dep.name]))
                if dep.name not in height:
                    trail.append(dep)
                    on_trail.add(dep.name)
                    pending.append(iter(dep.uses))


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


def _add(lib: Library, entry: CageEntry) -> None:
    """Add a loaded entry, naming its file if its name is taken already."""
    try:
        lib.add(entry)
    except InputError as e:
        raise e.located(entry.path) from None


def load_library(path: str | Path | Iterable[str | Path] = DEFAULT_DIR) -> Library:
    """A library from a directory of entries (`*.toml`), one entry file, or a list of either.
    Every file is read through retrologic.files (size-capped) and a directory may hold at most
    files.MAX_DIR_FILES entries."""
    from retrologic.files import list_dir
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    lib = Library()
    for p in paths:
        p = Path(p)
        try:
            is_dir, exists = p.is_dir(), p.exists()
        except (OSError, ValueError) as e:       # a name too long, a NUL byte: bad input
            raise InputError(f"cannot use this path: {getattr(e, 'strerror', None) or e}",
                             field="library", value=str(p)) from None
        if is_dir:
            for f in list_dir(p, "*.toml", what="cage library"):
                _add(lib, load_entry(f))
        elif exists:
            _add(lib, load_entry(p))
        else:
            raise InputError("no such file or directory", field="library", value=str(p))
    lib.check_uses()
    return lib


def slug(text: str) -> str:
    """A file-name-safe name: lower-case letters, digits and '-', at most MAX_SLUG characters."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:MAX_SLUG].strip("-")
    return s or "cage"


def digest(text: str, length: int = 8) -> str:
    """A short hash of the exact text (case and all): tells apart names and boards that a
    slug, or a case-insensitive file system, would merge."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def default_name(board: str) -> str:
    """The name of a learned cage when none is given: the board's slug and a hash of the exact
    board, so boards differing only in letter case (White and Black) get different names."""
    try:
        board = chess.BaseBoard(board.strip()).board_fen()     # one name however it is written
    except ValueError:
        board = board.strip()
    return f"cage-{slug(board)}-{digest(board)}"


def file_stem(name: str) -> str:
    """The file name (without .toml) of an entry: its name when that is already a slug, else
    the slug plus a hash of the exact name (names differing only in case or punctuation get
    different files, on case-insensitive file systems too)."""
    s = slug(name)
    return s if s == name else f"{s}-{digest(name)}"



def check_text(value: str, field: str, *, limit: int | None = None) -> str:
    """A name, source or comment fit to be written to a library file; InputError otherwise."""
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        raise InputError("not valid text (undecodable bytes)", field=field, value=value)
    if limit is not None and not value.strip():
        raise InputError("must not be empty", field=field, value=value)
    if limit is not None and (len(value) > limit or not value.isprintable()):
        raise InputError(f"must be printable text of at most {limit} characters", field=field,
                         value=value)
    return value


def _names_in(directory: Path) -> dict[str, Path]:
    """Names of the entries already in a library directory (files that do not parse are
    skipped here: loading the library reports them)."""
    from retrologic.files import list_dir
    from retrologic.schema import read_toml
    names: dict[str, Path] = {}
    for f in list_dir(directory, "*.toml", what="cage library"):
        try:
            name = read_toml(f).get("name")
        except InputError:
            continue
        if isinstance(name, str):
            names[name] = f
    return names


def write_entry(entry: CageEntry, directory: str | Path, states: int | None = None) -> Path:
    """Write an entry as a new file `<directory>/<file_stem(name)>.toml`, atomically, never
    overwriting a file (a taken file name gets a `-2`, `-3` ... suffix); InputError if an entry
    of that name is in the directory already (names are unique within a library)."""
    from retrologic.files import create_exclusive_bytes, exclusive_path
    check_text(entry.name, "name", limit=MAX_NAME)
    check_text(entry.source, "source")
    check_text(entry.comment, "comment")
    directory = Path(directory)
    if directory.is_dir():
        taken = _names_in(directory).get(entry.name)
        if taken is not None:
            raise InputError("a cage of that name is in the library already", file=str(taken),
                             field="name", value=entry.name)
    data = entry.to_toml(states).encode("utf-8")
    for _ in range(100):
        path = exclusive_path(directory / f"{file_stem(entry.name)}.toml")
        try:
            return create_exclusive_bytes(path, data)
        except FileExistsError:
            continue                # another process took the name meanwhile: the next one
        except OSError as e:
            raise InputError(f"cannot write: {e.strerror or e}", file=str(path)) from None
    raise InputError("no free file name for the entry", file=str(directory), field="name",
                     value=entry.name)


def learn(position: Position | Placement | str, *, name: str, zone: Any = None,
          restrictions: Iterable[Any] = (), frozen: Any = None, model: str = "lines",
          source: str = "", comment: str = "", library: Library | None = None,
          directory: str | None = None, nodes: int | None = None,
          timeout: float | None = None, budget: Budget | None = None) -> tuple[CageResult, Any]:
    """Verify a cage and, when proved, add it to the library directory (`encodings/cages` by
    default) as a new entry; returns the result and the new file's path (None if not proved, or
    if the position contains a known cage already). Limits: `budget`, or `timeout`/`nodes`."""
    result = verify(position, zone, restrictions, library, model=model, frozen=frozen,
                    budget=budget_for(timeout, nodes, budget))
    if not result.proved:
        return result, None
    start = result.start
    if library is not None and library.matches(start, result.restrictions) is not None:
        return result, None     # implied by a known cage: nothing new to learn
    entry = CageEntry(name, start.placement, result.zone, start.frozen, result.restrictions,
                      model, tuple(e.name for e in result.lemmas), source, comment)
    path = write_entry(entry, directory or DEFAULT_DIR, states=result.states)
    return result, path
