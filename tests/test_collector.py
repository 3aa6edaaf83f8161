"""The collector's policy for long searches (`retrologic.collector`): full collections rarer
inside the block, the caller's thresholds back after it (also after an exception), and the
legal-game finders run under it."""

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
