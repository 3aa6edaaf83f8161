"""Question `deduce`: prove or refute claims about a game's history (captures, pawn structure,
promotions) with the history model; proofs carry a core and optionally a DRUP certificate.

Claims and assumptions come from `[[constraint]]` tables (role = "claim" | "assume"), from the
question's `claim` / `assume` lists (expressions, or names of encodings/constraints/*.toml
entries), or from `--claim` / `--assume` on the command line.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from retrologic.errors import InputError
from retrologic.result import Result, Verdict
from retrologic.paths import encodings
from retrologic.schema import Field, one_of, validate

KIND = "deduce"
POSITION = "full"


def _engine(value: str) -> str:
    if value not in ("sat", "cp-sat", "both"):
        raise ValueError("must be 'sat', 'cp-sat' or 'both'")
    return value


def _strings(value: list) -> list:
    if not all(isinstance(v, str) for v in value):
        raise ValueError("must be an array of strings (expressions or library names)")
    return value


QUESTION = {
    "engine": Field(str, default="sat", check=_engine,
                    doc="sat (pysat decides), cp-sat (CP-SAT decides, pysat certifies), both"),
    "claim": Field(list, default=[], check=_strings, doc="claims: expressions or library names"),
    "assume": Field(list, default=[], check=_strings, doc="assumptions: expressions or library names"),
    "explain": Field(bool, default=True, doc="minimise an UNSAT core for each proof"),
}
EXPECT = {"illegal", "claims", "proved", "refuted", "core"}

LIBRARY = encodings("constraints")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")   # a library entry's name (a file stem)

LIBRARY_FIELDS = {
    "format": Field(str, required=True),
    "name": Field(str, required=True),
    "expr": Field(str, required=True),
    "doc": Field(str, required=True),
    "example": Field(list, default=[]),
}
EXAMPLE_FIELDS = {
    "fen": Field(str, required=True),
    "status": Field(str, required=True,
                    check=one_of("proved", "refuted")),
    "comment": Field(str, required=True),
}


def load_library_entry(path: Path) -> dict[str, Any]:
    """A named reusable constraint (encodings/constraints/NAME.toml), validated."""
    from retrologic.constraints import parse_expr
    from retrologic.schema import read_toml
    file = str(path)
    data = read_toml(path)
    entry = validate(data, LIBRARY_FIELDS, file=file, where="")
    if entry["name"] != path.stem:
        raise InputError("must equal the file name", file=file, field="name", value=entry["name"])
    try:
        entry["parsed"] = parse_expr(entry["expr"])
    except InputError as e:
        raise e.located(file, "expr") from None
    entry["example"] = [validate(x, EXAMPLE_FIELDS, file=file, where=f"example[{i}]")
                        for i, x in enumerate(entry["example"])]
    return entry


def library_names() -> list[str]:
    return sorted(p.stem for p in LIBRARY.glob("*.toml"))


def _constraint(text: str, default_name: str, where: str, file: str | None):
    """An expression, 'name: expression', or the name of a library entry."""
    from retrologic.history.query import Constraint
    text = text.strip()
    if _NAME.match(text):
        path = LIBRARY / f"{text}.toml"
        if not path.exists():
            raise InputError(f"no library constraint of that name (known: "
                             f"{', '.join(library_names()) or 'none'})", file=file, field=where,
                             value=text)
        entry = load_library_entry(path)
        return Constraint(entry["name"], entry["expr"], entry["parsed"], where)
    name = default_name
    m = re.match(r"^([A-Za-z0-9_.-]+)\s*:\s*(.+)$", text, re.S)
    if m:
        name, text = m.group(1), m.group(2)
    try:
        return Constraint.parse(name, text, where)
    except InputError as e:
        raise e.located(file) from None


def solve(problem, options) -> Result:
    from retrologic.history.query import Constraint
    assumptions, claims = [], []
    for i, c in enumerate(problem.constraints):
        item = Constraint(c["name"], c["expr"], c["parsed"], f"constraint[{i}].expr")
        (claims if c["role"] == "claim" else assumptions).append(item)
    q = problem.question
    for key, target in (("assume", assumptions), ("claim", claims)):
        for i, text in enumerate(q[key]):
            target.append(_constraint(text, f"{key}{i + 1}", f"question.{key}[{i}]", problem.path))
    from retrologic.certformat import with_destination
    return answer(problem.position, assumptions, claims, engine=q["engine"], explain=q["explain"],
                  options=with_destination(options, problem), file=problem.path)


def _refuted_reason(d) -> str:
    """How many refuted claims are false in every history, and how many only not entailed."""
    from retrologic.history.deduce import DISPROVED
    refuted = [c for c in d.claims if c.status == Verdict.REFUTED]
    false = sum(c.reason == DISPROVED for c in refuted)
    parts = [f"{false} claim(s) false in every history of the model"] if false else []
    if len(refuted) > false:
        parts.append(f"{len(refuted) - false} claim(s) not entailed by the counting rules (each "
                     "falsified by a history of the model; no game is shown to falsify it)")
    return "; ".join(parts)


def answer(position, assumptions, claims, *, engine: str = "sat", explain: bool = True,
           options=None, file: str | None = None) -> Result:
    """Run the deduction and shape it as a Result."""
    from retrologic.history.deduce import deduce, render_deduction
    from retrologic.history.witness import render
    from retrologic.options import budget_of
    try:
        d = deduce(position, assumptions, claims, engine=engine, explain=explain,
                   budget=budget_of(options),      # --nodes: SAT conflicts over the query
                   certificate_dir=getattr(options, "certificate_dir", None),
                   progress=bool(getattr(options, "progress", False)))
    except InputError as e:
        raise e.located(file) from None
    statuses = {c.name: c.status for c in d.claims}
    proved = sorted(n for n, s in statuses.items() if s == Verdict.PROVED)
    refuted = sorted(n for n, s in statuses.items() if s == Verdict.REFUTED)
    given = _given(position, assumptions)
    lines = render_deduction(d, assumed=bool(given))
    if d.consistent is None or Verdict.UNKNOWN in statuses.values():
        verdict, reason = Verdict.UNKNOWN, d.reason or next(c.reason for c in d.claims
                                                            if c.status == Verdict.UNKNOWN)
    elif d.uncertified:
        verdict, reason = Verdict.UNKNOWN, d.uncertified   # a certificate asked for, stopped by a limit
    elif d.consistent is False:
        verdict, reason = Verdict.PROVED, None
    elif not claims:
        verdict, reason = Verdict.REFUTED, "no claim to prove: the position has a history"
        lines = ["a history of the position (consistent with the counting rules; not "
                 "necessarily a playable game):"] + ["  " + s for s in render(d.witness)] + lines
    else:
        verdict, reason = Verdict.PROVED, None
        if refuted:
            verdict, reason = Verdict.REFUTED, _refuted_reason(d)
    if d.consistent is False:
        ans: Any = "illegal"
    elif not claims:
        ans = "consistent" if d.consistent else None
    else:
        ans = proved
    core = d.core if d.consistent is False else (
        d.claims[0].core if len(d.claims) == 1 and d.claims[0].core is not None else None)
    facts = {"illegal": None if d.consistent is None else not d.consistent, "claims": statuses,
             "proved": proved, "refuted": refuted}
    if core is not None:
        facts["core"] = sorted(core)
    details = {
        "stats": d.stats,
        "core": d.core,
        "claims": [{"name": c.name, "expr": c.text, "status": c.status, "core": c.core,
                    "reason": c.reason, "certificate": c.certificate,
                    "witness": None if c.witness is None else render(c.witness)}
                   for c in d.claims],
        # proved claims as constraint expressions: restrictions a cage verification can take
        # (only those proved from the position alone: a claim proved under assumptions is no
        # fact of the position, and `legal`'s lemma chains read these)
        "proved_constraints": [{"name": c.name, "expr": c.text} for c in d.claims
                               if c.status == Verdict.PROVED and d.consistent and not given],
        "certificates": d.certificates,
    }
    if given:               # every answer rests on them: said first, with --no-explain too
        lines.insert(0, given)
        reason = f"{reason}; {given}" if reason else given
        details["assumed"] = [{"name": a.name, "expr": a.text} for a in assumptions]
        details["frozen"] = _frozen_squares(position)      # the stated never-moved units
    return Result(KIND, verdict, ans, reason, facts, details, lines,
                  unordered=frozenset({"answer", "proved", "refuted", "core"}))


def _given(position: Any, assumptions: list) -> str:
    """What a deduction assumes besides the position (empty: nothing): its assumptions and the
    stated frozen units. A claim proved, or "illegal", holds only where they do (review,
    2026-11-30: with --no-explain nothing said so)."""
    parts = [f"{a.name}: {a.text}" for a in assumptions]
    frozen = _frozen_squares(position)
    if frozen:
        parts.append("frozen " + ",".join(frozen) + " (never moved)")
    return "under the assumptions " + "; ".join(parts) if parts else ""


def _frozen_squares(position: Any) -> list[str]:
    """The squares of the position's stated frozen units (never moved), in square order."""
    import chess
    return [chess.square_name(s) for s in chess.scan_forward(getattr(position, "frozen", 0))]


