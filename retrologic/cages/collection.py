"""Cage collections: many boards verified in order, learning as it goes (Hwa §3, bootstrapping).

A collection file holds one board per line, with optional fields after it (shell-style words,
so a restriction with spaces is quoted); `#` starts a comment:

    # board                          fields (all optional)
    Knrk4/BpppRp2/1p2p3/8/8/8/8/8    name=darvall model=lines expect=proved
    8/8/8/8/8/8/6PP/6Nr              frozen=g1
    8/5p2/5P2/4PKP1/4pRrB/5pp1/8/8   restrict='pawn_captures(either, from_file="d", to_file="e") == 0'

Fields: `zone=auto|SQ,...`, `frozen=SQ,...`, `restrict=EXPR` (repeatable: the cage question's
restrictions), `model=lines|plain`, `name=NAME` (the learned entry's name), `expect=proved|
refuted|unknown` (compared with the verdict: the run reports every mismatch).

Each board is verified with the known cages so far; a proved board that contains no known cage
is learned: its entry (start, zone, model, restrictions) and, unless `members=False`, every
other board of its closed set worth keeping (library.closed_members), so a later cage that
passes through any of them is cut at once. Learned entries are written one file each,
atomically, as they are learned, so an interrupted run loses no finished work.

`engine` (issue #21): "fast", "explicit" or "sat" verifies every board (`verify_with`; default
"auto", the fast engine with the explicit one where it does not apply).
The SAT engine uses no known cages and its proof is an inductive invariant, not a closed set:
a board it proves is learned as its start board alone (no members, `entry_of_any`), and its
entry carries no proof for the library's cache, so the library verifies it again with the
explicit engine before its first match, as it does for every entry read from disk (a known
cage used in a proof embeds a cage-proof certificate, which only the explicit engines make).

Imports the library and the search; nothing imports this module but the `cage` question.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from retrologic import limits
from retrologic.cages.entry import CageEntry
from retrologic.cages.library import (Library, _names_in, default_name, entry_of, write_entry)
from retrologic.cages.rules import MODELS, NoPawnCaptures
from retrologic.cages.search import CageResult, verify
from retrologic.errors import InputError
from retrologic.result import Verdict

FIELDS = ("zone", "frozen", "restrict", "model", "name", "expect")
MAX_BOARDS = 100_000
ENGINES = ("fast", "explicit", "sat")


@dataclass(frozen=True)
class Item:
    """One board of a collection, with its line number and fields."""

    line: int
    board: str
    zone: Any = None
    frozen: tuple[str, ...] = ()
    restrict: tuple[str, ...] = ()
    model: str = "lines"
    name: str | None = None
    expect: str | None = None


@dataclass
class Outcome:
    """What became of one board: its verification, and the entry learned from it (if any)."""

    item: Item
    result: Any                     # a CageResult, or a cages.sat.SatCageResult (engine sat)
    entry: CageEntry | None = None
    path: Path | None = None
    known: bool = False             # proved, but it contains a known cage: nothing to learn
    certificate: str | None = None  # where its certificate was written (the command line)

    @property
    def met(self) -> bool:
        """No expectation, or the verdict is the one expected; an unknown verdict (a limit hit)
        is undecided, not a mismatch (exit 4, as `solve` says "not decided", never 1)."""
        return self.item.expect is None or self.result.verdict == Verdict.UNKNOWN or \
            self.item.expect == self.result.verdict


@dataclass
class Run:
    """A collection run: the outcomes in order, the library it ended with, the time taken."""

    outcomes: list[Outcome] = field(default_factory=list)
    library: Library = field(default_factory=Library)
    elapsed: float = 0.0
    interrupted: bool = False

    def summary(self) -> dict[str, Any]:
        count = {v.value: 0 for v in Verdict}
        for o in self.outcomes:
            count[o.result.verdict] += 1
        learned = [o.entry for o in self.outcomes if o.entry is not None]
        return {"boards": len(self.outcomes), **count,
                "positions": sum(o.result.states for o in self.outcomes),
                "learned": len(learned), "members": sum(len(e.members) for e in learned),
                "library_size": self.library.size, "elapsed_s": round(self.elapsed, 4),
                "not_met": sum(not o.met for o in self.outcomes),
                "interrupted": self.interrupted}


def parse(text: str, *, file: str = "<collection>") -> list[Item]:
    """The boards of a collection file (see the module docstring); InputError names the file,
    the line and the field at fault."""
    items = []
    for n, raw in enumerate(text.splitlines(), 1):
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as e:
            raise InputError(f"line {n}: {e}", file=file, field=f"line {n}", value=raw) from None
        if not words:
            continue
        if len(items) >= MAX_BOARDS:
            raise InputError(f"more than {MAX_BOARDS:,} boards", file=file)
        board, fields = words[0], {"restrict": []}
        for w in words[1:]:
            key, sep, value = w.partition("=")
            if not sep or key not in FIELDS:
                raise InputError(f"line {n}: expected one of {', '.join(f + '=' for f in FIELDS)}",
                                 file=file, field=f"line {n}", value=w)
            if key == "restrict":
                fields["restrict"].append(value)
            elif key in fields:
                raise InputError(f"line {n}: {key}= given twice", file=file, field=f"line {n}",
                                 value=w)
            else:
                fields[key] = value
        model = fields.get("model", "lines")
        if model not in MODELS:
            raise InputError(f"line {n}: unknown model (known: {', '.join(MODELS)})", file=file,
                             field=f"line {n}.model", value=model)
        expect = fields.get("expect")
        if expect is not None and expect not in {v.value for v in Verdict}:
            raise InputError(f"line {n}: expect= is proved, refuted or unknown", file=file,
                             field=f"line {n}.expect", value=expect)
        zone = fields.get("zone")
        items.append(Item(n, board, None if zone in (None, "auto") else zone.replace(",", " "),
                          tuple(s for s in fields.get("frozen", "").split(",") if s),
                          tuple(fields["restrict"]), model, fields.get("name"), expect))
    return items


def load(path: str | Path) -> list[Item]:
    """A collection file, read through retrologic.files (size-capped)."""
    from retrologic.files import read_text
    return parse(read_text(path, what="cage collection"), file=str(path))


def _free_name(base: str, taken: Callable[[str], bool]) -> str:
    name, k = base, 2
    while taken(name):
        name, k = f"{base}-{k}", k + 1
    return name


def verify_with(engine: str, board: Any, zone: Any, restrict: Iterable[Any],
                library: Library | None, *, model: str = "lines", frozen: Any = None, nodes: int | None = None,
                budget: limits.Budget | None = None, progress: bool = False) -> Any:
    """One board verified by `engine` (ENGINES; "auto" too): a CageResult, or for "sat" a
    cages.sat.SatCageResult (no known cages: `library` is not used; `nodes` neither: the SAT
    engine's node limit is the budget's, charged with solver conflicts, as `cage --engine sat
    --nodes N`)."""
    if engine == "sat":
        from retrologic.cages.sat import verify_sat
        return verify_sat(board, zone, restrict, model=model, frozen=frozen, budget=budget,
                          progress=progress)
    if engine not in ENGINES and engine != "auto":
        raise InputError(f"unknown cage engine (known: {', '.join(ENGINES)})", field="engine",
                         value=engine)
    return verify(board, zone, restrict, library, model=model, frozen=frozen, nodes=nodes,
                  budget=budget, progress=progress, engine=engine)


def rules_of(result: Any) -> tuple[NoPawnCaptures, ...]:
    """A result's restrictions as cages.rules objects (the SAT engine keeps its own type)."""
    return tuple(r if isinstance(r, NoPawnCaptures)
                 else NoPawnCaptures(r.side, r.from_file, r.to_file) for r in result.restrictions)


