"""Progress of the spg-listing writer on stderr, with `spg`/`solve --progress` (issue 22).

Under a raised `--certificate-mib` a listing takes up to half an hour after the verdict (buchanan-
2002: 28 min), mostly inside CaDiCaL's slices; without these lines the command looked stalled.
A context variable says whether to show them, so the writer's inner loops need no extra
argument. `solve -j` passes no `--progress` to its workers (they draw bars, docs/batch.md).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

EVERY = 5.0            # seconds between two lines of one solver's run

_SHOWN: ContextVar[bool] = ContextVar("writer_progress", default=False)


@contextmanager
def shown(on: bool) -> Iterator[None]:
    """Run the block with the writer's progress lines shown (`on`) or not."""
    token = _SHOWN.set(on)
    try:
        yield
    finally:
        _SHOWN.reset(token)


def say(text: str) -> None:
    """One progress line of the writer, when shown."""
    if _SHOWN.get():
        print(f"spg listing: {text}", file=sys.stderr, flush=True)


class Ticker:
    """A line at most every EVERY seconds for one solver's run: `tick` is called after every
    slice, and the text is only made when the line is due."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.started = self.last = time.monotonic()

    def tick(self, text: Callable[[], str]) -> None:
        if not _SHOWN.get():
            return
        now = time.monotonic()
        if now - self.last >= EVERY:
            self.last = now
            say(f"{self.label}: {text()}, {now - self.started:.0f} s")
