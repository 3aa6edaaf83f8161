"""Background jobs of the web page (issue #20, item 4): each question runs as its own
`retrologic solve FILE --json --timeout T --certificate-dir DIR --progress` subprocess (through
retrologic.web.worker, which adds a progress line of the engine's node count twice a second),
so the server never hangs nor shares an engine's memory: the engine honours its --timeout (a
Budget), and the server kills the process if it is still alive GRACE seconds after that. A
reader thread per job collects the JSON record (stdout), the latest figures of the worker's
progress lines and the last other stderr line (an engine's own progress, or an error).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrologic.errors import InputError
from retrologic.web import progress
from retrologic.web.problemtext import Pasted, write

MAX_TIMEOUT = 600.0         # seconds a page may ask for
GRACE = 10.0                # seconds past the timeout before the server kills the process
MAX_RUNNING = 2             # jobs at once (the machine's cores); more are refused, not queued
MAX_JOBS = 200              # jobs kept; the oldest finished ones are forgotten


@dataclass
class Job:
    """One question being answered: its state ("running", "done", "error"), the solve record
    (the first one: a Popeye/YACPDB file may hold several, counted in `more`), progress."""

    id: str
    directory: Path
    problem: Path
    source: str
    timeout: float
    started: float = field(default_factory=time.monotonic)
    state: str = "running"
    record: dict[str, Any] | None = None
    more: int = 0
    progress: str = ""                  # the last stderr line that is not the worker's
    figures: dict[str, float] = field(default_factory=dict)   # the worker's latest progress
    error: str | None = None
    seconds: float | None = None
    process: subprocess.Popen | None = None

    @property
    def certificates(self) -> Path:
        return self.directory / "certificates"


def parse_timeout(value: Any) -> float:
    """The page's timeout field: seconds, more than 0 and at most MAX_TIMEOUT."""
    try:
        if isinstance(value, bool):                 # float(True) is 1.0
            raise TypeError
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):      # 400 digits: too large for a float
        raise InputError("a number of seconds", field="timeout", value=value) from None
    if not 0 < seconds <= MAX_TIMEOUT:          # also refuses nan
        raise InputError(f"must be more than 0 and at most {MAX_TIMEOUT:g}", field="timeout",
                         value=value)
    return seconds


class Jobs:
    """The server's jobs, each in its own directory under one temporary directory."""

    def __init__(self, root: str | Path | None = None) -> None:
        self._tmp = None if root is not None else tempfile.TemporaryDirectory(prefix="retrologic-web-")
        self.root = Path(root if root is not None else self._tmp.name)  # type: ignore[union-attr]
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def running(self) -> int:
        return sum(1 for j in self.jobs.values() if j.state == "running")

    def start(self, pasted: Pasted, timeout: float) -> Job:
        """Start a job; InputError when MAX_RUNNING jobs already run."""
        with self.lock:
            if self.running() >= MAX_RUNNING:
                raise InputError(f"{MAX_RUNNING} jobs are running: wait for one to finish",
                                 field="job", value=self.running())
            self._forget_old()
            job_id = uuid.uuid4().hex[:12]
            directory = self.root / job_id
            directory.mkdir(parents=True)
            job = Job(job_id, directory, write(pasted, directory), pasted.source, timeout)
            self.jobs[job_id] = job
        # the problem by its name in the job's directory (the cwd): an error message then
        # names it in full, however long the server's temporary path, and reads "pasted problem"
        command = [sys.executable, "-m", "retrologic.web.worker", "solve", job.problem.name,
                   "--json", "--timeout", repr(timeout), "--certificate-dir",
                   str(job.certificates), "--progress"]
        package_root = str(Path(__file__).resolve().parents[2])   # this very retrologic
        path = os.environ.get("PYTHONPATH")
        env = dict(os.environ, PYTHONUNBUFFERED="1",
                   PYTHONPATH=package_root + (os.pathsep + path if path else ""))
        try:
            job.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                           text=True, env=env, cwd=str(directory))
        except OSError as e:        # no process: the job ends at once, with the reason
            job.state, job.error = "error", f"cannot start the solver: {e.strerror or e}"
            return job
        reader = threading.Thread(target=self._read_progress, args=(job,), daemon=True)
        reader.start()
        threading.Thread(target=self._wait, args=(job, reader), daemon=True).start()
        return job

    def _forget_old(self) -> None:
        finished = [j for j in self.jobs.values() if j.state != "running"]
        for job in finished[:max(0, len(self.jobs) - MAX_JOBS + 1)]:
            del self.jobs[job.id]

    @staticmethod
    def _read_progress(job: Job) -> None:
        """Keep the worker's latest progress figures, and the last other stderr line: an
        engine's own progress, or the one-line error of bad input."""
        assert job.process is not None and job.process.stderr is not None
        for line in job.process.stderr:
            other, figures = progress.split(line.strip())
            if figures is not None:
                job.figures = figures
            if other:
                job.progress = other[:300]

    @staticmethod
    def _wait(job: Job, reader: threading.Thread) -> None:
        """Read the records from stdout (stderr is `reader`'s: `communicate` read it too, took
        lines from the progress reader and closed the file under it, a ValueError in that
        thread); kill the process GRACE seconds past its timeout."""
        process = job.process
        assert process is not None and process.stdout is not None
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            process.kill()

        timer = threading.Timer(job.timeout + GRACE, kill)
        timer.daemon = True
        timer.start()
        try:
            out = process.stdout.read()
            process.wait()
        finally:
            timer.cancel()
        reader.join()        # stderr read to its end: its last line may be the error of bad input
        if killed.is_set():
            job.error = f"stopped by the server {GRACE:g} s after the time limit"
        records = []
        for line in (out or "").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
        job.seconds = round(time.monotonic() - job.started, 2)
        if records:
            job.record, job.more = records[0], len(records) - 1
            if "error" in job.record:
                job.error = job.record["error"]["message"]
        elif job.error is None:
            job.error = job.progress.removeprefix("retrologic: ") or \
                f"no answer (exit status {job.process.returncode})"
        if job.error:       # the job's file is the page's text: say so, not the temporary path
            job.error = job.error.replace(str(job.problem), "pasted problem") \
                .replace(job.problem.name, "pasted problem")
        job.state = "error" if job.record is None or "error" in job.record else "done"

    def stop_all(self) -> None:
        """Kill every running job (server shutdown)."""
        for job in list(self.jobs.values()):
            if job.state == "running" and job.process is not None:
                job.process.kill()

    def close(self) -> None:
        self.stop_all()
        if self._tmp is not None:
            self._tmp.cleanup()