def entry_of_any(result: Any, name: str, *, members: bool = True, source: str = "") -> CageEntry:
    """The entry of a proved result of either kind: an explicit engine's with its closed set's
    boards as members (`members`, library.entry_of); the SAT engine's with its start board
    alone (its proof is an invariant, not a set of boards)."""
    if isinstance(result, CageResult):
        return entry_of(result, name, members=members, source=source)
    start = result.start
    return CageEntry(name, start.placement, result.zone, start.frozen, rules_of(result),
                     result.model, (), source, "", None, start.castling, ())


def learn_result(result: Any, name: str, library: Library, directory: str | Path | None, *,
                 members: bool = True, source: str = "") -> tuple[CageEntry | None, Path | None]:
    """Learn a proved result into `library` (and write it to `directory` when given):
    (entry, path), or (None, None) when the start contains a known cage already. The proof of
    an explicit engine is cached with the entry; a SAT proof is not (see the module docstring).
    InputError when the name is taken in `directory`."""
    if library.matches(result.start, rules_of(result)) is not None:
        return None, None
    entry = entry_of_any(result, name, members=members, source=source)
    path = None
    if directory is not None:
        path = write_entry(entry, directory,
                           states=result.states if isinstance(result, CageResult) else None)
    library.add(entry, proof=result if isinstance(result, CageResult) else None)
    return entry, path


