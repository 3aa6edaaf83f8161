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
    assert rec["expect"] == {"met": True, "mismatches": [], "undecided": []}
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


def test_a_title_cannot_break_or_restyle_the_terminal_line(tmp_path, capsys):
    """A title holding a newline and an escape sequence printed raw (a hostile file could
    clear or restyle the terminal), and a 900,000-character title was printed whole."""
    quiet = tmp_path / "quiet.toml"
    quiet.write_text('format = "retrologic/1"\n'
                     'meta = { title = "A\\u001b[2JB\\nC" }\n'
                     'position = { fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1" }\n'
                     'question = { kind = "legal" }\n')
    long = tmp_path / "long.toml"
    long.write_text(quiet.read_text().replace("A\\u001b[2JB\\nC", "x" * 900_000))
    assert main(["solve", str(quiet), "--nodes", "50"]) in (0, 4)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(": A\\x1b[2JB\\nC") and "\x1b" not in first
    assert main(["solve", str(long), "--nodes", "50"]) in (0, 4)
    first = capsys.readouterr().out.splitlines()[0]
    assert len(first) < 300 and first.endswith("x…")
    assert main(["solve", str(long), "--nodes", "50", "--json"]) in (0, 4)
    assert json.loads(capsys.readouterr().out)["title"] == "x" * 900_000   # JSON keeps it whole


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
                                          # a C long overflowed in the solvers (fuzz seed 2922)
                                          ("--nodes", "99999999999999999999"),
                                          ("--nodes", str(10 ** 15 + 1)),
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


# -- collections (issue #20): directories, -j N, table, CSV, certificate names ----------------------

import csv as csv_mod  # noqa: E402
import shutil  # noqa: E402
import threading  # noqa: E402

from retrologic.collection import walk  # noqa: E402

FAST_DIR_FILES = ["retractions/brandis.toml", "retractions/a2-a3-check.toml",
                  "legal/double-knight-check.toml", "cages/fig2-brandis-corner.toml",
                  "legal/pawn-on-first-rank.toml", "puzzle4x4/article-solvable-start.toml"]


def _collection(tmp_path: Path) -> Path:
    """A small collection: fast problem files in two levels of directories, one broken file, one
    file with another extension (not picked up), one hidden file (not picked up)."""
    root = tmp_path / "coll"
    for name in FAST_DIR_FILES:
        dest = root / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "problems" / name, dest)
    (root / "legal" / "deeper").mkdir()
    shutil.copy(ROOT / "problems/retractions/unpromotion.toml", root / "legal/deeper/unpromotion.toml")
    (root / "legal" / "broken.toml").write_text('format = "retrologic/1"\nquestion = [\n')
    (root / "notes.txt").write_text("not a problem")
    (root / ".hidden.toml").write_text("not read")
    return root


