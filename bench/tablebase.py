"""Benchmark of the tablebase builds: time and positions/s per table, longest mates against the
published values, and a baseline in the same run: a per-position python-chess sweep (one pass of
move generation and lookups over the same positions, the least a per-position builder must do).

    python bench/tablebase.py                  # KQK KRK KPK KBNK KQKR, 2000-position samples
    python bench/tablebase.py --tables KQKR --sample 20000
    python bench/tablebase.py --full-check KRK # forward-check every position of a table
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrologic.tablebase import retrograde as rg  # noqa: E402
from retrologic.tablebase.table import Library, dependencies  # noqa: E402
from retrologic.tablebase.checker import check  # noqa: E402

PUBLISHED = {"KQK": 10, "KRK": 16, "KPK": 28, "KBNK": 33, "KQKR": 35}


def build_alone(lib: Library, sig: str):
    """Build `sig` with its sub-tables already in memory, so the time is this table's own."""
    for sub in dependencies(sig):
        lib.table(sub)
    t0 = time.perf_counter()
    table = lib.build(sig)
    lib.tables[sig] = table
    return table, time.perf_counter() - t0


def gaviota_full(lib: Library, sig: str) -> str:
    """Compare every legal position with Gaviota (3-man tables only)."""
    try:
        import chess
        import chess.gaviota
        from retrologic.tablebase import index as ti
        from retrologic.tablebase.checker import board_of
        tb = chess.gaviota.open_tablebase(os.environ.get("RETROLOGIC_GAVIOTA", "/usr/share/gaviotatb/gtb4"))
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        return f"gaviota unavailable: {e}"
    table = lib.table(sig)
    ids = np.flatnonzero(table.outcome != rg.INVALID)
    side, sq = ti.decode(table.layout, ids)
    signed = np.where(table.outcome[ids] == rg.WIN, table.dist[ids],
                      np.where(table.outcome[ids] == rg.LOSS, -table.dist[ids], 0))
    t0 = time.perf_counter()
    bad = sum(tb.probe_dtm(board_of(table.layout, side[i], sq[i])) != signed[i] for i in range(len(ids)))
    return f"gaviota: {len(ids):,} positions, {bad} differ ({time.perf_counter() - t0:.1f} s)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="KQK,KRK,KPK,KBNK,KQKR")
    ap.add_argument("--sample", type=int, default=2000, help="forward-check sample per table")
    ap.add_argument("--full-check", metavar="SIG", help="forward-check every position of SIG")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args()
    lib = Library(progress=args.progress)
    print(f"{'table':6} {'positions':>10} {'build s':>8} {'pos/s':>10} {'plies':>5} "
          f"{'longest':>7} {'published':>9} | {'py-chess sweep pos/s':>20} {'ratio':>7} | check")
    for sig in args.tables.split(","):
        table, seconds = build_alone(lib, sig)
        stats = table.stats()
        n = stats["positions"]
        t0 = time.perf_counter()
        report = check(lib, sig, sample=args.sample, seed=1)
        sweep = report.checked / (time.perf_counter() - t0)
        longest = np.flatnonzero((table.outcome == rg.WIN) & (table.dist == stats["longest_plies"]))
        deep = check(lib, sig, longest)
        verdict = (f"forward {report.checked:,} sampled + {deep.checked} longest: "
                   f"{len(report.mismatches) + len(deep.mismatches)} mismatches")
        print(f"{sig:6} {n:>10,} {seconds:>8.2f} {n / seconds:>10,.0f} {len(table.counts) - 1:>5} "
              f"{stats['longest_mate']:>7} {PUBLISHED.get(sig, '-'):>9} | {sweep:>20,.0f} "
              f"{n / seconds / sweep:>6.0f}x | {verdict}", flush=True)
        if len(sig) == 3:
            print(f"       {gaviota_full(lib, sig)}", flush=True)
    if args.full_check:
        t0 = time.perf_counter()
        report = check(lib, args.full_check)
        print(f"full forward check of {args.full_check}: {report.checked:,} positions, "
              f"{report.children:,} moves, {len(report.mismatches)} mismatches, "
              f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
