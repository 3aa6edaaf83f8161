"""Question kinds: each module here is one `question.kind` and one CLI subcommand.

A question module is a QuestionKind: it defines
  KIND                   its name (its one-line help is in KINDS);
  POSITION               "full", "partial", "either", "optional" (either, or none at all) or
                         "none": which `position` table it takes;
  QUESTION               dict of schema.Field: the fields of its `question` table besides `kind`;
  EXPECT                 set of fact names its [expect] tables may use (besides verdict/answer/
                         includes/excludes);
  solve(problem, options) -> Result;
  add_arguments(parser), run(args) -> int   for `retrologic KIND ...`.
Modules are imported only when used, so heavy solvers (ortools) cost nothing elsewhere. This
registry imports no question module by name, nor retrologic.problem or retrologic.cli (which
import it): a question module imports the core (options, problemfile, console, result), never
them, so there is no import cycle; the types below are imported for the checker of types only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    import argparse

    from retrologic.options import SolveOptions
    from retrologic.problemfile import Problem
    from retrologic.result import Result
    from retrologic.schema import Field


class QuestionKind(Protocol):
    """What every question module provides (the module itself is the object)."""

    KIND: str
    POSITION: str
    QUESTION: dict[str, Field]
    EXPECT: set[str]

    def solve(self, problem: Problem, options: SolveOptions) -> Result:
        """Answer a validated problem of this kind under the options' limits."""
        ...

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The arguments of the subcommand `retrologic KIND ...`."""
        ...

    def run(self, args: argparse.Namespace) -> int:
        """Run the subcommand; returns the exit status."""
        ...


# kind -> (module, one-line help). The CLI subcommand of the same name runs the module.
KINDS: dict[str, tuple[str, str]] = {
    "legal": ("retrologic.questions.legal", "is a position legal? illegal by a static rule, "
              "legal by a game from the initial array"),
    "retractions": ("retrologic.questions.retractions", "list every retraction of a position"),
    "cage": ("retrologic.questions.cage", "verify a cage (Hwa), with a checkable proof"),
    "deduce": ("retrologic.questions.deduce", "prove or refute a claim about a game's history"),
    "last-move": ("retrologic.questions.lastmove", "what were the last move(s)?"),
    "trajectory": ("retrologic.questions.trajectory", "distance maps and trajectory bundles"),
    "spg": ("retrologic.questions.spg", "shortest proof games, with uniqueness"),
    "tablebase": ("retrologic.questions.tablebase", "retrograde endgame tablebases (DTM)"),
    "puzzle4x4": ("retrologic.questions.puzzle4x4", "the 4x4 capture puzzle"),
}


def load(kind: str) -> QuestionKind:
    """Import the module of a question kind."""
    return cast("QuestionKind", importlib.import_module(KINDS[kind][0]))


# CLI subcommand name -> question kind (the command names drop the hyphen of 'last-move').
COMMANDS: dict[str, str] = {
    "legal": "legal",
    "retract": "retractions",
    "cage": "cage",
    "deduce": "deduce",
    "lastmove": "last-move",
    "trajectory": "trajectory",
    "spg": "spg",
    "tablebase": "tablebase",
    "puzzle4x4": "puzzle4x4",
}
