"""Question kind `legal`: static proofs of illegality (counts, back-rank pawns, impossible checks,
castling and e.p. state, retro-stalemate, Retractor's static cages), each with its rule."""

from __future__ import annotations

import argparse

from retrologic import legality
from retrologic.cli import emit
from retrologic.errors import InputError
from retrologic.position import Position, parse
from retrologic.result import Result

KIND = "legal"
HELP = "static legality checks of a position, with the rule that proves illegality"
POSITION = "either"
QUESTION: dict = {}
EXPECT = {"rule", "rules"}


def answer(pos: Position) -> Result:
    """Illegal (proved, with the rules) or unknown (no static proof found)."""
    found = legality.reasons(pos)
    if found:
        rules = sorted({r.rule for r in found})
        return Result(KIND, "proved", "illegal", facts={"rule": found[0].rule, "rules": rules},
                      details={"reasons": [{"rule": r.rule, "message": r.message} for r in found]},
                      lines=["illegal"] + [f"[{r.rule}] {r.message}" for r in found],
                      unordered=frozenset({"rules"}))
    return Result(KIND, "unknown", "no static illegality found",
                  reason="static checks only; a proof of legality needs a game",
                  facts={"rule": None, "rules": []})


def solve(problem, options) -> Result:
    return answer(problem.position)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", metavar="FEN|BOARD", help="a FEN, or a board-only placement (partial)")
    p.add_argument("--json", action="store_true", help="print JSON")


def position_argument(text: str) -> Position:
    """A FEN (full) or board-only string (partial) from the command line."""
    try:
        if " " in text.strip():
            return parse(fen=text)
        return parse(board=text)
    except ValueError as e:
        raise InputError(str(e), field="position", value=text) from None


def run(args: argparse.Namespace) -> int:
    return emit(answer(position_argument(args.position)), args)
