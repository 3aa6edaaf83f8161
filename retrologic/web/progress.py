"""The web worker's progress line (issue #20, item 4), written by retrologic.web.worker in the
solver process and read by retrologic.web.jobs in the server: one module both import, so the
server never imports the worker (which runs the command line: no import cycle).

    retrologic-progress {"elapsed": 1.5, "cpu": 1.38, "nodes": 4242}
"""

from __future__ import annotations

import json

PREFIX = "retrologic-progress "


def parse(line: str) -> dict[str, float] | None:
    """A progress line's figures, or None for any other stderr line (an engine's own
    progress, or the one-line error of bad input)."""
    if not line.startswith(PREFIX):
        return None
    try:
        data = json.loads(line[len(PREFIX):])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return {k: data[k] for k in ("elapsed", "cpu", "nodes")
            if isinstance(data.get(k), (int, float)) and not isinstance(data.get(k), bool)}


def split(line: str) -> tuple[str, dict[str, float] | None]:
    """A stderr line as (other text, the latest progress figures in it): robust to a progress
    line that another write ran into (`spg: ...retrologic-progress {...}`)."""
    head, sep, _ = line.partition(PREFIX)
    if not sep:
        return line, None
    figures = None
    for chunk in line[len(head):].split(PREFIX)[1:]:
        figures = parse(PREFIX + chunk.strip()) or figures
    return head.strip(), figures
