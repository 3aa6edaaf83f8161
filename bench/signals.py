"""Stop the `retrologic` command at random moments and check that the limits hold: SIGINT or
SIGTERM, to the command or to its whole process group (a terminal's Ctrl-C, GNU `timeout`),
sent a random time into long real runs (proof games with their certificates, the race, a
parallel batch with a CSV, last move, deduce, tablebases, the 4x4 census, `legal`, the web
server).

Each case passes when: the command exits by itself within `--grace` seconds of the signal (a
soft stop, the hard stop 1.5 s later, or a batch's busy workers killed 15 s later,
`collection.pool.WORKER_GRACE`), with status 130 (or its normal status if it had
finished first) and no traceback; no process of its session is left; no temporary file of an
atomic write (`.NAME.XXXX.tmp`) is left; every certificate written parses and `retrologic check`
accepts it; the CSV, if any, parses, one row per finished problem at most.

    python bench/signals.py [--cases N] [--seed K] [--grace S] [--only NAME,...]

Run it alone (it times the stops). The exit status is 1 when any case failed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW_LASTMOVE = "2b1kbnr/p1p1pppp/1pn1Qr2/3p3B/q5P1/4PN1R/PPPP1P1P/RNB4K"
THREE_QUEENS = "2bqkbnr/2pppppp/2n5/3r4/Q6Q/8/2PPPPPP/RNBQKBNR w KQk - 0 1"
HOW = ["SIGINT to the command", "SIGTERM to the command", "SIGINT to the group",
       "SIGTERM to the group"]


def _claims(n: int) -> list[str]:
    out = []
    for k in range(n):
        out += ["--claim", f"promotions(white) + captures(black) <= {k + 3}"]
    return out


def commands(out: Path) -> dict[str, list[str]]:
    """The long runs, by name; `out` is the case's own directory."""
    certs, table = str(out / "certs"), str(out / "tables")
    return {
        "spg-writer": ["solve", "problems/spg/malikovic-fig2.toml", "--certificate-dir", certs],
        "spg-race": ["solve", "bench/spg-long/prentos-2002.toml", "--timeout", "60",
                     "--certificate-dir", certs],
        "batch": ["solve", "problems/spg", "problems/lastmove", "-j", "2", "--csv",
                  str(out / "run.csv"), "--certificate-dir", certs],
        "lastmove": ["lastmove", SLOW_LASTMOVE, "--certificate-dir", certs],
        "deduce": ["deduce", THREE_QUEENS, *_claims(60), "--certificate-dir", certs],
        "tablebase": ["tablebase", "build", "--out", table, "KQK", "KRK", "KPK", "KQKR"],
        "census": ["puzzle4x4", "census", "--sample", "300000", "--workers", "2",
                   "--engine", "python", "--out", str(out / "census")],
        "legal": ["legal", "1nb1qbnr/r3pk1p/p1pp2p1/4P2P/4P1Q1/3p4/PPP3P1/RNB1K1N1 b Q - 1 15",
                  "--timeout", "30"],
        "serve": ["serve", "--port", "0"],
    }


@dataclass
class Case:
    name: str
    how: str
    delay: float
    status: int | None = None
    seconds: float = 0.0        # from the signal to the exit
    problems: str = ""
    certificates: int = 0       # certificates written, each checked


