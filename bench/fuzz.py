"""Long fuzz run of the `retrologic` command (the suite's tests/test_fuzz.py on a large budget):
hypothesis-generated command lines for every subcommand, mutated problem files through `solve`,
mutated Popeye, YACPDB, EPD and FEN files through `convert` and mutated real certificates through
`check`, each case in a forked child under a wall-clock
cap (tests/fuzz_strategies.py). Per area it prints the cases run, the count of each exit status,
crashes (exit 5, traceback, escaped exception, signal), hangs, over-long bad-input messages and,
for certificates, the mutants `check` accepted; then every crash grouped by cause, with one
command line to reproduce it and the line of retrologic it comes from, the runs that overran
their own --timeout, and each accepted mutant that changed certified data, with its claim
re-decided independently (python-chess replay, or re-solving from scratch).

    python bench/fuzz.py [--cases N] [--seconds S] [--seed K] [--areas a,b] [--cap S] [--save DIR]

--cases is per area; --seconds the whole run's budget, shared by the areas (problem files and
certificates get twice a command's share). The exit status is 1 when any crash or hang was
found (or an accepted certificate mutant whose claim re-solving finds false), else 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, Phase, given, seed as hypothesis_seed, settings  # noqa: E402

import fuzz_strategies as fz  # noqa: E402

CLI_AREAS = sorted(fz.ARGV_STRATEGIES)
AREAS = [f"cli:{c}" for c in CLI_AREAS] + ["problems", "convert", "certificates"]


@dataclass
class Area:
    """What one area's cases gave."""

    name: str
    cases: int = 0
    seconds: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    crashes: list = field(default_factory=list)          # (outcome, files, what)
    hangs: list = field(default_factory=list)
    long_errors: list = field(default_factory=list)
    long_usage: list = field(default_factory=list)       # exit 2 with a line over 300 chars
    overruns: list = field(default_factory=list)         # ran past their own --timeout (no hang)
    accepted: list = field(default_factory=list)         # (name, how, data) of accepted mutants
    slowest: float = 0.0

    def record(self, outcome: fz.Outcome, files: dict | None, what: str) -> None:
        self.cases += 1
        self.seconds += outcome.seconds
        self.slowest = max(self.slowest, outcome.seconds)
        self.statuses["hang" if outcome.hang else outcome.status if outcome.signal is None
                      else f"sig{outcome.signal}"] += 1
        if outcome.hang:
            self.hangs.append((outcome, files, what))
        elif outcome.crash:
            self.crashes.append((outcome, files, what))
        if outcome.long_error:
            self.long_errors.append((outcome, files, what))
        if outcome.long_usage:
            self.long_usage.append((outcome, files, what))
        if outcome.overrun and not outcome.hang:
            self.overruns.append((outcome, files, what))


