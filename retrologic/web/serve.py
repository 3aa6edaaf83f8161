"""`retrologic serve [--host 127.0.0.1] [--port 8000]`: the web page (issue #20, item 4) on
Werkzeug's threaded server, localhost unless told otherwise; Ctrl-C or SIGTERM (`kill PID`, the
command's soft stop, retrologic.limits) stops it and its jobs, exit 130."""

from __future__ import annotations

import argparse
import contextlib
import io
import threading

from retrologic import limits
from retrologic.errors import EXIT_OK, InputError

DEFAULT_PORT = 8000


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is from 0 to 65535: {text!r}")
    return port


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free one)")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C; running jobs are killed and their files removed on the way out."""
    try:
        from werkzeug.serving import make_server

        from retrologic.web.app import create_app
    except ImportError as e:
        raise InputError(f"the web page needs Flask: pip install 'retrologic[web]' ({e.name} "
                         "is missing)", field="serve", value=e.name) from None
    app = create_app()
    jobs = app.extensions["retrologic.jobs"]
    said = io.StringIO()
    try:        # Werkzeug prints its own lines and exits when the port is taken: say one line
        with contextlib.redirect_stderr(said):
            server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, SystemExit) as e:
        jobs.close()
        why = getattr(e, "strerror", None) or (said.getvalue().strip().splitlines() or [str(e)])[0]
        raise InputError(f"cannot listen: {why}", field="--port",
                         value=f"{args.host}:{args.port}") from None
    def shut_down() -> None:    # serve_forever's loop ends within its poll interval, 0.5 s
        threading.Thread(target=server.shutdown, name="retrologic-serve-stop",
                         daemon=True).start()
    try:
        # the soft stop (Ctrl-C, `kill PID`) leaves serve_forever, so the jobs are killed and
        # their directory removed (review of 2026-11-30: a `kill` left every job's files behind)
        with limits.on_interrupt(shut_down):
            print(f"retrologic: serving on http://{args.host}:{server.server_port}/ (Ctrl-C "
                  "stops)", flush=True)
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        jobs.close()
    return EXIT_OK