def proved_restrictions(result: Result) -> list:
    """The proved claims of a deduce Result as parsed expressions (constraints.Expr), ready to
    be handed to a cage verification as retraction restrictions."""
    from retrologic.constraints import parse_expr
    return [parse_expr(c["expr"]) for c in result.details.get("proved_constraints", [])]


def cage_restrictions(result: Result) -> list:
    """The proved claims a cage verification can take as retraction filters
    (`pawn_captures(...) == 0`, `never_moved("sq")`), as parsed expressions."""
    from retrologic.cages.rules import restrictions_from
    out = []
    for expr in proved_restrictions(result):
        try:
            restrictions_from([expr])
        except InputError:
            continue
        out.append(expr)
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    from retrologic.console import add_limit_arguments
    p.add_argument("fen", metavar="FEN", help="a full position (FEN)")
    p.add_argument("--claim", action="append", default=[], metavar="EXPR",
                   help="a claim to prove: an expression, 'name: expression', or a library name "
                        "(repeatable)")
    p.add_argument("--assume", action="append", default=[], metavar="EXPR",
                   help="an assumption (same forms as --claim; repeatable)")
    p.add_argument("--frozen", metavar="SQUARES", help="units that never moved, e.g. 'e1 h1'")
    p.add_argument("--engine", choices=("sat", "cp-sat", "both"), default="sat",
                   help="sat: pysat decides; cp-sat: CP-SAT decides, pysat certifies; both: "
                        "cross-check (default sat)")
    p.add_argument("--no-explain", action="store_true", help="skip minimising the cores")
    add_limit_arguments(p)


def run(args: argparse.Namespace) -> int:
    from retrologic.console import emit, options_from
    from retrologic.position import parse
    try:
        pos = parse(fen=args.fen)
    except ValueError as e:
        raise InputError(str(e), field="FEN", value=args.fen) from None
    if args.frozen:
        try:
            pos = parse(fen=args.fen, frozen=args.frozen)
        except ValueError as e:
            raise InputError(str(e), field="--frozen", value=args.frozen) from None
    assumptions = [_constraint(t, f"assume{i + 1}", "--assume", None) for i, t in enumerate(args.assume)]
    claims = [_constraint(t, f"claim{i + 1}", "--claim", None) for i, t in enumerate(args.claim)]
    result = answer(pos, assumptions, claims, engine=args.engine, explain=not args.no_explain,
                    options=options_from(args))
    return emit(result, args)
