"""Problem files (`retrologic/1`, TOML): load and validate one with the fields of its question
kind, solve it with the kind's solver, and compare the result with its [expect] table.

The kinds are looked up in the registry retrologic.questions; the file format itself is
retrologic.problemfile and the options retrologic.options, which the question modules import
instead of this module, so no import cycle runs through it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from retrologic import problemfile, questions
from retrologic.errors import InputError
from retrologic.options import SolveOptions
from retrologic.problemfile import Problem
from retrologic.result import Result, compare_expect, judge_expect


def _spec(kind: Any, file: str) -> questions.QuestionKind:
    """The module of a known question kind; InputError naming the field for any other."""
    if not isinstance(kind, str) or kind not in questions.KINDS:
        raise InputError(f"unknown question kind (known: {', '.join(sorted(questions.KINDS))})",
                         file=file, field="question.kind", value=kind)
    return questions.load(kind)


def load(path: str | Path) -> Problem:
    """Read and validate a problem file; InputError names file, field and value on any fault.
    A Popeye, YACPDB, EPD or FEN file (issue #20) is read by retrologic.formats when it holds
    one problem (a file of several is read with retrologic.formats.detect.load_all)."""
    from retrologic.formats import detect
    if detect.format_of(path) == "toml":
        return problemfile.read(path, _spec)
    problems = detect.load_all(path)
    if len(problems) != 1:
        raise InputError(f"holds {len(problems)} problems: solve it with a command that reads "
                         "collections (retrologic.formats.detect.load_all)", file=str(path))
    return problems[0]


def parse(data: dict[str, Any], *, file: str = "<problem>") -> Problem:
    """Validate an already-decoded problem table."""
    return problemfile.parse(data, _spec, file=file)


def solve(problem: Problem, options: SolveOptions | None = None) -> Result:
    """Answer a problem with the solver of its question kind. A time limit the problem's file
    set (Popeye's `Option MaxTime`) applies unless the options give a shorter one."""
    options = options or SolveOptions()
    limit = getattr(problem, "time_limit", None)
    if limit is not None and options.budget is None and (options.timeout is None
                                                         or limit < options.timeout):
        options = dataclasses.replace(options, timeout=limit)
    return questions.load(problem.kind).solve(problem, options)


def check(problem: Problem, result: Result) -> list[str]:
    """Mismatches between the result and the problem's [expect] table (a fact the result
    leaves undecided counts as one: see `judge`)."""
    return compare_expect(result, problem.expect or {})


def judge(problem: Problem, result: Result) -> tuple[list[str], list[str]]:
    """The mismatches between the result and the problem's [expect] table, and the keys whose
    facts the result leaves undecided (`retrologic.result.judge_expect`)."""
    return judge_expect(result, problem.expect or {})
