"""Benchmark of the proof-game solver over problems/spg: time, nodes, verdict and the process's
peak memory so far per problem, side by side with a baseline in the same run (the same
exhaustive search pruned only by a chess-blind counting argument: the squares a side still has
to change, at most two per move).

    python bench/spg.py [--timeout S] [--baseline-timeout S] [--previous-timeout S] [--engine E]
                        [--previous-engine E]
                        [--previous-options NAME=0|1,...] [FILE...]
    python bench/spg.py --suffix 10,12 [--timeout S] [FILE...]
    python bench/spg.py --baseline PATH [--timeout S] [--csv FILE] [FILE_OR_DIR...]
    python bench/spg.py --fresh [--timeout S] [--csv FILE] [FILE_OR_DIR...]

--baseline PATH (issue #22): every problem is solved in a fresh process, `python -m retrologic
solve --json --timeout S FILE`, once with this tree and once with the checkout at PATH (e.g.
`git archive 8a9d8db | tar -x -C /tmp/spg-base`), one after the other on the same machine, so the
CPU columns (user + system of the child, imports included) compare like with like under the same
load. Beside the CPU it prints the verdict, the search nodes, the CP-SAT solves and any CP-SAT
conflicts the JSON reports, then the bands of issue #22: median CPU for <= 10, 11-16 and 17-22
plies, decided share for 23-30, 31-40 and 41-60 plies. --fresh does the same without a baseline.
Default files: problems/spg and bench/spg-long. A verdict that contradicts the file's [expect] is
printed as WRONG (the worst outcome; an unknown one is only undecided).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic import problem  # noqa: E402
from retrologic.errors import InputError  # noqa: E402
from retrologic.spg import solver as spg
from retrologic.questions.spg import answer_result  # noqa: E402
from retrologic.spg.analysis import SWITCHES  # noqa: E402
from retrologic.spg.search import Limits, Search  # noqa: E402

# the bound as it was before the plan deductions (capture capacity, the coupled bound of a side
# whose opponent has no spare move, cheapest-route steps, landing squares): the "previous" columns
PREVIOUS = {"capacity": False, "coupling": False, "route_steps": False, "landings": False,
            "victim_visits": False, "visit_steps": False}

# published solutions of problem files too slow for the CI suite (they carry no [expect])
PUBLISHED = {
    "kirtley-caillaud-2-solutions.toml": [
        "1.g4 h5 2.g5 Rh6 3.gxh6 e5 4.hxg7 Ke7 5.gxf8=Q+ Kf6 6.Qg7+ Ke6 7.Qg6+ fxg6",
        "1.g3 e5 2.g4 Be7 3.g5 Bf6 4.gxf6 h5 5.fxg7 Ke7 6.gxh8=N Ke6 7.Ng6 fxg6",
    ],
}


def _differences(board: chess.BaseBoard, target: chess.BaseBoard, color: chess.Color) -> int:
    n = 0
    for sq in chess.scan_forward(board.occupied_co[color] | target.occupied_co[color]):
        a, b = board.piece_at(sq), target.piece_at(sq)
        a = a if a is not None and a.color == color else None
        b = b if b is not None and b.color == color else None
        n += a != b
    return n


def counting_prune(target: chess.BaseBoard):
    """The baseline's test: a side's squares that differ from the target, at most two per own
    move (four when castling) and one per opponent capture still to come."""
    def prune(board: chess.Board, plies: int) -> bool:
        first, second = (plies + 1) // 2, plies // 2
        for color in chess.COLORS:
            mine = first if board.turn == color else second
            lost = chess.popcount(board.occupied_co[color]) - chess.popcount(target.occupied_co[color])
            if lost < 0:
                return True
            castle = 2 if board.castling_rights & (chess.BB_RANK_1 if color else chess.BB_RANK_8) else 0
            if _differences(board, target, color) > 2 * mine + castle + min(plies - mine, lost):
                return True
        return False
    return prune


def baseline(target: chess.Board, plies: int, timeout: float) -> tuple[str, int, float]:
    """Count the games with the baseline search; 'unknown' when it runs out of time."""
    t0 = time.monotonic()
    res = Search(chess.Board(), target, plies, counting_prune(target),
                 limits=Limits(timeout=timeout)).run()
    seconds = time.monotonic() - t0
    return (str(res.count()) if res.complete else "unknown"), res.nodes, seconds


def _game(text: str) -> list[chess.Move]:
    """The moves of a game's move text ("1.e4 e5 2.Nf3 ..."), from the initial array."""
    board = chess.Board()
    for token in text.split():
        token = token.split(".")[-1]
        if token:
            board.push_san(token)
    return list(board.move_stack)