def _untimed(value):
    """A record without the engines' own wall-time figures, which differ from run to run."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items()
                if not (k == "seconds" or k.endswith(("_ms", "_s")))}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _expected_order(root: Path) -> list[str]:
    """The input order, computed independently of the walker: every .toml not hidden, sorted."""
    return sorted(str(p) for p in root.rglob("*.toml") if not p.name.startswith("."))


def test_directory_same_records_with_j1_j2_and_one_by_one(tmp_path, capsys):
    root = _collection(tmp_path)
    order = _expected_order(root)
    assert len(order) == len(FAST_DIR_FILES) + 2
    out = {}
    for jobs in ("1", "2"):
        status = main(["solve", "--json", "-j", jobs, str(root)])
        captured = capsys.readouterr()
        assert status == 3, captured.err          # the broken file: bad input, the highest status
        out[jobs] = (_untimed(records(captured.out)), captured.err)
    recs, err = out["1"]
    assert out["2"][0] == recs                    # identical records, in input order
    assert [r["file"] for r in recs] == order
    broken = [r for r in recs if r["file"].endswith("broken.toml")]
    assert len(broken) == 1 and broken[0]["status"] == 3 and broken[0]["outcome"] == "error"
    assert all(r["outcome"] == "met" for r in recs if r is not broken[0])
    summary = f"{len(order)} files: {len(order) - 1} met, 0 not met, 0 unknown, 1 error"
    assert err.strip().splitlines()[-1] == summary
    assert out["2"][1].strip().splitlines()[-1] == summary
    for rec in recs:                              # the same records as one file at a time
        assert main(["solve", "--json", rec["file"]]) == rec["status"]
        (alone,) = records(capsys.readouterr().out)
        assert _untimed(alone) == rec


def test_text_table_and_csv(tmp_path, capsys):
    root = _collection(tmp_path)
    order = _expected_order(root)
    table_csv = tmp_path / "out" / "table.csv"
    status = main(["solve", "-j", "2", "--csv", str(table_csv), str(root)])
    out, err = capsys.readouterr()
    assert status == 3
    assert out.count("expect: met") == len(order) - 1
    table = out[out.rindex("\nfile "):].strip().splitlines()
    assert table[0].split() == ["file", "kind", "verdict", "expect", "met", "time"]
    body = table[2:]
    assert [line.split()[0] for line in body] == order
    assert all(line.split()[3] == "met" for line in body if "broken" not in line)
    assert "error (3)" in next(line for line in body if "broken" in line)
    with open(table_csv, newline="") as fh:
        rows = list(csv_mod.DictReader(fh))
    assert [r["file"] for r in rows] == order
    for r in rows:
        if r["file"].endswith("broken.toml"):
            assert r["outcome"] == "error" and r["status"] == "3" and "broken.toml" in r["error"]
        else:
            assert (r["outcome"], r["expect_met"], r["status"]) == ("met", "true", "0")
            assert r["verdict"] in ("proved", "refuted") and float(r["seconds"]) >= 0
    assert [p.name for p in table_csv.parent.iterdir()] == ["table.csv"]   # no temporary left


def test_certificate_names_never_collide(tmp_path, capsys):
    """Two files called the same in two directories, and a file holding several problems (here
    made by hand: the stems are assigned before any solving)."""
    root = tmp_path / "certs-coll"
    for sub in ("a", "b"):
        (root / sub).mkdir(parents=True)
        shutil.copy(PUZZLE, root / sub / "start.toml")
    shutil.copy(PUZZLE, root / "solo.toml")
    certs = tmp_path / "certs"
    assert main(["solve", "--json", "-j", "2", "--certificate-dir", str(certs), str(root)]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in certs.iterdir())
    assert names == ["a-start.puzzle4x4-line.json", "b-start.puzzle4x4-line.json",
                     "solo.puzzle4x4-line.json"]
    assert main(["check", "--json", *(str(certs / n) for n in names)]) == 0
    assert all(r["accepted"] for r in records(capsys.readouterr().out))

    def task(path: str, index: int, count: int, group: str) -> walk.Task:
        return walk.Task(f"{path}#{index + 1}" if count > 1 else path, path, index, count, group)

    tasks = [task("d/x.yaml", 0, 2, "d"), task("d/x.yaml", 1, 2, "d"), task("d/x-2.toml", 0, 1, "d"),
             task("d/e/x.toml", 0, 1, "d"), task("d/f/x.toml", 0, 1, "d")]
    walk._assign_stems(tasks)
    stems = [t.stem for t in tasks]
    assert len(set(stems)) == len(stems), stems
    assert stems[3:] == ["e-x", "f-x"]


def test_worker_crash_is_that_problems_record(tmp_path):
    """A worker killed while it solves (as a segfault would) gives that problem an error record
    (status 5) and a fresh worker solves the next one."""
    from multiprocessing import active_children

    from retrologic.collection import pool
    from retrologic.options import SolveOptions
    jobs = [pool.Job(0, SLOW, 0, 1, SLOW, SolveOptions(), True),
            pool.Job(1, FAST[0], 0, 1, FAST[0], SolveOptions(), True)]

    def killer() -> None:
        time.sleep(2.0)
        for child in active_children():
            if child.name == "retrologic-worker":
                os.kill(child.pid, signal.SIGKILL)

    thread = threading.Thread(target=killer)
    thread.start()
    got = dict(pool.run(jobs, 1))
    thread.join()
    assert sorted(got) == [0, 1]
    assert got[0].record["status"] == 5 and "worker process died" in got[0].record["error"]["message"]
    assert got[1].record["outcome"] == "met"


def test_stop_reaches_the_engines_in_every_worker(monkeypatch):
    """A stop request in the parent (what Ctrl-C makes) reaches both workers: each proof-game
    search returns *interrupted*, well before any hard stop would kill the workers."""
    from retrologic.collection import pool
    from retrologic.options import SolveOptions
    monkeypatch.setattr(limits, "HARD_STOP_AFTER", 60.0)
    jobs = [pool.Job(n, SLOW, 0, 1, SLOW, SolveOptions(), True) for n in range(2)]
    timer = threading.Timer(1.0, limits.request_stop)
    timer.start()
    try:
        start = time.monotonic()
        got = dict(pool.run(jobs, 2))
        seconds = time.monotonic() - start
    finally:
        timer.cancel()
        limits.reset()
    assert sorted(got) == [0, 1] and seconds < 60
    for done in got.values():
        assert done.record["outcome"] == "interrupted" and done.record["status"] == 130
        assert done.record["reason"].startswith("interrupted")


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "SIGTERM to the process group"])
def test_a_signal_stops_a_parallel_batch(tmp_path, how):
    """-j 2 with two slow proof games running: SIGINT, or SIGTERM (`kill PID`; `timeout` and
    batch schedulers signal the whole process group, the workers included), stops the run (soft
    stop, else each worker's own hard stop after limits.HARD_STOP_AFTER), the finished record kept,
    the last file not run, exit 130, no worker left behind. Before SIGTERM was a soft stop, it
    ended the run at once: no summary, no record of the stopped problems."""
    args = ["solve", "--json", "-j", "2", FAST[0], SLOW, SLOW, FAST[1]]
    proc = subprocess.Popen([sys.executable, "-m", "retrologic", *args], cwd=ROOT,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        before, err_before = _read_until(proc, 1, json_mode=True)
        time.sleep(1.0)                            # both workers are on the proof games
        start = time.monotonic()
        if how == "SIGINT":
            proc.send_signal(signal.SIGINT)
        elif how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGTERM)
        rest, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err_before + err.decode()
    assert proc.returncode == 130, err
    assert seconds < limits.HARD_STOP_AFTER + 1.5, f"stopped {seconds:.2f} s after SIGINT"
    recs = records(before + rest.decode())
    assert recs[0]["file"] == FAST[0] and recs[0]["outcome"] == "met"
    assert all(r["file"] == SLOW and r["status"] == 130 for r in recs[1:]) and len(recs) <= 3
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("4 files: 1 met, 0 not met, 0 unknown, 0 errors"), summary
    cause = "Ctrl-C" if how == "SIGINT" else "SIGTERM"
    assert summary.endswith(f"stopped by {cause}, {4 - len(recs)} not run")
    assert "Traceback" not in err
    left = _processes_matching(("retrologic-worker", "multiprocessing.forkserver"))
    assert not [pid for pid in left if _parent_of(pid) == proc.pid]


def _workers_of(parent: int) -> list[int]:
    """The `solve -j N` workers of `parent`: its forkserver's children (Linux /proc)."""
    def children(pid: int) -> list[int]:
        try:
            return [int(x) for x in
                    Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except (OSError, ValueError):
            return []
    servers = [c for c in children(parent) if "forkserver" in
               Path(f"/proc/{c}/cmdline").read_bytes().decode(errors="replace")]
    return [w for server in servers for w in children(server)]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("how,again", [("SIGINT", True), ("SIGTERM to the process group", True),
                                       ("SIGTERM to the process group", False)])
def test_a_stop_does_not_wait_for_workers_that_cannot_answer(tmp_path, how, again):
    """Both workers frozen (SIGSTOP: as a worker inside a solver that holds the GIL, whose
    thread cannot take the stop) when the stop comes: the command says on stderr that it
    waits for them, and exits 130 with both killed at a second signal, or by itself after
    `pool.WORKER_GRACE` seconds. The stop was a multiprocessing Event, whose `set` waits for
    every waiting thread to wake: the command then hung until a worker answered (18 s after a
    SIGTERM to the group in bench/signals.py; here, for ever, a second signal included).
    After a SIGTERM to the group the forkserver is gone and the workers' sentinels read as
    ended: the parent once read their pipes blocking, for answers that never came."""
    from retrologic.collection.pool import WORKER_GRACE
    args = ["solve", "--json", "-j", "2", SLOW, SLOW]
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "wb") as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "retrologic", *args], cwd=ROOT,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=err_file, start_new_session=True)
    sig = signal.SIGINT if how == "SIGINT" else signal.SIGTERM

    def send() -> None:
        if how == "SIGINT":
            proc.send_signal(sig)
        else:
            os.killpg(proc.pid, sig)
    frozen: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(frozen) < 2 and time.monotonic() < deadline:
            time.sleep(0.5)
            frozen = _workers_of(proc.pid)
        assert len(frozen) == 2, "the two workers did not start"
        time.sleep(2.0)                            # both on their proof games
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        send()
        start = time.monotonic()
        while "still finishing" not in err_path.read_text() and time.monotonic() < start + 12:
            time.sleep(0.1)
        waited = time.monotonic() - start
        if again:
            send()
            start = time.monotonic()
        out, _ = proc.communicate(timeout=WORKER_GRACE + 10)
        seconds = time.monotonic() - start
    finally:
        for pid in frozen:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err_path.read_text()
    assert proc.returncode == 130, err
    assert 2 * limits.HARD_STOP_AFTER <= waited < 2 * limits.HARD_STOP_AFTER + 2.0, err
    assert "2 problem(s) still finishing" in err and "Ctrl-C again stops them now" in err
    if again:
        assert seconds < 1.5, f"stopped {seconds:.2f} s after the second {how}"
    else:
        assert WORKER_GRACE - 0.5 < seconds < WORKER_GRACE + 3.0, f"stopped after {seconds:.2f} s"
    summary = err.strip().splitlines()[-1]
    assert summary.endswith("2 not run") and "Traceback" not in err, summary
    time.sleep(0.5)
    assert not [pid for pid in frozen if Path(f"/proc/{pid}").exists()
                and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]]


