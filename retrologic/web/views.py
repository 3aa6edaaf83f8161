"""What the web page shows of a job (issue #20, item 4): the verdict, answer and reason of the
`solve` record, the diagram(s) of retrologic.pictures, a game's frames to step through, the
PGN and the certificates to download. Plain JSON for the page's script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess

from retrologic.result import Result
from retrologic.web.jobs import Job


def _position(job: Job) -> Any:
    """The diagram of the job's (first) problem, read again by the format readers; None when
    it cannot be read (the record then carries the error)."""
    try:
        from retrologic.formats.detect import load_all
        problems = load_all(job.problem)
    except Exception:  # noqa: BLE001 - no picture, the record says why
        return None
    if not problems:
        return None
    problem = problems[0]
    if problem.position is not None:
        return problem.position
    fen = (problem.position_table or {}).get("fen")
    if fen:
        try:
            return chess.Board(fen) if " " in fen.strip() else chess.BaseBoard(fen.strip())
        except ValueError:
            return None
    return None


def _game(record: dict[str, Any]) -> list[chess.Move]:
    """The game to step through: a proof game's first solution, or the legal game that ends in
    a possible last move."""
    from retrologic.pictures.svg import games_of
    details = record.get("details") or {}
    games = games_of(details)
    if games:
        return games[0]
    for c in details.get("candidates") or []:
        if c.get("status") == "possible" and c.get("game"):
            return [chess.Move.from_uci(u) for u in c["game"]]
    return []


def certificates(job: Job) -> list[str]:
    """Certificate files written by the job, as paths relative to its certificate directory."""
    root = job.certificates
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.json") if p.is_file())


def progress_text(job: Job) -> str:
    """What the page shows under the verdict while a job runs: the nodes the engine has
    charged to its budget and the solver process's CPU seconds (retrologic.web.worker's
    latest line), then the engine's own last progress line, if it printed one."""
    parts = []
    figures = job.figures
    if "nodes" in figures:
        parts.append(f"{int(figures['nodes']):,} nodes searched")
    if "cpu" in figures:
        parts.append(f"CPU {figures['cpu']:.1f} s")
    engine = job.progress.removeprefix("retrologic: ")
    if engine:
        parts.append(engine)
    return " · ".join(parts)


def job_view(job: Job) -> dict[str, Any]:
    """The job as the page's script reads it."""
    import time
    out: dict[str, Any] = {"id": job.id, "state": job.state, "source": job.source,
                           "progress": progress_text(job) if job.state == "running" else "",
                           "figures": dict(job.figures),
                           "elapsed": round(job.seconds if job.seconds is not None
                                            else time.monotonic() - job.started, 1)}
    if job.state == "running":
        return out
    if job.error:
        out["error"] = job.error
    record = job.record
    if not record or "error" in record:
        return out
    out.update({k: record.get(k) for k in ("kind", "verdict", "answer", "reason", "outcome",
                                           "title")})
    out["more"] = job.more
    if record.get("expect") is not None:
        out["expect"] = record["expect"]
    out["certificates"] = certificates(job)
    details = record.get("details") or {}
    out["pgn"] = (details.get("pgn") or [None])[0]
    position = _position(job)
    if position is not None:
        from retrologic.pictures import frames
        from retrologic.pictures.svg import for_result
        result = Result(record["kind"], record["verdict"], record.get("answer"),
                        record.get("reason"), dict(record.get("facts") or {}), details)
        try:
            out["diagram"] = for_result(result, position)
        except Exception as e:  # noqa: BLE001 - a picture never hides the verdict
            out["diagram_error"] = f"{type(e).__name__}: {e}"[:200]
        moves = _game(record)
        if moves:
            out["frames"] = frames.frames(moves)
    return out


def certificate_path(job: Job, name: str) -> Path | None:
    """A certificate of the job by its relative name, only if it is one it wrote."""
    return job.certificates / name if name in certificates(job) else None
