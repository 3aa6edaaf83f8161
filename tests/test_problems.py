"""Every problems/**/*.toml that carries an [expect] table is a test case."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrologic import problem

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for p in (ROOT / "problems").rglob("*.toml"))


def _has_expect(path: Path) -> bool:
    import tomllib
    with open(path, "rb") as fh:
        return "expect" in tomllib.load(fh)


CASES = [p for p in FILES if _has_expect(p)]


# A `legal` file expecting "unknown" asks that no static proof (or unusable lemma) decide it;
# the game finder then spends its whole count (60,000 positions, two minutes) before saying
# unknown. A node limit gives the same verdict after the same static part, in seconds.
UNKNOWN_LEGAL_NODES = 3_000


@pytest.mark.parametrize("path", CASES, ids=[str(p.relative_to(ROOT / "problems")) for p in CASES])
def test_problem_file(path: Path) -> None:
    prob = problem.load(path)
    options = problem.SolveOptions()
    if prob.kind == "legal" and (prob.expect or {}).get("verdict") == "unknown":
        options = problem.SolveOptions(nodes=UNKNOWN_LEGAL_NODES)
    result = problem.solve(prob, options)
    mismatches = problem.check(prob, result)
    assert not mismatches, f"{path}: " + "; ".join(mismatches)


def test_every_problem_file_is_valid() -> None:
    """Files without [expect] must still parse and validate."""
    assert FILES, "problems/ holds no problem files"
    for path in FILES:
        problem.load(path)
