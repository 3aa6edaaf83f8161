"""`retrologic solve FILE_OR_DIR...` (issue #20, "Collections"): every problem the arguments
name (directories walked recursively), solved one by one or with `-j N` in worker processes, each
under its own limits; records printed in input order as soon as all before them are printed (JSON
Lines with --json), then, for a collection, the table (text mode), the `--csv` file and the summary
line. One file holding one problem behaves as before (README, exit statuses).

Ctrl-C stops every engine (in every worker), prints what finished, in input order, and exits 130.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from typing import Any

from retrologic import limits
from retrologic.collection import report, walk
from retrologic.collection.records import Batch, Done, error_done, solve_problem
from retrologic.console import add_certificate_mib_argument, add_limit_arguments, say
from retrologic.errors import EXIT_INPUT
from retrologic.options import SolveOptions

OUTCOMES = ("met", "not met", "answered", "unknown", "error", "interrupted")
ALWAYS = ("met", "not met", "unknown", "error")
CSV_EVERY = 2.0      # seconds at least between two rewrites of the --csv file during a run


def _jobs_argument(text: str) -> int:
    """-j: a number of worker processes, 1 to 256 (0: one per CPU)."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 256:
        raise argparse.ArgumentTypeError(f"a number of processes from 0 to 256: {text[:40]!r}")
    return n or (os.cpu_count() or 1)


def _csv_argument(text: str) -> str:
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"is a directory: {text[:100]!r}")
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `solve` subcommand's arguments."""
    p.add_argument("files", nargs="+", metavar="FILE_OR_DIR",
                   help="problem files, or directories searched recursively for them")
    add_limit_arguments(p)
    add_certificate_mib_argument(p, reading=False)
    p.add_argument("-j", "--jobs", type=_jobs_argument, default=1, metavar="N",
                   help="solve N problems at a time in worker processes (0: one per CPU)")
    p.add_argument("--csv", type=_csv_argument, metavar="FILE",
                   help="also write one row per problem to this CSV file")


def _options(args: argparse.Namespace, task: walk.Task, engine_progress: bool) -> SolveOptions:
    """The task's options: the limits (each applies to this problem alone) and its certificates'
    destination under its unique stem."""
    from retrologic.certformat import destination
    where: Any = None
    if getattr(args, "certificate_dir", None) and task.problem is not None:
        where = dataclasses.replace(destination(args.certificate_dir, task.problem), stem=task.stem)
    return SolveOptions(timeout=args.timeout, nodes=args.nodes, progress=engine_progress,
                        certificate_dir=where, certificate_mib=args.certificate_mib)


class _Printer:
    """Prints finished problems in input order, counting them in the Batch."""

    def __init__(self, args: argparse.Namespace, tasks: list[walk.Task], batch: Batch,
                 bars: report.Bars) -> None:
        self.args, self.tasks, self.batch, self.bars = args, tasks, batch, bars
        self.finished: dict[int, Done] = {}
        self.next = 0
        self.rows: list[tuple[dict[str, Any], float]] = []
        self.csv_at = float("-inf")             # when the --csv file was last rewritten

    def add(self, number: int, done: Done) -> None:
        self.finished[number] = done
        self.bars.advance(self.tasks[number].group)
        while self.next in self.finished:
            self._print(self.finished.pop(self.next))
            self.next += 1

    def rest(self) -> None:
        """After a stop: every other finished problem, in input order."""
        for number in sorted(self.finished):
            self._print(self.finished.pop(number))

    def _print(self, done: Done) -> None:
        with self.bars.quiet():
            self.batch.say(done)
            self.batch.emit(done.record, done.text)
        self.rows.append((done.record, done.seconds))
        self._keep_csv()
        if done.record["outcome"] == "interrupted" or limits.interrupted():
            self.batch.stopped = True

    def _keep_csv(self) -> None:
        """The --csv file rewritten (atomically) with the rows so far, at most every CSV_EVERY
        seconds: a run killed (SIGKILL, the OOM killer, a closed terminal) keeps the problems
        it finished; until 2026-12-05 the file was written only at the end, and such a run
        left none. The end of the run writes it once more, whole."""
        if not self.args.csv or time.monotonic() - self.csv_at < CSV_EVERY:
            return
        try:
            report.write_csv(self.args.csv, self.rows)
        except OSError:
            pass            # said at the end of the run, whose write fails the same way
        self.csv_at = time.monotonic()


def _sequential(tasks: list[walk.Task], args: argparse.Namespace, printer: _Printer,
                engine_progress: bool) -> None:
    for number, task in enumerate(tasks):
        if task.problem is None:
            done = error_done(task.label, task.error or RuntimeError("unread"), task.trace)
        else:
            done = solve_problem(task.problem, task.label, _options(args, task, engine_progress),
                                 bool(args.json))
        printer.add(number, done)
        if printer.batch.stopped:
            return


def _parallel(tasks: list[walk.Task], args: argparse.Namespace, printer: _Printer) -> None:
    from retrologic.collection import pool  # multiprocessing: only for --jobs (issue #22)
    jobs = []
    for number, task in enumerate(tasks):
        if task.problem is None:
            printer.add(number, error_done(task.label, task.error or RuntimeError("unread"),
                                           task.trace))
        else:
            jobs.append(pool.Job(number, task.path, task.index, task.count, task.label,
                                 _options(args, task, False), bool(args.json)))
    for number, done in pool.run(jobs, args.jobs):
        printer.add(number, done)


def run(args: argparse.Namespace) -> int:
    """`retrologic solve FILE_OR_DIR...`: see the module docstring; returns the exit status."""
    tasks = walk.load(list(args.files))
    batch = Batch(args, OUTCOMES, always=ALWAYS)
    if any(t.count > 1 for t in tasks):
        batch.unit = "problem"
    collection = len(tasks) > 1 or any(os.path.isdir(f) for f in args.files)
    jobs = min(args.jobs, sum(t.problem is not None for t in tasks))
    totals: dict[str, int] = {}
    for t in tasks:
        if t.group != walk.FILES_GROUP:        # a bar per directory named (files one by one: none)
            totals[t.group] = totals.get(t.group, 0) + 1
    bars = report.Bars(totals, bool(totals) and (args.progress or sys.stderr.isatty()))
    printer = _Printer(args, tasks, batch, bars)
    try:
        try:
            if jobs <= 1:       # the engines' own progress lines only where no bar is drawn
                _sequential(tasks, args, printer, engine_progress=args.progress and not bars.bars)
            else:
                _parallel(tasks, args, printer)
        except KeyboardInterrupt:
            batch.stopped = True
        if limits.interrupted():
            batch.stopped = True
        printer.rest()
    finally:
        bars.close()
    if collection and not args.json and printer.rows:
        sys.stdout.write("\n" + report.table(printer.rows) + "\n")
        sys.stdout.flush()
    if args.csv:
        try:
            report.write_csv(args.csv, printer.rows)
        except OSError as e:
            say(f"{args.csv}: cannot write the CSV file: {e.strerror or e}")
            batch.status = max(batch.status, EXIT_INPUT)
    return batch.finish(len(tasks))
