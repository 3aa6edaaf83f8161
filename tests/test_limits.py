"""Limits that hold (issue #17): --timeout/--nodes work for every deduction (SAT calls and DRUP
proofs included), last-move and cage searches stop at the user's figure and name it, count
budgets give the same verdict every time, and Ctrl-C (limits.request_stop, or a real SIGINT to
the command) stops each engine quickly with the reason "interrupted" (exit 130).

Each limit is checked against the issue's tolerance: honoured within max(1 s, 10 %)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from retrologic import cli, limits, problem
from retrologic.limits import Budget, LimitHit

ROOT = Path(__file__).resolve().parent.parent
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
SLOW_LASTMOVE = "2b1kbnr/p1p1pppp/1pn1Qr2/3p3B/q5P1/4PN1R/PPPP1P1P/RNB4K"   # ~30 s unlimited
THREE_QUEENS = "2bqkbnr/2pppppp/2n5/3r4/Q6Q/8/2PPPPPP/RNBQKBNR w KQk - 0 1"
SLACK = 1.0            # max(1 s, 10 %) of the limits used here


def many_claims(n: int) -> list[str]:
    """`n` true and false claims about THREE_QUEENS: a deduction of a few seconds."""
    out = []
    for k in range(n // 2):
        out += [f"promotions(white) + captures(black) <= {k + 3}",
                f"pawn_captures(white) + missing(black) >= {k}"]
    return out


def stop_after(seconds: float) -> threading.Timer:
    """Ask every engine to stop (as Ctrl-C does) `seconds` from now."""
    timer = threading.Timer(seconds, limits.request_stop)
    timer.daemon = True
    timer.start()
    return timer


@dataclass
class CnfModel:
    """The little of history_model.Model that SatBackend reads: a plain CNF."""

    clauses: list[list[int]]
    num_vars: int
    cards: list = field(default_factory=list)

    def preferred(self) -> list[int]:
        return []


def pigeonhole(holes: int) -> CnfModel:
    """holes+1 pigeons in `holes` holes: UNSAT, and minutes of work for a CDCL solver at 10."""
    from pysat.examples.genhard import PHP
    cnf = PHP(holes)
    return CnfModel([list(c) for c in cnf.clauses], cnf.nv)


# --- deduce: the reproducers ----------------------------------------------------------

def test_deduce_with_a_timeout_answers_proved(capsys):
    status = cli.main(["deduce", START, "--claim", "captures(black) <= 3", "--timeout", "30"])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("deduce: proved")


def test_deduce_python_call_with_a_timeout_is_proved_and_certified(tmp_path):
    from retrologic.history.deduce import Constraint, deduce
    from retrologic.certificate import check_file
    from retrologic.position import Position
    claim = [Constraint.parse("c", "captures(black) <= 3")]
    d = deduce(Position.from_fen(START), [], claim, timeout=30, conflicts=100_000,
               certificate_dir=str(tmp_path))
    assert d.claims[0].status == "proved" and d.certificates and d.uncertified is None
    assert all(check_file(c).ok for c in d.certificates)
    d = deduce(Position.from_fen(START), [], claim, engine="both", timeout=30)   # CP-SAT too
    assert d.claims[0].status == "proved"


def test_a_limit_hit_while_certifying_leaves_the_answer_unknown(monkeypatch, tmp_path):
    """The DRUP proof of a certificate runs under the question's budget; stopped, the claim
    stays proved but uncertified, and the answer is unknown (exit 4), naming the limit."""
    from retrologic.history import deduce as captures
    from retrologic.history import cnf as history_cnf
    from retrologic.history.deduce import Constraint
    from retrologic.position import Position
    from retrologic.questions import deduce as dq
    seen = []

    def stopped(clauses, units, budget=None):
        seen.append(budget if budget is not None else history_cnf.current_budget())
        raise LimitHit("time limit 5 s")

    monkeypatch.setattr(captures, "drup_proof", stopped)
    pos, claim = Position.from_fen(START), [Constraint.parse("c", "captures(black) <= 3")]
    budget = Budget(timeout=30)
    d = captures.deduce(pos, [], claim, budget=budget, certificate_dir=str(tmp_path))
    assert len(seen) == 1 and seen[0] is budget
    assert d.claims[0].status == "proved" and not d.certificates
    assert d.uncertified.startswith("time limit 5 s")
    res = dq.answer(pos, [], claim, options=problem.SolveOptions(certificate_dir=str(tmp_path)))
    assert res.verdict == "unknown" and res.reason.startswith("time limit 5 s")


def test_every_deduce_problem_meets_its_expect_under_a_timeout():
    files = sorted((ROOT / "problems" / "deduce").glob("*.toml"))
    assert len(files) >= 15
    for path in files:
        prob = problem.load(path)
        res = problem.solve(prob, problem.SolveOptions(timeout=5))
        assert problem.check(prob, res) == [], path.name


def test_a_tiny_conflict_budget_gives_unknown_naming_it(capsys):
    status = cli.main(["deduce", THREE_QUEENS, "--claim", "promotions(white) == 2", "--nodes", "1"])
    out = capsys.readouterr().out
    assert status == 4 and "unknown (node limit 1)" in out


def test_cardinality_clauses_are_pysats_own():
    """The encoder calls pysat's sequential counter without its SIGINT handler: the clauses must
    be exactly CardEnc's (certificates rebuild them)."""
    import random

    from pysat.card import CardEnc, EncType

    from retrologic.history.clauses import seqcounter_clauses as _seqcounter
    rng = random.Random(17)
    for _ in range(200):
        n = rng.randint(2, 12)
        lits = [rng.choice((1, -1)) * v for v in rng.sample(range(1, 40), n)]
        k, top = rng.randint(1, n - 1), rng.randint(0, 60)
        for atmost, enc in ((True, CardEnc.atmost), (False, CardEnc.atleast)):
            want = enc(lits, bound=k, top_id=top, encoding=EncType.seqcounter)
            assert _seqcounter(lits, k, top, atmost) == ([list(c) for c in want.clauses],
                                                         max(top, want.nv))


