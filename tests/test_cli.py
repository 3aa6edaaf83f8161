"""The command line: one clear line and a documented exit status for every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

GOOD = '''format = "retrologic/1"
position = { fen = "8/8/8/8/1k6/P7/1K6/8 b - - 0 1" }
question = { kind = "retractions" }
'''


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "retrologic", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def write(tmp_path: Path, text: str, name: str = "p.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


BAD = [
    ("malformed-fen", GOOD.replace("8/8/8/8/1k6/P7/1K6/8 b - - 0 1", "8/8/8/8/1k6/P7/1K6/8 x"),
     ["position.fen", "8/8/8/8/1k6/P7/1K6/8 x"]),
    ("bad-square", GOOD.replace("b - - 0 1\" }", "b - - 0 1\", frozen = [\"z9\"] }"),
     ["position.frozen", "z9"]),
    ("missing-kind", GOOD.replace('kind = "retractions"', 'uncaptures = "open"'), ["question.kind"]),
    ("unknown-field", GOOD + 'colour = "blue"\n', ["colour", "blue"]),
    ("unknown-question-field", GOOD.replace('kind = "retractions"', 'kind = "retractions", depth = 3'),
     ["question.depth", "3"]),
    ("wrong-type", GOOD.replace('kind = "retractions"', 'kind = "retractions", counts = "yes"'),
     ["question.counts", "yes"]),
    ("unknown-kind", GOOD.replace('"retractions"', '"mate-in-2"'), ["question.kind", "mate-in-2"]),
    ("malformed-toml", GOOD + "question = [\n", ["malformed TOML"]),
    ("bad-format", GOOD.replace("retrologic/1", "retrologic/9"), ["format", "retrologic/9"]),
    ("bad-expect-key", GOOD + 'expect = { verdicts = "proved" }\n', ["expect.verdicts"]),
    ("bad-constraint", GOOD + '[[constraint]]\nname = "x"\nexpr = "frobnicate(white) == 1"\n',
     ["constraint[0].expr", "frobnicate"]),
]


@pytest.mark.parametrize("name,text,needles", BAD, ids=[b[0] for b in BAD])
def test_bad_problem_file(tmp_path, name, text, needles):
    path = write(tmp_path, text)
    res = run("solve", path)
    assert res.returncode == 3, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert path in lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_unreadable_files(tmp_path):
    for path in (str(tmp_path / "nope.toml"), str(tmp_path)):
        res = run("solve", path)
        assert res.returncode == 3 and "Traceback" not in res.stderr
        assert path in res.stderr


def test_expect_mismatch_exit_1(tmp_path):
    path = write(tmp_path, GOOD + 'expect = { answer = ["a2-a4+"] }\n')
    res = run("solve", path)
    assert res.returncode == 1
    assert "NOT MET" in res.stdout


def test_expect_met_and_json(tmp_path):
    path = write(tmp_path, GOOD + 'expect = { answer = ["a2-a3+"] }\n')
    res = run("solve", "--json", path)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["answer"] == ["a2-a3+"] and out["expect"]["met"] is True


def test_expect_compares_json_values_not_python_ones():
    """Review of 2026-11-30: `False == 0` in Python made spg's `shorter = false` (no shorter
    game) meet `shorter: 0` (a 0-ply game: the diagram is the initial array) and the reverse;
    `includes`/`excludes` on a result listing no answer looked in `[None]` (every excludes
    met); repeated items failed lists compared as sets."""
    from retrologic.result import Result, compare_expect
    spg = Result("spg", "refuted", None, facts={"shorter": 0, "count": 1, "answer": None,
                                                 "cage": False, "plies": 2})
    for expect in ({"shorter": False}, {"count": True}, {"cage": 0}, {"plies": 2.5},
                   {"excludes": ["1.e4"]}, {"includes": ["1.e4"]}):
        assert compare_expect(spg, expect), expect
    assert compare_expect(spg, {"shorter": 0, "count": 1.0, "cage": False, "plies": 2}) == []
    none = Result("spg", "proved", None, facts={"shorter": False})
    assert compare_expect(none, {"shorter": 0}) and not compare_expect(none, {"shorter": False})
    listed = Result("last-move", "proved", ["a2-a3+", "b2-b3"],
                    facts={"answer": ["a2-a3+", "b2-b3"], "n": [1, True]},
                    unordered=frozenset({"answer", "n"}))
    assert compare_expect(listed, {"answer": ["b2-b3", "a2-a3+", "b2-b3"]}) == []
    assert compare_expect(listed, {"answer": ["a2-a3+"]})
    assert compare_expect(listed, {"n": [True, 1]}) == [] and compare_expect(listed, {"n": [1, 1]})
    assert compare_expect(listed, {"includes": ["b2-b3"], "excludes": ["c2-c3"]}) == []
    # a value of another kind than its fact is named as such (`dtm_plies = "27"` for 27)
    table = Result("tablebase", "proved", "mate in 14", facts={"dtm_plies": 27})
    assert compare_expect(table, {"dtm_plies": "27"}) == \
        ["expect.dtm_plies: wanted '27', got 27 (a string where the fact is a number)"]
    assert compare_expect(table, {"dtm_plies": 26}) == ["expect.dtm_plies: wanted 26, got 27"]


def test_usage_error_exit_2():
    res = run("retract")
    assert res.returncode == 2


def test_bad_fen_on_command_line():
    res = run("retract", "8/8/8 w")
    assert res.returncode == 3 and "Traceback" not in res.stderr and "8/8/8 w" in res.stderr


def test_retract_command_json():
    res = run("retract", "--json", "8/8/8/8/1k6/P7/1K6/8 b - - 0 1")
    assert res.returncode == 0
    out = json.loads(res.stdout)
    assert out["answer"] == ["a2-a3+"]
    assert out["details"]["retractions"][0]["predecessor"] == "8/8/8/8/1k6/8/PK6/8 w - - 0 1"


def test_help_lists_commands_and_exit_statuses():
    res = run("--help")
    assert res.returncode == 0
    for word in ("solve", "check", "cage", "deduce", "lastmove", "spg", "exit status", "130"):
        assert word in res.stdout
