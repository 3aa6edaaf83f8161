"""The problems a `solve` command line names, in input order (issue #20, "Collections").

A directory is walked recursively (sorted, hidden entries skipped, symbolic links to directories
not followed) for the extensions `retrologic.formats.detect.SUFFIXES`; a file named on the command
line is read whatever its extension. A file may hold several problems (`detect.load_all`), each
named by `detect.label`. A file that cannot be read becomes one task carrying its error, so a
broken file in a directory is its own error record and the others still run.

Each task also gets the stem its certificates are written under (`--certificate-dir`): the file's
stem as before for a file of one problem, `-N` added for the N-th problem of a file, and, where
two problems would still share a stem (same name in two directories), the path relative to the
collection, then a counter in input order: names never collide within a run, whatever `-j` is.
"""

from __future__ import annotations

import os
import re
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrologic.errors import InputError
from retrologic import files
from retrologic.formats import detect

FILES_GROUP = "files"       # the collection of the files named one by one on the command line


@dataclass
class Task:
    """One problem to solve (or one file that could not be read)."""

    label: str              # the name in records: the file, '#n' for the n-th of several
    path: str               # the file, as found
    index: int              # its position in the file (0-based)
    count: int              # how many problems the file holds (0 when it could not be read)
    group: str              # the collection it belongs to (a directory argument, or FILES_GROUP)
    problem: Any = None     # the loaded retrologic.problemfile.Problem
    error: BaseException | None = None   # why the file could not be read
    trace: str = ""         # that error's traceback (printed with --debug)
    stem: str = ""          # certificate name stem, unique in the run


def _files_under(directory: Path) -> list[Path]:
    """The problem files under a directory, recursively, sorted; InputError past either cap:
    `files.MAX_DIR_FILES` problem files, or `files.MAX_WALK_ENTRIES` entries walked (`solve /`
    is refused in a second or two rather than reading every file of the machine)."""
    found: list[Path] = []
    seen = 0
    for root, dirs, names in os.walk(directory, onerror=None, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        seen += len(dirs) + len(names)
        if seen > files.MAX_WALK_ENTRIES:
            raise InputError(f"more than {files.MAX_WALK_ENTRIES:,} entries under this "
                             "directory: name the directory of a collection",
                             file=str(directory))
        for name in names:
            if not name.startswith(".") and Path(name).suffix.lower() in detect.SUFFIXES:
                found.append(Path(root) / name)
                if len(found) > files.MAX_DIR_FILES:
                    raise InputError(f"more than {files.MAX_DIR_FILES:,} problem files in a "
                                     "directory", file=str(directory))
    return sorted(found)


def expand(arguments: list[str]) -> list[tuple[str, str, BaseException | None]]:
    """(file, collection, error) for every argument, directories walked; a directory that
    cannot be walked or holds no problem file gives one entry with its InputError."""
    out: list[tuple[str, str, BaseException | None]] = []
    for arg in arguments:
        if not os.path.isdir(arg):
            out.append((arg, FILES_GROUP, None))
            continue
        try:
            files = _files_under(Path(arg))
            if not files:
                raise InputError("no problem files in this directory (extensions: "
                                 + ", ".join(sorted(detect.SUFFIXES)) + ")", file=arg)
        except InputError as e:
            out.append((arg, arg, e))
            continue
        out.extend((str(f), arg, None) for f in files)
    return out


def _clean(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_+=-]+", "-", text).strip("-.") or "problem"


def _assign_stems(tasks: list[Task]) -> None:
    """Unique certificate stems, assigned in input order (deterministic for any -j)."""
    def base(t: Task) -> str:
        return _clean(Path(t.path).stem) + (f"-{t.index + 1}" if t.count > 1 else "")

    def long(t: Task) -> str:
        p = Path(t.path)
        try:
            rel = p.relative_to(t.group) if t.group != FILES_GROUP else p
        except ValueError:
            rel = p
        # with_suffix refuses a path without a name ('' or '.', which a user may type)
        rel = rel.with_suffix("") if rel.suffix else rel
        return _clean(str(rel)) + (f"-{t.index + 1}" if t.count > 1 else "")

    bases = [base(t) for t in tasks]
    shared = {b for b in bases if bases.count(b) > 1}
    used: set[str] = set()
    for t, b in zip(tasks, bases):
        stem = long(t) if b in shared else b
        n, unique = 1, stem
        while unique in used:
            n += 1
            unique = f"{stem}-{n}"
        used.add(unique)
        t.stem = unique


def load(arguments: list[str]) -> list[Task]:
    """Every problem the arguments name, loaded, in input order (see the module docstring)."""
    tasks: list[Task] = []
    for path, group, fault in expand(arguments):
        try:
            if fault is not None:
                raise fault
            problems = detect.load_all(path)
            if not problems:
                raise InputError("no problem in this file", file=path)
        except Exception as e:  # noqa: BLE001 - one file's failure is that file's record
            tasks.append(Task(path, path, 0, 0, group, error=e, trace=traceback.format_exc()))
            continue
        n = len(problems)
        tasks.extend(Task(detect.label(path, i, n), path, i, n, group, problem=p)
                     for i, p in enumerate(problems))
    _assign_stems(tasks)
    return tasks