def _session(sid: int) -> list[int]:
    """Processes whose session is `sid` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _send(proc: subprocess.Popen, how: str) -> None:
    sig = signal.SIGINT if how.startswith("SIGINT") else signal.SIGTERM
    if how.endswith("group"):
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)


def _check_outputs(case: Case, out: Path, root: Path) -> list[str]:
    """What a stop left behind that it must not: temporaries, unreadable or rejected
    certificates, a broken CSV."""
    problems = [f"temporary left: {p.relative_to(out)}" for p in out.rglob(".*.tmp")]
    for cert in sorted((out / "certs").glob("*.json")) if (out / "certs").is_dir() else []:
        try:
            json.loads(cert.read_text())
        except ValueError as e:
            problems.append(f"{cert.name}: not JSON ({e})")
            continue
        case.certificates += 1
        got = subprocess.run([sys.executable, "-m", "retrologic", "check", str(cert)],
                             cwd=root, capture_output=True, text=True, timeout=600)
        if got.returncode != 0:
            problems.append(f"{cert.name}: check exit {got.returncode}: "
                            f"{(got.stdout + got.stderr).strip()[:200]}")
    table = out / "run.csv"
    if table.exists():
        try:
            rows = list(csv.DictReader(table.open()))
            if any(not r.get("file") for r in rows):
                problems.append("run.csv: a row without its file")
        except (csv.Error, UnicodeDecodeError) as e:
            problems.append(f"run.csv: unreadable ({e})")
    return problems


def run_case(case: Case, out: Path, grace: float, root: Path = ROOT) -> Case:
    """Start the command, signal it after `case.delay` s, and judge the stop."""
    argv = commands(out)[case.name]
    err_path = out / "stderr.txt"
    with open(out / "stdout.txt", "wb") as so, open(err_path, "wb") as se:
        proc = subprocess.Popen([sys.executable, "-m", "retrologic", *argv], cwd=root,
                                stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                start_new_session=True)
        finished_first = False
        try:
            proc.wait(timeout=case.delay)
            finished_first = True
        except subprocess.TimeoutExpired:
            _send(proc, case.how)
        sent = time.monotonic()
        try:
            case.status = proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            case.problems = f"still running {grace:.0f} s after the signal (killed)"
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return case
        case.seconds = time.monotonic() - sent
    problems = []
    if not finished_first and case.status != 130:
        problems.append(f"exit {case.status}, not 130")
    stderr = err_path.read_text(errors="replace")
    if "Traceback" in stderr:
        problems.append("a traceback: " + stderr.strip().splitlines()[-1][:160])
    deadline = time.monotonic() + 3.0
    left = _session(proc.pid)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _session(proc.pid)
    if left:
        problems.append(f"{len(left)} process(es) of its session left")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    problems += _check_outputs(case, out, root)
    case.problems = "; ".join(problems)
    return case


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--grace", type=float, default=20.0,
                    help="seconds the command has to exit after the signal")
    ap.add_argument("--max-delay", type=float, default=12.0)
    ap.add_argument("--only", default="", help="comma-separated command names")
    ap.add_argument("--root", type=Path, default=ROOT,
                    help="the tree to run (`python -m retrologic` from there: its own code)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    names = [n for n in commands(Path("x")) if not args.only or n in args.only.split(",")]
    failed, statuses, checked = 0, Counter(), 0
    print(f"signals: seed {args.seed}, {args.cases} cases, grace {args.grace} s", flush=True)
    for k in range(args.cases):
        case = Case(rng.choice(names), rng.choice(HOW), round(rng.uniform(0.3, args.max_delay), 2))
        out = Path(tempfile.mkdtemp(prefix="retrologic-signals-"))
        try:
            run_case(case, out, args.grace, args.root.resolve())
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            case.problems = f"the harness failed: {type(e).__name__}: {e}"
        finally:
            if case.problems:
                keep = out
            else:
                shutil.rmtree(out, ignore_errors=True)
        verdict = "FAIL " + case.problems + f" (kept {keep})" if case.problems else "ok"
        failed += bool(case.problems)
        statuses[case.status] += 1
        checked += case.certificates
        print(f"{k + 1:3d} {case.name:11s} {case.how:23s} at {case.delay:5.2f} s: exit "
              f"{case.status}, {case.seconds:4.2f} s after the signal, {case.certificates} "
              f"certificate(s): {verdict}", flush=True)
    print(f"{args.cases} cases: {failed} failed; exit statuses "
          f"{dict(sorted(statuses.items(), key=str))}; {checked} certificates checked",
          flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
