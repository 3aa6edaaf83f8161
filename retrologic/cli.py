"""The `retrologic` command: `solve` problem files, `check` certificates, one subcommand per kind.

Only the chosen subcommand's module is imported, so start-up stays light (ortools loads lazily).
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from typing import Sequence

from retrologic import limits, questions
from retrologic.collection.records import Batch
# The helpers the question modules share live in retrologic.console (no import cycle through
# this module).
from retrologic.console import (EXIT_INTERRUPTED, add_certificate_mib_argument,
                                make_certificate_dir, one_line, say)
from retrologic.errors import (EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE,
                               InputError, RetroError)
from retrologic.version import __version__

EXIT_TEXT = """exit status:
  0    answered; every [expect] met; certificate accepted
  1    an [expect] table was not met, or `check` rejected a certificate
  2    command-line usage error
  3    bad input (file, field and value are named on stderr)
  4    unknown: a node, depth or time limit was hit
  5    internal error (rerun with --debug for the traceback)
  130  interrupted (Ctrl-C, or SIGTERM as `kill` sends it); what was finished has been printed"""


class Parser(argparse.ArgumentParser):
    """argparse with a usage error on one line (exit 2) instead of the usage text and the error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(EXIT_USAGE, one_line(f"{self.prog}: error: {message} (see --help)") + "\n")


# -- batches: solve and check -----------------------------------------------------------------

def _solve_arguments(p: argparse.ArgumentParser) -> None:
    from retrologic.collection import run
    run.add_arguments(p)


def _solve_run(args: argparse.Namespace) -> int:
    """`retrologic solve FILE_OR_DIR...`: retrologic.collection.run (directories, -j N, the
    table, --csv); each problem isolated, its record printed in input order as soon as it can be;
    Ctrl-C stops the batch after the finished problems (exit 130)."""
    from retrologic.collection import run
    return run.run(args)


def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="certificate files (JSON); with --spg, claimed proof games (PGN or SAN)")
    p.add_argument("--json", action="store_true", help="print JSON Lines instead of text")
    p.add_argument("--progress", action="store_true",
                   help="show each certificate's check on stderr: the steps checked so far and "
                        "the time (a proof's lines, a cage's members, a candidate); with "
                        "--spg, the uniqueness search's progress")
    from retrologic.formats import claim   # --spg DIAGRAM --moves N.0: check claimed games
    claim.add_arguments(p)
    add_certificate_mib_argument(p, reading=True)


def _check_run(args: argparse.Namespace) -> int:
    """`retrologic check CERT...`: one record per certificate file, printed as it is checked."""
    from retrologic.certificate import check_file
    from retrologic.certsize import allowing
    from retrologic.progress import node_bar
    if getattr(args, "nodes", None) is not None and args.spg is None and args.moves is None:
        # a certificate's check counts no nodes (it was accepted and did nothing)
        raise InputError("applies to --spg claims only; a certificate's check stops at "
                         "--timeout", field="--nodes", value=args.nodes)
    batch = Batch(args, ("accepted", "rejected", "unknown", "error"),
                  always=("accepted", "rejected", "error"))
    try:
        for path in args.files:
            try:
                if args.spg is not None or args.moves is not None:
                    from retrologic.formats import claim    # a claimed proof game (issue #20)
                    record, text = claim.check_claim(path, args)
                else:
                    # the time limit applies to each file's check (Ctrl-C: to the batch)
                    with node_bar(f"check {os.path.basename(path)}", args.progress,
                                  unit="step"), allowing(args.certificate_mib):
                        budget = limits.Budget(getattr(args, "timeout", None))  # held: read last
                        verdict = check_file(path, budget)
                    ok = bool(verdict.ok)
                    outcome = "accepted" if ok else "unknown" if verdict.stopped else "rejected"
                    record = {"file": path, "type": verdict.type, "accepted": ok,
                              "reason": verdict.reason, "outcome": outcome,
                              "status": {"accepted": EXIT_OK, "unknown": EXIT_UNKNOWN}.get(
                                  outcome, EXIT_MISMATCH)}
                    word = "REJECTED" if outcome == "rejected" else outcome
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
    # composers' files to TOML (issue #20)
    "convert": ("convert Popeye, YACPDB, EPD or FEN problem files to our TOML problem files",
                lambda p: __import__("importlib").import_module("retrologic.formats.convert").add_arguments(p),
                lambda a: __import__("importlib").import_module("retrologic.formats.convert").run(a)),
    # the web page (issue #20): Flask is imported only when this command runs
    "serve": ("serve the web page on localhost (needs Flask: the 'web' extra)",
              lambda p: __import__("importlib").import_module("retrologic.web.serve").add_arguments(p),
              lambda a: __import__("importlib").import_module("retrologic.web.serve").run(a)),
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
            p.set_defaults(_run=run, _parser=p)
    for name, kind in questions.COMMANDS.items():
        text = questions.KINDS[kind][1]
        p = sub.add_parser(name, help=text, description=text)
        if name == chosen:
            module = questions.load(kind)
            module.add_arguments(p)
            p.set_defaults(_run=module.run, _parser=p)
    return top


def _escape_undecodable_names() -> None:
    """A file name that is not UTF-8 reaches Python as lone surrogates ('\\udcff'), which a
    strict UTF-8 stdout (a UTF-8 locale's) cannot write: the answer, the table or the header
    naming that file then died with an internal error. Such characters are written escaped,
    as stderr already does (found by bench/fuzz.py)."""
    if isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.errors == "strict":
        sys.stdout.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `retrologic` console script; returns the exit status."""
    process = argv is None          # the console script, not a call from Python code
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    debug = "--debug" in argv
    limits.reset()                  # a fresh command starts uninterrupted (main() may be re-entered)
    # Ctrl-C, and SIGTERM in the command's own process: a soft stop every engine sees, then a
    # hard one
    limits.install_interrupt(terminate=process)
    _escape_undecodable_names()
    try:
        parser = build_parser(chosen)
        args = parser.parse_args(argv)
        make_certificate_dir(args, getattr(args, "_parser", parser))
        from retrologic.formats.notation import fen_arguments
        fen_arguments(args)         # S for the knight in FEN arguments, as in files (issue #20)
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
            signal.signal(signal.SIGTERM, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
