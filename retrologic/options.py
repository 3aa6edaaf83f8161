"""The options every question kind is solved under (SolveOptions), and the budget they make.

Apart from problem.py and cli.py, which import the question kinds, so that the question modules
and the QuestionKind protocol (retrologic.questions) can import them without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from retrologic.errors import InputError
from retrologic.limits import Budget, budget_for


@dataclass
class SolveOptions:
    """Resource limits and output choices shared by every question kind."""

    timeout: float | None = None        # seconds; hitting it gives verdict unknown
    nodes: int | None = None            # node limit; hitting it gives verdict unknown
    progress: bool = False              # show progress on stderr for long searches
    certificate_dir: Any = None         # where to write proofs / counterexamples as JSON: a
                                        # directory, or a certformat.Destination
    certificate_mib: int | None = None  # the certificate size knob (retrologic.certsize) an
                                        # spg-listing is written under; None: the default
    budget: Budget | None = None        # a limits.Budget made by the caller for this question
                                        # (its clock already running); None: see shared_budget

    def shared_budget(self) -> Budget:
        """The limits.Budget the question runs under: `budget` when the caller made one, else
        a new one of `timeout`/`nodes` (its clock starts now; a timeout of 0: already spent)."""
        return budget_of(self)


def budget_of(options: Any) -> Budget:
    """The limits.Budget of any options object (SolveOptions, a copy of one, an argparse
    namespace or None): its `budget`, else one made from its `timeout` and `nodes`; a figure
    the CLI would refuse (nan, too large, a fractional node count) is an InputError naming it."""
    timeout, nodes = getattr(options, "timeout", None), getattr(options, "nodes", None)
    try:
        return budget_for(timeout, nodes, getattr(options, "budget", None))
    except ValueError as e:
        name = "timeout" if "time" in str(e) else "nodes"
        raise InputError(str(e), field=name, value=timeout if name == "timeout" else nodes) from None
