"""One problem's record (the JSON Lines object and the text block of `solve`), and `Batch`, which
prints records as they are finished, counts them for the summary line and keeps the exit status
(README, "Output of `solve` and `check`").

`solve_problem` never prints: with `-j N` it runs in a worker process and the parent prints its
`Done` (the record, the text, the error line and its traceback) in input order.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Sequence

from retrologic import limits
from retrologic.console import EXIT_INTERRUPTED, one_line, say, was_interrupted
from retrologic.errors import (EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, RetroError, cut,
                               printable)
from retrologic.options import SolveOptions


@dataclass
class Done:
    """A finished problem: its record, its text block (None in JSON mode or for an error), the
    error line for stderr, the traceback (shown with --debug) and the wall time it took."""

    record: dict[str, Any]
    text: str | None = None
    line: str | None = None
    trace: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


TITLE_SHOWN = 200   # characters of a title the text header shows (JSON and CSV keep it whole)


def header(label: str, title: str) -> str:
    """A record's first text line: file and title on one line, escapes written out (a title
    may hold newlines or terminal escape sequences) and a long title cut."""
    return f"== {printable(label)}: {cut(printable(title), TITLE_SHOWN)}"


def error_done(path: str, exc: BaseException, trace: str = "") -> Done:
    """The record of a problem that failed: bad input (RetroError, its own status) or an internal
    error (status 5, the exception named; its traceback kept for --debug)."""
    if isinstance(exc, RetroError):
        status, message = exc.exit_status, str(exc)
        line = message if path in message else f"{path}: {message}"
        trace = ""
    else:
        status = EXIT_INTERNAL
        message = f"internal error: {type(exc).__name__}: {exc}"
        line = f"{path}: {message} (rerun with --debug)"
    record = {"file": path, "error": {"status": status, "message": one_line(message, 1000)},
              "outcome": "error", "status": status}
    return Done(record, None, line, trace)


def solve_problem(prob: Any, label: str, options: SolveOptions, json_mode: bool) -> Done:
    """Solve one loaded problem: its record and text block; never raises but KeyboardInterrupt
    (an exception is the problem's error record)."""
    from retrologic import problem as problem_mod
    from retrologic.result import Result
    start = time.monotonic()
    try:
        try:
            result = problem_mod.solve(prob, options)
        except limits.LimitHit as e:               # an engine let its limit escape: unknown
            result = Result(prob.kind, "unknown", reason=e.reason)
        expect = prob.expect
        met: bool | None = None
        mismatches: list[str] = []
        undecided: list[str] = []
        if was_interrupted(result):
            outcome, status = "interrupted", EXIT_INTERRUPTED
        elif result.verdict == "unknown" and (expect is None or expect.get("verdict") != "unknown"):
            outcome, status = "unknown", EXIT_UNKNOWN
        elif expect is None:
            outcome, status = "answered", EXIT_OK
        else:
            # a fact a limit left open (Result.open_facts) decides nothing: unknown, unless
            # another expectation missed
            mismatches, undecided = problem_mod.judge(prob, result)
            if mismatches:
                met, outcome, status = False, "not met", EXIT_MISMATCH
            elif undecided:
                outcome, status = "unknown", EXIT_UNKNOWN
            else:
                met, outcome, status = True, "met", EXIT_OK
        record = {"file": label, "title": prob.title, **result.to_json()}
        if expect is not None:
            record["expect"] = {"met": met, "mismatches": mismatches, "undecided": undecided}
        record["outcome"], record["status"] = outcome, status
        if json_mode:
            try:
                json.dumps(record, allow_nan=False)
            except (TypeError, ValueError) as e:    # an engine put a non-JSON value in
                return _timed(error_done(label, e, traceback.format_exc()), start)
            return _timed(Done(record), start)
        lines = [header(label, prob.title), result.render()]
        if expect is not None:
            if met is None:
                open_ = f": {', '.join(undecided)} left open" if undecided else ""
                lines.append(f"expect: not decided ({outcome}{open_})")
            else:
                lines.append("expect: met" if met else "expect: NOT MET")
                lines.extend(f"  {m}" for m in mismatches)
                if undecided:
                    lines.append(f"  not decided: {', '.join(undecided)} left open")
        return _timed(Done(record, "\n".join(lines)), start)
    except Exception as e:  # noqa: BLE001 - one problem's failure is that problem's record
        return _timed(error_done(label, e, traceback.format_exc()), start)


def _timed(done: Done, start: float) -> Done:
    done.seconds = time.monotonic() - start
    return done


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class Batch:
    """Per-file records of a `solve` or `check` run: printed as each file finishes (JSON Lines
    or text blocks, flushed), counted for the summary line, and the overall exit status."""

    def __init__(self, args: argparse.Namespace, outcomes: Sequence[str], always: Sequence[str]) -> None:
        self.args = args
        self.counts = {o: 0 for o in outcomes}     # the summary's order
        self.always = tuple(always)                 # counts shown even when 0
        self.status = EXIT_OK
        self.done = 0
        self.stopped = False
        self.unit = "file"                          # what the summary counts

    def error_record(self, path: str, exc: BaseException) -> dict[str, Any]:
        """A file's record for an exception, its error line printed now (with --debug, an
        internal error's traceback too)."""
        done = error_done(path, exc, traceback.format_exc())
        self.say(done)
        return done.record

    def say(self, done: Done) -> None:
        """The error line of a finished problem on stderr (and its traceback with --debug)."""
        if done.line is None:
            return
        if done.trace and getattr(self.args, "debug", False):
            sys.stderr.write(done.trace)
        say(done.line)

    def emit(self, record: dict[str, Any], text: str | None) -> None:
        """Print one file's record (a JSON line, or its text block) and count it."""
        if getattr(self.args, "json", False):
            try:
                line = json.dumps(record, allow_nan=False)
            except (TypeError, ValueError) as e:       # an engine put a non-JSON value in
                record = self.error_record(record["file"], e)
                line = json.dumps(record)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        elif text is not None:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        self.counts[record["outcome"]] = self.counts.get(record["outcome"], 0) + 1
        self.status = max(self.status, record["status"])
        self.done += 1

    def finish(self, total: int) -> int:
        """The summary line on stderr (with several files, or after an interrupt) and the exit
        status: 130 after an interrupt, else the highest of the files'."""
        if self.stopped:
            self.status = EXIT_INTERRUPTED
        if total > 1 or self.stopped:
            parts = [f"{n} {o}" if o != "error" else _plural(n, "error")
                     for o, n in self.counts.items() if n or o in self.always]
            line = f"{_plural(total, self.unit)}: " + ", ".join(parts)
            if self.stopped:
                line += f"; stopped by {limits.stopped_by()}, {total - self.done} not run"
            print(line, file=sys.stderr, flush=True)
        return self.status
