"""The collector's policy for long searches (`retrologic.collector`): full collections rarer
inside the block, the caller's thresholds back after it (also after an exception), and the
legal-game finders run under it; the finders' turns with the collector paused."""

from __future__ import annotations

import gc

import chess
import pytest

from retrologic import collector
from retrologic.legalgame import find
from retrologic.limits import Budget


@pytest.fixture()
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_full_collections_rarer_inside_and_restored_after(default_thresholds) -> None:
    with collector.sparing_collector():
        assert gc.get_threshold() == (700, 10, collector.FULL_EVERY)
        with collector.sparing_collector(50):          # never more often than the caller's
            assert gc.get_threshold() == (700, 10, collector.FULL_EVERY)
        assert gc.get_threshold() == (700, 10, collector.FULL_EVERY)
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(KeyError):
        with collector.sparing_collector(1_000):
            assert gc.get_threshold() == (700, 10, 1_000)
            raise KeyError("the block failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_the_finders_run_under_the_policy(default_thresholds,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def recorded(*_args: object) -> None:
        seen.append(gc.get_threshold())
        return None

    monkeypatch.setattr(find, "_find_game", recorded)
    assert find.find_game(chess.Board(), Budget(None)) is None
    assert seen == [(700, 10, collector.FULL_EVERY)]
    assert gc.get_threshold() == (700, 10, 10)


def test_collector_paused_inside_and_restored_after() -> None:
    enabled = gc.isenabled()
    gc.enable()
    gc.unfreeze()
    try:
        with collector.paused_collector():
            assert not gc.isenabled()
            with collector.paused_collector():
                assert not gc.isenabled()
            assert not gc.isenabled()           # the outer block's setting, not "on"
        assert gc.isenabled()
        with pytest.raises(KeyError):
            with collector.paused_collector():
                raise KeyError("the block failed")
        assert gc.isenabled()
        gc.disable()
        with collector.paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()               # a caller's "off" stays off
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def test_what_a_pause_leaves_alive_is_frozen_until_the_sparing_block_ends() -> None:
    """The objects made during a pause are all in the youngest generation: frozen at its end
    (no later young collection walks them), back in the oldest one after `sparing_collector`."""
    gc.unfreeze()
    kept = []
    try:
        with collector.sparing_collector():
            with collector.paused_collector():
                kept.extend([i, str(i)] for i in range(10_000))
            assert gc.get_freeze_count() >= 10_000
            assert not any(kept[0] is o for o in gc.get_objects(generation=0))
        assert gc.get_freeze_count() == 0
        assert any(kept[0] is o for o in gc.get_objects(generation=2))
    finally:
        gc.unfreeze()


def test_the_finders_turns_run_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def recorded(*_args: object) -> None:
        seen.append(gc.isenabled())
        return None

    monkeypatch.setattr(find.Finders, "_run", recorded)
    enabled = gc.isenabled()
    gc.enable()
    try:
        assert find.Finders(chess.Board(), 100).run(Budget(None)) is None
        assert seen == [False] and gc.isenabled()
    finally:
        gc.unfreeze()
        if not enabled:
            gc.disable()


def test_a_finder_run_leaves_no_cyclic_garbage() -> None:
    """What the pause relies on: the finders' search of a middlegame position (seed 24300 of
    bench/legal.py, under a node cap) makes no reference cycle for a collector to free."""
    target = chess.Board("1r3b1r/p2b1n1p/k1p1p3/1p1p2p1/PPB1p1PN/2P1PR2/3P2PP/R1B3K1 b - - 4 24")
    gc.unfreeze()       # what earlier tests' finder turns froze: swept now, not counted below
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        find.Finders(target, 400).run(Budget(None))
        gc.unfreeze()       # the pause froze what it left: a frozen cycle is never collected
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def test_a_dropped_analysis_is_freed_without_a_collection() -> None:
    """The proof-game analysis holds no reference cycle (its obstruction split builds views
    from the analysis' parameters, not through a bound method), so it is freed when dropped,
    not left for a full collection; its obstruction views the same."""
    import weakref

    from retrologic.spg.analysis import Analysis

    target = chess.Board("r1bqkbnr/4pp2/p6p/1pPpQ3/1Pn3Rp/N4NP1/PBP1PP2/2KR1B2 w q - 0 18")
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        analysis = Analysis(chess.Board(), target)
        assert analysis.bound.side_bound(chess.Board(), chess.WHITE) > 0
        view = analysis.obstruction_split.view(chess.BB_SQUARES[chess.C1])
        assert view.extra_frozen & chess.BB_SQUARES[chess.C1]
        gone, view_gone = weakref.ref(analysis), weakref.ref(view)
        del analysis, view
        assert gone() is None and view_gone() is None
    finally:
        if enabled:
            gc.enable()
