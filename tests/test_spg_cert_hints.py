"""Hinted (LRAT-style) proofs of spg-listing certificates (issue 22, item 3): each lemma names the
clauses whose unit propagation refutes its negation, and `check` verifies exactly that, in time
linear in the hints. What the writer produces, and that the checker rejects forged hints.

Oracles: a SAT solver (pigeonhole formulas are unsatisfiable; minus one core clause they are
satisfiable), hand-made proofs whose validity is evident, and python-chess replays; never the
writer's own claims.
"""

from __future__ import annotations

import copy
import json

import chess
import pytest
from pysat.solvers import Solver

from retrologic.certificate import check
from retrologic.history.drup import check_lrat, parse_lrat
from retrologic.limits import Budget, LimitHit
from retrologic.spg.certify import certificate, hinted_refutation, pack
from conftest import pigeonhole

COOKED = "rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR"      # problems/spg/cooked-a3-h3
XOR = [[1, 2], [-1, 2], [1, -2], [-1, -2]]                      # unsatisfiable, 4 clauses


def test_hand_made_hints() -> None:
    assert check_lrat(XOR, parse_lrat(["2 0 1 2 0", "0 5 3 4 0"])).ok
    # the unit lemma 2 alone closes it: its top-level propagation conflicts (1, then [-1, -2])
    assert check_lrat(XOR, parse_lrat(["2 0 1 2 0"])).ok
    # a satisfied hint (3 = [1, -2] under -2) is passed over: deriving nothing is sound
    assert check_lrat(XOR, parse_lrat(["2 0 3 1 2 0", "0 5 3 4 0"])).ok
    # the top-level units of the input (here 2, then 1) are set first: a lemma they imply
    # needs no hints, another does
    units = [[2], [-2, 1], [3, 4], [3, -4], [-3, 5], [-3, -5]]
    assert check_lrat(units, parse_lrat(["1 0 0", "3 0 3 4 0", "0 8 5 6 0"])).ok
    assert not check_lrat(units, parse_lrat(["1 0 0", "3 0 0", "0 8 5 6 0"])).ok
    assert check_lrat(units + [[-1]], []).ok               # the units conflict: refuted
    for lines, match in [(["2 0 1 0", "0 5 3 4 0"], "not refuted by its hints"),
                         (["0 6 3 4 0"], "names no earlier clause"),
                         (["0 -3 4 0"], "names no earlier clause"),
                         (["0 1 2 3 4 0"], "not unit"),          # [1, 2]: both open
                         (["1 -1 0 1 0", "0 5 3 4 0"], "tautology"),
                         ([], "never derives")]:
        res = check_lrat(XOR, parse_lrat(lines))
        assert not res.ok and match in res.reason, (lines, res.reason)
    assert check_lrat(XOR + [[]], []).ok                  # an empty input clause refutes
    for bad in ["1 2 0", "1 0 2 0 3", "1 0 2 0 3 0", "x 0 1 0", "0 0 3 4 0"]:
        with pytest.raises(ValueError):
            parse_lrat([bad])


@pytest.mark.parametrize("padding", [0, 30])
def test_solver_hints_refute_their_core_alone(padding: int) -> None:
    php = pigeonhole(4)
    pad = [[100 + k, 101 + k] for k in range(padding)]
    clauses = pad + php
    core, lines, logged = hinted_refutation(clauses, [], Budget(timeout=60))
    assert all(i >= padding for i in core) and len(lines) <= logged
    assert check_lrat([clauses[i] for i in core], parse_lrat(lines)).ok
    with Solver(name="glucose4", bootstrap_with=[clauses[i] for i in core][1:]) as s:
        assert s.solve()                                  # every core clause is needed here


def test_hints_of_a_satisfiable_formula_are_an_error() -> None:
    with pytest.raises(AssertionError, match="model"):
        hinted_refutation(XOR[:3], [], Budget(timeout=60))
    with pytest.raises(LimitHit):
        hinted_refutation(pigeonhole(7), [], Budget(nodes=1))


def test_time_limit_honoured_between_slices() -> None:
    """python-sat cannot interrupt CaDiCaL: it runs in short slices of conflicts, so a time
    limit stops it within about a second (pigeonhole 11: far beyond the limit)."""
    import time
    started = time.monotonic()
    with pytest.raises(LimitHit, match="time"):
        hinted_refutation(pigeonhole(11), [], Budget(timeout=0.3))
    assert time.monotonic() - started < 4