def _canonical(text: str) -> str:
    """A game's move text as the solver prints it (python-chess SAN, check signs included)."""
    return spg.san_text(_game(text))


def published_game(prob, name: str) -> list[chess.Move] | None:
    """The first published solution of a problem file (bench table, meta notes or [expect])."""
    texts = PUBLISHED.get(name) or []
    notes = str(prob.meta.get("notes", ""))
    if not texts and notes.startswith("published: "):
        texts = [notes[len("published: "):]]
    if not texts and prob.expect is not None:
        texts = list(prob.expect.get("answer", []))
    if not texts:
        return None
    return _game(texts[0])


def peak_mb() -> str:
    """The process's peak resident memory so far, in MB: monotone over the run, so a row shows
    the most any problem up to it has needed ("-" where the platform cannot tell)."""
    try:
        import resource
    except ImportError:
        return "-"
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux, bytes on macOS
    return str(rss // (1024 * 1024) if sys.platform == "darwin" else rss // 1024)


def suffix_table(files: list[Path], left: list[int], timeout: float) -> None:
    """Complete searches of the last `left` plies of each published game (start: the position
    that many plies before the end; all games of that length to the diagram), with the bound as
    it is and with the previous bound (PREVIOUS), for a like-for-like node count."""
    print(f"{'problem':34} {'left':>4} | {'games':>5} {'nodes':>9} {'time s':>7} | "
          f"{'prev games':>10} {'prev nodes':>10} {'prev s':>7} | {'nodes ratio':>11}")
    for path in files:
        prob = problem.load(path)
        game = published_game(prob, path.name)
        if game is None:
            continue
        plies = spg.parse_moves(prob.question["moves"])
        target = spg.parse_target(prob.position_table["fen"], plies)
        for n in left:
            if n > plies:
                continue
            start = chess.Board()
            for move in game[:plies - n]:
                start.push(move)
            row = f"{path.stem[:34]:34} {n:>4} |"
            figures, complete = [], True
            for options in ({}, PREVIOUS):
                t0 = time.monotonic()
                ans = spg.solve(target, n, Limits(timeout=timeout), start=start,
                                check_shorter=False,
                                **(previous_arguments() if options else {}))
                sec = time.monotonic() - t0
                games = str(ans.count) if ans.complete else "unknown"
                figures.append(ans.nodes)
                complete = complete and ans.complete
                row += f" {games:>5} {ans.nodes:>9} {sec:>7.2f} |" if not options else \
                    f" {games:>10} {ans.nodes:>10} {sec:>7.2f} |"
            row += f" {figures[1] / max(figures[0], 1):>10.2f}x" if complete else f" {'-':>11}"
            print(row, flush=True)


PREVIOUS_ENGINE = ["auto"]  # spg.solve's engine for the previous columns (--previous-engine)


def previous_arguments() -> dict:
    """spg.solve's arguments for the previous columns: the bound options of PREVIOUS, and
    `strategies` (the CP-SAT strategy layer) when PREVIOUS names it."""
    options = dict(PREVIOUS)
    return {"bound_options": options, "strategies": options.pop("strategies", True),
            "engine": PREVIOUS_ENGINE[0]}


# --- fresh-process comparison with a baseline checkout (issue #22) --------------------------

BANDS = [  # (label, first ply, last ply, what the issue asks of the band)
    ("<=10", 0, 10, "median"), ("11-16", 11, 16, "median"), ("17-22", 17, 22, "median"),
    ("23-30", 23, 30, "decided"), ("31-40", 31, 40, "decided"), ("41-60", 41, 60, "decided"),
    (">60", 61, 10**6, "decided"),
]
DECIDED = ("unique", "cooked", "no solution", "shorter")
PROBE = "import retrologic; print(retrologic.__file__)"  # which tree a child imports


def problem_files(names: list[str], default: list[Path]) -> list[Path]:
    """The .toml files named, directories searched recursively (sorted); `default` if none."""
    out: list[Path] = []
    for name in names or [str(d) for d in default]:
        path = Path(name)
        out.extend(sorted(path.rglob("*.toml")) if path.is_dir() else [path])
    return out


def _sum_key(obj: Any, key: str) -> int | None:
    """The sum of every number stored under `key` anywhere in a JSON value (None: no such key),
    so that counts a later solver adds (e.g. CP-SAT conflicts) show without changing this file."""
    found, total = False, 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for k, v in item.items():
                if k == key and isinstance(v, (int, float)) and not isinstance(v, bool):
                    found, total = True, total + int(v)
                else:
                    stack.append(v)
        elif isinstance(item, list):
            stack.extend(item)
    return total if found else None


def _nodes(details: dict) -> int | None:
    """Search nodes of a `solve --json` answer: its top-level count, else the searches' sum."""
    if isinstance(details.get("nodes"), int):
        return details["nodes"]
    return _sum_key(details.get("searches", []), "nodes")


def run_fresh(root: Path, file: Path, timeout: float) -> dict[str, Any]:
    """Solve one problem file with the tree at `root` in a fresh process; its CPU time (user +
    system of the child and its children), wall time, verdict and work counts. The child runs
    in `root` with PYTHONPATH=root, so `-m retrologic` imports that tree and no other; it gets
    its own session so that, should it outlive twice its limit, its whole group is stopped."""
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-m", "retrologic", "solve", "--json", "--timeout", f"{timeout:g}",
           str(file.resolve())]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=2 * timeout + 30)
        killed = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        killed = True
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row: dict[str, Any] = {"status": "error", "count": None, "nodes": None, "solves": None,
                           "conflicts": None, "cpu": round(cpu, 3), "wall": round(wall, 3),
                           "check": "-", "rc": proc.returncode, "engine": "-"}
    if killed:
        row["status"] = "killed"
        return row
    try:
        data = json.loads(out)
    except ValueError:
        row["error"] = (err.strip().splitlines() or ["no output"])[-1][:200]
        return row
    if isinstance(data, list):
        data = data[0] if data else {}
    facts = data.get("facts") or {}
    details = data.get("details") or {}
    status = facts.get("status") or data.get("verdict") or "error"
    searches = details.get("searches") or [{}]
    row.update(status=status, count=facts.get("count"), nodes=_nodes(details),
               solves=_sum_key(details, "solves"), conflicts=_sum_key(details, "conflicts"),
               engine=searches[0].get("engine", "-"))
    met = (data.get("expect") or {}).get("met")
    if status in DECIDED:
        row["check"] = "-" if met is None else ("met" if met else "WRONG")
    return row


