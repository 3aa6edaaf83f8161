"""SIGTERM (`kill PID`, what `timeout` and batch schedulers send at their limit) is the soft stop
Ctrl-C is, in the command's own process: what was finished is printed, exit 130
(tests/test_limits.py, `test_a_signal_stops_the_command_within_2_s_with_exit_130`). Here:
forked workers (the proof-game race) die on the SIGTERM their parent ends them with, and a
signal to a worker never stops the parent. Before, SIGTERM ended the command at once, printing
nothing. (The batch, `solve -j 2`, signalled alone or as a process group: tests/test_batch.py.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


RACE = textwrap.dedent("""
    import json, os, signal, sys, time
    from retrologic import limits
    from retrologic.spg import race

    def patient():                      # answers once stopped (the relayed SIGINT)
        while not limits.interrupted():
            time.sleep(0.02)
        return {"complete": False, "pid": os.getpid()}

    def deaf():                         # never answers: only a signal ends it
        while True:
            time.sleep(0.02)

    def quick():
        time.sleep(0.5)
        return {"complete": True}

    limits.install_interrupt(terminate=True)
    mode = sys.argv[1]
    jobs = {"a": patient, "b": patient} if mode == "stop" else {"a": quick, "b": deaf}
    start = time.monotonic()
    if mode == "stop":                  # the command is sent SIGTERM a second in
        os.system(f"(sleep 1; kill -TERM {os.getpid()}) &")
    answers = race.first_complete(jobs, limits.interrupted)
    print(json.dumps({"answers": answers, "seconds": time.monotonic() - start,
                      "interrupted": limits.interrupted(), "by": limits.stopped_by()}))
""")


def _race(mode: str) -> dict:
    import json
    proc = subprocess.run([sys.executable, "-c", RACE, mode], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_sigterm_to_a_racing_command_is_relayed_and_both_workers_answer():
    """SIGTERM to the racing command is its soft stop, relayed to each forked worker as
    Ctrl-C: both answer with what they have (none killed, none lost)."""
    got = _race("stop")
    assert got["interrupted"] and got["by"] == "SIGTERM"
    assert sorted(got["answers"]) == ["a", "b"], got
    assert all("error" not in a and a["pid"] for a in got["answers"].values()), got


def test_a_worker_ends_on_the_sigterm_its_parent_sends():
    """Once one worker answers, the other is terminated (SIGTERM): it must die at once, not
    after the 2 s grace before SIGKILL, and the parent is not stopped by it."""
    got = _race("end")
    assert got["answers"] == {"a": {"complete": True}}
    assert not got["interrupted"]
    assert got["seconds"] < 1.5, got      # 0.5 s here; 2.0 s when the worker kept a handler
