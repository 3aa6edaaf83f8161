"""One limit mechanism for every engine: a time budget, a node budget and Ctrl-C.

A `Budget` is made once per question from the user's `--timeout`/`--nodes` and handed down;
engines call `budget.check()` in their loops (cheap: a clock read every few calls) and catch
`LimitHit`, whose reason quotes the user's own figure ("time limit 5 s"), never a share of it.
Inner engines take `budget.share(fraction)`: a child with an earlier deadline but the same
interrupt and the same reason text, so a limit hit anywhere reads the same to the user.

Ctrl-C: `install_interrupt()` (called by the CLI) makes the first SIGINT a *soft* stop: a flag
that every `check()` sees, plus the callbacks engines register with `on_interrupt` (a CP-SAT
solver's `stop_search`, a SAT solver's `interrupt`), fired from a watcher thread, so they run
even while the main thread sits inside a C++ solver. An engine then returns *unknown* with the
reason "interrupted", the CLI prints what was finished and exits 130. If the process has not
finished `HARD_STOP_AFTER` seconds later, a second SIGINT is sent, and a second SIGINT (the
user's or that one) raises KeyboardInterrupt in the main thread.

SIGTERM (`kill PID`, what a batch scheduler or `timeout` sends at its limit) is the same soft stop
in the command's own process (`install_interrupt(terminate=True)`), so a killed run still prints
and keeps what it finished. Forked workers put SIGTERM back to its default and leave the
parent's wakeup pipe at once (`_fresh_locks_in_child`): the parent ends them with SIGTERM, and a
signal to a worker must never stop the parent.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterator, TypeVar

HARD_STOP_AFTER = 1.5       # seconds between the soft stop and the KeyboardInterrupt
MAX_TIMEOUT = 1e9           # seconds; larger figures are usage errors (about 31 years)
MAX_NODES = 10 ** 15        # nodes; larger figures are usage errors (the solvers' conflict
#   budgets are C longs: --nodes 1e20 was an OverflowError in pysat and a TypeError in CP-SAT)
INTERRUPTED = "interrupted"
T = TypeVar("T")             # what a turn under a share gives back (`in_share`)
NODES_RULE = "a node limit is a positive whole number, at most 10**15"

_interrupt = threading.Event()
# called with every Budget made (see on_budget): how a progress reporter sees the engines' counts
_budget_hooks: list[Callable[["Budget"], None]] = []
_callbacks: dict[int, Callable[[], None]] = {}
_callbacks_lock = threading.Lock()
_next_id = 0


class LimitHit(Exception):
    """A time, node or memory limit, or Ctrl-C, stopped an engine: its answer is unknown."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _figure(seconds: float) -> str:
    return f"{seconds:g}"


def check_timeout(value: float | None) -> float | None:
    """A user's time limit, or ValueError: positive, finite and at most MAX_TIMEOUT seconds."""
    if value is None:
        return None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value):
        raise ValueError("a time limit is a number of seconds")
    if value <= 0 or value > MAX_TIMEOUT:
        raise ValueError(f"a time limit is more than 0 and at most {MAX_TIMEOUT:g} seconds")
    return float(value)


