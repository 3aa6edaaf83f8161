"""Problem files (`retrologic/1`, TOML): parse, validate every field, dispatch on question.kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrologic import questions
from retrologic.errors import InputError
from retrologic.result import Result, compare_expect
from retrologic.schema import Field, one_of, read_toml, validate

FORMAT = "retrologic/1"

META = {
    "title": Field(str), "authors": Field(list), "source": Field(str), "year": Field(int),
    "comment": Field(str), "stipulation": Field(str), "award": Field(str), "notes": Field(str),
}

TOP = {
    "format": Field(str, required=True),
    "meta": Field(dict, default={}),
    "position": Field(dict),
    "question": Field(dict, required=True),
    "lemmas": Field(list, default=[]),
    "expect": Field(dict),
    "constraint": Field(list, default=[]),
}

CONSTRAINT = {
    "name": Field(str, required=True),
    "role": Field(str, default="assume",
                  check=one_of("assume", "claim")),
    "expr": Field(str, required=True),
    "comment": Field(str),
}


@dataclass
class SolveOptions:
    """Resource limits and output choices shared by every question kind."""

    timeout: float | None = None        # seconds; hitting it gives verdict unknown
    nodes: int | None = None            # node limit; hitting it gives verdict unknown
    progress: bool = False              # show progress on stderr for long searches
    certificate_dir: str | None = None  # where to write proofs / counterexamples as JSON
    budget: Any = None                  # a limits.Budget made by the caller for this question
                                        # (its clock already running); None: see shared_budget

    def shared_budget(self) -> Any:
        """The limits.Budget the question runs under: `budget` when the caller made one, else
        a new one of `timeout`/`nodes` (its clock starts now; a timeout of 0: already spent)."""
        return budget_of(self)


def budget_of(options: Any) -> Any:
    """The limits.Budget of any options object (SolveOptions, a copy of one, an argparse
    namespace or None): its `budget`, else one made from its `timeout` and `nodes`; a figure
    the CLI would refuse (nan, too large, a fractional node count) is an InputError naming it."""
    from retrologic.limits import budget_for
    timeout, nodes = getattr(options, "timeout", None), getattr(options, "nodes", None)
    try:
        return budget_for(timeout, nodes, getattr(options, "budget", None))
    except ValueError as e:
        name = "timeout" if "time" in str(e) else "nodes"
        raise InputError(str(e), field=name, value=timeout if name == "timeout" else nodes) from None


@dataclass
class Problem:
    """A validated problem file."""

    path: str
    meta: dict[str, Any]
    position: Any                       # retrologic.position.Position, or None
    position_table: dict[str, Any] | None
    kind: str
    question: dict[str, Any]            # validated question fields (without 'kind')
    lemmas: list[str]
    expect: dict[str, Any] | None
    constraints: list[dict[str, Any]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.meta.get("title") or Path(self.path).stem


def load(path: str | Path) -> Problem:
    """Read and validate a problem file; InputError names file, field and value on any fault."""
    file = str(path)
    data = read_toml(path)
    return parse(data, file=file)


def parse(data: dict[str, Any], *, file: str = "<problem>") -> Problem:
    """Validate an already-decoded problem table."""
    top = validate(data, TOP, file=file, where="")
    if top["format"] != FORMAT:
        raise InputError(f"unsupported format (expected {FORMAT!r})", file=file, field="format",
                         value=top["format"])
    meta = validate(top["meta"], META, file=file, where="meta")
    qtable = dict(top["question"])
    kind = qtable.pop("kind", None)
    if kind is None:
        raise InputError("missing required field", file=file, field="question.kind")
    if not isinstance(kind, str) or kind not in questions.KINDS:
        raise InputError(f"unknown question kind (known: {', '.join(sorted(questions.KINDS))})",
                         file=file, field="question.kind", value=kind)
    module = questions.load(kind)
    question = validate(qtable, module.QUESTION, file=file, where="question")
    position = None
    if top["position"] is not None:
        if module.POSITION == "none":
            raise InputError(f"question kind {kind!r} takes no position table", file=file,
                             field="position")
        from retrologic.position import from_table
        accept = "either" if module.POSITION == "optional" else module.POSITION
        position = from_table(top["position"], file=file, accept=accept)
    elif module.POSITION not in ("none", "optional"):
        raise InputError("missing required table", file=file, field="position")
    for i, lemma in enumerate(top["lemmas"]):
        if not isinstance(lemma, str):
            raise InputError("must be a string (a path)", file=file, field=f"lemmas[{i}]", value=lemma)
    constraints = []
    for i, table in enumerate(top["constraint"]):
        c = validate(table, CONSTRAINT, file=file, where=f"constraint[{i}]")
        from retrologic.constraints import parse_expr
        try:
            c["parsed"] = parse_expr(c["expr"])
        except InputError as e:
            raise e.located(file, f"constraint[{i}].expr") from None
        constraints.append(c)
    expect = top["expect"]
    if expect is not None:
        allowed = {"verdict", "answer", "includes", "excludes", *module.EXPECT}
        for key in expect:
            if key not in allowed:
                raise InputError(f"unknown field (allowed: {', '.join(sorted(allowed))})",
                                 file=file, field=f"expect.{key}", value=expect[key])
        for key in ("includes", "excludes"):
            if key in expect and not isinstance(expect[key], list):
                raise InputError("must be an array", file=file, field=f"expect.{key}",
                                 value=expect[key])
    return Problem(path=file, meta=meta, position=position, position_table=top["position"],
                   kind=kind, question=question, lemmas=list(top["lemmas"]), expect=expect,
                   constraints=constraints)


def solve(problem: Problem, options: SolveOptions | None = None) -> Result:
    """Answer a problem with the solver of its question kind."""
    return questions.load(problem.kind).solve(problem, options or SolveOptions())


def check(problem: Problem, result: Result) -> list[str]:
    """Mismatches between the result and the problem's [expect] table."""
    return compare_expect(result, problem.expect or {})


def resolve_path(problem: Problem, relative: str) -> Path:
    """A path named in a problem file: relative to the file, then to the project root."""
    candidates = [Path(problem.path).parent / relative, Path(relative),
                  Path(__file__).resolve().parent.parent / relative]
    for c in candidates:
        if c.exists():
            return c
    raise InputError("no such file", file=problem.path, field="lemmas", value=relative)
