"""Question kind `retractions`: every retraction of a position, with the predecessor's FEN."""

from __future__ import annotations

import argparse

import chess

from retrologic.console import emit
from retrologic.options import SolveOptions
from retrologic.position import Position
from retrologic.problemfile import Problem
from retrologic.questions.legal import position_argument
from retrologic.result import Result
from retrologic.retract import OPEN, apply, notations, retractions
from retrologic.schema import Field, one_of

KIND = "retractions"
POSITION = "either"
MODES = ("typed", "open", "none")


QUESTION = {
    "uncaptures": Field(str, default="typed", check=one_of(*MODES),
                        doc="typed: one retraction per uncaptured type; open: type left open; none"),
    "counts": Field(bool, default=True, doc="reject predecessors with impossible unit counts"),
}
EXPECT = {"count"}


def answer(pos: Position, uncaptures: str = "typed", counts: bool = True) -> Result:
    """The complete list of retractions (complete by construction of the generator)."""
    rs = retractions(pos, uncaptures=uncaptures, counts=counts)
    names = notations(pos, rs)
    rows = []
    for r, name in zip(rs, names):
        pred = None if (r.uncapture == OPEN and not pos.partial) else apply(pos, r).fen()
        rows.append({"retraction": name, "color": chess.COLOR_NAMES[r.color],
                     "uci": r.move().uci(), "predecessor": pred})
    # what the list leaves out, said with it (a 0 must not read as a retro-stalemate)
    limits = ([] if uncaptures != "none" else ["without uncaptures (uncaptures = none)"]) + \
        ([] if counts else ["unit counts not checked"])
    scope = f" ({'; '.join(limits)})" if limits else ""
    lines = [f"{len(rs)} retraction(s){scope}"] + [
        f"{row['retraction']:<14} {row['predecessor'] or '(uncaptured unit of open type)'}"
        for row in rows]
    return Result(KIND, "proved", names, reason="; ".join(limits) or None,
                  facts={"count": len(rs)}, details={"retractions": rows}, lines=lines,
                  position=pos)


def solve(problem: Problem, options: SolveOptions) -> Result:
    q = problem.question
    return answer(problem.position, q["uncaptures"], q["counts"])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", metavar="FEN|BOARD", help="a FEN, or a board-only placement (partial)")
    p.add_argument("--uncaptures", choices=MODES, default="typed")
    p.add_argument("--no-counts", action="store_true", help="do not reject impossible unit counts")
    p.add_argument("--json", action="store_true", help="print JSON")
    from retrologic.pictures import output as pictures
    pictures.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    pos = position_argument(args.position)
    result = answer(pos, args.uncaptures, not args.no_counts)
    from retrologic.pictures import output as pictures
    pictures.save(result, pos, args)
    return emit(result, args)
