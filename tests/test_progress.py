"""`--progress` for the engines that print nothing while they search (`retrologic.progress`):
the counter reads the nodes charged to the question's budgets (what `--nodes` limits), ends on
the last count, and prints nothing without the flag; the answer is the same either way."""

from __future__ import annotations

import sys
import threading

from retrologic import cli, limits, progress
from retrologic.progress import Census, node_bar

# seed 4606 of bench/legal.py: the finder spends thousands of positions on it
FEN = "1r6/3q2bp/QP1k3n/2ppp3/2bPBP2/P5PN/PB5P/RN3RK1 w - - 3 35"


def test_the_bar_ends_on_the_count_charged(capsys) -> None:
    with node_bar("legal", True, 1000, interval=0.01):
        budget = limits.Budget(None, 1000)
        budget.check(40)
        child = budget.share(nodes=100)
        child.check(25)                    # a child's count shows once it passes its parent's
        budget.check(2)
    err = capsys.readouterr().err
    assert "legal" in err and "42/1000" in err


def test_no_bar_and_no_thread_without_the_flag(capsys) -> None:
    threads = threading.active_count()
    with node_bar("legal", False, 1000, interval=0.01):
        limits.Budget(None, 1000).check(40)
        assert threading.active_count() == threads
    assert capsys.readouterr().err == ""


def test_legal_with_progress_prints_the_same_answer(capsys) -> None:
    status = cli.main(["legal", FEN, "--nodes", "300", "--json"])
    plain = capsys.readouterr()
    assert cli.main(["legal", FEN, "--nodes", "300", "--json", "--progress"]) == status
    shown = capsys.readouterr()
    assert shown.out == plain.out and plain.err == ""
    assert "legal" in shown.err and "/300" in shown.err and "node" in shown.err


def test_the_web_worker_turns_the_counters_off(capsys, monkeypatch) -> None:
    """The web worker prints the census as its own lines, which the page parses: a tqdm
    counter in the job's stderr would be read as the engine's last line."""
    monkeypatch.setitem(progress._bars, "shown", True)        # put back after the test
    progress.without_bars()
    with node_bar("legal", True, 100, interval=0.01):
        limits.Budget(None, 100).check(5)
    assert capsys.readouterr().err == ""


def test_no_budget_is_lost_while_the_reader_prunes() -> None:
    """The engine registers budgets while the bar's thread reads and prunes the list: with
    thread switches as often as possible, every live budget is still counted."""
    census = Census()
    restore = census.install()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            census.nodes()

    reader = threading.Thread(target=read)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        reader.start()
        kept = []
        for i in range(3000):
            limits.Budget(None, None)           # dies at once: the reader prunes such ones
            kept.append(limits.Budget(None, None))
        stop.set()
        reader.join()
    finally:
        sys.setswitchinterval(old)
        restore()
    live = {id(b) for b in (ref() for ref in census.budgets) if b is not None}
    assert {id(b) for b in kept} <= live


def test_a_turn_is_counted_while_it_runs_and_once_after() -> None:
    """Found running `legal --progress` on seed 42838 (2026-12-03): a share's nodes reached
    its parent only when its turn ended, so the bar stood at 27,745 from 7 s to 25 s while
    the proof-game and schedule routes searched. A turn's count is now read live
    (`Budget.live`), nested turns too, and merged once: never counted twice."""
    census = Census()
    restore = census.install()
    try:
        root = limits.Budget(None, 1000)
        root.check(10)
        with limits.turn(root, root.share()) as outer:
            outer.check(5)
            assert census.nodes() == 15 and root.spent == 10
            with limits.turn(outer, outer.share(nodes=50)) as inner:
                inner.check(7)
                assert census.nodes() == 22 and root.live() == 22
            assert outer.spent == 12 and census.nodes() == 22
        assert root.spent == 22 and root.turns == [] and census.nodes() == 22
        # a turn its own limit ends (`in_share`) is charged too, and gives None
        assert limits.in_share(root, root.share(nodes=3), lambda b: b.check(4)) is None
        assert root.spent == 26 and census.nodes() == 26
    finally:
        restore()


def test_a_reader_never_counts_a_turn_twice() -> None:
    """The bar's thread reads `live` from another thread, so it may read between any two steps
    of a turn's end: the share is taken off the running turns before its nodes are added to
    its parent, and a reading just before or after that removal is never above the count
    charged (here the reading is made inside the removal itself)."""
    root = limits.Budget(None, None)
    readings: list[int] = []

    class Watched(list):
        def remove(self, value: object) -> None:
            readings.append(root.live())
            super().remove(value)
            readings.append(root.live())

    root.turns = Watched()
    root.check(4)
    with limits.turn(root, root.share()) as inner:
        inner.check(3)
    assert root.spent == 7 and readings and max(readings) <= 7


