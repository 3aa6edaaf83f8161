"""`spg --progress`'s estimate of the share of a length's tree searched (`Search.share_done`,
Knuth's estimate from the path's place near the root): it never falls, stays within [0, 1],
is 1.0 once the length is searched, and goes on rising when a limit-stopped search is run on."""

from __future__ import annotations

import chess

from retrologic.limits import Budget
from retrologic.spg import solver as spg
from retrologic.spg.search import Limits, Search

# problems/spg/queen-return-d1.toml: 7 plies, one game, about 800 positions searched
QUEEN = "rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR"


def _sampled(search: Search) -> list[float]:
    """Record `share_done` at every position the search enters."""
    shares: list[float] = []
    visit = search._visit

    def sampling(board: chess.Board, plies: int) -> bool:
        shares.append(search.share_done())
        return visit(board, plies)

    search._visit = sampling  # type: ignore[method-assign]
    return shares


def test_the_share_rises_to_one_and_never_falls() -> None:
    target = spg.parse_target(QUEEN, 7)
    search, _ = spg._search(target, 7, Limits(progress=True))
    shares = _sampled(search)
    result = search.run()
    assert result.complete and result.count() == 1
    assert len(shares) >= result.nodes > 500     # memo hits enter too
    assert all(0.0 <= s <= 1.0 for s in shares)
    assert all(a <= b for a, b in zip(shares, shares[1:]))
    # it moves through the range rather than jumping to the end
    assert shares[len(shares) // 10] < 0.5 < shares[-1] < 1.0
    assert search.share_done() == 1.0


def test_a_search_run_on_after_a_limit_rises_again_to_one() -> None:
    target = spg.parse_target(QUEEN, 7)
    search, _ = spg._search(target, 7, Limits(progress=True, budget=Budget(None, 200)))
    shares = _sampled(search)
    first = search.run()
    assert not first.complete and "node limit" in (first.reason or "")
    stopped = search.share_done()
    assert 0.0 < stopped < 1.0
    search.limits = Limits(progress=True)
    shares.clear()
    second = search.run()
    assert second.complete and second.count() == 1
    assert all(a <= b for a, b in zip(shares, shares[1:]))
    assert search.share_done() == 1.0


def test_without_progress_nothing_is_tracked() -> None:
    """No --progress: the search keeps no trail (no cost per position), 1.0 at the end."""
    target = spg.parse_target(QUEEN, 7)
    search, _ = spg._search(target, 7, Limits())
    shares = _sampled(search)
    assert search.run().complete
    assert set(shares) == {0.0} and search.share_done() == 1.0


def test_a_search_gives_up_only_when_late_and_hopeless() -> None:
    """The race's rule (Search.give_up = (seconds, share)): the search stops, saying why,
    once it has run that long with less than that share searched -- not before the time,
    and not when the share is reached; a search given up can still be run on to the end."""
    target = spg.parse_target(QUEEN, 7)
    for rule in [(3600.0, 1.0), (0.0, 0.0)]:          # too early; never under a share of 0
        search, _ = spg._search(target, 7, Limits())
        search.give_up = rule
        result = search.run()
        assert result.complete and result.count() == 1 and not search.gave_up
    search, _ = spg._search(target, 7, Limits())
    search.give_up = (0.0, 1.0)                         # late at once, and never all of it
    result = search.run()
    assert not result.complete and search.gave_up
    assert (result.reason or "").startswith("given up after 0 s: under 100 % of the length")
    assert search.share_done() < 1.0
    search.give_up = None
    assert search.run().complete and search.share_done() == 1.0
