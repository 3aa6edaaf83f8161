"""Two proof-game engines side by side on two cores (issue #22, "Reach"): each job runs in a
forked process, the first complete answer wins and the other process is stopped.

Both engines (the search, spg/search.py, and the schedule model, spg/listing.py) are complete,
so whichever exhausts a length first decides it; the race changes only how fast, never what is
answered. A job returns a plain dict (picklable: games as UCI strings) with at least
`complete`; a job that dies gives an error record instead of an answer, never a verdict.
A job may also `tell` the parent notes before its answer (work finished on the side, kept
even when another job's answer stops it). Ctrl-C (or `limits.request_stop`) is relayed by the
parent to each child, which stops softly and sends what it found; after `GRACE` seconds the
parent stops them outright, holding the command's hard stop meanwhile (it would come as soon
and lose what the children sent). A child whose parent dies exits.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any, Callable

from retrologic import limits

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

Job = Callable[[], dict[str, Any]]

GRACE = 1.5    # seconds a child has to send its answer after Ctrl-C or the deadline
POLL = 0.1     # seconds between the parent's checks of Ctrl-C and the deadline
# A worker's own budget ends this much before the parent's deadline (at most EARLY_SHARE of
# the time it has): a CP-SAT solve on a large model returns up to a second or two past its time
# limit, and an answer that misses the GRACE is lost with its games (measured 2026-12-03 on a
# 35-ply diagram of 326,449 variables: answers 0.5-2.3 s past the deadline, both lost once).
EARLY = 1.0
EARLY_SHARE = 0.1

_notes: "Connection | None" = None    # in a worker: the pipe `tell` sends its notes on


def available() -> bool:
    """Whether racing can help: a core to spare -- `possible()`, and the CPUs idle over a
    tenth of a second (Linux: /proc/stat) adding up to one and a half cores or more, this
    process's own included (it sleeps while it looks); elsewhere no idle check. A batch
    `solve -j N` sets RETROLOGIC_RACE=0 (its workers fill the cores), and so may a user of a
    busy machine. The load average is not used: it still counts the previous problem's race
    for a minute after it ended. No import of multiprocessing here: a short problem never
    gets this far."""
    if os.environ.get("RETROLOGIC_RACE") == "0" or not possible():
        return False
    idle = _idle_cores()
    return idle is None or idle >= 1.5


def _idle_cores(seconds: float = 0.1) -> float | None:
    """Cores idle over `seconds`, from /proc/stat (None where it cannot be read)."""
    def sample() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                fields = [int(x) for x in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        if len(fields) < 5:
            return None
        return sum(fields), fields[3] + fields[4]      # all jiffies, idle + iowait
    first = sample()
    time.sleep(seconds)
    second = sample()
    if first is None or second is None or second[0] <= first[0]:
        return None
    total, idle = second[0] - first[0], second[1] - first[1]
    return _cores_online() * idle / total


def _cores_online() -> int:
    return os.cpu_count() or 1


def possible() -> bool:
    """Whether this process can race at all: fork, two cores or more, and not a daemonic
    multiprocessing worker (which may not have children; multiprocessing is imported already
    in any such worker, so a plain process pays nothing to find out)."""
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.current_process().daemon:
        return False
    return hasattr(os, "fork") and _cores() >= 2


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _orphan_watch(parent: int) -> None:
    """Exit when the parent is gone (killed outright): a worker never outlives its question."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _child(job: Job, send: "Connection", parent: int,
           budget: limits.Budget | None = None) -> None:
    """Run one job in the forked process and send its dict (or an error record); exit at once,
    without the parent's exit handlers. The worker leaves the terminal's process group, so a
    Ctrl-C reaches it once, relayed by the parent (a soft stop: it still sends its games).
    `budget`, this process's copy of the jobs' budget, ends early (`answer_early`)."""
    global _notes
    try:
        _notes = send
        os.setpgrp()
        limits.after_fork()
        if budget is not None:
            answer_early(budget)
        threading.Thread(target=_orphan_watch, args=(parent,), daemon=True).start()
        try:
            result = job()
        except KeyboardInterrupt:   # its own hard stop, a Ctrl-C it took too long to heed
            result = {"complete": False, "reason": f"{limits.INTERRUPTED} (before it answered)"}
        except BaseException as e:  # noqa: BLE001 - reported to the parent as this job's error
            result = {"complete": False,
                      "error": f"{type(e).__name__}: {e}",
                      "traceback": traceback.format_exc(limit=8)}
        send.send(result)
        send.close()
    finally:
        os._exit(0)


