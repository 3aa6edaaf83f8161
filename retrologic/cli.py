"""The `retrologic` command: `solve` problem files, `check` certificates, one subcommand per kind.

Only the chosen subcommand's module is imported, so start-up stays light (ortools loads lazily).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from retrologic import __version__, questions
from retrologic.errors import EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, RetroError

EXIT_TEXT = """exit status:
  0  answered; every [expect] met; certificate accepted
  1  an [expect] table was not met, or `check` rejected a certificate
  2  command-line usage error
  3  bad input (file, field and value are named on stderr)
  4  unknown: a node, depth or time limit was hit
  5  internal error (rerun with --debug for the traceback)"""


def add_limit_arguments(p: argparse.ArgumentParser) -> None:
    """The options every solving command shares: limits, JSON, progress, certificates."""
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--timeout", type=float, metavar="S", help="time limit in seconds (-> unknown)")
    p.add_argument("--nodes", type=int, metavar="N", help="node limit (-> unknown)")
    p.add_argument("--progress", action="store_true", help="show progress on stderr")
    p.add_argument("--certificate-dir", metavar="DIR", help="write proofs/counterexamples here")


def options_from(args: argparse.Namespace):
    """SolveOptions from the shared arguments."""
    from retrologic.problem import SolveOptions
    return SolveOptions(timeout=getattr(args, "timeout", None), nodes=getattr(args, "nodes", None),
                        progress=getattr(args, "progress", False),
                        certificate_dir=getattr(args, "certificate_dir", None))


def emit(result, args: argparse.Namespace) -> int:
    """Print a result as text or JSON; the exit status is 4 for unknown, else 0."""
    if getattr(args, "json", False):
        print(json.dumps(result.to_json(), indent=2))
    else:
        print(result.render())
    return EXIT_UNKNOWN if result.verdict == "unknown" else EXIT_OK


def _solve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="problem files (TOML)")
    add_limit_arguments(p)


def _solve_run(args: argparse.Namespace) -> int:
    from retrologic import problem as problem_mod
    status = EXIT_OK
    outputs = []
    for path in args.files:
        try:
            prob = problem_mod.load(path)
            result = problem_mod.solve(prob, options_from(args))
        except RetroError as e:
            print(f"retrologic: {e}", file=sys.stderr)
            status = max(status, e.exit_status)
            continue
        mismatches = problem_mod.check(prob, result) if prob.expect is not None else []
        if prob.expect is not None:
            file_status = EXIT_MISMATCH if mismatches else EXIT_OK
        else:
            file_status = EXIT_UNKNOWN if result.verdict == "unknown" else EXIT_OK
        status = max(status, file_status)
        if args.json:
            out = {"file": path, "title": prob.title, **result.to_json()}
            if prob.expect is not None:
                out["expect"] = {"met": not mismatches, "mismatches": mismatches}
            outputs.append(out)
        else:
            print(f"== {path}: {prob.title}")
            print(result.render())
            if prob.expect is not None:
                print("expect: met" if not mismatches else "expect: NOT MET")
                for m in mismatches:
                    print(f"  {m}")
    if args.json:
        print(json.dumps(outputs if len(outputs) != 1 else outputs[0], indent=2))
    return status


def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="certificate files (JSON)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def _check_run(args: argparse.Namespace) -> int:
    from retrologic.certificate import check_file
    status = EXIT_OK
    report = []
    for path in args.files:
        try:
            verdict = check_file(path)
        except RetroError as e:
            print(f"retrologic: {e}", file=sys.stderr)
            status = max(status, e.exit_status)
            continue
        if not verdict.ok:
            status = max(status, EXIT_MISMATCH)
        report.append({"file": path, "type": verdict.type, "accepted": verdict.ok,
                       "reason": verdict.reason})
        if not args.json:
            word = "accepted" if verdict.ok else "REJECTED"
            print(f"{path}: {verdict.type}: {word}" + (f": {verdict.reason}" if verdict.reason else ""))
    if args.json:
        print(json.dumps(report, indent=2))
    return status


_BUILTIN = {
    "solve": ("solve problem files (TOML), checking any [expect] table", _solve_arguments, _solve_run),
    "check": ("check a certificate (JSON) independently of the search", _check_arguments, _check_run),
}


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    """The argument parser; only the chosen subcommand's module is imported."""
    top = argparse.ArgumentParser(prog="retrologic", description=__doc__.splitlines()[0],
                                  epilog=EXIT_TEXT, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    debug = "--debug" in argv
    try:
        parser = build_parser(chosen)
        args = parser.parse_args(argv)
        return args._run(args)
    except RetroError as e:
        print(f"retrologic: {e}", file=sys.stderr)
        return e.exit_status
    except KeyboardInterrupt:
        print("retrologic: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if debug:
            raise
        print(f"retrologic: internal error: {type(e).__name__}: {e} (rerun with --debug)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
