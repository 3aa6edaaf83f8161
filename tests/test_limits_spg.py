"""Limits of the proof-game engines and of the 4x4 puzzle (issue #17, item 3): a time limit is
honoured within max(1 s, 10 %) and quoted with the user's own figure, a node limit is named,
Ctrl-C (limits.request_stop, or a real SIGINT to the command) stops every engine quickly with
*unknown* "interrupted" (exit 130), a limit never overstates what was found, and a census
stopped by Ctrl-C keeps its finished shards and resumes to the same totals."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess
import pytest

from retrologic import limits
from retrologic.cpsat_limits import run_solver
from retrologic.puzzle4x4 import game as p4
from retrologic.puzzle4x4 import census
from retrologic.puzzle4x4 import index as idx
from retrologic.spg import solver as spg
from retrologic.spg import schedule as spg_schedule
from retrologic.questions.spg import answer_result
from retrologic.spg.search import Limits
from retrologic.spg.strategy import analyse

ROOT = Path(__file__).resolve().parent.parent
BELL = "2bq1r2/1pp1bppp/2Bp2n1/p3p1K1/1k2nN1P/2R1QrP1/PPPPPP2/RNB5"  # 17.0, 34 plies
FOUR_KNIGHT_TRIPS = chess.STARTING_BOARD_FEN  # after 2.0: 16 games, and the empty game


def _stop_after(seconds: float) -> list[float]:
    """Call limits.request_stop() from a thread after `seconds`; the list gets its time."""
    when: list[float] = []

    def fire() -> None:
        when.append(time.monotonic())
        limits.request_stop()

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    return when


def _figures(text: str) -> set[str]:
    return set(re.findall(r"time limit ([0-9.e+-]+) s", text))


# -- time and node limits -----------------------------------------------------------------------

def test_bell_time_limit_is_honoured_and_quoted(capsys) -> None:
    """The reproducer: a share of the limit was quoted as the user's ("time limit 1.8339 s")
    and the limit overrun by 6.7 s. Every engine (strategy layer, search, schedule model, the
    shorter lengths) now stops by the user's deadline and quotes the user's figure."""
    from retrologic.cli import main
    status = main(["solve", str(ROOT / "problems/spg/bell-2000.toml"), "--timeout", "1.5"])
    out = capsys.readouterr().out
    assert status == 4, out                      # unknown: a limit was hit
    assert "spg: unknown" in out and _figures(out) == {"1.5"}, out
    # nothing is claimed that was not searched: no count, no "no shorter game"
    assert "searched exhaustively" not in out
    t0 = time.monotonic()
    answer = spg.solve(spg.parse_target(BELL, 34), 34, Limits(timeout=2.5), engine="schedule")
    assert time.monotonic() - t0 <= 2.5 + 1.0   # max(1 s, 10 %)
    assert answer.status == "unknown" and _figures(answer.reason) == {"2.5"}, answer.reason


def test_bell_limit_facts_do_not_overstate() -> None:
    t0 = time.monotonic()
    answer = spg.solve(spg.parse_target(BELL, 34), 34, Limits(timeout=1.5))
    assert time.monotonic() - t0 <= 1.5 + 1.0   # max(1 s, 10 %)
    result = answer_result(answer)
    assert result.verdict == "unknown" and _figures(result.reason) == {"1.5"}
    assert result.facts["count"] is None and result.facts["shorter"] is None


def test_node_limit_is_named_and_counted_over_the_question() -> None:
    target = spg.parse_target("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8)
    answer = spg.solve(target, 8, Limits(nodes=50), engine="search", strategies=False)
    assert answer.status == "unknown" and answer.reason.startswith("search: node limit 50")
    # the limit is the question's: the search stops at its 51st node, the shorter lengths get
    # none left (one node each to notice)
    assert answer.searches[0]["nodes"] == 51
    assert all(s["nodes"] <= 1 for s in answer.searches[1:])
    # with the strategy layer, its CP-SAT conflicts come out of the same 50
    limits = Limits(nodes=50)
    layered = spg.solve(target, 8, limits, engine="search")
    assert layered.status == "unknown" and layered.reason.startswith("search: node limit 50")
    conflicts = limits.budget.spent - sum(s["nodes"] for s in layered.searches)
    assert conflicts > 0 and layered.searches[0]["nodes"] + conflicts >= 51
    from retrologic.cli import main
    assert main(["spg", "r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", "--moves", "4.0",
                 "--engine", "search", "--nodes", "50"]) == 4


def test_node_counts_do_not_change_without_a_limit() -> None:
    """The shared budget only counts: a search that hits no limit visits the same nodes, and
    a node limit of exactly that many nodes still decides the question."""
    target = spg.parse_target("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", 5)
    unlimited = Limits()
    free = spg.solve(target, 5, unlimited, engine="search")
    roomy = spg.solve(target, 5, Limits(nodes=10 ** 9, timeout=600), engine="search")
    assert free.status == roomy.status == "cooked" and free.count == roomy.count == 56
    assert [s["nodes"] for s in free.searches] == [s["nodes"] for s in roomy.searches]
    # the figure to give: the search's nodes and the strategy layer's CP-SAT conflicts
    assert unlimited.budget.spent >= free.nodes
    exact = spg.solve(target, 5, Limits(nodes=unlimited.budget.spent), engine="search")
    assert exact.status == "cooked" and exact.complete and exact.reason is None
    short = spg.solve(target, 5, Limits(nodes=free.searches[0]["nodes"] - 1), engine="search")
    assert short.status == "unknown" and "node limit" in short.reason


def test_node_limit_bounds_the_cp_sat_engines() -> None:
    """CP-SAT's conflicts count as nodes: the strategy listing and the schedule model stop at
    the user's figure and name it, and a figure gives the same answer on every run (one
    worker, a fixed seed: no wall clock decides which engine answers)."""
    # Schweig 1938 (problems/spg): 6 strategies; since the listing fixes the constraint groups
    # (`StrategyModel.fix_groups`) Bell's 8 are listed without a conflict
    target = spg.parse_target("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8)
    free = limits.Budget()
    report, _ = analyse(target, 8, limit=50, budget=free)
    assert report.complete and len(report.strategies) == 6
    assert report.conflicts == free.spent       # the report says what was charged
    layer = limits.Budget()     # the layer before the listing (the units proved still)
    analyse(target, 8, enumerate_strategies=False, budget=layer)
    assert 0 < layer.spent < free.spent - 1
    tight = limits.Budget(None, layer.spent + 1)
    cut, _ = analyse(target, 8, limit=50, budget=tight)
    assert not cut.complete and \
        cut.reason == f"node limit {layer.spent + 1} (while listing strategies)"
    assert len(cut.strategies) < 6 and tight.spent >= layer.spent + 1
    unlimited = Limits()
    listed = spg.solve(target, 8, unlimited, engine="schedule")
    assert listed.status == "unique"
    charged = [s["schedule"]["conflicts"] for s in listed.searches] + [listed.strategy.conflicts]
    assert charged[0] > 0 and sum(charged) <= unlimited.budget.spent
    runs = []
    for _ in range(2):
        short = Limits(nodes=unlimited.budget.spent // 2)
        answer = spg.solve(target, 8, short, engine="schedule")
        assert answer.status == "unknown" and answer.reason.startswith(
            f"schedule model: node limit {unlimited.budget.spent // 2}")
        runs.append(short.budget.spent)
    assert runs[0] == runs[1]
    exact = spg.solve(target, 8, Limits(nodes=unlimited.budget.spent), engine="schedule")
    assert exact.status == "unique" and exact.reason is None
    from retrologic.cli import main
    assert main(["spg", "r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", "--moves", "4.0",
                 "--engine", "schedule", "--nodes", "10"]) == 4


def test_node_limit_bounds_cp_sat_presolve() -> None:
    """CP-SAT's presolve makes no conflict: a node limit that counted conflicts alone let the
    schedule model of 20.0 from the initial array (14,522 variables) run 14 solves and 16 s
    at `--nodes 2000`. Its deterministic time is charged as nodes too (cpsat_limits): the
    first solve stops at the figure, which the answer names."""
    target = spg.parse_target(chess.STARTING_BOARD_FEN, 40)
    short = Limits(nodes=2000)
    answer = spg.solve(target, 40, short, engine="schedule")
    report = answer.searches[0]["schedule"]
    assert answer.status == "unknown" and answer.reason == "schedule model: node limit 2000"
    assert report["solves"] == 1 and short.budget.spent >= 2000


def test_a_solve_at_its_deterministic_cap_spends_the_budget() -> None:
    """`work_done`: a solve that used the deterministic time `bound_work` gave it costs the
    nodes left and one more, even when the two figures round below that (CP-SAT stops at or
    past its cap): the budget then reads as spent and the reason names the node limit."""
    from types import SimpleNamespace
    from ortools.sat.python import cp_model
    from retrologic.cpsat_limits import bound_work, work_done
    budget = limits.Budget(None, 1437)
    budget.spent = 1000
    solver = cp_model.CpSolver()
    assert bound_work(solver, budget)
    cap = solver.parameters.max_deterministic_time
    assert solver.parameters.max_number_of_conflicts == 437 and abs(cap - 0.438) < 1e-12
    for dtime in (cap * (1 - 1e-12), cap, cap * 1.5):
        stopped = SimpleNamespace(num_conflicts=3, parameters=solver.parameters,
                                  response_proto=SimpleNamespace(deterministic_time=dtime))
        assert work_done(stopped) >= 438
    early = SimpleNamespace(num_conflicts=3, parameters=solver.parameters,
                            response_proto=SimpleNamespace(deterministic_time=0.0125))
    assert work_done(early) == 12                # an unfinished cap: the time as it is
    budget.spent = 1438
    assert not bound_work(cp_model.CpSolver(), budget)


def test_auto_slice_decides_only_which_engine_answers(monkeypatch) -> None:
    """With the schedule model unable to decide (a model too large) and the search's slice
    used up at once, the search runs on with the rest of the budget: the verdict is the same."""
    monkeypatch.setattr(spg_schedule, "MAX_STEPS", 10)
    monkeypatch.setattr(spg, "AUTO_SEARCH_SECONDS", 1e-6)
    monkeypatch.setattr(spg, "RACE", False)     # the one-core path (tests/test_spg_race.py: two)
    monkeypatch.setattr(spg, "QUICK", False)    # the full path (the quick one settles it at once)
    target = spg.parse_target("r1bqkbnr/ppp2ppp/3p4/8/8/8/PPPPPPPP/R1BQKBNR", 8)
    answer = spg.solve(target, 8)
    assert answer.status == "unique" and answer.count == 1
    assert answer.searches[0]["engine"] == "search" and answer.searches[0]["resumed"]


def test_a_listing_limit_says_at_least() -> None:
    """The schedule model stopped after 3 of the 16 games: cooked (two games are proof
    enough), but the count is "at least 3", never an exact 3."""
    answer = spg.solve(spg.parse_target(FOUR_KNIGHT_TRIPS, 4), 4, engine="schedule",
                       max_games=3)
    assert answer.status == "cooked" and not answer.complete and answer.count == 3
    result = answer_result(answer)
    assert result.facts["count"] is None and result.facts["count_at_least"] == 3
    assert result.reason.startswith("at least 3 games") and "at least 3" in result.lines[0]
    for game in answer.games:  # each listed game is real (python-chess)
        spg.replay_checked(chess.Board(), game, answer.target)


# -- Ctrl-C inside the process --------------------------------------------------------------------

def test_cpsat_solve_stops_on_request() -> None:
    """run_solver wires Ctrl-C to CP-SAT's stop_search: a long solve ends within a second."""
    from ortools.sat.python import cp_model
    model = cp_model.CpModel()
    pigeons, holes = 14, 13
    x = [[model.new_bool_var("") for _ in range(holes)] for _ in range(pigeons)]
    for row in x:
        model.add_bool_or(row)
    for h in range(holes):
        for p in range(pigeons):
            for q in range(p + 1, pigeons):
                model.add_bool_or([x[p][h].negated(), x[q][h].negated()])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.linearization_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.max_time_in_seconds = 60
    when = _stop_after(0.5)
    status = run_solver(solver, model)
    assert when and time.monotonic() - when[0] < 1.0
    assert status == cp_model.UNKNOWN and not solver.parameters.catch_sigint_signal
    assert run_solver(cp_model.CpSolver(), model) is None  # asked to stop: no solve at all


