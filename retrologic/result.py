"""The answer to a question: a verdict, the answer itself, facts for [expect], and renderings."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from retrologic.errors import shown


class Verdict(StrEnum):
    """The verdict of an answer (`Result.verdict`): proved, refuted (with a counterexample) or
    unknown (with the limit hit). A str, so it compares and serialises as its value. Not to be
    confused with `certificate.Verdict`, a checker's accepted/rejected judgement of a certificate.
    """

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


VERDICTS = tuple(v.value for v in Verdict)


@dataclass
class Result:
    """What a question returns.

    `verdict` is proved, refuted or unknown (with `reason`); `answer` is the question's answer;
    `facts` is a flat dict of checkable values that a problem's [expect] table is compared with;
    `details` carries more JSON-able content; `lines` is the readable rendering.
    """

    kind: str
    verdict: Verdict | str      # given as either; always a Verdict once constructed
    answer: Any = None
    reason: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    unordered: frozenset[str] = frozenset({"answer"})  # facts whose lists compare as sets
    # facts a limit left open (their value is not the answer's, e.g. a lower bound's list): an
    # [expect] naming one is not decided (`judge_expect`); "answer" covers includes/excludes
    open_facts: frozenset[str] = frozenset()
    # lower-bound facts (a number proved at least so) and the fact each bounds: an [expect] of
    # at most the bound is met; above it, not decided while that fact is open, else missed
    bounds: dict[str, str] = field(default_factory=dict)
    # upper-bound facts (a number proved at most so, e.g. spg's `shorter_at_most`), judged the
    # other way round: an [expect] of at least it is met; below it, not decided while the
    # bounded fact is open, else missed
    ceilings: dict[str, str] = field(default_factory=dict)
    # answer items proved in (`known_in`) or out of (`known_out`) the answer while a limit leaves
    # the answer itself open, e.g. last-move candidates shown possible by a game or impossible by
    # a proof: `includes` / `excludes` on them are decided, on the others not
    known_in: tuple[Any, ...] = ()
    known_out: tuple[Any, ...] = ()
    within: tuple[Any, ...] | None = None   # every item the answer can hold, when known
    # the diagram asked about (a retrologic Position or a chess.Board), for pictures only: not
    # in to_json(), repr or ==; set by the question that knows it (issue #20, `_repr_svg_`)
    position: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"bad verdict {self.verdict!r}")
        self.verdict = Verdict(self.verdict)
        self.facts.setdefault("verdict", str(self.verdict))
        if self.answer is not None:
            self.facts.setdefault("answer", self.answer)

    def __repr__(self) -> str:
        """kind, verdict, answer and reason (not the rendering); long answers are cut."""
        text = (f"Result(kind={self.kind!r}, verdict={str(self.verdict)!r}, "
                f"answer={shown(self.answer, 300)}")
        return text + (f", reason={shown(self.reason, 200)})" if self.reason else ")")

    def __str__(self) -> str:
        """The readable rendering, as the CLI prints it (so `print(result)` shows the answer)."""
        return self.render()

    def _repr_svg_(self) -> str | None:
        """The answer's picture for notebooks (retrologic.pictures.svg.for_result): None when
        the result carries no position (the notebook then shows the text)."""
        from retrologic.pictures.svg import for_result
        return for_result(self)

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON types (the CLI's --json record, without file and outcome)."""
        out: dict[str, Any] = {"kind": self.kind, "verdict": str(self.verdict),
                               "answer": plain(self.answer)}
        if self.reason:
            out["reason"] = self.reason
        out["facts"] = plain(self.facts)
        if self.open_facts:
            out["open_facts"] = sorted(self.open_facts)
        if self.details:
            out["details"] = plain(self.details)
        return out

    def render(self) -> str:
        head = f"{self.kind}: {self.verdict}"
        if self.reason:
            head += f" ({self.reason})"
        body = list(self.lines)
        if not body and self.answer is not None:
            body = [f"answer: {json.dumps(self.answer)}"]
        return "\n".join([head, *("  " + line for line in body)])


