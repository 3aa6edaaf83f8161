"""The web page's solver process (issue #20, item 4): `python -m retrologic.web.worker solve
FILE --json ...` is `retrologic solve` plus a progress line on stderr every INTERVAL seconds,
so the page shows the engine working, not only a clock.

Why here and not in the engines: most engines print nothing while they search (the last-move
search, the game finder) or one line at the end (the proof-game search), and they all share
one count already: the nodes charged to the question's limits.Budget objects, which is what
`--nodes` limits. The worker registers every Budget the process makes
(`retrologic.progress.Census`, weakly: nothing is kept alive) and reports the largest count
one of them has reached so far, its turns still running included (`Budget.live`; a child budget
of a shared question starts from, or is merged back into, its parent's count), with the
process's CPU seconds:

    retrologic-progress {"elapsed": 1.5, "cpu": 1.38, "nodes": 4242}

It listens through `limits.on_budget`; `retrologic solve` itself is unchanged.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Sequence

from retrologic.progress import INTERVAL, Census, without_bars
from retrologic.web.progress import PREFIX


def line(census: Census) -> str:
    """One progress line: the prefix, then the census's figures as JSON."""
    return PREFIX + json.dumps(census.figures())


def report(census: Census, stop: threading.Event, stream=None) -> None:
    """Write a progress line every INTERVAL seconds until `stop` is set."""
    out = stream if stream is not None else sys.stderr
    while not stop.wait(INTERVAL):
        try:                    # one write per line: never split by another thread's output
            out.write(line(census) + "\n")
            out.flush()
        except (OSError, ValueError):       # the server went away: the job is being killed
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run the retrologic command `argv` (`solve ...`) with progress lines; its exit status."""
    from retrologic.cli import main as cli_main
    from retrologic.problemfile import confine
    confine(Path.cwd())         # the job's directory: a pasted problem names no file elsewhere
    census = Census()
    census.install()
    without_bars()              # the page reads the lines below, not `--progress` counters
    stop = threading.Event()
    thread = threading.Thread(target=report, args=(census, stop), daemon=True)
    thread.start()
    try:
        return cli_main(None if argv is None else list(argv))   # None: the console's argv
    finally:
        stop.set()


if __name__ == "__main__":
    sys.exit(main())
