"""Worker processes for `solve -j N` (issue #20, "Collections").

A small pool of our own rather than concurrent.futures or multiprocessing.Pool, for two
guarantees those do not give: a worker that dies (a segfault in a native solver, the OOM killer)
is *that problem's* error record and a fresh worker takes the next problem (a ProcessPoolExecutor
breaks every pending future; a multiprocessing.Pool waits forever for the lost task), and Ctrl-C
reaches the engines inside the workers.

Ctrl-C: workers ignore SIGINT and SIGTERM themselves (a terminal, or `timeout`, signals the
whole process group); after the parent's soft stop (retrologic.limits) its loop writes to each
worker's own stop pipe, and a thread in the worker turns that (or the pipe's end: the parent is
gone) into `limits.request_stop()`, so each engine returns *unknown: interrupted* as it would in
one process; HARD_STOP_AFTER seconds later the worker's own hard stop (SIGUSR1, `_hard_stop`)
raises KeyboardInterrupt in its problem, as a single process's does: the listing writer catches
it and keeps the proved verdict; elsewhere the problem is "not run". The parent does not kill at
its own hard stop (`limits.hold_hard_stop`), which lost those verdicts: workers still busy
WORKER_GRACE seconds later (a CaDiCaL slice holds the GIL for up to 4-10 s), or at a second
Ctrl-C, are killed, their problems "not run"; after twice HARD_STOP_AFTER the command says on
stderr that it waits, and how to stop now. A pipe, not a multiprocessing Event: setting an Event
waits for every waiting thread to wake, and a worker inside a solver that holds the GIL (or a
dead one) held the parent's stop for the length of its problem (bench/signals.py, 2026-12-05: 18
s after a SIGTERM to the group). A SIGTERM to the group also ends the forkserver, after which a
worker's sentinel reads as ended while the worker lives on: the parent then waits on the
worker's pipe alone (`_Worker.orphaned`) and kills it by its pid.

Workers are started with the `forkserver` method where there is one (not `fork`: the parent has
threads), else `spawn`; they are not daemonic, since an engine may start processes of its own
(the proof-game race is switched off in workers, RETROLOGIC_RACE=0: the workers take the cores).
Each loads the problem file itself (a task is a file, an index and the options), and every limit
applies to each problem, as in one process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Iterator

from retrologic import limits
from retrologic.collection.records import Done, error_done, solve_problem
from retrologic.console import say
from retrologic.errors import InputError

POLL = 0.1          # seconds between looks at the stop flag while waiting for workers
WORKER_GRACE = 15.0     # seconds busy workers have after a stop to return their records


@dataclass
class Job:
    """What a worker needs to solve one problem (picklable)."""

    number: int         # position in the run (input order)
    path: str
    index: int
    count: int
    label: str
    options: Any        # retrologic.options.SolveOptions
    json_mode: bool


def _load(job: Job, cache: dict[str, list[Any]]) -> Any:
    """The job's problem, read from its file (the last file read is kept: several problems of one
    file usually go to the same worker in turn)."""
    from retrologic.formats import detect
    if job.path not in cache:
        cache.clear()
        cache[job.path] = detect.load_all(job.path)
    problems = cache[job.path]
    if len(problems) != job.count:
        raise InputError(f"the file changed while the run was going: {len(problems)} problems, "
                         f"not {job.count}", file=job.path)
    return problems[job.index]


def _parent_decides(signum: int, frame: object) -> None:
    """A worker's SIGTERM: nothing (the parent stops the run, and kills). A handler, not
    SIG_IGN, which processes an engine spawns would inherit (a multiprocessing pool that
    terminates its own workers with SIGTERM would then wait for them forever)."""


HARD_STOP = getattr(signal, "SIGUSR1", None)    # a worker's own hard stop (not on Windows)
_solving = False        # the worker is inside a problem (its hard stop raises only there)


def _hard_stop(signum: int, frame: object) -> None:
    """HARD_STOP_AFTER seconds after its stop, KeyboardInterrupt in the worker's problem, as the
    hard stop of a single process: the listing writer catches it and keeps the proved verdict;
    anywhere else the problem ends unfinished ("not run")."""
    if _solving:
        raise KeyboardInterrupt


def _serve(conn: Connection, stop: Connection) -> None:
    """A worker's life: solve jobs from the pipe until told to end (None) or the pipe closes;
    a message on `stop`, or its end, stops the engines, and HARD_STOP_AFTER seconds later
    interrupts the problem (`_hard_stop`); an unfinished problem is sent as None."""
    global _solving
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _parent_decides)
    if HARD_STOP is not None:
        signal.signal(HARD_STOP, _hard_stop)
    # the workers already fill the cores: no second process per problem (retrologic/spg/race.py)
    os.environ.setdefault("RETROLOGIC_RACE", "0")

    def relay() -> None:
        try:
            stop.recv_bytes()
        except (EOFError, OSError):     # the parent ended this worker, or is gone
            pass
        limits.request_stop()
        if HARD_STOP is not None:
            time.sleep(limits.HARD_STOP_AFTER)
            os.kill(os.getpid(), HARD_STOP)

    threading.Thread(target=relay, name="retrologic-stop-relay", daemon=True).start()
    cache: dict[str, list[Any]] = {}
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            prob = _load(job, cache)
        except Exception as e:  # noqa: BLE001 - the problem's error record
            import traceback
            done = error_done(job.label, e, traceback.format_exc())
        else:
            try:
                _solving = True
                done = solve_problem(prob, job.label, job.options, job.json_mode)
                _solving = False
            except KeyboardInterrupt:   # the worker's hard stop: the problem is not finished
                _solving = False
                done = None
        try:
            conn.send((job.number, done))
        except (OSError, EOFError):
            return
        except Exception as e:  # noqa: BLE001 - a record that does not pickle: its error record
            conn.send((job.number, error_done(job.label, e)))


class _Worker:
    """One worker process, its end of the pipe and the job it is on."""

    def __init__(self, context: Any) -> None:
        self.conn, child = context.Pipe()
        stop, self.stop_pipe = context.Pipe(duplex=False)
        # not daemonic: an engine may start processes of its own (the proof-game search does);
        # a worker whose parent is gone reads EOF on its pipes, stops its engine and ends
        self.process = context.Process(target=_serve, args=(child, stop), daemon=False,
                                       name="retrologic-worker")
        self.process.start()
        child.close()
        stop.close()
        self.job: Job | None = None
        self.started = 0.0
        self.dead = False
        self.stopped = False
        self.orphaned = False   # its sentinel ended with the forkserver: its pipe alone tells

    def stop(self) -> None:
        """Ask the worker's engine to stop: a few bytes on its stop pipe, never a wait."""
        if not self.stopped:
            self.stopped = True
            try:
                self.stop_pipe.send_bytes(b"stop")
            except (OSError, ValueError):
                pass

    def give(self, job: Job) -> None:
        self.job, self.started = job, time.monotonic()
        try:
            self.conn.send(job)
        except OSError:         # the worker is gone: its sentinel tells, the job gets its record
            pass

    def end(self, *, kill: bool = False) -> None:
        """Stop the worker: ask it to leave (or kill it), and reap it (once)."""
        if self.conn.closed:
            return
        if kill:                # SIGKILL: a worker ignores SIGTERM (see _serve)
            self.process.kill()
            # Process.kill does nothing once a poll has read the forkserver's end as the worker's
            if self.orphaned and self.process.pid:
                try:
                    os.kill(self.process.pid, signal.SIGKILL)
                except OSError:
                    pass
        else:
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                pass
        self.process.join(timeout=None if kill else 2.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()
        self.stop_pipe.close()


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def run(jobs: list[Job], workers: int) -> Iterator[tuple[int, Done]]:
    """Solve the jobs on `workers` processes; yields (number, Done) as each finishes (in any
    order). After Ctrl-C no new job starts; busy workers get WORKER_GRACE seconds to return
    their interrupted records (a second Ctrl-C: none), then are killed. A worker that dies
    yields its job's error record (exit status 5) and is replaced."""
    context = _context()
    pending = deque(jobs)
    pool: list[_Worker] = []
    stopped_at: float | None = None
    said = False
    try:
        pool = [_Worker(context) for _ in range(max(1, min(workers, len(jobs))))]
        while True:
            if limits.interrupted():
                for w in pool:
                    w.stop()
                pending.clear()
                if stopped_at is None:
                    stopped_at = time.monotonic()
                    limits.hold_hard_stop()     # a second Ctrl-C still kills at once
            for w in pool:
                if w.job is None and pending and not w.dead:
                    w.give(pending.popleft())
            busy = [w for w in pool if w.job is not None]
            if not busy:
                return
            waited = 0.0 if stopped_at is None else time.monotonic() - stopped_at
            if waited > WORKER_GRACE:
                return                          # the finally kills the stubborn ones
            if waited > 2 * limits.HARD_STOP_AFTER and not said:
                said = True
                say(f"stopping: {len(busy)} problem(s) still finishing a solver's step, for "
                    f"at most {WORKER_GRACE - waited:.0f} s more (Ctrl-C again stops them now)")
            ready = wait([w.conn for w in busy] +
                         [w.process.sentinel for w in busy if not w.orphaned], timeout=POLL)
            for i, w in enumerate(list(pool)):
                if w.job is None or (w.conn not in ready and w.process.sentinel not in ready):
                    continue
                if w.conn not in ready and not w.conn.poll():
                    w.orphaned = True       # the forkserver ended, not the worker
                    continue
                job = w.job
                try:
                    number, done = w.conn.recv()
                    w.job = None
                    if done is None:                # stopped unfinished: "not run"
                        continue
                except (EOFError, OSError):       # the worker died on this job
                    w.process.join(timeout=1.0)
                    code = w.process.exitcode
                    exc = RuntimeError(f"worker process died (exit code {code})")
                    done = error_done(job.label, exc)
                    done.seconds = time.monotonic() - w.started
                    number = job.number
                    w.job = None
                    w.end(kill=True)
                    if pending:
                        pool[i] = _Worker(context)
                    else:
                        pool[i] = w         # stays idle, ended: never given a job again
                        w.dead = True
                yield number, done
    finally:
        for w in pool:
            w.end(kill=w.job is not None)