def check_nodes(value: int | None) -> int | None:
    """A user's node limit, or ValueError: a positive whole number, at most MAX_NODES."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_NODES:
        raise ValueError(NODES_RULE)
    return value


@dataclass
class Budget:
    """Time and node limits of one question (None: unlimited), shared by the engines it runs.

    `timeout` is the user's figure, quoted in every reason; `deadline` the time.monotonic()
    value this budget (or a share of it) ends at. `nodes` counts what the engine calls a node
    (positions, conflicts, states); `spent` is what was charged so far.
    """

    timeout: float | None = None
    nodes: int | None = None
    deadline: float | None = None
    started: float = field(default_factory=time.monotonic)
    spent: int = 0
    _calls: int = 0
    nodes_figure: int | None = None     # the user's node figure, when `nodes` is what is left of it
    watched: bool = True                # counted by progress displays (progress.Census); False
    #                                     for a side step under its own cap that `--nodes` does
    #                                     not limit (a last-move search's cage discovery)
    # the shares running now as turns (`turn`), whose nodes are charged to this budget only when
    # they end: `live` counts them meanwhile, so a progress display moves during a long turn
    turns: list["Budget"] = field(default_factory=list, init=False, repr=False, compare=False)
    # the reason to stop for want of memory, or None (memory.MemoryGuard), asked with the clock;
    # shares inherit it
    guard: Callable[[], str | None] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.timeout = check_timeout(self.timeout)
        self.nodes = check_nodes(self.nodes)
        if self.deadline is None and self.timeout is not None:
            self.deadline = self.started + self.timeout
        for hook in _budget_hooks:
            hook(self)

    # -- reading -----------------------------------------------------------------------------
    def left(self) -> float | None:
        """Seconds left before the deadline (never negative), None without one."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.monotonic(), 0.0)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def live(self) -> int:
        """The nodes charged so far with those of the turns still running (`turn`): what a
        progress display shows (read from another thread: the list is copied first)."""
        return self.spent + sum(inner.live() for inner in list(self.turns))

    def time_reason(self) -> str:
        return f"time limit {_figure(self.timeout)} s" if self.timeout is not None else "time limit"

    def node_reason(self) -> str:
        return f"node limit {self.nodes_figure or self.nodes}"

    def nodes_left(self) -> int | None:
        """Nodes still to charge before the node limit (None: no limit; negative once a
        search has charged past it)."""
        return None if self.nodes is None else self.nodes - self.spent

    def nodes_used_up(self) -> bool:
        """The node limit is reached: nothing more may be charged (a solver's conflict budget,
        a listing not yet begun); `check` raises only past it."""
        return self.nodes is not None and self.spent >= self.nodes

    def expired(self) -> str | None:
        """The reason this budget is used up (interrupt, time, its memory guard), or None;
        reads the clock."""
        if _interrupt.is_set():
            return INTERRUPTED
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return self.time_reason()
        return self.guard() if self.guard is not None else None

    # -- charging ----------------------------------------------------------------------------
    def check(self, nodes: int = 0, *, every: int = 64) -> None:
        """Charge `nodes` and raise LimitHit when a limit is reached; the clock is read once
        every `every` calls (the interrupt flag at every call)."""
        self.spent += nodes
        if self.nodes is not None and self.spent > self.nodes:
            raise LimitHit(self.node_reason())
        if _interrupt.is_set():
            raise LimitHit(INTERRUPTED)
        self._calls += 1
        if self._calls >= every:
            self._calls = 0
            if self.deadline is not None and time.monotonic() >= self.deadline:
                raise LimitHit(self.time_reason())
            why = self.guard() if self.guard is not None else None
            if why is not None:
                raise LimitHit(why)

    def stopped(self, solver: str) -> LimitHit:
        """The LimitHit for a solver call that came back without an answer: Ctrl-C, the node
        count, or the deadline; a RuntimeError (a bug) when none of them explains it."""
        if _interrupt.is_set():
            return LimitHit(INTERRUPTED)
        if self.nodes_used_up():
            return LimitHit(self.node_reason())
        if self.deadline is not None:
            return LimitHit(self.time_reason())
        raise RuntimeError(f"{solver} stopped without an answer and no limit was hit")

    def check_now(self) -> None:
        """Raise LimitHit if interrupted or past the deadline (reads the clock)."""
        why = self.expired()
        if why is not None:
            raise LimitHit(why)

    # -- sharing -----------------------------------------------------------------------------
    def share(self, fraction: float = 1.0, *, seconds: float | None = None,
              nodes: int | None = None) -> "Budget":
        """A child budget for an inner step: ending at `fraction` of the time left (or after
        `seconds`, whichever is first), with its own node count: at most `nodes` and what the
        parent's node limit leaves, quoting the parent's figure when that is the bound."""
        deadline = self.deadline
        now = time.monotonic()
        if deadline is not None and fraction < 1.0:
            deadline = now + max(deadline - now, 0.0) * fraction
        if seconds is not None:
            deadline = now + seconds if deadline is None else min(deadline, now + seconds)
        child = Budget(None, None, deadline, now, guard=self.guard)
        child.timeout = self.timeout
        left = self.nodes_left()
        if nodes is not None and (left is None or nodes < left):
            child.nodes = nodes
        elif left is not None:
            child.nodes = max(left, 0)                                        # 0: none left
            child.nodes_figure = self.nodes_figure or self.nodes
        return child


@contextmanager
def turn(budget: Budget, inner: Budget) -> Iterator[Budget]:
    """A block run under `inner`, a share of `budget`: its nodes are charged to `budget` when
    the block ends, and counted by `budget.live()` while it runs (the legal `--progress` bar
    stood still for 10-20 s during the proof-game and schedule routes' turns before)."""
    budget.turns.append(inner)
    try:
        yield inner
    finally:
        budget.turns.remove(inner)       # first: a reader may count it short, never twice
        budget.spent += inner.spent