def run(items: Iterable[Item], library: Library | None = None, *, learn: bool = True,
        members: bool = True, directory: str | Path | None = None,
        timeout: float | None = None, nodes: int | None = None, source: str = "",
        report: Callable[[Outcome], None] | None = None, engine: str = "auto",
        progress: bool = False) -> Run:
    """Verify the boards in order with `library` (a new empty one by default), learning each
    new cage (`learn`) with its closed set's boards (`members`) into it, and writing each
    learned entry to `directory` (atomically, one file each) when given. Limits per board:
    `timeout` seconds, `nodes` positions (SAT solver conflicts with the SAT engine). `report`
    is called with each outcome as it comes.
    Ctrl-C stops the run after the board in hand (its verdict unknown). `engine`: "auto"
    (cages.search's default) or one of ENGINES (the SAT engine uses no known cages; what it
    learns: see the module docstring). `progress`: each board's engine shows its own on stderr."""
    out = Run(library=library if library is not None else Library())
    lib = out.library
    on_disk = set(_names_in(Path(directory))) if directory and Path(directory).is_dir() else set()
    t0 = time.perf_counter()
    for item in items:
        result = verify_with(engine, item.board, item.zone, item.restrict, lib, model=item.model,
                             frozen=list(item.frozen) or None, nodes=nodes,
                             budget=limits.budget_for(timeout, nodes if engine == "sat" else None),
                             progress=progress)
        o = Outcome(item, result)
        if learn and result.proved:
            name = _free_name(item.name or default_name(item.board),
                              lambda n: lib.get(n) is not None or n in on_disk)
            o.entry, o.path = learn_result(result, name, lib, directory, members=members,
                                           source=f"{source}:{item.line}" if source else "")
            o.known = o.entry is None
            if o.path is not None:
                on_disk.add(name)
        out.outcomes.append(o)
        if report is not None:
            report(o)
        if limits.interrupted():
            out.interrupted = True
            break
    out.elapsed = time.perf_counter() - t0
    return out


def line_of(o: Outcome) -> str:
    """One verdict line of a run: line number, verdict, positions, time, board, what was
    learned or used."""
    r = o.result
    size = f"{r.states:>7} positions" if isinstance(r, CageResult) else f"{'SAT':>7} engine   "
    text = f"{o.item.line:>5}: {r.verdict:8s} {size} {r.elapsed * 1000:9.1f} ms  {o.item.board}"
    if o.item.frozen:
        text += f" frozen={','.join(o.item.frozen)}"
    if o.item.restrict:
        text += f" ({len(o.item.restrict)} restriction{'s' * (len(o.item.restrict) > 1)})"
    if r.verdict == Verdict.UNKNOWN:
        text += f"; {r.reason}"
    if r.closed:
        names = [e.name for e in r.lemmas]
        text += f"; known cages: {', '.join(names[:3])}" + (" ..." if len(names) > 3 else "")
    if o.entry is not None:
        text += f"; learned {o.entry.name} (+{len(o.entry.members)} members)"
    elif o.known:
        text += "; contains a known cage"
    if not o.met:
        text += f"; EXPECTED {o.item.expect}"
    elif o.item.expect is not None and o.result.verdict == Verdict.UNKNOWN:
        text += f"; not decided (expected {o.item.expect})"
    return text


def summary_line(run_: Run) -> str:
    s = run_.summary()
    text = (f"{s['boards']} boards: {s['proved']} proved, {s['refuted']} refuted, "
            f"{s['unknown']} unknown; {s['positions']} positions in {s['elapsed_s']:.2f} s; "
            f"learned {s['learned']} cages with {s['members']} members "
            f"(library: {s['library_size']} entries and members)")
    if s["not_met"]:
        text += f"; {s['not_met']} expectation(s) NOT met"
    if s["interrupted"]:
        text += "; interrupted"
    return text
