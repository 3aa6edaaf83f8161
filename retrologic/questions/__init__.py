"""Question kinds: each module here is one `question.kind` and one CLI subcommand.

A question module defines:
  KIND, HELP             its name and a one-line description;
  POSITION               "full", "partial", "either", "optional" (either, or none at all) or
                         "none": which `position` table it takes;
  QUESTION               dict of schema.Field: the fields of its `question` table besides `kind`;
  EXPECT                 set of fact names its [expect] tables may use (besides verdict/answer/
                         includes/excludes);
  solve(problem, options) -> Result;
  add_arguments(parser), run(args) -> int   for `retrologic KIND ...`.
Modules are imported only when used, so heavy solvers (ortools) cost nothing elsewhere.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# kind -> (module, one-line help). The CLI subcommand of the same name runs the module.
KINDS: dict[str, tuple[str, str]] = {
    "legal": ("retrologic.questions.legal", "static legality checks of a position, with the rule"),
    "retractions": ("retrologic.questions.retractions", "list every retraction of a position"),
    "cage": ("retrologic.questions.cage", "verify a cage (Hwa), with a checkable proof"),
    "deduce": ("retrologic.questions.deduce", "prove or refute a claim about a game's history"),
    "last-move": ("retrologic.questions.lastmove", "what were the last move(s)?"),
    "trajectory": ("retrologic.questions.trajectory", "distance maps and trajectory bundles"),
    "spg": ("retrologic.questions.spg", "shortest proof games, with uniqueness"),
    "tablebase": ("retrologic.questions.tablebase", "retrograde endgame tablebases (DTM)"),
    "puzzle4x4": ("retrologic.questions.puzzle4x4", "the 4x4 capture puzzle"),
}


def load(kind: str) -> ModuleType:
    """Import the module of a question kind."""
    return importlib.import_module(KINDS[kind][0])

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