def in_share(budget: Budget, inner: Budget, run: Callable[[Budget], T | None]) -> T | None:
    """`run` under `inner`, a share of `budget` (`Budget.share`), its nodes charged to
    `budget` (`turn`): None when it gives none or the share alone runs out (then
    `inner.nodes_left()` is negative when its node count did); LimitHit only when `budget`'s
    own limits are hit."""
    result = None
    try:
        with turn(budget, inner):
            result = run(inner)
    except LimitHit:
        if budget.expired() is not None:      # the caller's limit, not the share's
            raise
    if result is None:
        budget.check(0, every=1)              # the caller's node limit (a result found is kept)
    return result


_active: list[Budget] = []    # the budgets of `active` blocks, innermost last


@contextmanager
def active(budget: Budget) -> Iterator[None]:
    """Make `budget` the one `poll` checks while the block runs: for helpers deep inside an
    engine that take no budget of their own (and may be memoised, so cannot), e.g. the
    pawn-columns kernel search of the static rules, seconds per position at worst."""
    _active.append(budget)
    try:
        yield
    finally:
        _active.pop()


def poll() -> None:
    """LimitHit when Ctrl-C was pressed or the innermost `active` budget is past its deadline
    (reads the clock: call it every few dozen steps); nothing outside `active`."""
    if _interrupt.is_set():
        raise LimitHit(INTERRUPTED)
    if _active:
        _active[-1].check_now()


def on_budget(hook: Callable[[Budget], None]) -> Callable[[], None]:
    """Call `hook` with every Budget made from now on (in this process), so a progress reporter
    (the web page's worker, issue #20) can read the node counts every engine charges, without
    each engine printing its own; returns the function that removes the hook."""
    _budget_hooks.append(hook)
    return lambda: _budget_hooks.remove(hook)


def budget_for(timeout: float | None = None, nodes: int | None = None,
               budget: Budget | None = None) -> Budget:
    """The budget an engine runs under: `budget` when the caller made one, else one from the
    Python caller's `timeout`/`nodes`. Unlike Budget(), a time limit of 0 (or less) is a budget
    already spent, not an error: API callers and tests use it for "no time at all" (the CLI
    still rejects it with check_timeout)."""
    if budget is not None:
        return budget
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and \
            -math.inf < timeout <= 0:                   # -inf is no figure: check_timeout says so
        spent = Budget(None, nodes)
        spent.timeout, spent.deadline = float(timeout), spent.started
        return spent
    return Budget(timeout, nodes)


# -- Ctrl-C ------------------------------------------------------------------------------------

def interrupted() -> bool:
    """True once Ctrl-C (SIGINT) has asked every engine to stop."""
    return _interrupt.is_set()


def stopped_by() -> str:
    """What stopped the run, in the user's words: "Ctrl-C", "SIGTERM", or "a stop request"
    (`request_stop` from code)."""
    return _cause or "a stop request"


def request_stop() -> None:
    """Ask every engine to stop as Ctrl-C does (for tests and embedding programs)."""
    _interrupt.set()
    with _callbacks_lock:
        callbacks = list(_callbacks.values())
    for cb in callbacks:
        try:
            cb()
        except Exception:  # noqa: BLE001 - a stop callback must never break the stop itself
            pass


def reset() -> None:
    """Clear a stop request (for tests and long-lived embedding programs): the next Ctrl-C is
    a soft stop again, and a hard stop still armed from an earlier one is disarmed."""
    global _timer, _signals, _cause, _hard_stop_held
    _interrupt.clear()
    _cause = None
    _hard_stop_held = False
    with _timer_lock:
        if _timer is not None:
            _timer.cancel()
        _timer = None
    _signals = 0


@contextmanager
def on_interrupt(callback: Callable[[], None]) -> Iterator[None]:
    """Run `callback` (from another thread) if Ctrl-C arrives while the block runs; if a stop
    was already requested, run it at once."""
    global _next_id
    with _callbacks_lock:
        key = _next_id
        _next_id += 1
        _callbacks[key] = callback
    if _interrupt.is_set():
        try:
            callback()
        except Exception:  # noqa: BLE001
            pass
    try:
        yield
    finally:
        with _callbacks_lock:
            _callbacks.pop(key, None)


_installed = False
_terminate_installed = False
_wakeup: tuple[int, int] | None = None   # the wakeup pipe, kept open for the process's life
_signals = 0
_cause: str | None = None       # the signal that stopped the run first (`stopped_by`)
_hard_stop_held = False         # `hold_hard_stop`: the caller bounds the stop itself
_timer_lock = threading.Lock()
_timer: threading.Timer | None = None


def _soft_stop(cause: str) -> None:
    """The first Ctrl-C or SIGTERM (`cause`): ask every engine to stop, arm the hard stop."""
    global _timer, _cause
    if _cause is None:
        _cause = cause
    with _timer_lock:       # armed first: a stop callback that blocks must not prevent it
        if _timer is None and not _hard_stop_held:
            _arm_hard_stop()
    request_stop()


