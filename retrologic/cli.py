"""The `retrologic` command: `solve` problem files, `check` certificates, one subcommand per kind.

Only the chosen subcommand's module is imported, so start-up stays light (ortools loads lazily).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import traceback
from typing import Any, Sequence

from retrologic import limits, questions
# The helpers the question modules share live in retrologic.console (no import cycle through
# this module).
from retrologic.console import (EXIT_INTERRUPTED, add_limit_arguments, one_line, options_from, say,
                                was_interrupted)
from retrologic.errors import (EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE,
                               RetroError)
from retrologic.version import __version__

EXIT_TEXT = """exit status:
  0    answered; every [expect] met; certificate accepted
  1    an [expect] table was not met, or `check` rejected a certificate
  2    command-line usage error
  3    bad input (file, field and value are named on stderr)
  4    unknown: a node, depth or time limit was hit
  5    internal error (rerun with --debug for the traceback)
  130  interrupted (Ctrl-C); what was finished has been printed"""


class Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (exit 2) instead of the usage text and the error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, one_line(f"{self.prog}: error: {message} (see --help)") + "\n")


# -- batches: solve and check -----------------------------------------------------------------

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

    def error_record(self, path: str, exc: BaseException) -> dict[str, Any]:
        """A file's record for an exception: bad input (RetroError) or an internal error, which
        is reported with the file's name (and, with --debug, its traceback) and exit status 5."""
        if isinstance(exc, RetroError):
            status, message = exc.exit_status, str(exc)
            line = message if path in message else f"{path}: {message}"
        else:
            if getattr(self.args, "debug", False):
                traceback.print_exc(file=sys.stderr)
            status = EXIT_INTERNAL
            message = f"internal error: {type(exc).__name__}: {exc}"
            line = f"{path}: {message} (rerun with --debug)"
        say(line)
        return {"file": path, "error": {"status": status, "message": one_line(message, 1000)},
                "outcome": "error", "status": status}

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
            line = f"{_plural(total, 'file')}: " + ", ".join(parts)
            if self.stopped:
                line += f"; stopped by Ctrl-C, {total - self.done} not run"
            print(line, file=sys.stderr, flush=True)
        return self.status


def _solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="problem files (TOML)")
    add_limit_arguments(p)


def _solve_one(path: str, args: argparse.Namespace, batch: Batch) -> tuple[dict[str, Any], str | None]:
    """Solve one problem file: its record and text block; never raises but KeyboardInterrupt."""
    from retrologic import problem as problem_mod
    from retrologic.result import Result
    try:
        prob = problem_mod.load(path)
        try:
            result = problem_mod.solve(prob, options_from(args))
        except limits.LimitHit as e:               # an engine let its limit escape: unknown
            result = Result(prob.kind, "unknown", reason=e.reason)
        expect = prob.expect
        met: bool | None = None
        mismatches: list[str] = []
        if was_interrupted(result):
            outcome, status = "interrupted", EXIT_INTERRUPTED
        elif result.verdict == "unknown" and (expect is None or expect.get("verdict") != "unknown"):
            outcome, status = "unknown", EXIT_UNKNOWN
        elif expect is None:
            outcome, status = "answered", EXIT_OK
        else:
            mismatches = problem_mod.check(prob, result)
            met = not mismatches
            outcome, status = ("met", EXIT_OK) if met else ("not met", EXIT_MISMATCH)
        record = {"file": path, "title": prob.title, **result.to_json()}
        if expect is not None:
            record["expect"] = {"met": met, "mismatches": mismatches}
        record["outcome"], record["status"] = outcome, status
        if getattr(args, "json", False):
            return record, None
        lines = [f"== {path}: {prob.title}", result.render()]
        if expect is not None:
            if met is None:
                lines.append(f"expect: not decided ({outcome})")
            else:
                lines.append("expect: met" if met else "expect: NOT MET")
                lines.extend(f"  {m}" for m in mismatches)
        return record, "\n".join(lines)
    except Exception as e:  # noqa: BLE001 - one file's failure is that file's record
        return batch.error_record(path, e), None