def _fmt(value: Any, width: int, digits: int = 2) -> str:
    if value is None:
        return f"{'-':>{width}}"
    if isinstance(value, float):
        return f"{value:>{width}.{digits}f}"
    return f"{str(value):>{width}}"


def band_report(rows: list[dict[str, Any]], sides: list[str]) -> list[str]:
    """The bands of issue #22 over the rows: per band and side the problems, the decided ones,
    the wrong ones and the median CPU (all rows: an undecided problem counts with the CPU it
    spent up to its limit, so the median is a lower bound when the band has undecided rows)."""
    lines = [f"{'band':>6} {'n':>4} | " + " | ".join(
        f"{side + ' decided':>14} {'wrong':>5} {'median CPU s':>12}" for side in sides)
        + " | asked for"]
    for label, lo, hi, asked in BANDS:
        band = [r for r in rows if lo <= r["plies"] <= hi]
        if not band:
            continue
        cells = []
        for side in sides:
            decided = sum(r[f"{side}_status"] in DECIDED for r in band)
            wrong = sum(r[f"{side}_check"] == "WRONG" for r in band)
            median = statistics.median(r[f"{side}_cpu"] for r in band)
            share = f"{decided}/{len(band)} ({100 * decided / len(band):.0f}%)"
            cells.append(f"{share:>14} {wrong:>5} {median:>12.2f}")
        lines.append(f"{label:>6} {len(band):>4} | " + " | ".join(cells)
                     + f" | {'median CPU' if asked == 'median' else 'decided share'}")
    return lines


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """All rows as CSV, written atomically (a temporary file in the same directory, renamed)."""
    if not rows:
        return
    fields = list(rows[0])
    fd, tmp = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def fresh_table(files: list[Path], timeout: float, baseline: Path | None,
                baseline_timeout: float, csv_path: Path | None) -> int:
    """Issue #22's table: each problem in a fresh process with this tree and, when given, the
    baseline checkout; per problem the CPU side by side and the work counts, then the bands.
    Ctrl-C stops after the problem in hand and still prints the bands of the rows so far."""
    sides = ["ours"] + (["base"] if baseline is not None else [])
    roots = {"ours": ROOT, "base": baseline}
    limits = {"ours": timeout, "base": baseline_timeout}
    for side in sides:
        probe = subprocess.run([sys.executable, "-c", PROBE], cwd=roots[side],
                               env=dict(os.environ, PYTHONPATH=str(roots[side])),
                               capture_output=True, text=True)
        print(f"# {side}: {probe.stdout.strip() or probe.stderr.strip()[-200:]}, "
              f"--timeout {limits[side]:g} s per problem, one process at a time")
    head = f"{'problem':34} {'plies':>5} |"
    for side in sides:
        head += (f" {side + ' status':>12} {'games':>5} {'nodes':>9} {'solves':>6} {'confl':>7}"
                 f" {'CPU s':>7} {'check':>5} |")
    if baseline is not None:
        head += f" {'base/ours CPU':>13}"
    print(head)
    print("-" * len(head))
    rows: list[dict[str, Any]] = []
    try:
        for path in files:
            prob = problem.load(path)
            plies = spg.parse_moves(prob.question["moves"])
            row: dict[str, Any] = {"problem": str(path), "plies": plies}
            line = f"{path.stem[:34]:34} {plies:>5} |"
            for side in sides:
                res = run_fresh(roots[side], path, limits[side])
                for key, value in res.items():
                    row[f"{side}_{key}"] = value
                line += (f" {res['status']:>12} {_fmt(res['count'], 5)} {_fmt(res['nodes'], 9)}"
                         f" {_fmt(res['solves'], 6)} {_fmt(res['conflicts'], 7)}"
                         f" {res['cpu']:>7.2f} {res['check']:>5} |")
            if baseline is not None:
                ratio = row["base_cpu"] / row["ours_cpu"] if row["ours_cpu"] > 0 else None
                row["base_over_ours_cpu"] = None if ratio is None else round(ratio, 3)
                line += f" {_fmt(ratio, 12)}x"
            rows.append(row)
            print(line, flush=True)
    except KeyboardInterrupt:
        print(f"# interrupted after {len(rows)} of {len(files)} problems")
    print()
    for line in band_report(rows, sides):
        print(line)
    if csv_path is not None:
        write_csv(csv_path, rows)
    wrong = sum(row[f"{side}_check"] == "WRONG" for row in rows for side in sides)
    return 1 if wrong else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="problem files (default: problems/spg/*.toml)")
    ap.add_argument("--timeout", type=float, default=120.0, help="solver limit per problem (s)")
    ap.add_argument("--baseline-timeout", type=float, default=None,
                    help="baseline limit per problem (s); 0 skips the counting baseline "
                         "(default 10 s; with --baseline PATH: the --timeout)")
    ap.add_argument("--baseline", metavar="PATH", type=Path,
                    help="instead: each problem in a fresh process with this tree and with the "
                         "retrologic checkout at PATH, CPU side by side, then the bands")
    ap.add_argument("--fresh", action="store_true",
                    help="instead: each problem in a fresh process with this tree, then the bands")
    ap.add_argument("--csv", metavar="FILE", type=Path,
                    help="with --baseline or --fresh: also write one row per problem (atomically)")
    ap.add_argument("--previous-timeout", type=float, default=0.0,
                    help="also run the solver with the previous bound (PREVIOUS) with "
                         "this limit per problem (s); 0 (default) skips it")
    ap.add_argument("--previous-options", metavar="NAME=0|1[,...]",
                    help="the bound options of the previous columns instead of PREVIOUS, "
                         "e.g. pawn_walls=0 (an A/B run of one deduction); strategies=0 "
                         "switches the CP-SAT strategy layer off")
    ap.add_argument("--engine", choices=spg.ENGINES, default="auto",
                    help="spg.solve's engine for the main columns (default auto)")
    ap.add_argument("--previous-engine", choices=spg.ENGINES, default="auto",
                    help="the engine of the previous columns, e.g. search (A/B of the CP-SAT "
                         "schedule model)")
    ap.add_argument("--suffix", metavar="N[,N...]",
                    help="instead: complete searches of the last N plies of each published game, "
                         "current bound against the previous one")
    args = ap.parse_args()
    if args.baseline is not None or args.fresh:
        base = args.baseline
        if base is not None and not (base / "retrologic" / "__init__.py").is_file():
            print(f"bench/spg.py: --baseline {args.baseline}: no retrologic package there",
                  file=sys.stderr)
            return 3
        if args.timeout <= 0:
            ap.error(f"--timeout: {args.timeout:g} is not a positive number of seconds")
        files = problem_files(args.files, [ROOT / "problems" / "spg", ROOT / "bench" / "spg-long"])
        base_timeout = args.timeout if args.baseline_timeout is None else args.baseline_timeout
        try:
            return fresh_table(files, args.timeout, args.baseline, base_timeout, args.csv)
        except (InputError, OSError) as exc:
            print(f"bench/spg.py: {exc}", file=sys.stderr)
            return 3
    if args.baseline_timeout is None:
        args.baseline_timeout = 10.0
    files = [Path(f) for f in args.files] or sorted((ROOT / "problems" / "spg").glob("*.toml"))
    if args.previous_options:
        PREVIOUS.clear()
        for item in args.previous_options.split(","):
            name, _, value = item.partition("=")
            if value not in ("0", "1") or name not in SWITCHES + ("strategies",):
                ap.error(f"--previous-options: {item!r} is not NAME=0 or NAME=1 with NAME "
                         f"one of {', '.join(sorted(SWITCHES + ('strategies',)))}")
            PREVIOUS[name] = value == "1"
    PREVIOUS_ENGINE[0] = args.previous_engine
    if args.suffix:
        suffix_table(files, [int(x) for x in args.suffix.split(",")], args.timeout)
        return 0
    head = (f"{'problem':34} {'len':>5} {'plies':>5} {'status':>11} {'games':>5} {'nodes':>9} "
            f"{'time s':>8} {'check':>6} {'engine':>8} {'peak MB':>7} | {'base games':>10} {'base nodes':>10} "
            f"{'base s':>7} {'speed-up':>9}")
    print(head)
    print("-" * len(head))
    total = 0.0
    for path in files:
        prob = problem.load(path)
        plies = spg.parse_moves(prob.question["moves"])
        target = spg.parse_target(prob.position_table["fen"], plies)
        t0 = time.monotonic()
        answer = spg.solve(target, plies, Limits(timeout=args.timeout), engine=args.engine)
        seconds = time.monotonic() - t0
        total += seconds
        result = answer_result(answer, show=None)
        if prob.expect is not None:
            ok = "met" if not problem.check(prob, result) else "FAIL"
        elif path.name in PUBLISHED or str(prob.meta.get("notes", "")).startswith("published: "):
            want = [_canonical(t) for t in
                    PUBLISHED.get(path.name) or [prob.meta["notes"][len("published: "):]]]
            if answer.status == "unknown":
                ok = "found" if set(want) <= set(result.answer) else "-"
            else:
                ok = "met" if sorted(result.answer) == sorted(want) else "FAIL"
        else:
            ok = "-"
        row = (f"{path.stem[:34]:34} {spg.moves_text(plies):>5} {plies:>5} {answer.status:>11} "
               f"{answer.count:>5} {answer.nodes:>9} {seconds:>8.2f} {ok:>6} "
               f"{answer.searches[0].get('engine', '-'):>8} {peak_mb():>7} |")
        if args.baseline_timeout > 0:
            count, nodes, bsec = baseline(target, plies, args.baseline_timeout)
            ratio = bsec / seconds if seconds > 0 else float("inf")
            if answer.status == "unknown":
                shown = "-"  # neither finished: no ratio
            else:
                shown = (">" if count == "unknown" else "") + f"{ratio:.1f}x"
            row += f" {count:>10} {nodes:>10} {bsec:>7.2f} {shown:>9}"
        if args.previous_timeout > 0:
            t1 = time.monotonic()
            prev = spg.solve(target, plies, Limits(timeout=args.previous_timeout),
                             **previous_arguments())
            psec = time.monotonic() - t1
            shown = "-" if prev.status == "unknown" and answer.status == "unknown" else \
                (">" if prev.status == "unknown" else "") + f"{psec / seconds:.1f}x"
            row += (f" previous: {prev.status} {prev.nodes} nodes {psec:.2f} s ({shown}, "
                    f"{prev.searches[0].get('engine', '-')})")
        print(row, flush=True)
    print(f"total solver time {total:.2f} s over {len(files)} problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