def plain(value: Any) -> Any:
    """`value` with every enum as its value and every tuple as a list: plain JSON types, which
    `yaml.safe_dump` and other strict writers take too (a `Verdict` in the facts was not)."""
    if isinstance(value, Enum):
        return plain(value.value)
    if isinstance(value, dict):
        return {k.value if isinstance(k, Enum) else k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def compare_expect(result: Result, expect: dict[str, Any]) -> list[str]:
    """Mismatches between a result and an [expect] table (empty list: all met). An expectation
    whose fact the result left undecided is one too ("not decided"): it is never met; a caller
    that tells the two apart uses `judge_expect`."""
    mismatches, undecided = judge_expect(result, expect)
    return mismatches + [f"expect.{key}: not decided (the result leaves it open)"
                         for key in undecided]


def judge_expect(result: Result, expect: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The mismatches between a result and an [expect] table, and the keys it leaves undecided.

    Keys name facts; `includes` / `excludes` test membership in the answer list. A fact the
    result names in `open_facts` is undecided: a limit left it open, e.g. spg's `count` of a
    cooked length not exhausted, or the candidate lists of a last move shown not unique before
    the limit; it can neither meet nor miss an expectation. (A None fact is not open by
    itself: a tablebase draw's `mate_in` is None, decided.)"""
    problems: list[str] = []
    undecided: list[str] = []
    for key, want in expect.items():
        if key in ("includes", "excludes"):
            have = result.facts.get("answer")
            if "answer" in result.open_facts:
                problems += _judge_known(result, key, want, undecided)
                continue
            if have is None:     # no answer listed (a limit, a count alone): nothing to hold
                problems.append(f"expect.{key}: the result lists no answer to look in")
                continue
            have_list = list(have) if isinstance(have, (list, tuple)) else [have]
            for item in want:
                present = any(same_value(h, item) for h in have_list)
                if present != (key == "includes"):
                    verb = "missing from" if key == "includes" else "present in"
                    problems.append(f"{shown(item)} {verb} answer {shown(have_list, 200)}")
            continue
        if key in result.open_facts:
            undecided.append(key)
            continue
        if key not in result.facts:
            problems.append(f"expect.{key}: the result has no such fact "
                            f"(it has: {', '.join(sorted(result.facts))})")
            continue
        have = result.facts[key]
        if key in result.bounds and _number(have) and _number(want):
            if have >= want:
                continue                    # proved at least so
            if result.bounds[key] in result.open_facts:
                undecided.append(key)       # more may yet be shown
            else:
                problems.append(f"expect.{key}: wanted at least {shown(want)}, got "
                                f"{shown(have)}, the exact figure")
            continue
        if key in result.ceilings and _number(want) and (have is None or _number(have)):
            if have is not None and have <= want:
                continue                    # proved at most so
            if result.ceilings[key] in result.open_facts:
                undecided.append(key)       # less may yet be shown
            else:
                got = "none exists" if have is None else f"got {shown(have)}, the exact figure"
                problems.append(f"expect.{key}: wanted at most {shown(want)}, {got}")
            continue
        if key in result.unordered and isinstance(have, (list, tuple)) and isinstance(want, list):
            same = set(map(_key, have)) == set(map(_key, want))      # sets: order and repeats
        else:
            same = same_value(have, want)
        if not same:
            kinds = (_kind(want), _kind(have))
            clash = f" ({kinds[0]} where the fact is {kinds[1]})" \
                if kinds[0] != kinds[1] and have is not None else ""
            problems.append(f"expect.{key}: wanted {shown(want, 200)}, got {shown(have, 200)}"
                            + clash)
    return problems, undecided


def _judge_known(result: Result, key: str, want: list, undecided: list[str]) -> list[str]:
    """`includes` / `excludes` while the answer is open: each item is judged by what is proved
    of it (`Result.known_in` / `known_out`); one proved neither way leaves `key` undecided."""
    problems: list[str] = []
    for item in want:
        if any(same_value(k, item) for k in result.known_in):
            inside = True
        elif any(same_value(k, item) for k in result.known_out) or (
                result.within is not None and not any(same_value(k, item)
                                                      for k in result.within)):
            inside = False
        else:
            if key not in undecided:
                undecided.append(key)
            continue
        if inside != (key == "includes"):
            verb = "proved out of" if key == "includes" else "proved in"
            problems.append(f"{shown(item)} {verb} the answer (the rest of it left open)")
    return problems


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """A JSON value's kind in words: an [expect] of another kind than its fact (`"27"` for 27)
    can never be met, and the mismatch line says so."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "null" if value is None else type(value).__name__


def same_value(have: Any, want: Any) -> bool:
    """Equal as JSON values (`_key`): a boolean equals only a boolean (Python's `False == 0`
    made spg's `shorter = false`, no shorter game, meet `shorter: 0`, a 0-ply game: review of
    2026-11-30), numbers by value, lists (or tuples) item by item, tables key by key."""
    return _key(have) == _key(want)


def _key(value: Any) -> str:
    """A value's JSON text after `_canonical` (true and 1 differ, 1 and 1.0 do not): what
    `same_value` compares, and a set member for an unordered list."""
    return json.dumps(_canonical(plain(value)), default=repr)


def _canonical(value: Any) -> Any:
    """A plain value with whole floats as ints and tables as sorted [key text, value] pairs."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return sorted(([str(k), _canonical(v)] for k, v in value.items()), key=lambda kv: kv[0])
    return value
