"""The garbage collector's policy during a long search: full collections ten times rarer.

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
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

FULL_EVERY = 100  # middle-generation collections between two full ones, at least (CPython: 10)


@contextmanager
def sparing_collector(full_every: int = FULL_EVERY) -> Iterator[None]:
    """Within the block, a full collection at most once per `full_every` collections of the
    middle generation (never more often than the caller's own setting)."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, full_every))
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)


__all__ = ["FULL_EVERY", "sparing_collector"]
