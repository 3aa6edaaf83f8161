"""The web page's solver process (issue #20, item 4): `python -m retrologic.web.worker solve
FILE --json ...` is `retrologic solve` plus a progress line on stderr every INTERVAL seconds,
so the page shows the engine working, not only a clock.

Why here and not in the engines: most engines print nothing while they search (the last-move
search, the game finder) or one line at the end (the proof-game search), and they all share
one count already: the nodes charged to the question's limits.Budget objects, which is what
`--nodes` limits. The worker registers every Budget the process makes (weakly: nothing is kept
alive) and reports the largest `spent` one of them has reached so far (a child budget of a
shared question starts from, or is merged back into, its parent's count), with the process's
CPU seconds:

    retrologic-progress {"elapsed": 1.5, "cpu": 1.38, "nodes": 4242}

It listens through `limits.on_budget`; `retrologic solve` itself is unchanged.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import weakref
from typing import Callable, Sequence

from retrologic import limits
from retrologic.web.progress import PREFIX

INTERVAL = 0.5              # seconds between progress lines


class Census:
    """Every limits.Budget made in this process since `install`, weakly held."""

    def __init__(self) -> None:
        # weak references in a list: a Budget (a dataclass with __eq__) is not hashable
        self.budgets: list[weakref.ref[limits.Budget]] = []
        self.started = time.monotonic()
        self.peak = 0

    def install(self) -> Callable[[], None]:
        """Register every Budget made from now on; returns the function that stops it."""
        return limits.on_budget(lambda budget: self.budgets.append(weakref.ref(budget)))

    def nodes(self) -> int:
        """The largest node count charged to one budget so far (0 before the engine starts):
        a peak, so the figure never goes back when a phase's budget ends and the next one
        starts from 0 (summing budgets would count twice what a child merges back)."""
        alive = [b for b in (ref() for ref in list(self.budgets)) if b is not None]
        if len(alive) < len(self.budgets) // 2:         # forget the dead ones now and then
            self.budgets = [weakref.ref(b) for b in alive]
        self.peak = max([self.peak] + [b.spent for b in alive])
        return self.peak

    def line(self) -> str:
        return PREFIX + json.dumps({"elapsed": round(time.monotonic() - self.started, 1),
                                    "cpu": round(time.process_time(), 2),
                                    "nodes": self.nodes()})


def report(census: Census, stop: threading.Event, stream=None) -> None:
    """Write a progress line every INTERVAL seconds until `stop` is set."""
    out = stream if stream is not None else sys.stderr
    while not stop.wait(INTERVAL):
        try:                    # one write per line: never split by another thread's output
            out.write(census.line() + "\n")
            out.flush()
        except (OSError, ValueError):       # the server went away: the job is being killed
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run the retrologic command `argv` (`solve ...`) with progress lines; its exit status."""
    from retrologic.cli import main as cli_main
    census = Census()
    census.install()
    stop = threading.Event()
    thread = threading.Thread(target=report, args=(census, stop), daemon=True)
    thread.start()
    try:
        return cli_main(None if argv is None else list(argv))   # None: the console's argv
    finally:
        stop.set()


if __name__ == "__main__":
    sys.exit(main())