STUBBORN_WORKERS = """
import json, sys, threading, time
from retrologic import limits
from retrologic.collection import pool
from retrologic.collection.records import Done
from retrologic.options import SolveOptions


def stubborn(prob, label, options, json_mode):
    # a problem whose engine does not look at the soft stop (a listing writer between two
    # looks), whose verdict is proved: it keeps it when interrupted, as the writer does
    try:
        while True:
            time.sleep(0.01)
    except KeyboardInterrupt:
        if label == "keeps":
            return Done({"file": label, "outcome": "met", "status": 0})
        raise


pool.solve_problem = stubborn       # module level: the forkserver preloads this __main__

if __name__ == "__main__":
    jobs = [pool.Job(n, sys.argv[1], 0, 1, label, SolveOptions(), True)
            for n, label in enumerate(["keeps", "loses"])]
    threading.Timer(1.0, limits.request_stop).start()
    start = time.monotonic()
    got = dict(pool.run(jobs, 2))
    print(json.dumps({"records": {n: d.record for n, d in got.items()},
                      "seconds": time.monotonic() - start}))
"""


def test_a_stopped_worker_keeps_a_proved_verdict(tmp_path):
    """A worker's own hard stop: HARD_STOP_AFTER seconds after its stop, KeyboardInterrupt in
    its problem, as in a single process, where the listing writer catches it and keeps the
    proved verdict. Before, the parent killed busy workers at that moment: a `-j 2` batch of
    packa-1995 stopped 45 or 60 s in (each proved, its certificate being written) reported
    both "not run"; now both `met`. A problem the interrupt ends unfinished is "not run",
    not an error."""
    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN_WORKERS)
    run = subprocess.run([sys.executable, str(script), FAST[0]], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["records"] == {"0": {"file": "keeps", "outcome": "met", "status": 0}}, got
    assert got["seconds"] < 1.0 + limits.HARD_STOP_AFTER + 2.0, got
    assert "Traceback" not in run.stderr, run.stderr


def _processes_matching(words: tuple[str, ...]) -> list[int]:
    """The processes whose command line holds one of `words`, read from /proc (as `pgrep -f`
    would, without procps: a fresh machine need not have it)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(word in command for word in words):
            out.append(int(entry.name))
    return out


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


@pytest.mark.parametrize("extra", [["-j", "-1"], ["-j", "many"], ["--csv", "."]])
def test_collection_usage_errors(extra, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve", *extra, FAST[0]])
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and extra[0] in lines[0]


def test_empty_directory_is_its_own_error_record(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    status = main(["solve", "--json", str(tmp_path / "empty"), FAST[0]])
    out, err = capsys.readouterr()
    assert status == 3
    recs = records(out)
    assert recs[0]["status"] == 3 and "no problem files" in recs[0]["error"]["message"]
    assert recs[1]["outcome"] == "met"


def test_file_of_several_problems_gets_one_record_each(tmp_path, monkeypatch, capsys):
    """A file holding several problems (as Popeye and YACPDB files will): one record per problem,
    named FILE#n, the summary counting problems, one certificate name per problem."""
    from retrologic.formats import detect
    twins = tmp_path / "coll" / "twins.toml"
    twins.parent.mkdir()
    shutil.copy(PUZZLE, twins)
    shutil.copy(PUZZLE, tmp_path / "coll" / "single.toml")
    real = detect.load_all

    def load_all(path):
        problems = real(path)
        return problems * 2 if Path(path).name == "twins.toml" else problems

    monkeypatch.setattr(detect, "load_all", load_all)
    certs = tmp_path / "certs"
    assert main(["solve", "--json", "--certificate-dir", str(certs), str(tmp_path / "coll")]) == 0
    out, err = capsys.readouterr()
    assert [r["file"] for r in records(out)] == [str(tmp_path / "coll/single.toml"), f"{twins}#1",
                                                 f"{twins}#2"]
    assert err.strip().splitlines()[-1] == "3 problems: 3 met, 0 not met, 0 unknown, 0 errors"
    assert sorted(p.name for p in certs.iterdir()) == [
        "single.puzzle4x4-line.json", "twins-1.puzzle4x4-line.json", "twins-2.puzzle4x4-line.json"]


def test_a_killed_run_keeps_the_csv_of_what_it_finished(tmp_path):
    """`solve DIR --csv F` rewrites F (atomically) as problems finish, so a run killed by
    SIGKILL (the OOM killer, a closed terminal) keeps the rows of the problems it finished;
    until 2026-12-05 F was written only at the end, and such a run left no file at all."""
    problems = Path(__file__).resolve().parent.parent / "problems"
    root = tmp_path / "dir"
    root.mkdir()
    shutil.copy(problems / "retractions" / "brandis.toml", root / "a-brandis.toml")
    shutil.copy(problems / "spg" / "nallusamy-2022.toml", root / "b-slow.toml")   # minutes
    table = tmp_path / "t.csv"
    proc = subprocess.Popen([sys.executable, "-m", "retrologic", "solve", str(root), "--csv",
                             str(table), "--timeout", "300"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not table.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before it was killed"
        proc.kill()
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    with open(table, newline="") as fh:
        rows = list(csv_mod.DictReader(fh))
    assert len(rows) == 1 and rows[0]["file"].endswith("a-brandis.toml"), rows
    assert (rows[0]["outcome"], rows[0]["expect_met"], rows[0]["status"]) == ("met", "true", "0")
    assert [p.name for p in tmp_path.iterdir() if p.name != "dir"] == ["t.csv"]
