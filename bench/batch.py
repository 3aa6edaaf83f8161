"""Wall time of `retrologic solve DIR` with -j 1 and -j 2 (issue #20: -j 2 at least 1.7x faster on
problems/), run one after the other in the same run, with the same verdicts checked record by record
(the engines' own timing fields left out) and the slowest problems listed from the CSV.

    python bench/batch.py [--dir problems ...] [--jobs 1 2] [--timeout S] [--out DIR] [--reuse]

Each run is a fresh `python -m retrologic solve --json --csv` process; its JSON Lines (streamed, so
a long run's progress can be followed), stderr, CSV and wall time are kept in --out (default: a
temporary directory); --reuse takes a run already there instead of running it again.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
def timing(key: str) -> bool:
    """An engine's own wall-time figure ("seconds", "elapsed_ms", "invariant_s"...)."""
    return key == "seconds" or key.endswith(("_ms", "_s"))


def untimed(value):
    """A record without the engines' own wall-time figures."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not timing(k)}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def solve(directory: list[str], jobs: int, timeout: float | None, out: Path,
          reuse: bool = False) -> tuple[float, list[dict], list[dict], int]:
    """One run: wall seconds, records, CSV rows, exit status."""
    csv_path = out / f"j{jobs}.csv"
    cmd = [sys.executable, "-m", "retrologic", "solve", "--json", "-j", str(jobs), "--csv",
           str(csv_path), *directory]
    if timeout:
        cmd += ["--timeout", str(timeout)]
    wall_path, out_path, err_path = (out / f"j{jobs}.{ext}" for ext in ("wall", "jsonl", "err"))
    if reuse and wall_path.exists():             # a run kept from before (--reuse)
        wall, status = (float(x) for x in wall_path.read_text().split())
    else:
        start = time.monotonic()
        with open(out_path, "w") as fo, open(err_path, "w") as fe:   # streamed: progress visible
            status = subprocess.run(cmd, cwd=ROOT, stdout=fo, stderr=fe,
                                    stdin=subprocess.DEVNULL).returncode
        wall = time.monotonic() - start
        wall_path.write_text(f"{wall} {status}\n")
    records = [json.loads(line) for line in out_path.read_text().splitlines()]
    with open(csv_path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    err = err_path.read_text().strip()
    summary = err.splitlines()[-1] if err else ""
    print(f"-j {jobs}: {wall:.1f} s wall, exit {int(status)}, {summary}", flush=True)
    return wall, records, rows, int(status)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", nargs="+", default=["problems"], help="directories (or files)")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--timeout", type=float, default=None, help="per problem (default: none)")
    ap.add_argument("--out", default=None, help="keep the outputs here")
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument("--reuse", action="store_true",
                    help="reuse a run already in --out (its jN.wall, jN.jsonl, jN.csv)")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="retrologic-batch-"))
    out.mkdir(parents=True, exist_ok=True)
    runs = {j: solve(args.dir, j, args.timeout, out, args.reuse) for j in args.jobs}
    first = min(args.jobs)          # the baseline: the fewest processes
    base_wall, base_records, base_rows, _ = runs[first]
    same = True
    for j, (wall, records, rows, _) in runs.items():
        if j == first:
            continue
        if untimed(records) != untimed(base_records):
            same = False
            for a, b in zip(base_records, records):
                if untimed(a) != untimed(b):
                    print(f"  differs: {a.get('file')}: -j {first} {a.get('outcome')} "
                          f"{a.get('verdict')} / -j {j} {b.get('outcome')} {b.get('verdict')}")
        print(f"-j {j} vs -j {first}: {base_wall / wall:.2f}x as fast in wall time "
              f"({base_wall:.1f} s / {wall:.1f} s); records identical: {same}")
    total = sum(float(r["seconds"]) for r in base_rows)
    print(f"{len(base_rows)} problems; -j {first}: sum of per-problem times {total:.1f} s")
    for r in sorted(base_rows, key=lambda r: -float(r["seconds"]))[:args.slowest]:
        print(f"  {float(r['seconds']):8.1f} s  {r['file']}  ({r['outcome']})")
    print(f"outputs in {out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
