"""The quick path of a proof-game question (issue #22, item 1 "Latency"): the move-level search
alone, under a small node budget, on the stipulated length and every shorter length of the
same parity, before the CP-SAT strategy layer (and OR-Tools, about 0.5 s to import) is touched.

It settles a question only as the full path (spg/solver.py `solve`) proves it:
- the stipulated length's search finished, so its listing is every game of that length (the
  search is complete and pruned only by the sound bounds of spg/analysis.py; the strategy
  layer only freezes units that no game moves, so it cannot change the listing);
- the shorter lengths of the same side to move, in rising order as the full path takes them
  (those the bound prunes at the root skipped, as there), were each searched to the end,
  empty up to the first one that holds a game: so that game's length is exactly the shortest,
  and without one "no shorter game" is proved.
Any length left unfinished (the node cap, the user's limits or Ctrl-C) leaves the question to
the full path (the quick nodes are added to the question's count); a stipulated length the
quick search did finish is handed on, so the full path does not search it again (its listing
is every game of that length, whichever analysis pruned the search).
The user's time limit and Ctrl-C bind the quick search; under a user's node limit there is no
quick path, so that the limit counts the same searches as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Protocol, TypeVar

from retrologic.spg.search import Limits

# Nodes the quick path may search over all lengths before it gives up. The problems/spg files
# of <= 16 plies it settles need at most about 2,000 (bench/spg-latency.py); a node costs
# about 0.1 ms, so giving up costs the full path a few tenths of a second at most, once. A
# node count, not seconds, so that which path answers does not depend on the machine's load
# (it never changes the answer).
QUICK_NODES = 4000


class Decided(Protocol):
    """One length's outcome as the solver's engines report it (spg/solver.py `_Length`)."""

    games: list
    complete: bool


L = TypeVar("L", bound=Decided)


@dataclass
class Settled(Generic[L]):
    """What the quick search found: `main`, the stipulated length (every game of it when
    `main.complete`), and the shorter lengths in the order searched, each finished and all
    empty but perhaps the last, whose length is then `shorter`: the shortest length with a
    game. `done`: every length was decided, so this settles the question."""

    main: L
    runs: list[tuple[int, L]] = field(default_factory=list)
    shorter: int | None = None
    done: bool = False


def quick_limits(limits: Limits, nodes: int = QUICK_NODES) -> Limits | None:
    """The quick search's limits: `nodes`, the user's deadline and Ctrl-C. None (no quick
    path) when the time is up, and under a user's node limit: that limit then counts the
    same searches as the full path alone would run (its figure is the user's to compare)."""
    budget = limits.budget
    assert budget is not None
    if nodes <= 0 or budget.nodes is not None or budget.expired() is not None:
        return None
    return Limits(progress=False, positions=limits.positions,
                  budget=budget.share(nodes=nodes))


def settle(decide: Callable[[int, Limits, bool], L], prune_root: Callable[[int], bool],
           plies: int, limits: Limits) -> Settled[L] | None:
    """Decide the stipulated length and the shorter ones with `decide(length, limits, main)`
    (the solver's search of one length, the strategy layer left out) under quick_limits;
    `done` is False when some length is left undecided, None when there is no quick path.
    `prune_root(length)`: the bound rules the length out at the start (not searched, as in
    the full path)."""
    quick = quick_limits(limits)
    if quick is None:
        return None
    try:
        settled = Settled(decide(plies, quick, True))
        if not settled.main.complete:
            return settled
        for length in range(plies % 2, plies - 1, 2):
            if prune_root(length):
                continue
            run = decide(length, quick, False)
            if not run.complete:
                return settled
            settled.runs.append((length, run))
            if run.games:
                settled.shorter = length
                break
        settled.done = True
        return settled
    finally:
        assert limits.budget is not None and quick.budget is not None
        limits.budget.spent += quick.budget.spent   # the quick search's nodes were searched
