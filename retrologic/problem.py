"""Problem files (`retrologic/1`, TOML): load and validate one with the fields of its question
kind, solve it with the kind's solver, and compare the result with its [expect] table.

The kinds are looked up in the registry retrologic.questions; the file format itself is
retrologic.problemfile and the options retrologic.options, which the question modules import
instead of this module, so no import cycle runs through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retrologic import problemfile, questions
from retrologic.errors import InputError
from retrologic.options import SolveOptions
from retrologic.problemfile import Problem
from retrologic.result import Result, compare_expect


def _spec(kind: Any, file: str) -> questions.QuestionKind:
    """The module of a known question kind; InputError naming the field for any other."""
    if not isinstance(kind, str) or kind not in questions.KINDS:
        raise InputError(f"unknown question kind (known: {', '.join(sorted(questions.KINDS))})",
                         file=file, field="question.kind", value=kind)
    return questions.load(kind)


def load(path: str | Path) -> Problem:
    """Read and validate a problem file; InputError names file, field and value on any fault."""
    return problemfile.read(path, _spec)


def parse(data: dict[str, Any], *, file: str = "<problem>") -> Problem:
    """Validate an already-decoded problem table."""
    return problemfile.parse(data, _spec, file=file)


def solve(problem: Problem, options: SolveOptions | None = None) -> Result:
    """Answer a problem with the solver of its question kind."""
    return questions.load(problem.kind).solve(problem, options or SolveOptions())


def check(problem: Problem, result: Result) -> list[str]:
    """Mismatches between the result and the problem's [expect] table."""
    return compare_expect(result, problem.expect or {})
