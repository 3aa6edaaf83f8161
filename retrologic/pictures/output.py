"""`--svg FILE` (and `spg --svg-steps`) of the question commands (issue #20, item 3): the
arguments, and writing a result's picture atomically (retrologic.files)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from retrologic.errors import InputError
from retrologic.files import atomic_write_text, refused_writes


def add_arguments(p: argparse.ArgumentParser, steps: bool = False) -> None:
    """`--svg FILE`; with `steps`, `--svg-steps` too (proof games)."""
    p.add_argument("--svg", metavar="FILE", help="write the answer's diagram(s) as SVG (chess.svg)")
    if steps:
        p.add_argument("--svg-steps", action="store_true",
                       help="with --svg: one frame per move (FILE-000.svg, ...), or one page "
                            "that steps through the game when FILE ends in .html")


def save(result: Any, position: Any, args: argparse.Namespace) -> list[Path]:
    """Write the picture(s) `args.svg` asks for; the paths written (none without --svg). The
    result keeps `position` for notebooks (`Result._repr_svg_`)."""
    if getattr(result, "position", None) is None:
        result.position = position
    path = getattr(args, "svg", None)
    if not path:
        return []
    from retrologic.pictures import frames, svg
    if getattr(args, "svg_steps", False):
        games = svg.games_of(result.details or {})
        if not games:
            raise InputError("no game to draw (the answer has none)", field="--svg-steps",
                             value=path)
        with refused_writes(field="--svg", value=path):
            return frames.write_steps(path, frames.frames(games[0]), "proof game: " + " ".join(
                str(a) for a in (result.answer or [])[:1]))
    picture = svg.for_result(result, position)
    if picture is None:
        raise InputError("this answer has no diagram", field="--svg", value=path)
    with refused_writes(field="--svg", value=path):
        return [atomic_write_text(path, picture)]
