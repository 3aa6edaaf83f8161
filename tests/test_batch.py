"""Batches of `solve` and `check`: each file isolated, JSON Lines streamed per file, a summary on
stderr, limits as exit 4, usage errors for bad limits, and Ctrl-C (SIGINT) as exit 130 with the
finished records kept."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from retrologic import limits
from retrologic import problem as problem_mod
from retrologic.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAST = [str(ROOT / "problems/retractions/brandis.toml"), str(ROOT / "problems/legal/no-static-proof.toml")]
SLOW = str(ROOT / "problems/spg/heinonen-1996.toml")    # runs for minutes without a limit
PUZZLE = ROOT / "problems/puzzle4x4/article-solvable-start.toml"

GOOD = '''format = "retrologic/1"
position = { fen = "8/8/8/8/1k6/P7/1K6/8 b - - 0 1" }
question = { kind = "retractions" }
'''


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "retrologic", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)


def records(stdout: str) -> list[dict]:
    """JSON Lines: every line one JSON object."""
    lines = stdout.splitlines()
    assert all(line.startswith("{") for line in lines), stdout[:500]
    return [json.loads(line) for line in lines]


# -- isolation ------------------------------------------------------------------------------------

def _boom_on(monkeypatch, name: str) -> None:
    """Make problem.solve raise a bug (not a RetroError) for files called `name`."""
    real = problem_mod.solve

    def solve(prob, options=None):
        if Path(prob.path).name == name:
            raise ZeroDivisionError("a planted bug")
        return real(prob, options)

    monkeypatch.setattr(problem_mod, "solve", solve)


def test_internal_error_is_that_files_record(tmp_path, monkeypatch, capsys):
    files = [tmp_path / "a.toml", tmp_path / "boom.toml", tmp_path / "c.toml"]
    for f in files:
        f.write_text(GOOD)
    _boom_on(monkeypatch, "boom.toml")
    status = main(["solve", "--json", *map(str, files)])
    out, err = capsys.readouterr()
    assert status == 5
    recs = records(out)
    assert [r["file"] for r in recs] == list(map(str, files))
    assert recs[0]["outcome"] == recs[2]["outcome"] == "answered"
    assert recs[0]["answer"] == recs[2]["answer"] == ["a2-a3+"]
    assert recs[1]["outcome"] == "error" and recs[1]["status"] == 5
    assert recs[1]["error"]["status"] == 5 and "ZeroDivisionError" in recs[1]["error"]["message"]
    lines = err.strip().splitlines()
    assert any(str(files[1]) in line and "internal error" in line for line in lines), err
    assert lines[-1] == "3 files: 0 met, 0 not met, 2 answered, 0 unknown, 1 error"
    assert "Traceback" not in err


def test_internal_error_with_debug_shows_traceback_and_goes_on(tmp_path, monkeypatch, capsys):
    files = [tmp_path / "boom.toml", tmp_path / "b.toml"]
    for f in files:
        f.write_text(GOOD)
    _boom_on(monkeypatch, "boom.toml")
    status = main(["--debug", "solve", *map(str, files)])
    out, err = capsys.readouterr()
    assert status == 5
    assert "Traceback" in err and "ZeroDivisionError: a planted bug" in err
    assert f"== {files[1]}" in out and "a2-a3+" in out      # the next file still ran


# -- JSON Lines -----------------------------------------------------------------------------------

def test_json_lines_same_shape_for_one_file_or_many(tmp_path):
    one = run("solve", "--json", FAST[0])
    assert one.returncode == 0, one.stderr
    (rec,) = records(one.stdout)
    assert rec["file"] == FAST[0] and rec["outcome"] == "met" and rec["status"] == 0
    assert rec["expect"] == {"met": True, "mismatches": []}
    assert one.stderr == ""                                    # no summary for one file

    missing = str(tmp_path / "missing.toml")
    malformed = tmp_path / "malformed.toml"
    malformed.write_text("question = [\n")
    many = run("solve", "--json", FAST[0], missing, str(malformed), FAST[1])
    assert many.returncode == 3
    recs = records(many.stdout)
    assert [r["file"] for r in recs] == [FAST[0], missing, str(malformed), FAST[1]]
    assert recs[0] == rec
    for r in recs[1:3]:
        assert set(r) == {"file", "error", "outcome", "status"}
        assert r["error"]["status"] == 3 and r["status"] == 3 and r["outcome"] == "error"
        assert r["file"] in r["error"]["message"]
    assert recs[3]["outcome"] == "met"
    assert many.stderr.strip().splitlines()[-1] == "4 files: 2 met, 0 not met, 0 unknown, 2 errors"


# -- limits ---------------------------------------------------------------------------------------

def test_limit_hit_is_exit_4_even_with_expect(tmp_path):
    res = run("solve", "--json", "--nodes", "1", str(PUZZLE))
    assert res.returncode == 4, res.stderr
    (rec,) = records(res.stdout)
    assert rec["verdict"] == "unknown" and "node limit 1" in rec["reason"]
    assert rec["outcome"] == "unknown" and rec["expect"]["met"] is None

    # the same question, but [expect] asks for unknown: met under the limit, not met without it
    text = PUZZLE.read_text()
    wants_unknown = tmp_path / "unknown.toml"
    wants_unknown.write_text("\n".join(line for line in text.splitlines()
                                       if not line.startswith("expect"))
                             + '\nexpect = { verdict = "unknown" }\n')
    res = run("solve", "--json", "--nodes", "1", str(wants_unknown))
    assert res.returncode == 0, res.stdout
    assert records(res.stdout)[0]["outcome"] == "met"
    res = run("solve", str(wants_unknown))
    assert res.returncode == 1 and "NOT MET" in res.stdout


@pytest.mark.parametrize("option,value", [("--timeout", "1e300"), ("--timeout", "nan"),
                                          ("--timeout", "-1"), ("--timeout", "inf"),
                                          ("--timeout", "0"), ("--timeout", "soon"),
                                          ("--nodes", "0"), ("--nodes", "-5"), ("--nodes", "1e3"),
                                          ("--timeout", "9" * 5000)])
def test_bad_limits_are_usage_errors(capsys, option, value):
    for command in (["solve", FAST[0]], ["deduce", "8/8/8/8/8/8/8/K1k5 w - - 0 1", "--claim",
                                          "captures(white) <= 3"]):
        with pytest.raises(SystemExit) as exc:
            main([*command, f"{option}={value}"])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and len(lines[0]) <= 300, err
        assert option in lines[0] and "Traceback" not in err


# -- check ----------------------------------------------------------------------------------------

def test_check_streams_one_record_per_certificate(tmp_path):
    certs = tmp_path / "certs"
    res = run("solve", "--certificate-dir", str(certs), str(PUZZLE))
    assert res.returncode == 0, res.stderr
    (good,) = certs.iterdir()
    cert = json.loads(good.read_text())
    cert["moves"] = cert["moves"][:-1]                  # the line now ends with two units
    short = tmp_path / "short.json"
    short.write_text(json.dumps(cert))
    missing = str(tmp_path / "missing.json")
    res = run("check", "--json", str(good), str(short), missing)
    assert res.returncode == 3
    recs = records(res.stdout)
    assert [r["file"] for r in recs] == [str(good), str(short), missing]
    assert recs[0]["accepted"] is True and recs[0]["outcome"] == "accepted"
    assert recs[1]["accepted"] is False and recs[1]["status"] == 1 and recs[1]["reason"]
    assert recs[2]["error"]["status"] == 3
    assert res.stderr.strip().splitlines()[-1] == "3 files: 1 accepted, 1 rejected, 1 error"
    one = run("check", "--json", str(good))
    assert one.returncode == 0 and records(one.stdout) == recs[:1] and one.stderr == ""


# -- Ctrl-C ---------------------------------------------------------------------------------------

def _read_until(proc: subprocess.Popen, count: int, *, json_mode: bool, progress: bool = False,
                cap: float = 90) -> tuple[str, str]:
    """Read the child's stdout and stderr until `count` records (JSON lines or text blocks) are
    on stdout and, with `progress`, the next file has reported progress on stderr."""
    deadline = time.monotonic() + cap
    text = {proc.stdout.fileno(): "", proc.stderr.fileno(): ""}
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    err_at_count = None
    while True:
        out = text[out_fd]
        if (out.count("\n") if json_mode else out.count("\nexpect: ")) >= count:
            if err_at_count is None:
                err_at_count = len(text[err_fd])
            if not progress or len(text[err_fd]) > err_at_count:
                return out, text[err_fd]
        left = deadline - time.monotonic()
        assert left > 0 and proc.poll() is None, f"no {count} records in time: {text!r}"
        ready, _, _ = select.select([out_fd, err_fd], [], [], min(left, 1.0))
        for fd in ready:
            chunk = os.read(fd, 65536).decode()
            assert chunk, f"output closed early: {text!r}"
            text[fd] += chunk


@pytest.mark.parametrize("json_mode", [True, False], ids=["json", "text"])
def test_sigint_stops_the_batch_and_keeps_finished_records(json_mode):
    """Two fast files, then slow proof games: SIGINT once the first slow one is searching (it
    reports progress) stops the batch within 2 s, exit 130, the finished records printed (valid
    JSON Lines), a summary."""
    args = ["solve", "--progress", *(["--json"] if json_mode else []), *FAST, SLOW, SLOW]
    proc = subprocess.Popen([sys.executable, "-m", "retrologic", *args], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        before, err_before = _read_until(proc, 2, json_mode=json_mode, progress=True)
        assert proc.poll() is None, "the slow problem finished: pick a slower one"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = before + rest.decode(), err_before + err.decode()
    assert proc.returncode == 130, err
    assert seconds < 2.0, f"stopped {seconds:.2f} s after SIGINT"
    if json_mode:
        recs = records(out)
        assert [r["file"] for r in recs[:2]] == FAST and all(r["outcome"] == "met" for r in recs[:2])
        assert all(r["file"] == SLOW and r["status"] == 130 for r in recs[2:])   # at most the stopped one
        assert len(recs) <= 3
    else:
        assert out.count("expect: met") == 2 and f"== {FAST[1]}" in out
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("4 files: 2 met, 0 not met, 0 unknown, 0 errors"), summary
    assert "stopped by Ctrl-C" in summary and "Traceback" not in err


HARD = textwrap.dedent('''
    import sys, time
    from pathlib import Path
    from retrologic import problem
    real = problem.solve
    def solve(prob, options=None):          # an engine that never looks at the stop flag
        if Path(prob.path).name == "stubborn.toml":
            time.sleep(600)
        return real(prob, options)
    problem.solve = solve
    from retrologic.cli import main
    sys.exit(main(sys.argv[1:]))
''')


def test_hard_interrupt_of_a_stubborn_engine_keeps_finished_records(tmp_path):
    """An engine that ignores the soft stop is cut by the KeyboardInterrupt that follows: exit 130,
    the finished records printed, no traceback."""
    stubborn = tmp_path / "stubborn.toml"
    stubborn.write_text(GOOD)
    proc = subprocess.Popen([sys.executable, "-c", HARD, "solve", "--json", FAST[0], str(stubborn),
                             FAST[1]], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        before, err_before = _read_until(proc, 1, json_mode=True)
        time.sleep(0.5)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()
    assert seconds < limits.HARD_STOP_AFTER + 1.0
    recs = records(before + rest.decode())
    assert [r["file"] for r in recs] == FAST[:1]
    err = err_before + err.decode()
    assert err.strip().splitlines()[-1] == ("3 files: 1 met, 0 not met, 0 unknown, 0 errors; "
                                            "stopped by Ctrl-C, 2 not run")
    assert "Traceback" not in err