def _arm_hard_stop() -> None:
    """Start the hard stop's timer (`_timer_lock` held): SIGINT to this process, a second
    signal, HARD_STOP_AFTER seconds from now."""
    global _timer
    _timer = threading.Timer(HARD_STOP_AFTER, os.kill, (os.getpid(), signal.SIGINT))
    _timer.daemon = True
    _timer.start()


def hold_hard_stop() -> bool:
    """Disarm the automatic hard stop of this stop, for a caller that stays responsive and
    bounds the stop itself (the batch's pool, giving its workers time to return what they
    finished; the proof-game race, its GRACE); a second Ctrl-C or SIGTERM still raises
    KeyboardInterrupt at once. Returns whether it was held already (`release_hard_stop`)."""
    global _timer, _hard_stop_held
    with _timer_lock:
        held, _hard_stop_held = _hard_stop_held, True
        if _timer is not None:
            _timer.cancel()
            _timer = None
    return held


def release_hard_stop() -> None:
    """End a `hold_hard_stop` whose bounded wait is over: a stop by a signal still under way
    gets its hard stop again, HARD_STOP_AFTER seconds from now."""
    global _hard_stop_held
    with _timer_lock:
        _hard_stop_held = False
        if _cause is not None and _interrupt.is_set() and _timer is None:
            _arm_hard_stop()


def _fresh_locks_in_child() -> None:
    """After any fork, in the child: new locks and no callbacks. The fork may have caught a
    parent's thread (the Ctrl-C watcher in the middle of a stop) holding a lock; the child has
    no such thread, so its copy of that lock would stay held forever and the child's first
    solver call (`on_interrupt`) or `reset` would hang. The parent's callbacks belong to frames
    the child never returns to."""
    global _callbacks_lock, _timer_lock, _timer, _installed, _terminate_installed
    _callbacks_lock = threading.Lock()
    _timer_lock = threading.Lock()
    _timer = None           # the parent's hard-stop timer thread does not exist in the child
    _callbacks.clear()
    if _installed or _terminate_installed:
        try:        # the parent's pipe (read by its watcher thread) and its SIGTERM soft stop
            signal.set_wakeup_fd(-1)        # are the parent's: install_interrupt starts afresh
            if _terminate_installed:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _installed = _terminate_installed = False
        except (ValueError, OSError):   # forked from a thread other than the main one
            pass


def after_fork() -> None:
    """In a forked worker (spg/race.py): forget the parent's Ctrl-C state and install the soft
    stop afresh (the parent's watcher thread does not survive a fork), so the parent's relayed
    SIGINT stops this process's engines softly, CP-SAT included. Its locks are already fresh:
    `_fresh_locks_in_child` runs in every forked child (os.register_at_fork)."""
    global _installed
    reset()
    _installed = False
    install_interrupt()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_locks_in_child)


def _on_signal(signum: int, frame: object) -> None:
    """SIGINT (and SIGTERM where installed), in the main thread between bytecodes: count it;
    the second raises KeyboardInterrupt."""
    # No lock here: the main thread may hold one (on_interrupt's bookkeeping runs around every
    # solver call), and taking it again from the handler deadlocks the process. The soft stop
    # is the watcher's job: the wakeup fd wakes it for every signal.
    global _signals
    _signals += 1
    if _signals > 1:                     # a second Ctrl-C or SIGTERM, or the hard stop's timer
        raise KeyboardInterrupt


def install_interrupt(*, terminate: bool = False) -> None:
    """Make SIGINT a soft stop (see the module docstring), and SIGTERM too with `terminate` (the
    command's own process only: a worker must die when its parent terminates it). Main thread
    only; idempotent."""
    global _installed, _terminate_installed
    if threading.current_thread() is not threading.main_thread():
        return
    if terminate and not _terminate_installed:
        _terminate_installed = True
        signal.signal(signal.SIGTERM, _on_signal)
    if _installed:
        return
    _installed = True
    global _wakeup
    reader, writer = _wakeup = os.pipe()          # raw fds: nothing to close at exit
    os.set_blocking(writer, False)

    def watch() -> None:                      # wakes while the main thread is inside C code
        while True:
            try:
                data = os.read(reader, 64)
            except OSError:
                return
            if not data:
                return
            for number in data:     # the wakeup fd gets every handled signal: only ours stop
                if number in (signal.SIGINT, signal.SIGTERM) and \
                        signal.getsignal(number) is _on_signal:
                    _soft_stop("SIGTERM" if number == signal.SIGTERM else "Ctrl-C")
                    break

    signal.signal(signal.SIGINT, _on_signal)
    signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
    threading.Thread(target=watch, name="retrologic-interrupt", daemon=True).start()
