"""The garbage collector's policy during a long search: full collections ten times rarer, and
none at all while the legal-game finders search.

A search fills memo tables of hundreds of thousands of small objects that live as long as the
search; CPython's full collection walks every one of them each time it runs (by default after
ten collections of the middle generation, once a quarter of the old objects is new). Measured
on the legal-game finder (issue #19, bench/README-legal.md): the collector took a quarter to a
third of the CPU of a 10 s question, and the share grows with what earlier questions of the
same process left alive. `sparing_collector` raises the oldest generation's threshold for the
duration of a block (the two younger generations' collections, which free short-lived cycles,
run as before) and restores the caller's thresholds after it. Objects without cycles are freed
as before; cyclic garbage would wait longer for a sweep (measured: 251 MB resident against
249 MB). The proof-game analysis, the one large structure that had a cycle (its obstruction split
held a bound method of it), no longer has one (`spg.analysis`: freed when dropped).

With full sweeps rare, the collections still took about 7 % of the finders' CPU (timed by
`gc.callbacks`: 0.9-1.2 s of 12-15 s on six positions under a 3,000-position cap, some 4,000
collections of the youngest generation, 350 of the middle one and 3 full ones a position, every
one freeing nothing), so `paused_collector` turns the automatic collector off for the finders'
searches (the same searches with 6.7 % less CPU: 20 positions under a 2,000-position cap, each
arm on each core in turn; 0.937x on the 359 games of the same length of 400 fresh seeds at 10 s,
bench/README-legal.md): objects are freed by their reference counts as always, and what cyclic
garbage they make waits until the end of the enclosing `sparing_collector` block, then for a
full collection (16 runs of `find_game` of 0.1-8 s with it all paused: none in 15, 261 objects
in one). The proof-game route and the schedule model, which do make some (8,845 objects in a
45 s run, against 4,048 left under `sparing_collector`), stay under `sparing_collector` alone.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

FULL_EVERY = 100  # middle-generation collections between two full ones, at least (CPython: 10)


@contextmanager
def sparing_collector(full_every: int = FULL_EVERY) -> Iterator[None]:
    """Within the block, a full collection at most once per `full_every` collections of the
    middle generation (never more often than the caller's own setting); after it, the objects
    frozen inside it (`paused_collector`) back in the oldest generation (`gc.unfreeze`)."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, full_every))
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
        gc.unfreeze()   # what a `paused_collector` block froze: back to the oldest generation


@contextmanager
def paused_collector() -> Iterator[None]:
    """Within the block, no automatic collection; after it (also after an exception), what it
    left alive frozen (`gc.freeze`: the permanent generation, which no collection walks) and
    the collector as the caller had it (on or off). Objects made while the collector is off
    all stay in the youngest generation, so without the freeze the first collection after the
    block walks every one still alive (a resumable finder's memo tables, or the finder of a
    LimitHit whose frames the exception holds): measured 1.4-1.9 s past a 30 s limit. Use it
    inside `sparing_collector`, which unfreezes them at its end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


__all__ = ["FULL_EVERY", "paused_collector", "sparing_collector"]