def test_the_last_slice_is_cut_to_the_limits(monkeypatch) -> None:
    """Slices that double without end (SLICE_MAX raised): the slice that would pass the node
    limit is cut to it, exactly (200 + 400 + a cut 400 conflicts, where a full third slice
    made 1,400); the one that would pass the deadline at the last slice's rate is cut too, so
    a 2 s limit ends near 2 s, not at the end of a slice as long as all the ones before (how
    far past depends on where the deadline falls: `spg --certificate-dir --timeout 10` on a
    12.5-move problem ended at 13.1 s, now 9.8 s)."""
    import time
    from retrologic.spg import certify as writer
    monkeypatch.setattr(writer, "SLICE_MAX", 10 ** 9)
    budget = Budget(nodes=1_000)
    with pytest.raises(LimitHit, match="node limit 1000"):
        hinted_refutation(pigeonhole(11), [], budget)
    assert budget.spent == 1_000
    started = time.monotonic()
    with pytest.raises(LimitHit, match="time limit 2 s"):
        hinted_refutation(pigeonhole(11), [], Budget(timeout=2))
    assert time.monotonic() - started < 2.6       # 1.95-2.02 s here


def test_the_log_reduction_looks_at_the_limit_throughout() -> None:
    """Fuzz seed 2924: `spg --certificate-dir --timeout 5` ended at 7.7 s on a 6-move
    problem: the listing was done, and the reduction of its log (reading it, marking back from
    the empty clause, the top-level units, dropping what they imply, the check) looked at no
    limit (5.8 s now). Each of those steps calls `tick`, and a LimitHit from any call ends the
    reduction; with a tick that never stops, the result is the same as without one."""
    import traceback
    from retrologic.spg import certify as writer
    from retrologic.spg.lratlog import reduce_log
    clauses = pigeonhole(7)
    order = writer.units_last(clauses)
    with writer.LratSolver([clauses[i] for i in order], Budget(timeout=60)) as solver:
        assert not solver.solve(Budget(timeout=60))
        log = solver.log()
    steps: list[str] = []

    def watched() -> None:
        steps.append(traceback.extract_stack(limit=2)[0].name)
    plain = reduce_log(log, clauses, [], order)
    assert reduce_log(log, clauses, [], order, watched) == plain
    assert {"__init__", "reduce_log", "unit_closure", "load", "drop_top_level",
            "check_lrat"} <= set(steps)
    for stop in (1, 4, len(steps) // 2, len(steps)):
        calls = iter(range(stop - 1, -1, -1))

        def tick() -> None:
            if next(calls) == 0:
                raise LimitHit("time limit 5 s")
        with pytest.raises(LimitHit, match="time limit 5 s"):
            reduce_log(log, clauses, [], order, tick)


def test_slices_sized_by_conflicts_make_the_log_reproducible(monkeypatch) -> None:
    """Two refutations of the same formula in many small slices (conflicts only, never time)
    give the same lemmas and core, however the machine is loaded in between."""
    from retrologic.spg import certify as writer
    monkeypatch.setattr(writer, "SLICE", 5)
    monkeypatch.setattr(writer, "SLICE_MAX", 40)
    calls: list[int] = []
    real = writer.LratSolver.solve

    def counted(self, budget):            # noqa: ANN001, ANN202 - a pass-through
        try:
            return real(self, budget)
        finally:
            calls.append(self.slices)
    monkeypatch.setattr(writer.LratSolver, "solve", counted)
    first = hinted_refutation(pigeonhole(7), [], Budget(timeout=120))
    second = hinted_refutation(pigeonhole(7), [], Budget(timeout=120))
    assert calls[0] > 5 and calls == [calls[0]] * 2
    assert first == second and first[1]


@pytest.fixture(scope="module")
def cooked() -> dict:
    cert, _ = certificate(chess.BaseBoard(COOKED), 4, Budget(timeout=60))
    return json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"}))


def _lines(entry: dict) -> list[str]:
    import base64
    import lzma
    text = entry["lrat"] if "lrat" in entry else \
        lzma.decompress(base64.b64decode(entry["lrat_xz"])).decode("ascii")
    return text.splitlines()


def _with(cert: dict, lines: list[str]) -> dict:
    out = copy.deepcopy(cert)
    out["lengths"][0].pop("lrat_xz", None)
    out["lengths"][0]["lrat"] = "\n".join(lines)
    return out


def test_written_hinted_and_accepted(cooked: dict) -> None:
    entry = cooked["lengths"][0]
    assert "lrat" in entry or "lrat_xz" in entry
    assert "proof" not in entry and "proof_xz" not in entry
    verdict = check(cooked)
    assert verdict.ok and "exactly 2 game(s) of 4 plies" in verdict.reason, verdict.reason
    assert check(_with(cooked, _lines(entry))).ok          # unpacked: the same claim


def test_forged_hints_are_rejected(cooked: dict) -> None:
    lines = _lines(cooked["lengths"][0])
    # the last lemma closes the refutation (the empty clause, or a unit whose top-level
    # propagation conflicts); without its hints, or without it, nothing is refuted
    lits = lines[-1].split()[:lines[-1].split().index("0")]
    dropped = lines[:-1] + [" ".join(lits + ["0", "0"])]
    forward = lines[:-1] + [" ".join(lits + ["0", str(10 ** 6)] + lines[-1].split()[len(lits) + 1:])]
    for bad, match in [(dropped, "not refuted"), (lines[:-1], "never derives"),
                       (forward, "names no earlier clause"), (["0 1 0"], "")]:
        verdict = check(_with(cooked, bad))
        assert not verdict.ok and match in verdict.reason, verdict.reason
    both = _with(cooked, lines)
    both["lengths"][0]["proof"] = "0"
    assert "both" in check(both).reason
    packed = copy.deepcopy(cooked)
    packed["lengths"][0].pop("lrat", None)
    packed["lengths"][0]["lrat_xz"] = pack("\n".join(dropped))
    assert not check(packed).ok


def test_hints_do_not_survive_a_removed_game_or_a_smaller_core(cooked: dict) -> None:
    bad = copy.deepcopy(cooked)
    bad["lengths"][0]["games"].pop()
    bad["status"] = "unique"
    assert not check(bad).ok
    bad = copy.deepcopy(cooked)
    bad["lengths"][0].pop("core_xz", None)
    bad["lengths"][0]["core"] = "1"
    assert not check(bad).ok


def test_blocks_numbered_in_the_checkers_order(monkeypatch) -> None:
    """The solver sees the blocking clauses as they are found (an illegal prefix may come before
    a game); the hinted proof numbers them as the checker does (games first): the solver's own
    log must check so (no fresh solve as a fallback)."""
    from retrologic.spg import certify as writer
    real_first, real_fresh = writer.first_illegal, writer.hinted_refutation
    seen: list[int] = []

    def first_called_illegal(moves):           # the first model's last move "illegal"
        seen.append(1)
        return len(moves) - 1 if len(seen) == 1 else real_first(moves)

    def no_fresh(clauses, blocks, budget):
        assert any(not c for c in clauses + blocks), "the solver's log did not check"
        return real_fresh(clauses, blocks, budget)
    monkeypatch.setattr(writer, "first_illegal", first_called_illegal)
    monkeypatch.setattr(writer, "hinted_refutation", no_fresh)
    lst = writer.list_length(chess.BaseBoard(COOKED), 4, Budget(timeout=60), hints=True)
    assert len(lst.illegal) == 1 and len(lst.games) == 1 and lst.hinted and lst.proof


def test_the_checks_look_at_their_limit_between_steps() -> None:
    """`check` and `check_lrat` call `tick` every TICK_EVERY steps, so a certificate check's
    time limit or Ctrl-C (raised from it) stops a long proof; without a raise, the same
    verdicts."""
    import pytest as _pytest
    from retrologic.history import drup
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    steps = [([2, 3], [1, 2])] * 40 + [([2], [1, 2]), ([], [3, 4])]   # 40 lemmas, no unit
    plain = [(False, [2, 3])] * 40 + [(False, [2]), (False, [])]
    looks = []
    assert drup.check_lrat(clauses, steps, lambda: looks.append(1)).ok
    assert len(looks) >= 40 // drup.TICK_EVERY
    assert drup.check(clauses, plain, 3, lambda: looks.append(1)).ok

    class Stop(Exception):
        pass

    def stop() -> None:
        raise Stop

    with _pytest.raises(Stop):
        drup.check_lrat(clauses, steps, stop)
    with _pytest.raises(Stop):
        drup.check(clauses, plain, 3, stop)
