"""Problem files (`retrologic/1`, TOML): the validated Problem, and parsing it with the fields
of its question kind.

The kind's fields are given to `parse` (a KindSpec: its QUESTION, POSITION and EXPECT): this
module imports no question kind, so the question modules can import it (for Problem and
resolve_path) without an import cycle. retrologic.problem looks the kind up in the registry
(retrologic.questions) and solves.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from retrologic.errors import InputError
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


class KindSpec(Protocol):
    """What parsing needs of a question kind (see retrologic.questions.QuestionKind)."""

    POSITION: str                       # "full", "partial", "either", "optional" or "none"
    QUESTION: dict[str, Field]          # the fields of its question table besides `kind`
    EXPECT: set[str]                    # fact names its [expect] tables may use


# kind (as written in the file) and file name -> the kind's spec; InputError for an unknown kind
SpecOf = Callable[[Any, str], KindSpec]


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


def read(path: str | Path, spec_of: SpecOf) -> Problem:
    """Read and validate a problem file; InputError names file, field and value on any fault."""
    file = str(path)
    data = read_toml(path)
    return parse(data, spec_of, file=file)


def _no_fact(value: Any) -> tuple[str, str] | None:
    """The first value inside `value` that no answer's fact can be, and why: a TOML date or
    time, or `inf` / `nan` (no count, length or bound is infinite; nan equals nothing, so
    an expectation of it could never be met). None: there is none."""
    if isinstance(value, (datetime.date, datetime.time)):
        return str(value), "a date or time is no fact of an answer"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value), "inf and nan are no fact of an answer"
    items = value.values() if isinstance(value, dict) else \
        value if isinstance(value, list) else ()
    for item in items:
        found = _no_fact(item)
        if found is not None:
            return found
    return None


def parse(data: dict[str, Any], spec_of: SpecOf, *, file: str = "<problem>") -> Problem:
    """Validate an already-decoded problem table; `spec_of` gives its kind's fields."""
    top = validate(data, TOP, file=file, where="")
    if top["format"] != FORMAT:
        raise InputError(f"unsupported format (expected {FORMAT!r})", file=file, field="format",
                         value=top["format"])
    meta = validate(top["meta"], META, file=file, where="meta")
    qtable = dict(top["question"])
    kind = qtable.pop("kind", None)
    if kind is None:
        raise InputError("missing required field", file=file, field="question.kind")
    module = spec_of(kind, file)
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
        if not expect:
            raise InputError("an empty [expect] table checks nothing", file=file,
                             field="expect", value=None)
        for key, value in expect.items():
            foreign = _no_fact(value)
            if foreign is not None:
                raise InputError(foreign[1], file=file, field=f"expect.{key}",
                                 value=foreign[0])
        for key in ("includes", "excludes"):
            if key not in expect:
                continue
            items = expect[key]
            if not isinstance(items, list) or not items or not all(
                    isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in items):
                raise InputError("must be a non-empty array of answer items (strings or "
                                 "numbers)", file=file, field=f"expect.{key}", value=items)
        from retrologic.result import VERDICTS
        if "verdict" in expect and expect["verdict"] not in VERDICTS:
            raise InputError(f"must be one of {', '.join(VERDICTS)}", file=file,
                             field="expect.verdict", value=expect["verdict"])
        answer = expect.get("answer", "")
        if not isinstance(answer, (str, list, int, float)) or isinstance(answer, bool):
            raise InputError("must be a string, a number or an array", file=file,
                             field="expect.answer", value=answer)
    return Problem(path=file, meta=meta, position=position, position_table=top["position"],
                   kind=kind, question=question, lemmas=list(top["lemmas"]), expect=expect,
                   constraints=constraints)


_confined: Path | None = None     # `confine`: the one directory problem files may name


def confine(root: str | Path) -> None:
    """From now on (in this process) a path a problem file names must lie in `root`: the web
    page's worker confines a pasted problem to its job's directory (a tablebase `dir` or a
    lemma path could read and write anywhere on the server: review of 2026-11-30)."""
    global _confined
    _confined = Path(root).resolve()


def confined(path: str | Path, file: Any, field: str) -> Path:
    """`path`, or InputError when `confine` is in force and it lies outside the root."""
    try:
        inside = _confined is None or Path(path).resolve().is_relative_to(_confined)
    except (OSError, RuntimeError, ValueError) as e:   # a link loop (RuntimeError on 3.11),
        #                                                   a NUL byte (ValueError)
        raise InputError(f"cannot read this path ({getattr(e, 'strerror', None) or e})",
                         file=file, field=field, value=str(path)) from None
    if not inside:
        raise InputError("a pasted problem may name no file outside its job", file=file,
                         field=field, value=str(path))
    return Path(path)


def resolve_path(problem: Problem, relative: str) -> Path:
    """A path named in a problem file: relative to the file, then to the project root. Under
    `confine` only paths inside the root are looked at, so the answer never tells whether a
    file outside exists (review of 2026-11-30: /etc/passwd and a missing file answered
    differently)."""
    candidates = [Path(problem.path).parent / relative, Path(relative),
                  Path(__file__).resolve().parent.parent / relative]
    for c in candidates:
        try:
            if _confined is not None and not c.resolve().is_relative_to(_confined):
                continue
            if c.exists():
                return confined(c, problem.path, "lemmas")
        except (OSError, RuntimeError) as e:    # a name too long; a link loop (RuntimeError
            if _confined is not None:           # from resolve() on Python 3.11); confined:
                continue                        # said as "no such file", telling nothing
            why = getattr(e, "strerror", None) or e
            raise InputError(f"cannot read this path ({why})", file=problem.path,
                             field="lemmas", value=relative) from None
    where = " in its job" if _confined is not None else ""
    raise InputError(f"no such file{where}", file=problem.path, field="lemmas", value=relative)