def test_the_conflict_budget_is_the_same_every_run():
    """A node limit counts conflicts over the query: the same spent count, the same verdict."""
    from retrologic.history.cnf import SatBackend
    spent = []
    for _ in range(2):
        budget = Budget(nodes=3000)
        sat = SatBackend(pigeonhole(8), budget)
        with pytest.raises(LimitHit, match="node limit 3000"):
            sat.solve([])
        sat.close()
        spent.append(budget.spent)
    assert spent[0] == spent[1] >= 3000        # Glucose looks at its budget between restarts


def test_a_sat_call_stops_at_the_deadline_and_at_a_stop_request():
    from retrologic.history.cnf import SatBackend, drup_proof
    model = pigeonhole(10)
    for make, want in ((lambda: Budget(timeout=1), "time limit 1 s"),
                       (lambda: (stop_after(0.5), Budget())[1], "interrupted")):
        budget = make()
        sat = SatBackend(model, budget)
        t = time.monotonic()
        with pytest.raises(LimitHit) as hit:
            sat.solve([])
        assert hit.value.reason == want and time.monotonic() - t < 1 + SLACK
        sat.close()
        limits.reset()
    t = time.monotonic()           # the DRUP proof of a certificate is limited too
    with pytest.raises(LimitHit, match="time limit 1 s"):
        drup_proof(model.clauses, [], Budget(timeout=1))
    assert time.monotonic() - t < 1 + SLACK


def test_deduce_honours_a_time_limit_and_a_stop_request():
    from retrologic.history.deduce import Constraint, deduce
    from retrologic.position import Position
    pos = Position.from_fen(THREE_QUEENS)
    claims = [Constraint.parse(f"c{i}", text) for i, text in enumerate(many_claims(80))]
    t = time.monotonic()
    d = deduce(pos, [], claims, timeout=1)
    assert time.monotonic() - t < 1 + SLACK
    assert {c.reason for c in d.claims if c.status == "unknown"} == {"time limit 1 s"}
    stop_after(0.5)
    t = time.monotonic()
    d = deduce(pos, [], claims)
    assert time.monotonic() - t < 0.5 + SLACK
    assert {c.reason for c in d.claims if c.status == "unknown"} == {"interrupted"}