@pytest.mark.parametrize("engine", ["search", "schedule", "auto"])
def test_request_stop_stops_each_engine(engine: str) -> None:
    when = _stop_after(1.0)
    answer = spg.solve(spg.parse_target(BELL, 34), 34, engine=engine)
    assert when and time.monotonic() - when[0] < 1.5
    assert answer.status == "unknown" and answer.reason.startswith("interrupted")
    assert answer_result(answer).facts["shorter"] is None


def test_request_stop_stops_the_strategy_layer_and_the_puzzle() -> None:
    limits.request_stop()
    report, _ = analyse(spg.parse_target(BELL, 34), 34)
    assert report.status == "unknown" and report.reason == "interrupted"
    with pytest.raises(p4.LimitReached, match="interrupted"):
        p4.Solver().solve(p4.parse("Nbrn/kqQB/nNRR/rbBK"))


# -- SIGINT to the command --------------------------------------------------------------------

def _cpu_seconds(pid: int) -> float:
    """CPU seconds a process has used (Linux /proc; elsewhere the wall time is used instead),
    so that "past its start-up" does not depend on the machine's load."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt(cmd: list[str], ready, cwd: Path, wait: float = 120) -> tuple[int, float, str]:
    """Run `cmd`, send it SIGINT once `ready()` holds, and return (exit status, seconds from the
    signal to the exit, stdout)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + wait
        while not ready(proc) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "finished before the interrupt: " + proc.stdout.read()
        os.kill(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        return proc.returncode, time.monotonic() - sent, out + err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigint_stops_the_schedule_model(tmp_path: Path) -> None:
    started = time.monotonic()

    def busy(proc) -> bool:  # past the imports and the strategy layer: building or solving
        cpu = _cpu_seconds(proc.pid)
        return cpu > 4.0 if cpu == cpu else time.monotonic() - started > 6.0

    status, seconds, out = _interrupt(
        [sys.executable, "-m", "retrologic.cli", "spg", BELL, "--moves", "17.0", "--engine",
         "schedule"], busy, tmp_path)
    assert status == 130 and seconds < 2.0, (status, seconds, out)
    assert "spg: unknown (interrupted" in out


WRITER_INTERRUPTED = """
import json, os, signal, subprocess, sys, time
from pathlib import Path
import chess
from retrologic import limits
from retrologic.certformat import Destination
from retrologic.spg import certify as writer
limits.install_interrupt()
sent = []
solve = writer.LratSolver.solve
def solve_and_arm(self, budget):
    # Ctrl-C from another process a second into the solver's first call: CaDiCaL holds the
    # GIL, so a thread of ours could only signal between its slices, never inside one
    if not sent:
        sent.append(time.monotonic() + 1.0)
        subprocess.Popen(["sh", "-c", f"sleep 1; kill -INT {os.getpid()}"])
    return solve(self, budget)
writer.LratSolver.solve = solve_and_arm
board = chess.Board("r1bknbr1/pppqpppp/3p1n2/8/3B4/1PN5/PKPPPPPP/RQ3BNR w - - 0 1")
path, line = writer.certify(Destination(Path(sys.argv[1]), "t"), board, 16, [], None)
signal.signal(signal.SIGINT, signal.SIG_IGN)      # the hard stop must not hit the exit
print(json.dumps([path, line, limits.interrupted(), time.monotonic() - sent[0]]))
"""


def test_sigint_while_a_listing_is_written_keeps_the_verdict(tmp_path: Path) -> None:
    """Ctrl-C while CaDiCaL writes a listing (malikovic-fig2, 16 plies: 12 s of writing) ends
    the writer with "not written, interrupted" and the soft stop set, so the verdict already
    proved is printed and the command exits 130. pysat's SIGINT handler for the main thread
    turned it into `error: Caught keyboard interrupt`, an internal error (exit 5) that lost
    the verdict, and stayed installed (a second Ctrl-C would jump into a dead C frame)."""
    proc = subprocess.run([sys.executable, "-c", WRITER_INTERRUPTED, str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    path, line, stopped, seconds = json.loads(proc.stdout.splitlines()[-1])
    assert path is None and stopped and line.startswith("listing certificate: not written")
    assert "interrupted" in line and seconds < 15, (line, seconds)
    assert not list(tmp_path.iterdir())


def test_the_hard_stop_inside_the_writer_keeps_the_verdict(tmp_path: Path, monkeypatch) -> None:
    """A CaDiCaL slice can outlast the 1.5 s between the soft and the hard stop; the hard
    stop's KeyboardInterrupt, raised when the slice returns, ends the writer the same way
    (the verdict stays; the soft stop is set so that the command exits 130)."""
    from retrologic.certformat import Destination
    from retrologic.spg import certify as writer

    def a_long_slice(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "certificate", a_long_slice)
    try:
        path, line = writer.certify(Destination(tmp_path, "t"), chess.Board(), 2, [], None)
        assert (path, line) == (None, "listing certificate: not written, interrupted")
        assert limits.interrupted()
    finally:
        limits.reset()


def test_sigint_stops_the_census_and_resume_gives_the_same_totals(tmp_path: Path) -> None:
    lo = idx.BLOCK
    run_dir, whole = tmp_path / "interrupted", tmp_path / "whole"
    cmd = [sys.executable, "-m", "retrologic.cli", "puzzle4x4", "census", "--range",
           f"{lo}:{lo + 12000}", "--shard-size", "250", "--workers", "2", "--engine", "python",
           "--out", str(run_dir)]
    status, seconds, out = _interrupt(
        cmd, lambda proc: len(list(run_dir.glob("index-*.json"))) >= 2, tmp_path)
    assert status == 130 and seconds < 2.0, (status, seconds, out)
    assert "stopped: interrupted" in out
    tasks = census.index_tasks(lo, lo + 12000, 250, "python")
    kept = [t for t in tasks if (run_dir / census._name(t)).exists()]
    assert 2 <= len(kept) < len(tasks)
    assert not list(run_dir.glob("*.tmp"))
    # each finished shard is whole: the same as the shard computed afresh
    for t in kept[:2]:
        shard = json.loads((run_dir / census._name(t)).read_text())
        again = census.index_shard(t[1], t[2], "python")
        assert {k: shard[k] for k in ("starts", "solvable", "unsolvable", "nodes")} == \
            {k: again[k] for k in ("starts", "solvable", "unsolvable", "nodes")}
    # a damaged shard is run again, not read as a result
    (run_dir / census._name(kept[0])).write_text('{"starts": 3')
    # resume with the small part, compared with an uninterrupted run of the same shards
    part = tasks[:len(kept) + 2]
    resumed = census.run(part, run_dir, workers=1)
    fresh = census.run(part, whole, workers=1)
    keys = ("starts", "solvable", "unsolvable_count", "unsolvable", "nodes", "complete")
    assert {k: resumed[k] for k in keys} == {k: fresh[k] for k in keys}
    assert resumed["complete"] and resumed["starts"] == sum(1 for _ in idx.starts(lo, part[-1][2]))


def test_census_time_limit_is_honoured(tmp_path: Path) -> None:
    tasks = census.index_tasks(idx.BLOCK, idx.BLOCK + 100_000, 50_000, "python")
    t0 = time.monotonic()
    summary = census.run(tasks, tmp_path, workers=1, timeout=1.0)
    assert time.monotonic() - t0 < 2.0
    assert summary["stopped"] == "time limit 1 s" and not summary["complete"]
    assert not list(tmp_path.glob("index-*.json"))  # no shard finished, none half-written


def test_the_whole_census_stops_at_its_time_limit(tmp_path: Path) -> None:
    """`census --all` lists 612,973 shards: looking for each one's file took 28 s of a 2 s
    limit (fuzz seed 2919); the directory is now listed once. A shard already there counts."""
    tasks = census.index_tasks(0, idx.SIZE, 100_000, "python")
    assert len(tasks) == 612_973
    shard = {"starts": 5, "solvable": 5, "nodes": 9, "seconds": 0.5, "unsolvable": []}
    (tmp_path / census._name(tasks[0])).write_text(json.dumps(shard))
    t0 = time.monotonic()
    summary = census.run(tasks, tmp_path, workers=1, timeout=1.0)
    assert time.monotonic() - t0 < 8.0          # 2.5 s here; 28 s before
    assert summary["stopped"] == "time limit 1 s"
    assert summary["shards_missing"] == len(tasks) - 1 and summary["starts"] == 5


def test_the_shard_files_are_read_once_and_within_the_limit(tmp_path: Path,
                                                            monkeypatch) -> None:
    """A finished census of 600,000 shards is a minute of reading: each file is read once
    (twice before: the resume scan, then the summary), and a limit that runs out while they
    are read ends the run with the shards not read counted, nothing run."""
    tasks = census.index_tasks(0, 6_000, 4, "python")
    shard = {"starts": 4, "solvable": 4, "nodes": 9, "seconds": 0.5, "unsolvable": []}
    for t in tasks[:1_000]:
        (tmp_path / census._name(t)).write_text(json.dumps(shard))
    reads: list[Path] = []
    real_read = census._read_shard
    monkeypatch.setattr(census, "_read_shard", lambda path: reads.append(path) or real_read(path))
    budget = limits.Budget(timeout=60.0)
    budget.deadline = time.monotonic()          # the limit is reached as the reading starts
    cut = census.run(tasks, tmp_path, workers=2, budget=budget)
    assert cut["stopped"] == "time limit 60 s" and not cut["complete"]
    assert cut["shards_unread"] == 1_000 - len(reads) > 0
    assert cut["shards_missing"] == len(tasks) - len(reads) and cut["run"]["new_starts"] == 0
    assert len(list(tmp_path.glob("index-*.json"))) == 1_000      # nothing was run
    reads.clear()
    done = census.run(tasks[:1_000], tmp_path, workers=2, timeout=60.0)
    assert done["complete"] and done["starts"] == 4_000 and "shards_unread" not in done
    assert len(reads) == 1_000 and len(set(reads)) == 1_000


@pytest.mark.parametrize("argv", [["--sample", "99999999999999999999", "--shard-size", "4"],
                                  ["--all", "--shard-size", "1"]])
def test_a_census_of_too_many_shards_is_refused(tmp_path: Path, capsys, argv) -> None:
    """More than census.MAX_SHARDS shards is bad input naming --shard-size, at once (the list
    of 2.5e19 sample shards never ended)."""
    from retrologic.cli import main
    t0 = time.monotonic()
    assert main(["puzzle4x4", "census", *argv, "--out", str(tmp_path), "--timeout", "2"]) == 3
    assert time.monotonic() - t0 < 2.0
    err = capsys.readouterr().err
    assert "shard-size" in err and "more than 1,000,000" in err
