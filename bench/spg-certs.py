"""Sizes, write and check times of `spg-listing` certificates (issue 22, item 3), one problem at a
time: for every problems/spg file (or the files given) whose [expect] status is unique, cooked or
no solution, the certificate is built (spg/certify.certificate, the time limit of --timeout),
serialised as `check` reads it, and checked (spg/proof_checker.check_certificate).

    python bench/spg-certs.py [--timeout S] [--csv FILE] [--root TREE] [--both]
                              [--certificate-mib MIB] [FILE_OR_DIR...]
    python bench/spg-certs.py --cubes K [--timeout S] FILE...

--cubes K (issue 22 item 3, cube-and-conquer measured before building it): no certificate; the
stipulated length's CNF plus the blocking clauses of the file's published games is refuted by
CaDiCaL logging LRAT (as the writer runs it) once whole, then split into cubes: every
assignment of move variables to plies 1..K (a complete split: the at-least-one clause of each
ply), each solved under assumptions in one incremental solver. Printed: conflicts, CPU s and
LRAT log MiB of the whole refutation and of all cubes, the number of cubes, how many needed a
conflict, and the hardest cube's CPU s (--timeout: per solve).

--root TREE measures the retrologic of another checkout (e.g. `git archive HEAD | tar -x -C
/tmp/certbase`), so that a baseline can be run beside this tree, problem by problem, under the
same load (columns it does not have stay "-").

--certificate-mib MIB writes and checks under that size knob (retrologic.certsize: the file cap,
the unpacked cap and the writer's LRAT log limit scale with it; default 40, the committed caps).

Columns: plies, status, CNF size of the stipulated length (variables, clauses), clauses of all
lengths and of their cores (what the proofs use), lemmas of the solver's proofs and of the trimmed
ones (all lengths), JSON size, write CPU s (solving, trimming, packing), check CPU s (`check`:
regenerating the CNFs, replaying the games, the RUP checks), and whether `check` accepted it.
Long: run it alone on the shared machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
if "--root" in sys.argv[:-1]:             # before the imports: which tree is measured
    _i = sys.argv.index("--root")
    TREE = Path(sys.argv[_i + 1]).resolve()
    del sys.argv[_i:_i + 2]
else:
    TREE = ROOT
sys.path.insert(0, str(TREE))

from retrologic import problem  # noqa: E402
from retrologic.limits import Budget, LimitHit  # noqa: E402
from retrologic.spg import certify  # noqa: E402
from retrologic.spg.checker import parse_moves  # noqa: E402
from retrologic.spg.proof_checker import check_certificate  # noqa: E402

STATUSES = ("unique", "cooked", "no solution")


def files_of(names: list[str]) -> list[Path]:
    """The problem files named (directories expanded), problems/spg by default."""
    out: list[Path] = []
    for name in names or [str(ROOT / "problems" / "spg")]:  # noqa: the tree's own problems
        p = Path(name)
        out.extend(sorted(p.glob("*.toml")) if p.is_dir() else [p])
    return out


def measure(path: Path, timeout: float, hints: bool = True) -> dict | None:
    """One problem's row, or None when its [expect] is not a listing status."""
    prob = problem.load(path)
    if (prob.expect or {}).get("status") not in STATUSES:
        return None
    target = chess.BaseBoard(prob.position.fen().split()[0])
    plies = parse_moves(prob.question["moves"])
    row: dict = {"problem": path.stem, "plies": plies, "expect": prob.expect["status"]}
    t0 = time.process_time()
    done: list[str] = []                  # the lengths listed before a limit, with CPU s
    real = certify.list_length

    def timed(*args, **kwargs):           # noqa: ANN002, ANN003 - a pass-through
        started = time.process_time()
        out = real(*args, **kwargs)
        done.append(f"{out.plies}:{time.process_time() - started:.0f}s")
        return out
    certify.list_length = timed
    try:
        cert, listings = certify.certificate(target, plies, Budget(timeout=timeout),
                                             **({} if hints else {"hints": False}))
    except LimitHit as e:
        row.update(status="-", note=f"not finished: {e.reason}; lengths done: "
                   f"{' '.join(done) or 'none'}", write_s=round(time.process_time() - t0, 2))
        return row
    finally:
        certify.list_length = real
    row["write_s"] = round(time.process_time() - t0, 2)
    text = json.dumps(cert)
    row.update(status=cert["status"], vars=listings[0].variables, clauses=listings[0].clauses,
               lemmas=sum(1 for x in listings for line in x.proof if not line.startswith("d")),
               raw_lemmas=sum(getattr(x, "raw_lemmas", len(x.proof)) for x in listings),
               core=sum(len(getattr(x, "core", None) or ()) for x in listings),
               all_clauses=sum(x.clauses for x in listings),
               kib=round(len(text) / 1024, 1))
    if len(text) > write_cap():
        row["note"] = "too large"
        return row
    if hasattr(listings[0], "unpacked") and max(x.unpacked() for x in listings) > unpack_cap():
        row["note"] = "unpacks past the cap"
        return row
    t0 = time.process_time()
    verdict = check_certificate(json.loads(text))
    row["check_s"] = round(time.process_time() - t0, 2)
    row["accepted"] = verdict.ok
    row["note"] = "" if verdict.ok else verdict.reason[:80]
    return row


