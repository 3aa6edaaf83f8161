"""The verified-cage library (`encodings/cages/*.toml`): entries, sub-board matching with the
colour swap, and learning a newly verified cage (Hwa §5, bootstrapping).

A verified cage is illegal in every extension, so any position containing its units (with its
frozen units frozen, under restrictions at least as strong) is illegal too: Hwa's bootstrapping.
Nothing here is trusted blindly: an entry is verified again before its first use in a search
(cached), the tests re-verify every entry, and a proof that uses an entry embeds the entry's own
proof for the checker. Learned entries carry the other boards of their closed sets (`members`,
Hwa's bootstrapping: each is a cage with the entry's zone, model and restrictions); a member is
used only when its parent verifies again and the member is a board of that closed set, and its
proof (embedded for the checker) is the parent's closed set started at the member.

Imports: the verifier (cages.search) and the entry record (cages.entry); the search never
imports the library (it sees one through search.KnownCages), so the dependency goes one way.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

import chess

from retrologic.cages.entry import (FORMAT, CageEntry, Match, check_castling,  # noqa: F401
                                    member_text, parse_member, toml_string)
from retrologic.cages.index import Index, variants
from retrologic.cages.rules import MODELS, NoPawnCaptures, restrictions_from, zone_mask
from retrologic.cages.search import CageResult, verify
from retrologic.result import Verdict
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
    "castling": Field(list, default=[]),
    "members": Field(list, default=[]),
}


def member_entries(entry: CageEntry) -> list[CageEntry]:
    """The sub-entries of an entry's learned members: each a cage with the parent's zone, model
    and restrictions, tied to it by `parent` (its proof is the parent's, see Library.proof)."""
    out = []
    for m in entry.members:
        name = f"{entry.name}#{digest(member_text(m))}"
        out.append(CageEntry(name, m.placement, entry.zone, m.frozen, entry.restrictions,
                             entry.model, (entry.name,), entry.source, "", entry.path,
                             m.castling, (), entry.name))
    return out


@dataclass
class Library:
    """A set of cages, matched as sub-boards in both colour orientations. An entry is used only
    once it has been verified again (lazily, on its first match; the result is cached). An
    entry's learned members are sub-entries named `<entry>#<hash of the member>`."""

    entries: list[CageEntry] = field(default_factory=list)
    _index: Index = field(default_factory=Index, repr=False)
    _names: dict[str, CageEntry] = field(default_factory=dict, repr=False)
    _all: dict[str, CageEntry] = field(default_factory=dict, repr=False)   # shared by subsets
    _proofs: dict[str, Any] = field(default_factory=dict, repr=False)
    _sets: dict[str, dict[Position, int]] = field(default_factory=dict, repr=False)
    _busy: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        entries, self.entries = self.entries, []
        for e in entries:
            self.add(e)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    @property
    def size(self) -> int:
        """Entries and member sub-entries matched."""
        return len(self._names)

    def get(self, name: str) -> CageEntry | None:
        """An entry, or a member's sub-entry, by name."""
        return self._names.get(name)

    def add(self, entry: CageEntry, proof: CageResult | None = None) -> list[CageEntry]:
        """Add an entry and its members' sub-entries (names are unique within a library);
        `proof`: its verification, just made in this process (cached, not repeated). Returns
        the sub-entries added."""
        if entry.name in self._names:
            raise InputError("duplicate cage name in the library", field="name", value=entry.name)
        subs = member_entries(entry)
        for e in subs:
            if e.name in self._names:
                raise InputError("duplicate cage name in the library", field="name", value=e.name)
        if proof is not None:
            if not proof.proved or proof.start.placement != entry.placement:
                raise ValueError("the proof given is not a proof of this entry")
            self._proofs[entry.name] = proof
        if not entry.parent:
            self.entries.append(entry)
        for e in (entry, *subs):
            self._names[e.name] = e
            self._all.setdefault(e.name, e)
            for v in variants(e, self._index.size // 2):
                self._index.add(v)
        return subs

    def subset(self, names: Iterable[str]) -> "Library":
        """The entries named (for re-verifying an entry with only what its proof may use)."""
        out = []
        for n in names:
            e = self.get(n) or self._all.get(n)
            if e is None:
                raise InputError("unknown cage named in 'uses'", field="uses", value=n)
            out.append(e)
        lib = Library()
        for e in out:
            if not e.parent:
                lib.entries.append(e)
            lib._names[e.name] = e
            for v in variants(e, lib._index.size // 2):
                lib._index.add(v)
        # one cache, one cycle guard, one name space (a member's parent is found by name)
        lib._proofs, lib._busy, lib._sets, lib._all = self._proofs, self._busy, self._sets, self._all
        return lib

    def matches(self, position: Position | Placement,
                restrictions: Iterable[NoPawnCaptures] = ()) -> Match | None:
        """A verified entry whose units all stand in `position` (same type, colour, square),
        directly or with White and Black exchanged and the board flipped top to bottom; its
        frozen units must be immobile in `position`, its castling rights held there and its
        restrictions implied by `restrictions`. (The swap is sound: nothing in the model
        depends on who moves first.) The first such entry in the order they were added."""
        if isinstance(position, Placement):
            pl, immobile, castling = position, 0, 0
        else:
            pl, immobile, castling = position.placement, position.immobile, position.castling
        for v in self._index.candidates(pl, immobile, castling, tuple(restrictions)):
            proof = self.proof(v.entry)
            if proof is None or not proof.proved:
                continue                    # not (or not yet) verified: never trusted
            return Match(v.entry, v.swapped)
        return None

    def _matches_linear(self, position: Position | Placement,
                        restrictions: Iterable[NoPawnCaptures] = ()) -> Match | None:
        """matches() testing every entry (tests and the benchmark compare it with the index)."""
        if isinstance(position, Placement):
            position = Position(position, None, 0, None, 0, True)
        for v in self._index.candidates(position.placement, position.immobile, position.castling,
                                        tuple(restrictions), every=True):
            proof = self.proof(v.entry)
            if proof is not None and proof.proved:
                return Match(v.entry, v.swapped)
        return None

    def proof(self, entry: CageEntry) -> CageResult | None:
        """The entry's own verification (cached): a CageResult, proved or not; None while it is
        being verified (an entry relying on itself through `uses` gets no help from itself).
        A member's proof is its parent's closed set, started at the member: proved only when
        the parent verifies again and the member is one of its closed set's boards."""
        if entry.name not in self._proofs:
            if entry.name in self._busy:
                return None
            self._busy.add(entry.name)
            try:
                if entry.parent:
                    self._proofs[entry.name] = self._member_proof(entry)
                else:
                    lib = self.subset(entry.uses) if entry.uses else None
                    self._proofs[entry.name] = verify(entry.position(), entry.zone,
                                                      entry.restrictions, lib, model=entry.model)
            finally:
                self._busy.discard(entry.name)
        return self._proofs[entry.name]

    def _member_proof(self, entry: CageEntry) -> CageResult | None:
        parent = self._all.get(entry.parent)
        whole = self.proof(parent) if parent is not None else None
        pos = entry.position()
        if whole is None or not whole.proved:
            return whole
        if entry.parent not in self._sets:
            self._sets[entry.parent] = {p: i for i, p in enumerate(whole.members)}
        k = self._sets[entry.parent].get(pos)
        if k is None or whole.zone != entry.zone or whole.model != entry.model \
                or whole.restrictions != entry.restrictions:
            return CageResult(Verdict.UNKNOWN, pos, entry.zone, entry.model, entry.restrictions,
                              reason=f"not a board of the closed set of {entry.parent!r}")
        return started_at(whole, k)

    def check_uses(self) -> None:
        """Every name in `uses` exists, the relation has no cycle (a proof may not rely on
        itself) and no chain of `uses` is longer than MAX_USES_DEPTH (verifying an entry
        verifies what it uses first, one level of recursion each). Iterative: a long chain in
        a hostile library cannot exhaust Python's stack here."""
        by_name = dict(self._all)
        by_name.update(self._names)
        height: dict[str, int] = {}                 # longest chain of uses below an entry
        for root in list(self._names.values()):
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
    try:
        castling = 0
        for sq in parse_squares(t["castling"]):
            castling |= chess.BB_SQUARES[sq]
        check_castling(pos.placement, castling)
    except ValueError as e:
        raise InputError(str(e), file=file, field="castling", value=t["castling"]) from None
    members = []
    for i, text in enumerate(t["members"]):
        try:
            m = parse_member(text)
            if m.placement.occupied & ~zone:
                raise ValueError("a member has units outside the zone")
        except (ValueError, TypeError, IndexError) as e:
            raise InputError(str(e), file=file, field=f"members[{i}]", value=text) from None
        members.append(m)
    return CageEntry(t["name"], pos.placement, zone, frozen | more, tuple(rules), t["model"],
                     tuple(t["uses"]), t["source"], t["comment"], file, castling, tuple(members))


def load_entry(path: str | Path) -> CageEntry:
    """Read one library file."""
    from retrologic.schema import read_toml
    return parse_entry(read_toml(path), file=str(path))


def _add(lib: Library, entry: CageEntry) -> None:
    """Add a loaded entry, naming its file if its name is taken already by another cage; the
    same cage again (`--lemma` naming a library file, or a copy of it) is read once."""
    known = lib.get(entry.name)
    if known is not None and replace(known, path=entry.path) == entry:
        return
    try:
        lib.add(entry)
    except InputError as e:
        raise e.located(entry.path) from None


def load_library(path: str | Path | Iterable[str | Path] = DEFAULT_DIR) -> Library:
    """A library from a directory of entries (`*.toml`), one entry file, or a list of either.
    Every file is read through retrologic.files (size-capped) and a directory may hold at most
    files.MAX_DIR_FILES entries."""
    from retrologic.files import list_dir, path_kind
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    lib = Library()
    for p in paths:
        p = Path(p)
        kind = path_kind(p, field="library")      # a name too long, a NUL byte: bad input
        if kind == "dir":
            for f in list_dir(p, "*.toml", what="cage library"):
                _add(lib, load_entry(f))
        elif kind is not None:
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


def started_at(proof: CageResult, k: int) -> CageResult:
    """The proof of member k of a proved closed set: the same set, started at that member
    (listed first). Valid because the search is stateless: every retraction of every board of
    the set lands in the set or is ruled out, whichever board the set is entered from."""
    order = [k] + [i for i in range(len(proof.members)) if i != k]
    new = {old: i for i, old in enumerate(order)}
    return replace(proof, start=proof.members[k], members=[proof.members[i] for i in order],
                   pruned={new[i]: v for i, v in proof.pruned.items()},
                   closed={new[i]: v for i, v in proof.closed.items()}, line=None)


def closed_members(result: CageResult) -> tuple[Position, ...]:
    """The boards of a proof's closed set worth learning besides its start: not closed by a
    known cage (such a board contains that cage already), and not containing another board of
    the set (with its frozen units and castling rights), which would match wherever it does."""
    if not result.proved:
        return ()
    keep: list[Position] = []
    index = Index()
    ranked = sorted(range(len(result.members)),
                    key=lambda i: (i != 0, chess.popcount(result.members[i].placement.occupied), i))
    for i in ranked:
        pos = result.members[i]
        if i in result.closed:
            continue
        if index.candidates(pos.placement, pos.immobile, pos.castling, ()):
            continue
        if i:
            keep.append(pos)
        e = CageEntry("", pos.placement, 0, pos.frozen, castling=pos.castling)
        for v in variants(e, index.size // 2)[:1]:     # the same orientation only
            index.add(v)
    return tuple(sorted(keep, key=member_text))


def entry_of(result: CageResult, name: str, *, source: str = "", comment: str = "",
             members: bool = True) -> CageEntry:
    """The library entry of a proved cage: its start, zone, model, restrictions, the entries
    its proof used, and (`members`) the other boards of its closed set worth learning."""
    start = result.start
    return CageEntry(name, start.placement, result.zone, start.frozen, result.restrictions,
                     result.model, tuple(e.name for e in result.lemmas), source, comment,
                     None, start.castling, closed_members(result) if members else ())


def learn(position: Position | Placement | str, *, name: str, zone: Any = None,
          restrictions: Iterable[Any] = (), frozen: Any = None, model: str = "lines",
          source: str = "", comment: str = "", library: Library | None = None,
          directory: str | None = None, nodes: int | None = None,
          timeout: float | None = None, budget: Budget | None = None,
          members: bool = True) -> tuple[CageResult, Any]:
    """Verify a cage and, when proved, add it to the library directory (`encodings/cages` by
    default) as a new entry, with the other boards of its closed set as members (`members`);
    returns the result and the new file's path (None if not proved, or if the position
    contains a known cage already). Limits: `budget`, or `timeout`/`nodes`."""
    result = verify(position, zone, restrictions, library, model=model, frozen=frozen,
                    budget=budget_for(timeout, nodes, budget))
    if not result.proved:
        return result, None
    start = result.start
    if library is not None and library.matches(start, result.restrictions) is not None:
        return result, None     # implied by a known cage: nothing new to learn
    entry = entry_of(result, name, source=source, comment=comment, members=members)
    path = write_entry(entry, directory or DEFAULT_DIR, states=result.states)
    return result, path