# --- last move --------------------------------------------------------------------------------

def test_lastmove_reproducer_stops_within_6_s_naming_the_5_s_limit():
    """About 5.4 s on an idle machine (30 s before the fix). The interpreter's own start-up and
    exit (`retrologic --version`, timed alongside) are allowed beyond an idle machine's 0.4 s, so
    a busy test machine does not fail the test for what the limit cannot cover."""
    t = time.monotonic()
    subprocess.run([sys.executable, "-m", "retrologic", "--version"], capture_output=True, timeout=60)
    startup = time.monotonic() - t
    t = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "retrologic", "lastmove", SLOW_LASTMOVE,
                          "--timeout", "5"], capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - t
    assert run.returncode == 4, run.stderr
    assert run.stdout.startswith("last-move: unknown (time limit 5 s")
    assert elapsed < 6.0 + max(0.0, startup - 0.4), (elapsed, startup)


def test_lastmove_node_limit_and_stop_request():
    from retrologic.position import parse
    from retrologic.questions import lastmove as lq
    pos = parse(fen=SLOW_LASTMOVE)
    res = lq.answer(pos, nodes=50)
    assert res.verdict == "unknown" and res.reason.startswith("node limit 50:")
    assert res.details["nodes"] == 51               # the 51st position is the one refused
    t = time.monotonic()
    res = lq.answer(pos, timeout=1)
    assert time.monotonic() - t < 1 + SLACK and res.reason.startswith("time limit 1 s:")
    stop_after(0.5)
    t = time.monotonic()
    res = lq.answer(pos)
    assert time.monotonic() - t < 0.5 + SLACK and res.reason.startswith("interrupted:")
    assert {c["reason"] for c in res.details["candidates"] if c["status"] == "unresolved"} == {"interrupted"}


def test_cage_discovery_budgets_are_counts(monkeypatch):
    """Discovery is bounded by positions, per cage and per solve, never by seconds."""
    from retrologic.lastmove import search as lastmove
    # the game finder's share is not what is measured here: a small count keeps Ka2-a1
    # unresolved, as the full 30,000 do, in a fraction of the time
    monkeypatch.setattr(lastmove, "CERTIFY_NODES", 1_000)
    from retrologic.lastmove.cages import CageCloser
    from retrologic.position import Position
    pos = Position.from_fen("8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1")     # Brandis
    results = []
    for total in (10**6, 0):
        closer = CageCloser(None, True, nodes=20_000, total=total)
        res = lastmove.solve(pos, 1, closers=[closer])
        results.append((res.verdict, res.answer, res.nodes, closer.spent, len(closer.discovered)))
    (v1, a1, n1, spent1, found1), (v0, a0, n0, spent0, found0) = results
    # Ka2-a1 has no game yet (issue #19): unresolved, so unknown; every other candidate proved
    assert (v1, a1, found1) == ("unknown", ["Ka2-a1"], 1) and 0 < spent1 < 20_000
    assert found0 == 0 and spent0 == 0 and a0 != a1      # no positions: no cage, fewer proofs
    again = CageCloser(None, True)
    res = lastmove.solve(pos, 1, closers=[again])
    assert (res.verdict, res.answer, res.nodes, again.spent) == (v1, a1, n1, spent1)


# --- cages, retrograde tables -----------------------------------------------------------------

def test_cage_search_honours_time_nodes_and_stop_request():
    from retrologic.cages import search as cage
    board = SLOW_LASTMOVE                       # as a partial position: a huge reachable set
    r = cage.verify(board, nodes=100)
    assert r.verdict == "unknown" and r.reason == "node limit 100" and r.states == 101
    t = time.monotonic()
    r = cage.verify(board, timeout=1)
    assert time.monotonic() - t < 1 + SLACK and r.reason == "time limit 1 s"
    stop_after(0.5)
    t = time.monotonic()
    r = cage.verify(board)
    assert time.monotonic() - t < 0.5 + SLACK and r.reason == "interrupted"


