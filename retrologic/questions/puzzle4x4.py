"""Question kind `puzzle4x4`: the 4x4 capture puzzle - solve (a winning line or a proof that
there is none), rate, generate, and the census of starting positions."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from retrologic import limits
from retrologic.console import add_limit_arguments, emit, options_from
from retrologic.errors import EXIT_OK, InputError
from retrologic.limits import Budget
from retrologic.options import SolveOptions, budget_of
from retrologic.problemfile import Problem
from retrologic.puzzle4x4 import game as p4
from retrologic.puzzle4x4.game import Outcome
from retrologic.result import Result, Verdict
from retrologic.schema import Field

KIND = "puzzle4x4"
POSITION = "none"
TASKS = ("solve", "retrograde", "rate")


def _task(value: str) -> str:
    if value not in TASKS:
        raise ValueError(f"must be one of {', '.join(TASKS)}")
    return value


def _board(value: str) -> str:
    p4.parse(value)
    return value


MAX_PLAYOUTS = 10_000_000     # about an hour of play-outs: past that, a typo, not a rating
MAX_ATTEMPTS = 1_000_000


def _count(most: int) -> Callable[[Any], int]:
    """A Field check / argument check: a whole number from 1 to `most`."""
    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
            raise ValueError(f"must be a whole number from 1 to {most:,}")
        return value
    return check


def _checked(value: int, field: str, most: int) -> int:
    try:
        return _count(most)(value)
    except ValueError as e:
        raise InputError(str(e), field=field, value=value) from None


QUESTION = {
    "board": Field(str, required=True, check=_board, doc="the board string, e.g. 'Bq1K/NR2/1R1Q/rknb'"),
    "task": Field(str, default="solve", check=_task,
                  doc="solve (forward search), retrograde (the retrograde engine) or rate"),
    "playouts": Field(int, default=20000, check=_count(MAX_PLAYOUTS),
                      doc="rate: number of random play-outs"),
    "seed": Field(int, default=0, doc="rate: seed of the play-outs"),
    "exact": Field(bool, default=False, doc="rate: exact probability over the reachable positions"),
}
EXPECT = {"solvable", "units", "to_move", "line_length", "first_moves", "good_first_moves",
          "p_fraction", "difficulty_bits", "positions", "won_positions", "agrees"}


def _header(key: int) -> dict[str, Any]:
    units = sum(1 for s in range(16) if p4.piece_at(key, s))
    return {"units": units, "to_move": "white" if p4.white_to_move(key) else "black"}


def _budget(options: SolveOptions | None, nodes: bool = True) -> Budget:
    """The question's shared limits (the CLI's Budget when it made one, else --timeout and,
    with `nodes`, --nodes; the clock starts here)."""
    budget = budget_of(options)
    if not nodes:
        budget = budget.share()
        budget.nodes = budget.nodes_figure = None
    return budget


def solve_board(key: int, options: SolveOptions) -> Result:
    """Forward search: a winning line (checked by the independent checker) or a closed-set proof."""
    from retrologic.puzzle4x4.checker import check_certificate, check_unsolvable
    solver = p4.Solver(budget=_budget(options),
                       progress=_node_progress if options.progress else None)
    facts = _header(key)
    try:
        line = solver.solve(key)
    except p4.LimitReached as e:
        return Result(KIND, Verdict.UNKNOWN, reason=str(e), facts={**facts, "solvable": None},
                      details={"nodes": solver.nodes})
    if line is not None:
        cert = p4.certificate(key, line)
        verdict = check_certificate(cert)
        if not verdict.ok:
            raise AssertionError(f"the solver's line fails the checker: {verdict.reason}")
        names, k = [], key
        for m in line:
            names.append(p4.move_name(k, m))
            k = p4.play(k, m)
        result = Result(KIND, Verdict.PROVED, Outcome.SOLVABLE,
                        facts={**facts, "solvable": True, "line_length": len(line)},
                        details={"line": names, "nodes": solver.nodes, "certificate": cert},
                        lines=["solvable: " + " ".join(names), f"({solver.nodes} nodes searched)"])
    else:
        proof = p4.unsolvability_proof(key, solver.failed)
        cert = p4.certificate(key, None, proof)
        verdict = check_unsolvable(cert)
        if not verdict.ok:
            raise AssertionError(f"the solver's proof fails the checker: {verdict.reason}")
        result = Result(KIND, Verdict.PROVED, Outcome.UNSOLVABLE, facts={**facts, "solvable": False},
                        details={"nodes": solver.nodes, "proof_positions": len(proof)},
                        lines=[f"unsolvable: no line from {p4.to_string(key)} leaves the white king "
                               f"alone ({len(proof)} position(s) in the proof, "
                               f"{solver.nodes} nodes searched)"])
    written = _write_certificate(cert, key, options)
    if written:
        result.lines.append(written)
    return result


def _write_certificate(cert: dict[str, Any], key: int, options: SolveOptions) -> str | None:
    """Write the certificate (a file over the size cap `check` reads is not written); the line
    the answer's text shows for it, as every command's (None: no certificate directory)."""
    if not options.certificate_dir:
        return None
    from retrologic.certformat import as_destination
    from retrologic.certificate import MAX_CERT_BYTES
    dest = as_destination(options.certificate_dir,
                          question={"kind": KIND, "board": p4.to_string(key)}, position=None)
    path = dest.write(cert, cert["type"], MAX_CERT_BYTES)
    return f"certificate: {path or 'not written (it would pass the size cap check reads)'}"


def _node_progress(nodes: int) -> None:
    print(f"\r\x1b[K{nodes} nodes", end="", file=sys.stderr, flush=True)


def retrograde_board(key: int, options: SolveOptions) -> Result:
    """The retrograde engine over every reachable position, cross-checked with the forward solver."""
    from retrologic.puzzle4x4.checker import check_certificate, check_unsolvable
    from retrologic.puzzle4x4 import retro
    from retrologic.tablebase import retrograde as rg
    facts = _header(key)
    budget = _budget(options)
    try:
        game, sol = retro.solve(key, limit=options.nodes, budget=budget)
        if not sol.complete:
            return Result(KIND, Verdict.UNKNOWN, reason=sol.reason, facts={**facts, "solvable": None})
        forward = p4.Solver(budget=budget).solve(key) is not None
    except p4.LimitReached as e:
        return Result(KIND, Verdict.UNKNOWN, reason=str(e), facts={**facts, "solvable": None})
    i = int(game.index([key])[0])
    won = bool(sol.outcome[i] == rg.WIN)
    line = retro.winning_line(game, sol)
    n_won = int((sol.outcome == rg.WIN).sum())
    facts.update(solvable=won, positions=game.size, won_positions=n_won, agrees=forward == won)
    if line is not None:
        facts["line_length"] = len(line)
    if forward != won:
        return Result(KIND, Verdict.UNKNOWN, reason="the retrograde engine and the forward search "
                      "disagree: a bug, please report it", facts={**facts, "solvable": None})
    verdict = "agrees"
    # unsolvable: the whole reachable set is closed under moves and holds no solved position
    cert = p4.certificate(key, line, None if won else game.keys.tolist())
    if not (check_certificate(cert) if won else check_unsolvable(cert)).ok:
        raise AssertionError("the retrograde certificate fails the checker")
    written = _write_certificate(cert, key, options)
    outcome = Outcome.SOLVABLE if won else Outcome.UNSOLVABLE
    lines = [f"{outcome} (retrograde over {game.size} reachable positions, "
             f"{n_won} solvable, {sol.seconds:.2f} s); forward search {verdict}"]
    if line is not None:
        k, names = key, []
        for m in line:
            names.append(p4.move_name(k, m))
            k = p4.play(k, m)
        lines.append(" ".join(names))
    if written:
        lines.append(written)
    return Result(KIND, Verdict.PROVED, outcome, facts=facts, lines=lines)


def rate_board(key: int, playouts: int, seed: int, exact: bool,
               options: SolveOptions | None = None) -> Result:
    """The difficulty (see puzzle4x4.rate)."""
    from retrologic.progress import node_bar
    from retrologic.puzzle4x4 import rate
    shown = bool(getattr(options, "progress", False))
    # the play-outs counted, or with `exact` the positions (what --nodes limits there: the
    # solver's nodes charged to the same budget are not shown, rate.exact_probability)
    bar = (("positions", getattr(options, "nodes", None), "position") if exact
           else ("play-outs", playouts, "play-out"))
    try:
        with node_bar(bar[0], shown, bar[1], unit=bar[2]):
            # play-outs: --nodes counts them with the first moves' solver positions (it was
            # ignored: 3.3 million play-outs ran under --nodes 10000); exact: `exact_limit`
            budget = _budget(options, nodes=not exact)
            budget.watched = not exact
            r = rate.rate(key, playouts=playouts, seed=seed, exact=exact,
                          exact_limit=getattr(options, "nodes", None), budget=budget)
    except p4.LimitReached as e:
        return Result(KIND, Verdict.UNKNOWN, reason=str(e), facts=_header(key))
    finite = r["difficulty_bits"] != float("inf")
    facts = {**_header(key), "solvable": r["solvable"], "first_moves": r["first_moves"],
             "good_first_moves": r["good_first_moves"],
             "difficulty_bits": round(r["difficulty_bits"], 3) if finite else None}
    if exact:
        facts["p_fraction"] = r["p_fraction"]
        text = f"p = {r['p_fraction']} = {r['p']:.6g} (exact)"
    else:
        text = (f"p = {r['p']:.5f} (95%: {r['p_low']:.5f}..{r['p_high']:.5f}, "
                f"{r['solved_playouts']}/{r['playouts']} random play-outs, seed {seed})")
    lines = [text, f"difficulty {r['difficulty_bits']:.2f} bits (-log2 p: the luck a uniformly random "
                   "player needs)",
             f"{r['good_first_moves']} of {r['first_moves']} first moves keep it solvable"]
    details = {k: v for k, v in r.items() if v != float("inf")}
    if r.get("stopped"):            # a limit cut the play-outs short: the estimate so far, kept
        lines[0] += f": stopped after {r['playouts']:,} of {playouts:,} ({r['stopped']})"
        return Result(KIND, Verdict.UNKNOWN, reason=r["stopped"], facts=facts, details=details,
                      lines=lines)
    return Result(KIND, Verdict.PROVED, round(r["difficulty_bits"], 3) if r["p"] > 0 else None,
                  facts=facts, details=details, lines=lines)


def solve(problem: Problem, options: SolveOptions) -> Result:
    from retrologic.certformat import with_destination
    options = with_destination(options, problem)
    q = problem.question
    key = p4.parse(q["board"], field="question.board", file=problem.path)
    if q["task"] == "solve":
        return solve_board(key, options)
    if q["task"] == "retrograde":
        return retrograde_board(key, options)
    return rate_board(key, q["playouts"], q["seed"], q["exact"], options)


# --- command line -------------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = sub.add_parser("solve", help="a winning line, or a checked proof that there is none")
    s.add_argument("board", help="board string, ranks top to bottom, e.g. 'Nbrn/kqQB/nNRR/rbBK'")
    s.add_argument("--retrograde", action="store_true",
                   help="solve with the retrograde engine over every reachable position")
    add_limit_arguments(s)
    r = sub.add_parser("rate", help="difficulty: -log2 of the chance that random play solves it")
    r.add_argument("board")
    r.add_argument("--playouts", type=int, default=20000, help="random play-outs (default 20000)")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--exact", action="store_true", help="exact probability (small positions)")
    add_limit_arguments(r, certificates=False)  # it writes no certificate
    g = sub.add_parser("generate", help="a random start of about the given difficulty (bits)")
    g.add_argument("--difficulty", type=float, required=True, metavar="BITS",
                   help="target difficulty in bits (random starts mostly rate 4-9)")
    g.add_argument("--tolerance", type=float, default=0.25, metavar="BITS")
    g.add_argument("--seed", type=int)
    g.add_argument("--playouts", type=int, default=4000)
    g.add_argument("--attempts", type=int, default=2000)
    add_limit_arguments(g, certificates=False)  # it writes no certificate
    c = sub.add_parser("census", help="solve many starts: the symmetry-reduced set or a sample",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  retrologic puzzle4x4 census --sample 100000 --out census/\n"
                              "  retrologic puzzle4x4 census --range 0:1000000 --out census/\n"
                              "  retrologic puzzle4x4 census --all --out census/ "
                              "--dask tcp://scheduler:8786")
    which = c.add_mutually_exclusive_group(required=True)
    which.add_argument("--range", metavar="LO:HI", help="index range of the symmetry-reduced set")
    which.add_argument("--all", action="store_true", help="the whole symmetry-reduced set")
    which.add_argument("--sample", type=int, metavar="N", help="N uniformly random starts")
    c.add_argument("--seed", type=int, default=0, help="seed of --sample")
    c.add_argument("--shard-size", type=int, default=100_000, metavar="N")
    c.add_argument("--workers", type=int, help="local processes (default: all cores)")
    c.add_argument("--out", required=True, metavar="DIR", help="shard files (resumable) go here")
    c.add_argument("--dask", metavar="ADDRESS", help="run on a Dask scheduler ('local' for a LocalCluster)")
    c.add_argument("--engine", choices=("auto", "python", "numba"), default="auto",
                   help="numba: the compiled kernel (extra 'fast'); auto: numba when installed")
    add_limit_arguments(c, certificates=False)  # it writes no certificate


def run(args: argparse.Namespace) -> int:
    options = options_from(args)
    if args.action == "census":
        return _census(args)
    if args.action == "generate":
        return _generate(args)
    key = p4.parse(args.board)
    if args.action == "solve":
        result = retrograde_board(key, options) if args.retrograde else solve_board(key, options)
    else:
        _checked(args.playouts, "playouts", MAX_PLAYOUTS)
        result = rate_board(key, args.playouts, args.seed, args.exact, options)
    if options.progress:
        print(file=sys.stderr)
    return emit(result, args)


def _no_nodes(args: argparse.Namespace, action: str, instead: str) -> None:
    """`--nodes` has no count to limit in `action`: refused, never silently ignored."""
    if getattr(args, "nodes", None) is not None:
        raise InputError(f"puzzle4x4 {action} has no node count to limit (use {instead})",
                         field="--nodes", value=args.nodes)


def _generate(args: argparse.Namespace) -> int:
    from retrologic.puzzle4x4 import rate
    _no_nodes(args, "generate", "--timeout or --attempts")
    if not args.tolerance > 0 or args.tolerance > 64:
        raise InputError("must be more than 0 and at most 64 (bits)", field="tolerance",
                         value=args.tolerance)
    if not 0 <= args.difficulty <= 64:
        raise InputError("must be from 0 to 64 (bits)", field="difficulty", value=args.difficulty)
    _checked(args.playouts, "playouts", MAX_PLAYOUTS)
    _checked(args.attempts, "attempts", MAX_ATTEMPTS)
    progress = (lambda n: print(f"\r\x1b[Kattempt {n}", end="", file=sys.stderr, flush=True)) \
        if args.progress else None
    try:
        got = rate.generate(args.difficulty, tolerance=args.tolerance, seed=args.seed,
                            playouts=args.playouts, attempts=args.attempts, progress=progress,
                            budget=Budget(args.timeout))
    except p4.LimitReached as e:
        if args.progress:
            print(file=sys.stderr)
        return emit(Result(KIND, Verdict.UNKNOWN, reason=f"{e.reason}: no start of {args.difficulty} "
                           f"bits (+-{args.tolerance}) found before it"), args)
    if args.progress:
        print(file=sys.stderr)
    if got is None:
        result = Result(KIND, Verdict.UNKNOWN, reason=f"no start within {args.tolerance} bits of "
                        f"{args.difficulty} in {args.attempts} attempts")
        return emit(result, args)
    key, r = got
    result = Result(KIND, Verdict.PROVED, p4.to_string(key),
                    facts={"difficulty_bits": round(r["difficulty_bits"], 3)},
                    details=r, lines=[f"{p4.to_string(key)}  difficulty {r['difficulty_bits']:.2f} bits "
                                      f"(p = {r['p']:.5f}, {r['attempts']} starts tried)"])
    return emit(result, args)


def _census(args: argparse.Namespace) -> int:
    from retrologic.puzzle4x4 import census
    from retrologic.puzzle4x4 import index as idx
    _no_nodes(args, "census", "--timeout, or --range / --sample for fewer starts")
    budget = Budget(args.timeout)       # from the start: listing 600,000 shards takes a second
    if args.sample is not None:
        tasks = census.sample_tasks(args.sample, args.seed, args.shard_size, args.engine)
    else:
        lo, hi = 0, idx.SIZE
        if args.range:
            try:
                lo, hi = (int(x.replace("_", "")) for x in args.range.split(":"))
            except ValueError:
                raise InputError("expected LO:HI (integers)", field="range", value=args.range) from None
        tasks = census.index_tasks(lo, hi, args.shard_size, args.engine)
    if args.workers is not None and args.workers < 1:
        raise InputError("must be positive", field="workers", value=args.workers)
    summary = census.run(tasks, args.out, workers=args.workers, dask=args.dask,
                         progress=census.stderr_progress if args.progress else None,
                         budget=budget)
    if args.progress:
        print(file=sys.stderr)
    from retrologic.files import atomic_write_text, refused_writes
    where = Path(args.out) / "summary.json"
    with refused_writes("the summary", file=str(where), field="--out"):
        atomic_write_text(where, json.dumps(summary, indent=1) + "\n")
    stopped = summary.get("stopped")
    if args.json:
        print(json.dumps(summary, indent=1), flush=True)
    else:
        still, unread = "", summary.get("shards_unread")
        if not summary["complete"]:
            still = (f" ({summary['shards_missing']} of {summary['shards']} shards still to run"
                     + (f", {unread} of them finished but not read before the limit"
                        if unread else "") + ")")
        print(f"census: {summary['starts']} starts, {summary['solvable']} solvable, "
              f"{summary['unsolvable_count']} unsolvable{still}")
        for u in summary["unsolvable"][:20]:
            print(f"  unsolvable: {u['board']} (index {u['index']})")
        if summary["whole_set_cpu_days"] is not None:      # no shard finished: no rate yet
            print(f"  {summary['starts_per_cpu_second']} starts per CPU second; the whole set "
                  f"({summary['whole_set']}) would take {summary['whole_set_cpu_days']} CPU days")
        print(f"  summary: {Path(args.out) / 'summary.json'}")
        if stopped:
            print(f"  stopped: {stopped}; the finished shards are kept (rerun to resume)",
                  flush=True)
    if stopped and stopped.startswith(limits.INTERRUPTED) or limits.interrupted():
        return 130   # Ctrl-C: what was finished is printed and kept
    return EXIT_OK if summary["complete"] else 4
