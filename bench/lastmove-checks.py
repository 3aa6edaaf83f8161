"""Last-move answers on ordinary positions whose side to move is in check (issue #19), this tree
beside a baseline tree in one run: the diagrams are the ends of random python-chess games (30-90
plies, a third of the moves captures when one is legal, then played on until a checking move),
each solved by `retrologic lastmove FEN --nodes N --json` in a fresh process per tree, in turn.
A node limit, not a time limit, so that both trees do the same work whatever the machine's load.

    python bench/lastmove-checks.py --base TREE [--positions 20] [--seed 7] [--nodes 20000]
                                    [--csv FILE]

TREE is another checkout (e.g. `git archive REV | tar -x -C /tmp/base`). Printed per diagram and
tree: verdict, finding, and the candidates possible / unresolved / impossible; at the end the
verdicts counted per tree and how many diagrams' candidate statuses differ between the trees.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent


def diagrams(seed: int, count: int) -> list[tuple[str, str]]:
    """(FEN, the checking move in SAN) of `count` random games that end with a check."""
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < count:
        board = chess.Board()
        for _ in range(rng.randint(30, 90)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures) if captures and rng.random() < 0.3
                       else rng.choice(moves))
        if board.is_game_over():
            continue
        for _ in range(20):
            moves = list(board.legal_moves)
            checks = [m for m in moves if board.gives_check(m)]
            if checks:
                move = rng.choice(checks)
                san = board.san(move)
                board.push(move)
                if not board.is_game_over():
                    out.append((board.fen(), san))
                break
            if not moves:
                break
            board.push(rng.choice(moves))
    return out


def solve(tree: Path, fen: str, nodes: int) -> dict:
    """One fresh `lastmove` run of `tree` on `fen`: verdict, finding, statuses, seconds."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-m", "retrologic", "lastmove", fen, "--nodes",
                           str(nodes), "--json"], capture_output=True, text=True, env=env,
                          cwd=tree)
    record = json.loads(done.stdout)
    statuses = Counter(c["status"] for c in record["details"]["candidates"])
    return {"verdict": record["verdict"], "finding": record["facts"].get("finding"),
            "possible": statuses["possible"], "unresolved": statuses["unresolved"],
            "impossible": statuses["impossible"], "seconds": record["details"]["seconds"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="the baseline tree")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nodes", type=int, default=20_000)
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    rows = []
    for fen, san in diagrams(args.seed, args.positions):
        for name, tree in (("base", args.base.resolve()), ("head", ROOT)):
            row = {"fen": fen, "last": san, "tree": name, **solve(tree, fen, args.nodes)}
            rows.append(row)
            print(f"{name} {row['verdict']:<8} {row['finding'] or '-':<14} possible "
                  f"{row['possible']:>3} unresolved {row['unresolved']:>3} impossible "
                  f"{row['impossible']:>3} {row['seconds']:7.2f} s  {fen}", flush=True)
    for name in ("base", "head"):
        mine = [r for r in rows if r["tree"] == name]
        print(name, dict(Counter(f"{r['verdict']} {r['finding'] or ''}".strip() for r in mine)))
    key = ("possible", "unresolved", "impossible")
    pairs = {}
    for r in rows:
        pairs.setdefault(r["fen"], {})[r["tree"]] = tuple(r[k] for k in key)
    print(sum(1 for p in pairs.values() if len(set(p.values())) > 1),
          "diagrams whose candidate statuses differ between the trees")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