def test_tablebase_build_honours_time_and_stop_request():
    from retrologic.tablebase.table import Library
    t = time.monotonic()
    table = Library(timeout=1).table("KQKR")
    assert time.monotonic() - t < 1 + SLACK and not table.complete and "time limit 1 s" in table.reason
    stop_after(0.5)
    t = time.monotonic()
    table = Library().table("KQKR")
    assert time.monotonic() - t < 0.5 + SLACK and not table.complete and "interrupted" in table.reason


# --- a real SIGINT (or SIGTERM) to the command -------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("args", [
    ["lastmove", SLOW_LASTMOVE],
    ["deduce", THREE_QUEENS] + [a for c in many_claims(120) for a in ("--claim", c)],
], ids=["lastmove", "deduce"])
def test_a_signal_stops_the_command_within_2_s_with_exit_130(args, sig):
    """SIGTERM (`kill PID`) is the soft stop Ctrl-C is (tests/test_sigterm.py); before
    2026-12-05 it ended the command at once, printing nothing."""
    proc = subprocess.Popen([sys.executable, "-m", "retrologic", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    assert proc.poll() is None, "finished before the signal: the test needs a longer run"
    proc.send_signal(sig)
    t = time.monotonic()
    try:
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert time.monotonic() - t < 2.0
    assert proc.returncode == 130, err
    assert "interrupted" in out


SIGINT_INSIDE_THE_LOCK = """
import os, signal, time
from retrologic import limits
limits.install_interrupt()
with limits._callbacks_lock:      # where the main thread is around every solver call
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.2)
t = time.monotonic()
while not limits.interrupted() and time.monotonic() - t < 5:
    time.sleep(0.01)
print("stopped" if limits.interrupted() else "not stopped")
"""


FORK_DURING_A_STOP = """
import os, sys, threading
from retrologic import limits
held, release = threading.Event(), threading.Event()

def stopping():                  # the watcher thread in the middle of a stop holds these locks
    with limits._callbacks_lock, limits._timer_lock:
        held.set()
        release.wait()

threading.Thread(target=stopping, daemon=True).start()
held.wait()
limits._callbacks[10**6] = lambda: print("parent's callback ran in the child")
pid = os.fork()
if pid == 0:                     # the worker, as spg/race.py starts it
    limits.after_fork()
    fired = []
    with limits.on_interrupt(lambda: fired.append(1)):
        limits.request_stop()
    print("child stopped" if fired and limits.interrupted() else "child not stopped", flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
release.set()
sys.exit(os.waitstatus_to_exitcode(status))
"""


def test_a_worker_forked_while_a_stop_holds_the_locks_does_not_hang():
    """A fork copies a lock held by another thread as held, and the child has no thread to
    release it: a worker forked while the Ctrl-C watcher was stopping the parent hung in its
    first solver call. Every forked child now gets fresh locks and none of the parent's
    callbacks."""
    proc = subprocess.run([sys.executable, "-c", FORK_DURING_A_STOP], capture_output=True,
                          text=True, timeout=20)
    assert (proc.returncode, proc.stdout.strip()) == (0, "child stopped"), proc.stderr


def test_sigint_while_the_main_thread_holds_the_callback_lock_is_still_a_soft_stop():
    """The handler once took the callbacks' lock itself: a SIGINT landing while on_interrupt
    held it (the bookkeeping around each SAT call) deadlocked the process, which never exited
    (seen once in CI under load). The soft stop now runs in the watcher thread."""
    proc = subprocess.run([sys.executable, "-c", SIGINT_INSIDE_THE_LOCK], capture_output=True,
                          text=True, timeout=20)
    assert (proc.returncode, proc.stdout.strip()) == (0, "stopped"), proc.stderr


def test_the_largest_node_figure_reaches_every_solver(capsys) -> None:
    """--nodes at limits.MAX_NODES is given to pysat (a deduction) and to CP-SAT (the strategy
    layer and the schedule model) as their conflict budgets and answers; one more is a usage
    error (fuzz seed 2922: 10**20 was an OverflowError in pysat, a TypeError in CP-SAT)."""
    figure = str(limits.MAX_NODES)
    assert cli.main(["deduce", START, "--claim", "captures(white) <= 3", "--nodes", figure]) == 0
    assert cli.main(["spg", "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", "--moves",
                     "1.5", "--engine", "schedule", "--nodes", figure]) == 0
    out = capsys.readouterr().out
    assert "proved" in out and "unique" in out and "CP-SAT solves" in out
    with pytest.raises(SystemExit) as usage:
        cli.main(["deduce", START, "--nodes", str(limits.MAX_NODES + 1)])
    assert usage.value.code == 2


# --- found in review, 2026-11-30: where a limit was not read ----------------------------------

# the last three plies of this record: each static rule of a candidate's positions may run the
# pawn-columns kernel search for seconds, and `--timeout 1` took 9 s
RECORD_3_PLIES = "7B/1p1p2p1/6p1/8/5P2/3PPrP1/P1Prqppb/K1kBBB1b b - - 0 1"


def test_the_pawn_columns_search_polls_the_active_budget():
    from retrologic.legality import pawn_columns
    from retrologic.lastmove.search import Limits, candidates, solve
    from retrologic.position import Position
    diagram = Position.from_fen(RECORD_3_PLIES)
    pawn_columns.has_no_kernel.cache_clear()
    t = time.monotonic()
    res = solve(diagram, 3, Limits(timeout=1))
    assert time.monotonic() - t < 1 + SLACK and res.verdict == "unknown"
    assert "time limit 1 s" in res.reason
    positions = [p for c in candidates(diagram, 3) for p in c.positions]
    pawn_columns.has_no_kernel.cache_clear()
    with limits.active(limits.budget_for(0)), pytest.raises(LimitHit):   # a deadline past
        for pos in positions:
            pawn_columns.reasons(pos)


def test_a_tablebase_forward_check_stops_at_its_node_limit(capsys, tmp_path):
    assert cli.main(["tablebase", "verify", "KRK", "--dir", str(tmp_path), "--nodes",
                     "3000"]) == 4
    out = capsys.readouterr().out
    assert "stopped early (node limit 3000)" in out and "0 mismatches" in out
    assert "3,000 INVALID markings" in out   # the batch of 20,000 cut to the limit's room


def test_a_tablebase_forward_check_meets_its_node_limit_exactly(capsys, tmp_path):
    """The last batch is cut to what the limit leaves: 100 sampled positions and 100 INVALID
    indices marked first (200), then 50 of the positions' values; before 2026-11-30 a batch
    that would pass the limit was not begun (`--nodes 1000` on KRK checked nothing)."""
    assert cli.main(["tablebase", "verify", "KRK", "--dir", str(tmp_path), "--sample", "100",
                     "--nodes", "250"]) == 4
    out = capsys.readouterr().out
    assert "KRK: 50 positions" in out and "200 INVALID markings" in out
    assert "stopped early (node limit 250)" in out


def test_an_undecided_board_of_a_cage_collection_is_no_mismatch(capsys, tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("7K/pppp1ppp/4p3/8/3N4/2P3P1/1PrP1PPB/2B5  name=knight expect=proved\n")
    assert cli.main(["cage", "--collection", str(path), "--nodes", "100"]) == 4
    out = capsys.readouterr().out
    assert "not decided (expected proved)" in out and "NOT met" not in out


def test_the_sat_cage_engine_stops_while_it_builds_its_formula():
    """Building the formula of this 13-unit board takes seconds: `--timeout 1` took 3.7 s."""
    from retrologic.cages.sat import verify_sat
    t = time.monotonic()
    res = verify_sat("k1br2b1/ppKppp1B/2p3p1/8/8/8/8/8", timeout=1)
    assert time.monotonic() - t < 1 + SLACK and res.verdict == "unknown"
    assert "time limit 1 s" in res.reason