class _ClosedPipe:
    """stderr after the reader went away: every write raises, as a closed pipe does."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_stderr_neither_fails_nor_hangs_the_question(monkeypatch) -> None:
    """`retrologic legal ... --progress 2>&1 | head -c 60`: tqdm keeps its lock when a write
    raises, and the next update waited for ever (measured: the command hung). The counter now
    drops its output and the question ends."""
    monkeypatch.setattr(sys, "stderr", _ClosedPipe())
    done = threading.Event()

    def ask() -> None:
        with node_bar("legal", True, 100, interval=0.005):
            budget = limits.Budget(None, 100)
            for _ in range(40):
                budget.check(1, every=1)
                threading.Event().wait(0.002)
        done.set()

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(20)
    assert done.is_set()


def test_check_with_progress_counts_the_steps_and_gives_the_same_record(tmp_path, capsys) -> None:
    """`check --progress`: the certificate's check shows the steps its checker has looked at
    the limit (a proof's lines, the CNF's plies), and the record is the one printed without it."""
    import json
    import re

    import chess

    from retrologic import certformat
    from retrologic.spg.certify import certificate
    board = chess.Board()
    for uci in "e2e4 e7e5 g1f3 b8c6".split():
        board.push_uci(uci)
    cert, _ = certificate(board, 4, limits.Budget(timeout=120))
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(certformat.stamp(cert)))
    assert cli.main(["check", str(path), "--json"]) == 0
    plain = capsys.readouterr()
    assert cli.main(["check", str(path), "--json", "--progress"]) == 0
    shown = capsys.readouterr()
    assert shown.out == plain.out and json.loads(shown.out)["outcome"] == "accepted"
    assert plain.err == ""
    steps = [int(n) for n in re.findall(r"(\d+) *step", shown.err)]
    assert "check listing.json" in shown.err and steps and max(steps) >= 4   # a tick per ply


def test_a_claims_uniqueness_search_gets_the_progress_flag(tmp_path, monkeypatch, capsys) -> None:
    """`check --spg ... --progress` hands the flag to the proof-game search (whose progress
    lines are its own), and without the flag the search prints none."""
    from retrologic.spg import solver as spg
    seen = []
    real = spg.solve

    def spy(target, plies, limits):
        seen.append(limits.progress)
        return real(target, plies, limits)

    monkeypatch.setattr(spg, "solve", spy)
    claim = tmp_path / "claim.pgn"
    claim.write_text("1.e4 e5 2.Nf3 Nc6\n")
    diagram = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
    for flag in ([], ["--progress"]):
        assert cli.main(["check", "--spg", diagram, "--moves", "2.0", str(claim), *flag]) == 0
    assert seen == [False, True]
    assert "cooked" in capsys.readouterr().out


def test_the_sat_cage_engine_counts_its_conflicts(capsys) -> None:
    """`cage --engine sat --progress`: a counter of the SAT solver's conflicts (what `--nodes`
    limits for that engine), the answer the same as without it."""
    import json
    board = "Knrk4/BpppRp2/1p2p3/8/8/8/8/8"       # Hwa's Figure 5 (Darvall)
    argv = ["cage", board, "--engine", "sat", "--nodes", "100000", "--json"]
    assert cli.main(argv) == 0
    plain = capsys.readouterr()
    assert cli.main(argv + ["--progress"]) == 0
    shown = capsys.readouterr()
    answer, again = json.loads(plain.out), json.loads(shown.out)
    for record in (answer, again):                 # times apart, the same record
        record["details"] = {k: v for k, v in record["details"].items()
                             if not k.endswith(("_s", "_ms"))}
    assert answer == again and answer["verdict"] == "proved" and plain.err == ""
    assert "cage (SAT)" in shown.err and "/100000" in shown.err and "conflict" in shown.err


def test_a_step_the_node_limit_does_not_count_is_not_shown(capsys) -> None:
    """Found in review (2026-11-30): `lastmove --nodes 3000 --progress` showed 15,855 nodes, the
    positions of its cage discovery, which has its own cap and is not what --nodes limits."""
    with node_bar("last-move", True, 3000, interval=0.01):
        budget = limits.Budget(None, 3000)
        discovery = budget.share()
        discovery.nodes, discovery.watched = None, False
        discovery.check(15_000)
        budget.check(42)
    err = capsys.readouterr().err
    assert "42/3000" in err and "15000" not in err


def test_the_exact_rating_counts_its_positions(capsys) -> None:
    """Found in review (2026-11-30): `puzzle4x4 rate --exact --progress` printed nothing; the
    counter shows the positions visited, what --nodes limits there."""
    status = cli.main(["puzzle4x4", "rate", "Nbrn/kqQB/nNRR/rbBK", "--exact", "--nodes", "2000",
                       "--progress"])
    err = capsys.readouterr().err
    assert status == 4 and "positions" in err and "/2000" in err and "position/s" in err


def test_ticking_beats_while_the_block_runs_and_stops_after_it() -> None:
    """The heartbeat of one long step: seconds that rise, from a thread, and none after."""
    beats: list[float] = []
    with progress.ticking(beats.append, every=0.01):
        threading.Event().wait(0.2)
    after = len(beats)
    threading.Event().wait(0.05)
    assert len(beats) == after >= 3
    assert all(0.0 < a < b for a, b in zip(beats, beats[1:]))
    with progress.ticking(None, every=0.01):        # no `say`: no thread, no line
        assert not any(t.name == "progress-ticks" for t in threading.enumerate())


def test_a_beat_that_cannot_be_written_ends_the_ticks_not_the_step() -> None:
    calls: list[float] = []

    def gone(seconds: float) -> None:
        calls.append(seconds)
        raise BrokenPipeError

    with progress.ticking(gone, every=0.01):
        threading.Event().wait(0.1)
    assert len(calls) == 1
