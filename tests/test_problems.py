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

# Files of a minute of CPU or more each on the 2-core CI machine (measured with --durations,
# 2026-11-26: 42-134 s), run by `python -m pytest -m slow` rather than in CI's 20 minutes. In
# CI, brandis-discovered's question is asked by tests/test_lastmove.py (the same discovery, its
# certificate checked); Brandis with the library by lastmove/brandis.toml; lemma files by
# legal/cage-lemma-without-deduction.toml and cages/fig3-bishop-one-step-out-with-lemma.toml
# (legal/deduce-then-cage.toml's position falls to the static rule pawn-columns before its
# lemmas are read; tests/test_legality_pawn_columns.py runs its chain)
# (not in a last-move question: only brandis-lemma does that).
SLOW = {"spg/irsigler-2004-c.toml", "spg/dupuis-2001-b.toml", "spg/bell-2000.toml",
        "spg/yanami-1997.toml", "spg/buchanan-motley-c.toml", "spg/ott-1981.toml",
        "spg/kirtley-1998.toml", "lastmove/brandis-discovered.toml",
        "lastmove/brandis-lemma.toml",
        # half a minute or more on the slow machine of 2026-11-27 (CI had reached 20 minutes)
        "spg/wicklund-2003.toml", "spg/kostadinov-2005.toml", "spg/faybish-2007.toml",
        "spg/wassong-2009.toml", "spg/wilts-1994-b.toml", "spg/kirtley-caillaud-2-solutions.toml",
        "lastmove/august-1924.toml",
        # 30 s each on the machine of 2026-11-29 08:55 UTC, where CI took 18.3 minutes
        # (angelini-1995 is in bench/lastmove-collection too)
        "lastmove/angelini-1995.toml", "spg/buchanan-2002-b.toml"}


def _name(path: Path) -> str:
    """A problem file's name under problems/ (the test id, and what `SLOW` lists)."""
    return path.relative_to(ROOT / "problems").as_posix()


def _case(path: Path):
    """A problem file as a test case, marked slow when it is in `SLOW`."""
    name = _name(path)
    return pytest.param(path, id=name, marks=[pytest.mark.slow] if name in SLOW else [])


# A `legal` file expecting "unknown" asks that no static proof (or unusable lemma) decide it;
# the game finder then spends its whole count (60,000 positions, two minutes) before saying
# unknown. A node limit gives the same verdict after the same static part, in seconds.
UNKNOWN_LEGAL_NODES = 3_000


@pytest.mark.parametrize("path", [_case(p) for p in CASES])
def test_problem_file(path: Path) -> None:
    prob = problem.load(path)
    options = problem.SolveOptions()
    if prob.kind == "legal" and (prob.expect or {}).get("verdict") == "unknown":
        options = problem.SolveOptions(nodes=UNKNOWN_LEGAL_NODES)
    result = problem.solve(prob, options)
    mismatches = problem.check(prob, result)
    assert not mismatches, f"{path}: " + "; ".join(mismatches)


def test_slow_files_exist() -> None:
    """Every name in `SLOW` is a problem file with an [expect] (a renamed file is not lost)."""
    names = {_name(p) for p in CASES}
    assert SLOW <= names, SLOW - names


def test_every_problem_file_is_valid() -> None:
    """Files without [expect] must still parse and validate."""
    assert FILES, "problems/ holds no problem files"
    for path in FILES:
        problem.load(path)