def run_area(area: Area, cases: int, deadline: float, rng_seed: int, certs: dict) -> None:
    """Run up to `cases` distinct cases of an area until `deadline` (time.monotonic())."""
    seen: set = set()
    files_cli = fz.file_fixtures()

    def one(argv: list[str], files: dict | None, what: str = "", accepted_info=None) -> None:
        if area.cases >= cases or time.monotonic() >= deadline:
            return
        key = (tuple(argv), tuple(sorted((k, hashlib.sha1(v if isinstance(v, bytes) else
                                                           v.encode("utf-8", "surrogatepass"))
                                          .hexdigest()) for k, v in (files or {}).items())))
        if key in seen:
            return
        seen.add(key)
        outcome = fz.run_cli(argv, files)
        area.record(outcome, files, what)
        if accepted_info and outcome.status == 0 and accepted_info[2]:
            area.accepted.append((accepted_info[0], accepted_info[1], files["cert.json"]))

    opts = settings(max_examples=cases * 3, deadline=None, database=None,
                    phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    if area.name.startswith("cli:"):
        strategy = fz.ARGV_STRATEGIES[area.name[4:]]()

        @hypothesis_seed(rng_seed)
        @opts
        @given(strategy)
        def case(argv):
            one(argv, files_cli)
    elif area.name == "problems":
        @hypothesis_seed(rng_seed)
        @opts
        @given(fz.problem_files(), fz.solve_argv())
        def case(problem, argv):
            data, how = problem
            one(argv, {"case.toml": data}, how)
    elif area.name == "convert":
        @hypothesis_seed(rng_seed)
        @opts
        @given(fz.convert_cases())
        def case(made_argv):
            (data, file, how), argv = made_argv
            one(argv, {file: data}, how)
    else:
        @hypothesis_seed(rng_seed)
        @opts
        @given(fz.certificate_mutants(certs), fz.check_argv())
        def case(mutant, argv):
            data, name, how, differs = mutant
            one(argv, {"cert.json": data}, f"{name}: {how}", (name, how, differs))
    case()


def print_table(areas: list[Area]) -> None:
    codes = ["0", "1", "2", "3", "4", "5", "hang", "other"]
    print(f"{'area':<18} {'cases':>6} " + " ".join(f"{'exit ' + c if c.isdigit() else c:>7}"
                                                   for c in codes)
          + f" {'crashes':>8} {'hangs':>6} {'long':>5} {'overrun':>8} {'accepted':>9} {'s/case':>7}"
          f" {'max s':>6}")
    total = Area("total")
    for a in areas:
        row = Counter()
        for k, v in a.statuses.items():
            row[str(k) if str(k) in codes else "other"] += v
        acc = str(len(a.accepted)) if a.name == "certificates" else "-"
        print(f"{a.name:<18} {a.cases:>6} " + " ".join(f"{row[c]:>7}" for c in codes)
              + f" {len(a.crashes):>8} {len(a.hangs):>6} {len(a.long_errors):>5} "
              f"{len(a.overruns):>8} {acc:>9} "
              f"{a.seconds / max(1, a.cases):7.2f} {a.slowest:6.1f}")
        total.cases += a.cases
        total.statuses.update(row)
        total.crashes += a.crashes
        total.hangs += a.hangs
        total.long_errors += a.long_errors
        total.overruns += a.overruns
        total.accepted += a.accepted
        total.seconds += a.seconds
        total.slowest = max(total.slowest, a.slowest)
    print(f"{'total':<18} {total.cases:>6} " + " ".join(f"{total.statuses[c]:>7}" for c in codes)
          + f" {len(total.crashes):>8} {len(total.hangs):>6} {len(total.long_errors):>5} "
          f"{len(total.overruns):>8} {len(total.accepted):>9} "
          f"{total.seconds / max(1, total.cases):7.2f} {total.slowest:6.1f}")


def print_groups(title: str, items: list, key, explain: bool) -> None:
    """Items grouped by a key, biggest group first, with one reproducer (the shortest). With
    `explain`, each item is rerun with --debug (the first 100) and the line of retrologic its
    traceback ends in joins the key."""
    if not items:
        return
    groups = defaultdict(list)
    where: dict[int, str] = {}
    for i, item in enumerate(items):
        if explain and i < 100:
            where[id(item)] = fz.explain(item[0], item[1])
        groups[key(item) + (f"  <{where[id(item)]}>" if where.get(id(item)) else "")].append(item)
    print(f"\n{title}: {len(items)} in {len(groups)} group(s)")
    for k, group in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        outcome, files, what, _ = min(group, key=lambda it: len(it[0].describe(10**6)) + len(it[2]))
        areas = sorted({it[3] for it in group})
        print(f"  [{len(group)}x, {', '.join(areas)}] {k}")
        print(f"      {outcome.describe(160)}")
        if what:
            print(f"      case: {what[:400]}")
        if not explain:
            line = outcome.stderr.splitlines()[0] if outcome.stderr else ""
            print(f"      stderr: {len(outcome.stderr.splitlines())} line(s), first "
                  f"{len(line)} chars: {line[:160]!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300, help="cases per area (default 300)")
    ap.add_argument("--seconds", type=float, default=600, help="budget of the whole run (s)")
    ap.add_argument("--seed", type=int, default=0, help="hypothesis seed")
    ap.add_argument("--areas", default=",".join(AREAS),
                    help="comma-separated areas (default: all): " + ", ".join(AREAS))
    ap.add_argument("--cap", type=float, default=fz.HANG_SECONDS,
                    help=f"seconds after which a case is a hang (default {fz.HANG_SECONDS:g})")
    ap.add_argument("--save", metavar="DIR", help="write the accepted certificate mutants here")
    args = ap.parse_args()
    names = [a.strip() for a in args.areas.split(",") if a.strip()]
    unknown = [n for n in names if n not in AREAS]
    if unknown:
        ap.error(f"unknown area(s): {', '.join(unknown)}")
    fz.HANG_SECONDS = args.cap

    start = time.monotonic()
    t = time.perf_counter()
    fz.preload()
    print(f"fuzz: seed {args.seed}, up to {args.cases} cases per area, {args.seconds:g} s budget, "
          f"hang cap {args.cap:g} s; engines loaded in {time.perf_counter() - t:.1f} s")
    certs: dict = {}
    if "certificates" in names:
        t = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="fuzz-certs-") as tmp:
            certs, runs = fz.make_certificates(tmp)
        bad = [r for r in runs if r.status != 0 or r.faults()]
        types = Counter(c.get("type") for c in certs.values())
        failed = "; ".join(f"{r.describe(80)} -> {r.status} {r.faults()}" for r in bad)
        print(f"certificates: {len(certs)} real ones made in {time.perf_counter() - t:.1f} s "
              f"({', '.join(f'{k} {v}' for k, v in sorted(types.items(), key=str))})"
              + (f"; {len(bad)} making run(s) failed: {failed}" if bad else ""))
    areas = []
    weight = {n: 2.0 if n in ("problems", "certificates") else 1.0 for n in names}
    for i, name in enumerate(names):
        left = args.seconds - (time.monotonic() - start)
        share = max(0.0, left * weight[name] / sum(weight[n] for n in names[i:]))
        area = Area(name)
        t = time.monotonic()
        run_area(area, args.cases, t + share, args.seed, certs)
        areas.append(area)
        print(f"  {name}: {area.cases} cases in {time.monotonic() - t:.0f} s", flush=True)
    print()
    print_table(areas)

    tagged = lambda items, a: [(*it, a.name) for it in items]  # noqa: E731
    crashes = [x for a in areas for x in tagged(a.crashes, a)]
    hangs = [x for a in areas for x in tagged(a.hangs, a)]
    longs = [x for a in areas for x in tagged(a.long_errors, a)]
    print_groups("crashes", crashes, lambda it: it[0].crash_key(), explain=True)
    print_groups("hangs", hangs, lambda it: it[0].argv[0] if it[0].argv else "", explain=False)
    print_groups("over-long bad-input messages", longs,
                 lambda it: (it[0].argv[0] if it[0].argv else "") + ": "
                 + ("many lines" if len(it[0].stderr.splitlines()) > 1 else "long line"),
                 explain=False)
    print_groups("over-long usage errors (exit 2, not asserted by the suite)",
                 [x for a in areas for x in tagged(a.long_usage, a)],
                 lambda it: it[0].argv[0] if it[0].argv else "", explain=False)
    print_groups("runs past their own --timeout (by more than max(1 s, 10 %) + 1 s)",
                 [x for a in areas for x in tagged(a.overruns, a)],
                 lambda it: " ".join(it[0].argv[:2] if it[0].argv[:1] in (["tablebase"], ["puzzle4x4"])
                                     else it[0].argv[:1]), explain=False)
    accepted = [x for a in areas for x in a.accepted]
    oracle: Counter = Counter()
    false_claims: list = []
    if accepted:
        core = [x for x in accepted if not fz.metadata_only(x[1])]
        by_type = Counter(certs[n].get("type", "?") for n, _, _ in accepted)
        print(f"\naccepted certificate mutants (differing from their original): {len(accepted)} "
              f"({', '.join(f'{k} {v}' for k, v in sorted(by_type.items()))}); "
              f"{len(accepted) - len(core)} touch only the metadata "
              f"({', '.join(sorted(fz.META_KEYS))}), "
              f"{len(core)} the certified data:")
        for n, how, data in core:
            try:
                truth, detail = fz.reverify(json.loads(data))
            except (ValueError, RecursionError):
                truth, detail = "n/a", "undecodable"
            oracle[truth] += 1
            if truth == "FALSE":
                false_claims.append((n, how, detail))
            if len(core) <= 80 or truth != "true":
                print(f"  [{truth}: {detail[:100]}] {n}: {how[:300]}")
        print("  re-decided by the oracle (python-chess replay, or re-solving from scratch): "
              + ", ".join(f"{k} {v}" for k, v in sorted(oracle.items())))
        if args.save:
            out = Path(args.save)
            out.mkdir(parents=True, exist_ok=True)
            for i, (n, how, data) in enumerate(accepted):
                (out / f"accepted-{i:04d}.json").write_bytes(data)
                (out / f"accepted-{i:04d}.txt").write_text(f"{n}\n{how}\n")
            print(f"  all written to {out}")
    for n, how, detail in false_claims:
        print(f"\nACCEPTED FALSE CLAIM: {n}: {how[:400]}\n    {detail}")
    found = len(crashes) + len(hangs) + len(false_claims)
    print(f"\n{sum(a.cases for a in areas)} cases in {time.monotonic() - start:.0f} s: "
          f"{len(crashes)} crashes, {len(hangs)} hangs, {len(longs)} over-long bad-input messages, "
          f"{sum(len(a.overruns) for a in areas)} runs past their --timeout, {len(accepted)} "
          f"accepted certificate mutants ({len(false_claims)} stating a false claim)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
