"""The `retrologic trajectory` command and the `trajectory` question kind."""

from __future__ import annotations

import json
import xml.dom.minidom
from pathlib import Path

import pytest

from retrologic import problem
from retrologic.cli import main
from retrologic.errors import InputError

ROOT = Path(__file__).resolve().parent.parent


def test_cli_paper_example(capsys, tmp_path) -> None:
    svg = tmp_path / "bundle.svg"
    status = main(["trajectory", "--piece", "K", "--color", "white", "--from", "c7", "--to", "e1",
                   "--svg", str(svg)])
    out = capsys.readouterr().out
    assert status == 0
    assert "distance 6; 90 shortest trajectories of length 6" in out
    grid = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert grid[1].split() == ["7", "2", "1", "0*", "1", "2", "3", "4", "5"]   # rank 7
    assert grid[7].split() == ["1", "6", "6", "6", "6", "6*", "6", "6", "6"]   # rank 1
    assert "bundle (90):" in out and "c7-d6-e5-e4-e3-e2-e1" in out
    text = svg.read_text()
    xml.dom.minidom.parseString(text)
    assert text.count("#7fbf7f") >= 20    # the bundle's squares are filled


def test_cli_admissible_and_json(capsys) -> None:
    status = main(["trajectory", "--piece", "bishop", "--color", "w", "--from", "c7", "--to", "c1",
                   "--length", "3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 0
    assert data["facts"]["degree"] == 2 and data["facts"]["count"] == 14
    assert len(data["answer"]) == 14 and "c7-f4-e3-c1" in data["answer"]


def test_cli_map_only_and_limit(capsys) -> None:
    assert main(["trajectory", "--piece", "N", "--color", "black", "--from", "a1"]) == 0
    out = capsys.readouterr().out
    assert "distance map" in out and "bundle" not in out
    assert main(["trajectory", "--piece", "K", "--color", "white", "--from", "a1", "--to", "a8",
                 "--limit", "10"]) == 0
    out = capsys.readouterr().out
    assert "127 trajectories, more than the limit 10" in out


def test_cli_board_supplies_obstacles(capsys) -> None:
    board = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert main(["trajectory", "--from", "f1", "--to", "b5", "--board", board]) == 0
    out = capsys.readouterr().out
    assert "white bishop f1 -> b5: distance 1" in out and "first move away: e2" in out
    assert main(["trajectory", "--from", "f1", "--to", "b5", "--board", board,
                 "--frozen", "e2,g2"]) == 0
    assert "unreachable" in capsys.readouterr().out


@pytest.mark.parametrize("args, field", [
    (["--piece", "X", "--color", "white", "--from", "c7"], "piece"),
    (["--piece", "K", "--color", "white", "--from", "i9"], "from"),
    (["--piece", "K", "--color", "white", "--from", "c7", "--to", "e1", "--block", "e1,zz"],
     "block"),
    (["--piece", "P", "--color", "black", "--from", "e8"], "from"),
    (["--piece", "R", "--color", "white", "--from", "a1", "--promote", "Q"], "promote"),
    (["--piece", "P", "--color", "white", "--from", "a2", "--promote", "K"], "promote"),
    (["--piece", "K", "--color", "white", "--from", "c7", "--degree", "2"], "degree"),
    (["--from", "e4", "--board", "8/8/8/8/8/8/8/8"], "from"),
    (["--from", "e2", "--board", "8/8/8/8/8/8/4P3/8", "--piece", "K"], "piece"),
    (["--from", "e2", "--board", "8/8/8/8/8/8/4P3/8", "--frozen", "e5"], "frozen"),
])
def test_cli_bad_input_exit_3(capsys, args, field) -> None:
    assert main(["trajectory", *args]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"field '{field}'" in err and "Traceback" not in err


def test_problem_file_errors_name_the_field(tmp_path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('format = "retrologic/1"\n'
                    'question = { kind = "trajectory", piece = "K", color = "white", '
                    'from = "c7", to = "e1", degree = 0 }\n')
    with pytest.raises(InputError) as info:
        problem.load(path)
    assert info.value.field == "question.degree" and info.value.value == 0
    path.write_text('format = "retrologic/1"\n'
                    'question = { kind = "trajectory", piece = "K", color = "white", '
                    'from = "c7", captures = 2 }\n')
    with pytest.raises(InputError) as info:
        problem.solve(problem.load(path))
    assert info.value.field == "question.captures" and str(path) in str(info.value)


def test_problem_files_present() -> None:
    files = sorted((ROOT / "problems" / "trajectory").glob("*.toml"))
    assert len(files) >= 9
    for f in files:
        assert problem.load(f).expect, f"{f.name} has no [expect] table"
