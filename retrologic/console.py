"""What the `retrologic` commands share: the limit options every solving command takes, their
SolveOptions, and printing a result (text or JSON) with its exit status.

Apart from retrologic.cli (which imports the question registry) so that the question modules
can import these helpers without an import cycle.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from retrologic import limits
from retrologic.errors import EXIT_OK, EXIT_UNKNOWN, InputError, cut, printable, shown
from retrologic.options import SolveOptions

EXIT_INTERRUPTED = 130      # Ctrl-C (SIGINT): what was finished is printed, then this status
MAX_LINE = 300              # an error line on stderr: at most this many characters


def one_line(text: object, limit: int = MAX_LINE) -> str:
    """`text` as one line of at most `limit` characters (cut with "…"): a message on stderr
    never spans lines nor echoes a huge value in full."""
    return cut(printable(str(text)[:limit * 4]), limit)


def say(message: object) -> None:
    """Print one `retrologic: ...` line on stderr (at most MAX_LINE characters)."""
    print(one_line(f"retrologic: {message}"), file=sys.stderr, flush=True)


def _timeout_argument(text: str) -> float:
    """--timeout: a number of seconds accepted by limits.check_timeout (finite, > 0, bounded)."""
    try:
        return limits.check_timeout(float(text))
    except ValueError as e:
        why = "not a number of seconds" if "could not convert" in str(e) else str(e)
        raise argparse.ArgumentTypeError(f"{why}: {shown(text)}") from None


def _nodes_argument(text: str) -> int:
    """--nodes: a positive whole number accepted by limits.check_nodes."""
    try:
        return limits.check_nodes(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{limits.NODES_RULE}: {shown(text)}") from None


def _directory_argument(text: str) -> str:
    """--certificate-dir: a directory, or a path where one can be made (`make_certificate_dir`
    makes it); a file in the way is an error before anything is solved (writing checks again:
    `certformat.write`)."""
    path = Path(text)
    for place in (path, *path.parents):
        try:
            if place.exists():
                if not place.is_dir():
                    raise argparse.ArgumentTypeError(f"not a directory: {shown(str(place))}")
                break
        except (OSError, ValueError) as e:
            raise argparse.ArgumentTypeError(
                f"cannot use this path ({getattr(e, 'strerror', None) or e}): {shown(text)}"
            ) from None
    return text


def _mib_argument(text: str) -> int:
    """--certificate-mib: a whole number of MiB accepted by certsize.check_mib."""
    from retrologic import certsize
    try:
        return certsize.check_mib(int(text))
    except (ValueError, InputError):
        raise argparse.ArgumentTypeError(f"{certsize.RULE}: {shown(text)}") from None


def add_certificate_mib_argument(p: argparse.ArgumentParser, *, reading: bool) -> None:
    """--certificate-mib (retrologic.certsize): the certificate size caps, for `check` (what
    it reads and unpacks) or a command that writes spg-listing certificates."""
    p.add_argument("--certificate-mib", type=_mib_argument, metavar="MIB",
                   help="the largest certificate read, in MiB (default 40; a packed proof "
                        "may unpack to 12.8 times as much, checked at about 9 times that in "
                        "memory): raise it only for files you trust" if reading else
                        "the largest spg-listing certificate written, in MiB (default 40; the "
                        "solver's proof log may grow to 25.6 times as much); `check` needs "
                        "the same option to read it")


def make_certificate_dir(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Make `--certificate-dir` once the command line is read whole (not for --help nor a
    usage error): a directory the system refuses (/proc/x) is a usage error before anything
    is solved, not a solved answer thrown away when its certificate is written."""
    text = getattr(args, "certificate_dir", None)
    if not text:
        return
    path = Path(text)
    if path.is_symlink() and not path.exists():
        parser.error(f"argument --certificate-dir: a symbolic link to nothing: {shown(text)}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        writable = os.access(text, os.W_OK | os.X_OK)
    except OSError as e:
        parser.error(f"argument --certificate-dir: cannot make this directory "
                     f"({e.strerror or e}): {shown(text)}")
    if not writable:
        parser.error(f"argument --certificate-dir: cannot write in this directory: {shown(text)}")


def add_limit_arguments(p: argparse.ArgumentParser, certificates: bool = True) -> None:
    """The options every solving command shares: limits, JSON, progress, certificates (not
    for a command that writes none)."""
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--timeout", type=_timeout_argument, metavar="S",
                   help="time limit in seconds, per problem (-> unknown)")
    p.add_argument("--nodes", type=_nodes_argument, metavar="N",
                   help="node limit, per problem (-> unknown)")
    p.add_argument("--progress", action="store_true", help="show progress on stderr")
    if certificates:
        p.add_argument("--certificate-dir", type=_directory_argument, metavar="DIR",
                       help="write proofs/counterexamples here")


def options_from(args: argparse.Namespace) -> SolveOptions:
    """SolveOptions from the shared arguments."""
    return SolveOptions(timeout=getattr(args, "timeout", None), nodes=getattr(args, "nodes", None),
                        progress=getattr(args, "progress", False),
                        certificate_dir=getattr(args, "certificate_dir", None),
                        certificate_mib=getattr(args, "certificate_mib", None))


def was_interrupted(result: Any) -> bool:
    """True when a result is unknown because Ctrl-C stopped its engine (its reason says so, or
    the stop was requested while it ran)."""
    return result.verdict == "unknown" and (
        str(result.reason or "").startswith(limits.INTERRUPTED) or limits.interrupted())


def emit(result: Any, args: argparse.Namespace) -> int:
    """Print a result as text or JSON; the exit status is 130 if interrupted, 4 for unknown,
    else 0."""
    if getattr(args, "json", False):
        print(json.dumps(result.to_json(), indent=2), flush=True)
    else:
        print(result.render(), flush=True)
    if was_interrupted(result):
        return EXIT_INTERRUPTED
    return EXIT_UNKNOWN if result.verdict == "unknown" else EXIT_OK
