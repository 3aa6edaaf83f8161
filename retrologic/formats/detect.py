"""Problem files as composers have them (issue #20): which reader a file needs, by its extension
and then its content, and every problem it holds (a Popeye file or a YACPDB file may hold
several).

Readers: our own TOML (retrologic.problemfile), Popeye input (.pop, .inp), YACPDB YAML (.yaml,
.yml), EPD/FEN lines (.epd, .fen). A file of another extension is read by its content. Each
reader builds the table problemfile.parse validates (retrologic.formats.entry), so every
problem maps onto the existing question kinds.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from retrologic.errors import InputError
from retrologic.files import read_text
from retrologic.formats import entry, epd, popeye, yacpdb
from retrologic.problemfile import Problem
from retrologic.schema import MAX_TOML_BYTES

# extensions `solve DIR` picks up when it walks a directory
SUFFIXES: frozenset[str] = frozenset({".toml", *popeye.SUFFIXES, *yacpdb.SUFFIXES,
                                      *epd.SUFFIXES})
READERS = {**{s: popeye.read for s in popeye.SUFFIXES}, **{s: yacpdb.read for s in yacpdb.SUFFIXES},
           **{s: epd.read for s in epd.SUFFIXES}}


def format_of(path: str | Path, text: str | None = None) -> str:
    """'toml', 'popeye', 'yacpdb' or 'epd': by extension, else by content."""
    suffix = Path(path).suffix.lower()
    if suffix == ".toml":
        return "toml"
    for name, module in (("popeye", popeye), ("yacpdb", yacpdb), ("epd", epd)):
        if suffix in module.SUFFIXES:
            return name
    text = read_text(path, limit=MAX_TOML_BYTES) if text is None else text
    for name, module in (("popeye", popeye), ("yacpdb", yacpdb), ("epd", epd)):
        if module.looks_like(text):
            return name
    try:
        if "format" in tomllib.loads(text):
            return "toml"
    except tomllib.TOMLDecodeError:
        pass
    raise InputError("unknown problem file format (TOML, Popeye .pop/.inp, YACPDB .yaml, "
                     "EPD .epd, FEN .fen)", file=str(path), field="format")


def entries(path: str | Path) -> list[entry.Entry]:
    """The problem tables of a non-TOML file, with their lines (for `convert`)."""
    kind = format_of(path)
    if kind == "toml":
        raise InputError("already a retrologic TOML file", file=str(path), field="format")
    reader = {"popeye": popeye.read, "yacpdb": yacpdb.read, "epd": epd.read}[kind]
    return reader(path)


def load_all(path: str | Path) -> list[Problem]:
    """Every problem in one file, in file order; InputError names file, line/field and value."""
    if format_of(path) == "toml":
        from retrologic import problemfile
        return [problemfile.read(path, entry._spec)]
    return [entry.to_problem(e) for e in entries(path)]


def label(path: str | Path, index: int, count: int) -> str:
    """The name a problem goes by in records: the file, with '#n' (1-based) when it holds
    several problems."""
    return str(path) if count == 1 else f"{path}#{index + 1}"
