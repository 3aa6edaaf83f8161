"""Proof-game latency (issue #22, item 1): CPU per problems/spg file of <= 22 plies, as a fresh
process and inside one batch process, for this tree and a baseline checkout, in one run.

    git worktree add /tmp/spg-base 8a9d8db          # the baseline, used read-only
    python bench/spg-latency.py [--base /tmp/spg-base] [--max-plies 22] [--repeat 1]
                                [--timeout 60] [FILE...]

Fresh: `python -m retrologic solve FILE` in a child process with PYTHONPATH at the tree; CPU is
the child's user + system time (interpreter start, imports and all), the median of --repeat
runs. Compiled bytecode is cached (PYTHONPYCACHEPREFIX, a directory under /tmp, filled by one
untimed run per tree first) as for an installed package; --no-pycache keeps the environment's
setting (here PYTHONDONTWRITEBYTECODE=1: every run compiles the package's sources). Batch: one child process per tree loads `retrologic.problem` once and then, per file,
loads, solves, compares with [expect] and renders (text and JSON), as `retrologic solve F1 F2
...` does; CPU is `time.process_time()` around that. Before the first file, one 1-ply problem
(not measured) is solved by the same path, so one-off imports (OR-Tools in the baseline) are
paid once per batch as in a long one; CPU of child processes (the two-core race) is not
counted there: the fresh column counts it. Each tree's batch runs twice, in the order base,
new, new, base, and each file keeps the smaller CPU of its tree's two runs: with one run each,
one after the other, the second process was 1.4-1.7 times slower on 9 of 11 files with the
same proof-game code (2026-11-27). Fresh runs alternate baseline / tree per file,
so both see the same machine load. Prints, per file, both times with the ratio base/new and
each verdict ("!" after one that does not meet the file's [expect]), then the medians per band
(<= 16 plies: the issue's targets 0.25 s fresh and 0.03 s batch; 17-22 plies).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
BANDS = ((0, 16, "<= 16 plies"), (17, 22, "17-22 plies"))


def plies_of(path: Path) -> int | None:
    """The file's length in plies (Popeye: N.0 is 2N, N.5 is 2N+1), None if not an spg file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    question = data.get("question", {})
    if question.get("kind") != "spg":
        return None
    whole, _, half = str(question["moves"]).partition(".")
    return 2 * int(whole) + (1 if half.startswith("5") else 0)


PYCACHE = Path("/tmp/spg-latency-pycache")


def child_env(tree: Path, pycache: bool) -> dict[str, str]:
    """The environment of a child running the tree's code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def fresh_cpu(tree: Path, path: Path, timeout: float, pycache: bool = True
              ) -> tuple[float, str]:
    """CPU seconds (user + system) of `python -m retrologic solve --json FILE` with the tree's
    code, and the file's outcome (met / not met / unknown / error)."""
    env = child_env(tree, pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "retrologic", "solve", "--json", "--timeout",
                           str(timeout), str(path)], env=env, capture_output=True, text=True,
                          cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    outcome = "error"
    for line in proc.stdout.splitlines():
        try:
            outcome = json.loads(line).get("outcome", outcome)
        except json.JSONDecodeError:
            pass
    return cpu, outcome


BATCH = r"""
import json, sys, time
from retrologic import problem as P
from retrologic.options import SolveOptions
import retrologic.questions.spg  # what `solve` imports for the first spg file
timeout = float(sys.argv[1])
warm = P.parse({"format": "retrologic/1", "question": {"kind": "spg", "moves": 0.5},
                "position": {"fen": "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"}})
r = P.solve(warm, SolveOptions()); r.render(); json.dumps(r.to_json())  # not measured
for path in sys.argv[2:]:
    t0 = time.process_time()
    prob = P.load(path)
    result = P.solve(prob, SolveOptions(timeout=timeout))
    mismatches = P.check(prob, result)
    result.render(); json.dumps(result.to_json())
    cpu = time.process_time() - t0
    outcome = "unknown" if result.verdict == "unknown" else ("met" if not mismatches else "not met")
    print(json.dumps({"file": path, "cpu": cpu, "outcome": outcome,
                      "status": result.facts.get("status")}), flush=True)
"""


def batch_cpu(tree: Path, paths: list[Path], timeout: float, pycache: bool = True
              ) -> dict[str, tuple[float, str]]:
    """Per file, the CPU seconds inside one process solving every file in turn, and outcome."""
    env = child_env(tree, pycache)
    proc = subprocess.run([sys.executable, "-c", BATCH, str(timeout)] + [str(p) for p in paths],
                          env=env, capture_output=True, text=True, cwd=tree)
    out: dict[str, tuple[float, str]] = {}
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        out[rec["file"]] = (rec["cpu"], rec["outcome"])
    if proc.returncode != 0:
        print(f"batch with {tree} failed: {proc.stderr.strip().splitlines()[-1:]}",
              file=sys.stderr)
    return out