def tell(note: dict[str, Any]) -> None:
    """In a worker: send `note` (picklable) to the parent now, ahead of the job's answer, so
    that what the job finished on the side survives its being stopped; elsewhere nothing."""
    if _notes is not None:
        _notes.send({"note": note})


def answer_early(budget: limits.Budget) -> None:
    """In a worker: end its copy of `budget` EARLY seconds (at most EARLY_SHARE of the time
    left) before the parent's deadline, so that its answer, games included, reaches the parent
    by the deadline even when a solver returns late; the reasons still quote the user's
    figure."""
    if budget.deadline is not None:
        left = max(budget.deadline - time.monotonic(), 0.0)
        budget.deadline -= min(EARLY, EARLY_SHARE * left)


def first_complete(jobs: dict[str, Job], stop: Callable[[], bool],
                   deadline: float | None = None,
                   budget: limits.Budget | None = None,
                   on_note: Callable[[str, dict[str, Any]], None] | None = None
                   ) -> dict[str, dict[str, Any]]:
    """Run `jobs` in parallel processes; return every answer received, by job name. As soon as
    one answer says `complete`, the others are stopped (their entries are then missing). A
    job's notes (`tell`) go to `on_note(name, note)` as they arrive. When
    `stop()` turns true (Ctrl-C) or the `deadline` (a time.monotonic() value) passes, the
    children get GRACE seconds to answer, then are terminated. `budget`: the jobs' budget,
    which each child's copy ends early (`answer_early`)."""
    import multiprocessing
    from multiprocessing.connection import wait
    ctx = multiprocessing.get_context("fork")
    running: dict[str, tuple[Any, "Connection"]] = {}
    answers: dict[str, dict[str, Any]] = {}
    held: bool | None = None       # the hard stop held by this race (None: not)
    try:
        for name, job in jobs.items():
            recv, send = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_child, args=(job, send, os.getpid(), budget),
                                  name=f"retrologic-{name}", daemon=True)
            process.start()
            send.close()
            running[name] = (process, recv)
        cutoff: float | None = None
        while running:
            ready = wait([recv for _, recv in running.values()], timeout=POLL)
            for name, (process, recv) in list(running.items()):
                if recv not in ready:
                    continue
                try:
                    message = recv.recv()
                    if "note" in message and "complete" not in message:
                        if on_note is not None:
                            on_note(name, message["note"])
                        continue
                    answers[name] = message
                except (EOFError, OSError):
                    process.join(1.0)
                    answers[name] = {"complete": False,
                                     "error": f"the {name} process ended without an answer "
                                              f"(exit status {process.exitcode})"}
                del running[name]
                process.join(1.0)
                if answers[name].get("complete"):
                    return answers
            now = time.monotonic()
            if cutoff is None and (stop() or (deadline is not None and now >= deadline)):
                cutoff = now + GRACE
                if stop():                 # Ctrl-C: relayed once to each worker
                    # this wait is bounded (GRACE, then terminate): the command's hard stop,
                    # due as soon, would lose the answers on their way (2 of 4 Ctrl-Cs on
                    # nallusamy-2022 printed no verdict, 2026-12-07)
                    held = limits.hold_hard_stop()
                    for process, _ in running.values():
                        if process.pid is not None and process.is_alive():
                            os.kill(process.pid, signal.SIGINT)
            if cutoff is not None and now >= cutoff:
                break
        return answers
    finally:
        for process, recv in running.values():
            if process.is_alive():
                process.terminate()
            process.join(2.0)
            if process.is_alive():
                process.kill()
                process.join()
            recv.close()
        if held is False:
            limits.release_hard_stop()
