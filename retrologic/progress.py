"""Progress of the engines that print nothing while they search (the legal-game finder, the
last-move search): every limits.Budget the process makes, weakly held, and the largest node
count one of them has been charged, with its turns still running (`limits.turn`) -- the one count
every engine shares, what `--nodes` limits.

Read by the web page's worker (`web.worker`, a progress line every half second) and, with
`--progress`, by `legal` and `last-move` on the command line (`node_bar`: a tqdm counter on
stderr; the web worker turns the counters off with `without_bars`, as it prints its own lines).
`ticking` is a heartbeat for one step that tells nothing until it ends (a CP-SAT solve).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import weakref
from typing import Any, Callable, Iterator

from retrologic import limits

INTERVAL = 0.5              # seconds between two readings of the count
TICK = 5.0                  # seconds between two heartbeat lines of one long step (`ticking`)
_bars = {"shown": True}     # False in the web worker: its own progress lines say the same


class Census:
    """Every limits.Budget made in this process since `install`, weakly held."""

    def __init__(self) -> None:
        # weak references in a list: a Budget (a dataclass with __eq__) is not hashable; the
        # engine's thread appends while a reader thread prunes, hence the lock
        self.budgets: list[weakref.ref[limits.Budget]] = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.peak = 0

    def install(self) -> Callable[[], None]:
        """Register every Budget made from now on; returns the function that stops it."""
        return limits.on_budget(self._register)

    def _register(self, budget: limits.Budget) -> None:
        with self.lock:
            self.budgets.append(weakref.ref(budget))

    def nodes(self) -> int:
        """The largest node count charged to one budget so far, with its turns still running
        (`Budget.live`; 0 before the engine starts): a peak, so the figure never goes back when
        a phase's budget ends and the next one starts from 0 (summing budgets would count twice
        what a child merges back); budgets not `watched` left out (a step `--nodes` does not
        limit, whose count would pass it)."""
        with self.lock:
            alive = [b for b in (ref() for ref in self.budgets) if b is not None]
            if len(alive) < len(self.budgets) // 2:     # forget the dead ones now and then
                self.budgets = [weakref.ref(b) for b in alive]
        self.peak = max([self.peak] + [b.live() for b in alive if b.watched])
        return self.peak

    def figures(self) -> dict[str, float]:
        """Wall seconds since the census began, the process's CPU seconds, the node count."""
        return {"elapsed": round(time.monotonic() - self.started, 1),
                "cpu": round(time.process_time(), 2), "nodes": self.nodes()}


@contextlib.contextmanager
def node_bar(label: str, show: bool, total: int | None = None,
             interval: float = INTERVAL, unit: str = "node") -> Iterator[None]:
    """While the block runs, a tqdm counter of the nodes charged on stderr, read every
    `interval` seconds by a thread (`total`: the node limit, when there is one; `unit`: what
    a charge counts, "step" for a certificate's check); nothing at all when not `show` or
    under `without_bars`. The bar ends on the last count."""
    if not show or not _bars["shown"]:
        yield
        return
    from tqdm import tqdm
    census = Census()
    restore = census.install()
    stop = threading.Event()
    bar = tqdm(total=total, desc=label, unit=unit, file=_Unfailing(sys.stderr),
               dynamic_ncols=True, leave=True)

    def follow(bar: Any = bar) -> None:
        while not stop.wait(interval):
            bar.update(census.nodes() - bar.n)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        restore()
        thread.join()
        bar.update(census.nodes() - bar.n)
        bar.close()


@contextlib.contextmanager
def ticking(say: Callable[[float], None] | None, every: float = TICK) -> Iterator[None]:
    """While the block runs, `say(seconds)` from a thread every `every` seconds (the seconds
    since the block began): a heartbeat for a step that tells nothing until it ends, as one
    CP-SAT solve of a schedule model (nallusamy-2022's first solve ran 597 s without a line).
    Nothing without `say`; a `say` that raises OSError or ValueError (stderr gone) ends the
    ticks, never the step."""
    if say is None:
        yield
        return
    stop = threading.Event()
    started = time.monotonic()

    def beat() -> None:
        while not stop.wait(every):
            try:
                say(time.monotonic() - started)
            except (OSError, ValueError):
                return

    thread = threading.Thread(target=beat, name="progress-ticks", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(1.0)        # a line being written to a stalled pipe must not hold the step


class _Unfailing:
    """A stream whose writes never raise: once stderr is gone (a closed pipe), the counter's
    output is dropped. tqdm holds its lock while it writes, and a write that raises leaves the
    lock taken (the next update waits for ever): a progress display must never stop, let alone
    hang, the question it shows."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self.stream.write(text)
            except (OSError, ValueError):
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.gone = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def without_bars() -> None:
    """No `node_bar` counters in this process from now on (the web worker: it writes the same
    census as its own progress lines, which the page reads)."""
    _bars["shown"] = False


__all__ = ["Census", "INTERVAL", "TICK", "node_bar", "ticking", "without_bars"]