def _solve_run(args: argparse.Namespace) -> int:
    """`retrologic solve FILE...`: each file isolated, its record printed as soon as it is
    solved; Ctrl-C stops the batch after the finished files (exit 130)."""
    batch = Batch(args, ("met", "not met", "answered", "unknown", "error", "interrupted"),
                  always=("met", "not met", "unknown", "error"))
    try:
        for path in args.files:
            record, text = _solve_one(path, args, batch)
            batch.emit(record, text)
            if record["outcome"] == "interrupted" or limits.interrupted():
                batch.stopped = True
                break
    except KeyboardInterrupt:
        batch.stopped = True
    return batch.finish(len(args.files))


def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate files (JSON)")
    p.add_argument("--json", action="store_true", help="print JSON Lines instead of text")


def _check_run(args: argparse.Namespace) -> int:
    """`retrologic check CERT...`: one record per certificate file, printed as it is checked."""
    from retrologic.certificate import check_file
    batch = Batch(args, ("accepted", "rejected", "error"), always=("accepted", "rejected", "error"))
    try:
        for path in args.files:
            try:
                verdict = check_file(path)
                ok = bool(verdict.ok)
                record = {"file": path, "type": verdict.type, "accepted": ok,
                          "reason": verdict.reason, "outcome": "accepted" if ok else "rejected",
                          "status": EXIT_OK if ok else EXIT_MISMATCH}
                word = "accepted" if ok else "REJECTED"
                text = f"{path}: {verdict.type}: {word}" + (f": {verdict.reason}" if verdict.reason else "")
            except Exception as e:  # noqa: BLE001 - one file's failure is that file's record
                record, text = batch.error_record(path, e), None
            batch.emit(record, text)
            if limits.interrupted():
                batch.stopped = True
                break
    except KeyboardInterrupt:
        batch.stopped = True
    return batch.finish(len(args.files))


_BUILTIN = {
    "solve": ("solve problem files (TOML), checking any [expect] table", _solve_arguments, _solve_run),
    "check": ("check a certificate (JSON) independently of the search", _check_arguments, _check_run),
}


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    """The argument parser; only the chosen subcommand's module is imported."""
    top = Parser(prog="retrologic", description=__doc__.splitlines()[0], epilog=EXIT_TEXT,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"retrologic {__version__}")
    top.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (text, add, run) in _BUILTIN.items():
        p = sub.add_parser(name, help=text, description=text)
        if name == chosen:
            add(p)
            p.set_defaults(_run=run)
    for name, kind in questions.COMMANDS.items():
        text = questions.KINDS[kind][1]
        p = sub.add_parser(name, help=text, description=text)
        if name == chosen:
            module = questions.load(kind)
            module.add_arguments(p)
            p.set_defaults(_run=module.run)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `retrologic` console script; returns the exit status."""
    process = argv is None          # the console script, not a call from Python code
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    debug = "--debug" in argv
    limits.reset()                  # a fresh command starts uninterrupted (main() may be re-entered)
    limits.install_interrupt()      # Ctrl-C: a soft stop every engine sees, then a hard one
    try:
        parser = build_parser(chosen)
        args = parser.parse_args(argv)
        status = args._run(args)
        return EXIT_INTERRUPTED if limits.interrupted() else status
    except RetroError as e:
        say(e)
        return e.exit_status
    except limits.LimitHit as e:    # an engine let its limit escape: the answer is unknown
        say(f"unknown: {e.reason}")
        return EXIT_INTERRUPTED if e.reason.startswith(limits.INTERRUPTED) else EXIT_UNKNOWN
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:         # `retrologic ... | head`: stop quietly, and no error at exit
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if debug:
            raise
        say(f"internal error: {type(e).__name__}: {e} (rerun with --debug)")
        return EXIT_INTERNAL
    finally:
        if process and limits.interrupted():    # done: the armed hard stop must not hit the exit
            signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