def write_cap() -> int:
    """The writer's size cap in the measured tree (trees before the knob: a constant)."""
    try:
        from retrologic import certsize
    except ImportError:
        return certify.MAX_BYTES
    return certsize.write_bytes()


def unpack_cap() -> int:
    """The unpacked cap of a packed field in the measured tree."""
    try:
        from retrologic import certsize
    except ImportError:
        from retrologic.spg import proof_checker
        return getattr(proof_checker, "MAX_UNPACKED", 1 << 62)
    return certsize.unpacked_bytes()


def cubes(path: Path, depth: int, timeout: float) -> str:
    """The --cubes measurement of one problem (see the module docstring)."""
    import io
    import chess.pgn
    from retrologic.spg.cnf import encode
    prob = problem.load(path)
    target = chess.BaseBoard(prob.position.fen().split()[0])
    plies = parse_moves(prob.question["moves"])
    enc = encode(target, plies)
    blocks = []
    for text in (prob.expect or {}).get("answer", []):
        game = chess.pgn.read_game(io.StringIO(text))
        blocks.append(certify.blocking_clause(enc, list(game.mainline_moves())))
    clauses = enc.clauses + blocks
    order = certify.units_last(clauses)
    out = [path.stem, str(plies), f"{len(clauses)} clauses"]

    def solve(ls: certify.LratSolver, assumptions: list[int]) -> tuple[bool | None, int, float]:
        s = ls.solver
        started, before = time.process_time(), s.accum_stats().get("conflicts", 0)
        res = None
        while res is None and time.process_time() - started < timeout:
            s.solver.conf_budget(2000)
            res = s.solve_limited(assumptions=assumptions)
        return res, s.accum_stats().get("conflicts", 0) - before, time.process_time() - started
    with certify.LratSolver([clauses[i] for i in order]) as ls:
        res, conf, cpu = solve(ls, [])
        out.append(f"whole: {'open' if res is None else 'SAT' if res else 'UNSAT'} {conf} "
                   f"conflicts {cpu:.1f} s {ls.log_bytes() / 2**20:.0f} MiB")
    with certify.LratSolver([clauses[i] for i in order]) as ls:
        cubes_ = [[]]
        for ply in range(1, depth + 1):
            cubes_ = [c + [v] for c in cubes_ for v in enc.moves[ply].values()]
        n = hard = opened = conf_all = 0
        cpu_all = worst = 0.0
        for cube in cubes_:
            res, conf, cpu = solve(ls, cube)
            n += 1
            hard += conf > 0
            opened += res is None
            conf_all += conf
            cpu_all += cpu
            worst = max(worst, cpu)
        out.append(f"depth {depth}: {n} cubes ({hard} with conflicts, {opened} open) "
                   f"{conf_all} conflicts {cpu_all:.1f} s (hardest {worst:.1f} s) "
                   f"{ls.log_bytes() / 2**20:.0f} MiB")
    return " | ".join(out)


COLS = ["problem", "plies", "expect", "status", "vars", "clauses", "all_clauses", "core",
        "raw_lemmas", "lemmas", "kib", "write_s", "check_s", "accepted", "note"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--csv")
    ap.add_argument("--both", action="store_true",
                    help="per problem, the plain-DRUP writer (hints=False) first, then the "
                         "hinted one: side by side under the same load")
    ap.add_argument("--cubes", type=int, metavar="K",
                    help="measure cube-and-conquer at depth K instead (no certificate)")
    ap.add_argument("--certificate-mib", type=int, metavar="MIB",
                    help="the certificate size knob (retrologic.certsize; default 40)")
    args = ap.parse_args()
    if args.certificate_mib is not None:
        from retrologic import certsize   # the measured tree must have the knob
        with certsize.allowing(args.certificate_mib):
            return run(args)
    return run(args)


def run(args: argparse.Namespace) -> int:
    """The measurements `main` asked for."""
    if args.cubes:
        for f in files_of(args.files):
            print(cubes(f, args.cubes, args.timeout), flush=True)
        return 0
    rows = []
    print(" | ".join(COLS), flush=True)
    try:
        for f in files_of(args.files):
            for hints in ((False, True) if args.both else (True,)):
                row = measure(f, args.timeout, hints)
                if row is None:
                    break
                if args.both:
                    row["problem"] += " (lrat)" if hints else " (drup)"
                rows.append(row)
                print(" | ".join(str(row.get(c, "-")) for c in COLS), flush=True)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
    if args.csv:
        from retrologic.files import atomic_write_text
        import io
        buf = io.StringIO()
        w = csv.DictWriter(buf, COLS)
        w.writeheader()
        for r in rows:
            w.writerow({c: r.get(c, "") for c in COLS})
        atomic_write_text(Path(args.csv), buf.getvalue())
    return 0 if all(r.get("accepted", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