def lesser(runs: list[dict[str, tuple[float, str]]], key: str) -> tuple[float, str]:
    """The smaller CPU of one tree's batch runs for a file, with the first run's outcome."""
    found = [run[key] for run in runs if key in run]
    if not found:
        return float("nan"), "error"
    return min(cpu for cpu, _ in found), found[0][1]


def mark(outcome: str) -> str:
    return {"met": " ", "unknown": "?"}.get(outcome, "!")


def ratio(base: float, new: float) -> str:
    return f"{base / new:6.1f}x" if new > 0 else "     -"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--base", type=Path, default=Path("/tmp/spg-base"),
                    help="the baseline checkout (git worktree add /tmp/spg-base 8a9d8db)")
    ap.add_argument("--max-plies", type=int, default=22)
    ap.add_argument("--repeat", type=int, default=1, help="fresh runs per file (median)")
    ap.add_argument("--timeout", type=float, default=60.0, help="per problem and run")
    ap.add_argument("--no-batch", action="store_true")
    ap.add_argument("--no-pycache", action="store_true",
                    help="no bytecode cache: every fresh run compiles the package")
    args = ap.parse_args(argv)
    if not (args.base / "retrologic" / "__init__.py").exists():
        print(f"{args.base}: no baseline checkout (git worktree add {args.base} 8a9d8db)",
              file=sys.stderr)
        return 3
    files = args.files or sorted((HERE / "problems" / "spg").glob("*.toml"))
    chosen = sorted(((plies_of(p), p.resolve()) for p in files), key=lambda t: (t[0] or 0, t[1]))
    chosen = [(n, p) for n, p in chosen if n is not None and n <= args.max_plies]
    paths = [p for _, p in chosen]
    rows: dict[Path, dict[str, Any]] = {p: {"plies": n} for n, p in chosen}
    pycache = not args.no_pycache
    if pycache and paths:   # one untimed run per tree fills the bytecode cache
        for tree in (args.base, HERE):
            fresh_cpu(tree, paths[0], args.timeout)
    if not args.no_batch:  # four batch processes, one after the other: base, new, new, base
        runs = {tree: [] for tree in (args.base, HERE)}
        for tree in (args.base, HERE, HERE, args.base):
            runs[tree].append(batch_cpu(tree, paths, args.timeout, pycache))
        for p in paths:
            rows[p]["batch"] = tuple(lesser(runs[tree], str(p)) for tree in (args.base, HERE))
    print(f"{'file':34} {'plies':>5} | {'fresh base':>10} {'new':>7} {'ratio':>7} | "
          f"{'batch base':>10} {'new':>7} {'ratio':>7}")
    for p in paths:
        runs = [(fresh_cpu(args.base, p, args.timeout, pycache),
                 fresh_cpu(HERE, p, args.timeout, pycache)) for _ in range(args.repeat)]
        fb = statistics.median(r[0][0] for r in runs)
        fn = statistics.median(r[1][0] for r in runs)
        row = rows[p]
        row["fresh"] = ((fb, runs[-1][0][1]), (fn, runs[-1][1][1]))
        line = f"{p.stem[:34]:34} {row['plies']:5} | {fb:9.3f}{mark(runs[-1][0][1])} " \
               f"{fn:6.3f}{mark(runs[-1][1][1])} {ratio(fb, fn)} |"
        if "batch" in row:
            (bb, ob), (bn, on) = row["batch"]
            line += f" {bb:9.3f}{mark(ob)} {bn:6.3f}{mark(on)} {ratio(bb, bn)}"
        print(line, flush=True)
    print("medians (CPU s; '!' = [expect] not met, '?' = unknown):")
    for lo, hi, name in BANDS:
        band = [rows[p] for p in paths if lo <= rows[p]["plies"] <= hi]
        if not band:
            continue
        text = f"  {name:12} ({len(band):2} files): fresh base " \
               f"{statistics.median(r['fresh'][0][0] for r in band):.3f} new " \
               f"{statistics.median(r['fresh'][1][0] for r in band):.3f}"
        if not args.no_batch:
            text += f"; batch base {statistics.median(r['batch'][0][0] for r in band):.3f} new " \
                    f"{statistics.median(r['batch'][1][0] for r in band):.4f}"
        print(text)
    bad = [p.stem for p in paths for which in ("fresh", "batch") if which in rows[p]
           and rows[p][which][1][1] not in ("met", "unknown")]
    if bad:
        print(f"[expect] not met with this tree: {', '.join(sorted(set(bad)))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
