"""Question kind `retractions`: every retraction of a position, with the predecessor's FEN."""

from __future__ import annotations

import argparse

import chess

from retrologic.console import emit
from retrologic.errors import InputError
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


def unplayable(pos: Position, counts: bool = True) -> str | None:
    """Why no game reaches `pos`, whatever its history, when its units alone say so (None:
    they do not): two kings of a side, a full position without a king, a pawn on the first or
    last rank, a castling right without its king and rook at home or an e.p. square no double
    step passed, and with `counts` impossible unit counts. Its retractions would list
    predecessors as impossible as itself under the word "proved" (found in review,
    2026-11-30: nine white kings gave three; 2026-12-06: `4k3/8/8/8/8/8/8/4K2R b Q - 0 1` gave
    predecessors keeping the right of a1 with no rook there)."""
    from retrologic.legality.rules import count_reasons, state_reasons
    for reason in count_reasons(pos) + state_reasons(pos):
        if counts or reason.rule in ("kings", "pawn-on-back-rank", "castling-rights",
                                     "en-passant"):
            return f"{reason.message} (rule {reason.rule})"
    return None


def answer(pos: Position, uncaptures: str = "typed", counts: bool = True) -> Result:
    """The complete list of retractions (complete by construction of the generator); an
    InputError for a position no game reaches by its units alone (`unplayable`)."""
    why = unplayable(pos, counts)
    if why is not None:
        raise InputError(f"no game reaches this position: {why}", field="position",
                         value=pos.fen())
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
    try:
        return answer(problem.position, q["uncaptures"], q["counts"])
    except InputError as e:
        raise e.located(problem.path) from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", metavar="FEN|BOARD", help="a FEN, or a board-only placement (partial)")
    p.add_argument("--uncaptures", choices=MODES, default="typed")
    p.add_argument("--no-counts", action="store_true", help="do not reject impossible unit counts")
    p.add_argument("--json", action="store_true", help="print JSON")
    from retrologic.pictures import output as pictures
    pictures.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    pos = position_argument(args.position)
    try:
        result = answer(pos, args.uncaptures, not args.no_counts)
    except InputError as e:
        e.field = "FEN|BOARD"
        raise
    from retrologic.pictures import output as pictures
    pictures.save(result, pos, args)
    return emit(result, args)
