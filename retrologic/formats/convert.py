"""`retrologic convert FILE... --to toml [--out DIR] [--force]` (issue #20): write each problem
of a Popeye, YACPDB, EPD or FEN file as one of our `retrologic/1` TOML problem files, so a
collection is imported once and then kept as tests (a published solution is its [expect]).

Each table is validated as `solve` would (problemfile.parse) and re-read from the written text
before anything is written; files are written atomically (retrologic.files) and an existing
file is never overwritten without --force.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from retrologic.errors import EXIT_OK, InputError


def toml_text(table: dict[str, Any], origin: str) -> str:
    """A problem table as TOML (tomli-w), `None` values dropped, with a header naming its
    origin; a Popeye time limit (which the format has no field for) becomes a comment."""
    import tomli_w

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    body = tomli_w.dumps(clean(table))
    return f"# converted by `retrologic convert` from {origin}\n{body}"


def _name(stem: str, title: str, index: int, count: int) -> str:
    if count == 1:
        return f"{stem}.toml"
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40]
    return f"{stem}-{index + 1:02d}{'-' + slug if slug else ''}.toml"


def convert(path: str | Path, out_dir: str | Path | None, force: bool = False) -> list[Path]:
    """Write every problem of one file as a TOML file; returns the paths written."""
    from retrologic.files import atomic_write_text, refused_writes
    from retrologic.formats import detect
    from retrologic.formats.entry import to_problem
    entries = detect.entries(path)
    target = Path(out_dir) if out_dir is not None else Path(path).parent
    planned = []
    for i, entry in enumerate(entries):
        to_problem(entry)                                   # validated as `solve` would
        table = entry.table
        if entry.time_limit is not None:
            meta = table.setdefault("meta", {})
            note = f"Popeye Option MaxTime {entry.time_limit:g} (use --timeout)"
            meta["comment"] = f"{meta['comment']}; {note}" if meta.get("comment") else note
        text = toml_text(table, entry.where)
        tomllib.loads(text)                                 # what we write reads back
        dest = target / _name(Path(path).stem, str(table.get("meta", {}).get("title", "")), i,
                              len(entries))
        if dest.exists() and not force:
            raise InputError("exists (use --force to overwrite)", file=str(dest), field="--out")
        planned.append((dest, text))
    written = []
    for dest, text in planned:
        with refused_writes(file=str(dest), field="--out"):
            written.append(atomic_write_text(dest, text))
    return written


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `retrologic convert`."""
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="Popeye (.pop/.inp), YACPDB (.yaml), EPD (.epd) or FEN (.fen) files")
    p.add_argument("--to", choices=("toml",), required=True, help="the output format")
    p.add_argument("--out", metavar="DIR", help="directory to write to (default: beside FILE)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")


def run(args: argparse.Namespace) -> int:
    """Convert each file; the first bad input stops with exit status 3 (nothing of that file
    written)."""
    for path in args.files:
        for written in convert(path, args.out, args.force):
            print(written)
            sys.stdout.flush()
    return EXIT_OK
