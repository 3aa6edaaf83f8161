"""Question kind `tablebase`: build 8x8 endgame tablebases (DTM) and probe positions.

Problem file: `question = { kind = "tablebase", table = "KRK" }` builds a table and reports its
statistics (longest mate, counts); `question = { kind = "tablebase", fen = "..." }` probes a
position. CLI: `retrologic tablebase build|probe|plot|verify`.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from retrologic.console import EXIT_INTERRUPTED, add_limit_arguments, emit, options_from
from retrologic.errors import EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, InputError
from retrologic.files import usable_path
from retrologic.limits import INTERRUPTED
from retrologic.progress import node_bar
from retrologic.options import SolveOptions, budget_of
from retrologic.problemfile import Problem, confined
from retrologic.result import Result
from retrologic.schema import Field

if TYPE_CHECKING:
    from retrologic.tablebase.table import Library

KIND = "tablebase"
POSITION = "none"      # the position, if any, is question.fen: a build question has none


def _signature(value: str) -> str:
    from retrologic.tablebase.index import parse_signature
    try:
        white, black = parse_signature(value, field="table")
    except InputError as e:
        raise ValueError(e.message) from None       # the caller names the field
    return white + black


def _fen(value: str) -> str:
    from retrologic.tablebase.table import from_board, parse_fen
    try:
        board = parse_fen(value)
        from_board(board)                  # validates: legal, no castling/e.p., at most 4 men
    except InputError as e:
        raise ValueError(e.message) from None
    return board.fen()


def _sample(value: int) -> int:
    if value < 0:
        raise ValueError("must be 0 (no check) or a positive number of positions")
    return value


QUESTION = {
    "table": Field(str, check=_signature, doc="material signature to build, e.g. KRK, KPK, KQKR"),
    "fen": Field(str, check=_fen, doc="position to probe (at most four men)"),
    "dir": Field(str, doc="directory to load tables from and save them to"),
    "verify": Field(int, default=0, check=_sample,
                    doc="forward-check this many random positions with python-chess"),
}
STATS = ("positions", "longest_mate", "longest_plies", "white_to_move_wins", "white_to_move_losses",
         "white_to_move_draws", "white_to_move_mated", "black_to_move_wins",
         "black_to_move_losses", "black_to_move_draws", "black_to_move_mated")
EXPECT = {"table", *STATS, "verified", "mismatches", "outcome", "dtm_plies", "mate_in",
          "best_moves", "line"}
UNORDERED = frozenset({"answer", "best_moves"})


def solve(problem: Problem, options: SolveOptions) -> Result:
    """Answer a tablebase question: build a table (with statistics) or probe a position."""
    q = problem.question
    if not q.get("table") and not q.get("fen"):
        raise InputError("a tablebase question needs 'table' (to build) or 'fen' (to probe)",
                         file=problem.path, field="question")
    if q.get("dir"):
        usable_path(q["dir"], file=problem.path, field="question.dir")
        confined(q["dir"], problem.path, "question.dir")
    lib = _library(q.get("dir"), options)
    if q.get("fen"):
        return probe(lib, q["fen"])
    return build(lib, q["table"], verify=q["verify"])


def _library(directory: str | None, options: SolveOptions) -> Library:
    from retrologic.tablebase.table import Library
    return Library(directory, progress=bool(getattr(options, "progress", False)),
                   budget=budget_of(options), nodes=getattr(options, "nodes", None))


def build(lib: Library, signature: str, verify: int = 0) -> Result:
    """Build (or load) a table and report its statistics; optionally forward-check a sample."""
    from retrologic.tablebase.index import oriented, parse_signature
    sig, _ = oriented(*parse_signature(signature, field="table"))
    table = lib.table(sig)
    if not table.complete:
        return Result(KIND, "unknown", reason=table.reason, facts={"table": sig},
                      lines=[f"{sig}: not solved ({table.reason})"])
    stats = table.stats()
    facts: dict[str, Any] = {"table": sig, **stats}
    lines = [f"{sig}: {stats['positions']:,} positions (symmetry-reduced), longest mate "
             f"{stats['longest_mate']} moves ({stats['longest_plies']} plies), built in "
             f"{table.seconds:.1f} s"]
    for side in ("white", "black"):
        lines.append(f"{side} to move: {stats[f'{side}_to_move_wins']:,} win, "
                     f"{stats[f'{side}_to_move_losses']:,} loss "
                     f"({stats[f'{side}_to_move_mated']:,} mated), "
                     f"{stats[f'{side}_to_move_draws']:,} draw")
    verdict = "proved"
    if verify:
        from retrologic.tablebase.checker import check
        report = check(lib, sig, sample=verify, step=_stepper(lib.budget))
        facts["verified"] = report.checked
        facts["mismatches"] = report.faults
        lines.append(f"forward check (python-chess): {report.checked:,} positions, "
                     f"{report.children:,} moves, {report.indices:,} INVALID markings "
                     f"({', '.join(report.tables)}): {facts['mismatches']} mismatches")
        lines += ["  MISMATCH " + text for text in report_lines(report)[:5]]
        if report.stopped and not report.faults:
            lines.append(f"  the forward check stopped early ({report.stopped})")
        if not report.ok:
            verdict = "unknown"
    reason = None if verdict == "proved" else (
        "the forward check disagrees with the table" if report.faults else
        f"the forward check stopped early: {report.stopped}")
    return Result(KIND, verdict, answer=stats["longest_mate"], facts=facts,
                  details={"counts_per_ply": table.counts}, lines=lines, reason=reason)


def probe(lib: Library, fen: str) -> Result:
    """The value of a position, every optimal move, and a principal variation."""
    from retrologic.tablebase import retrograde as rg
    from retrologic.tablebase.table import Incomplete, from_board, parse_fen
    from retrologic.tablebase.checker import expected
    board = parse_fen(fen)
    from_board(board, fen)
    try:
        here, children = lib.best_moves(board)
    except Incomplete as e:
        return Result(KIND, "unknown", reason=str(e), lines=[f"{board.fen()}: unknown"])
    want = expected([(c.outcome, c.dist) for _, c in children], board)
    if (here.outcome, here.dist if here.outcome != rg.DRAW else -1) != want:
        return Result(KIND, "unknown", reason=f"the table disagrees with its children: {want}",
                      facts={"outcome": here.word})
    # the optimal moves: the fastest mates, the longest resistances, or (a draw) the moves
    # that keep the draw: no child of a drawn position is lost for the opponent, so the best
    # score is a drawn child's
    best = max((c.score_for_parent() for _, c in children), default=None)
    best_moves = sorted(board.san(m) for m, c in children if c.score_for_parent() == best)
    line = lib.line(board)
    san_line = board.copy().variation_san(line) if line else ""
    mate_in = (here.dist + 1) // 2 if here.outcome == rg.WIN else \
        -(here.dist // 2) if here.outcome == rg.LOSS else 0
    answer = {rg.WIN: f"mate in {mate_in}", rg.LOSS: f"mated in {-mate_in}"}.get(here.outcome, "draw")
    if here.outcome == rg.LOSS and here.dist == 0:
        answer = "checkmated"
    facts = {"outcome": here.word, "dtm_plies": here.signed, "mate_in": mate_in,
             "best_moves": best_moves, "line": [m.uci() for m in line]}
    lines = [here.text()]
    if best_moves:
        lines.append("best moves: " + ", ".join(best_moves))
    if san_line:
        lines.append("line: " + san_line)
    res = Result(KIND, "proved", answer=answer, facts=facts, lines=lines)
    res.unordered = UNORDERED
    return res


# -- command line -----------------------------------------------------------------------------

def _cli_signature(value: str) -> str:
    from retrologic.tablebase.index import oriented, parse_signature
    return oriented(*parse_signature(value, field="SIG"))[0]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = sub.add_parser("build", help="build tables (sub-tables first) and save them",
                       description="Build DTM tables by retrograde analysis and save them as DIR/SIG.npz.")
    p.add_argument("tables", nargs="+", metavar="SIG", help="material signatures, e.g. KRK KPK KQKR")
    p.add_argument("--out", required=True, metavar="DIR", help="directory for the tables")
    p.add_argument("--plot", metavar="PNG", help="also write the DTM histogram (one table only)")
    p.add_argument("--verify", type=int, default=0, metavar="N",
                   help="forward-check N random positions with python-chess")
    add_limit_arguments(p)
    p = sub.add_parser("probe", help="probe a position: value, best moves, a mating line")
    p.add_argument("fen", metavar="FEN", help="position (at most four men; quote it)")
    p.add_argument("--dir", metavar="DIR", help="directory of built tables (missing ones are built)")
    add_limit_arguments(p)
    p = sub.add_parser("plot", help="write the DTM histogram of a table as PNG")
    p.add_argument("table", metavar="SIG")
    p.add_argument("--dir", metavar="DIR", help="directory of built tables (missing ones are built)")
    p.add_argument("--out", required=True, metavar="PNG")
    p.add_argument("--progress", action="store_true", help="show build progress on stderr")
    p = sub.add_parser("verify", help="forward-check a table against python-chess's move generator")
    p.add_argument("table", metavar="SIG")
    p.add_argument("--dir", metavar="DIR", help="directory of built tables (missing ones are built)")
    p.add_argument("--sample", type=int, metavar="N", help="check N random positions (default: all)")
    add_limit_arguments(p, certificates=False)      # --nodes: positions checked


def run(args: argparse.Namespace) -> int:
    from retrologic.tablebase.table import Library
    for option in ("out", "dir"):
        if getattr(args, option, None):
            usable_path(getattr(args, option), field=f"--{option}")
    if args.action == "build":
        if args.plot and len(args.tables) > 1:
            raise InputError("--plot takes one table at a time", field="--plot", value=args.plot)
        lib = Library(args.out, progress=args.progress, budget=budget_of(args), nodes=args.nodes)
        status = EXIT_OK
        for sig in args.tables:
            if args.verify < 0:
                raise InputError("must be 0 or a positive number", field="--verify", value=args.verify)
            result = build(lib, _cli_signature(sig), verify=args.verify)
            if args.plot and result.verdict == "proved":
                from retrologic.tablebase.plot import plot
                result.lines.append(f"histogram: {plot(lib.table(result.facts['table']), args.plot)}")
            status = max(status, emit(result, args))
        return status
    if args.action == "probe":
        options = options_from(args)
        lib = _library(args.dir, options)
        return emit(probe(lib, args.fen), args)
    if args.action == "plot":
        from retrologic.tablebase.plot import plot
        lib = Library(args.dir, progress=args.progress)
        path = plot(lib.table(_cli_signature(args.table)), args.out)
        print(path)
        return EXIT_OK
    from retrologic.tablebase.checker import check
    lib = Library(args.dir)
    if args.sample is not None and args.sample <= 0:
        raise InputError("must be a positive number", field="--sample", value=args.sample)
    with node_bar("verify", args.progress, getattr(args, "nodes", None), unit="position"):
        budget = budget_of(args)     # made inside: the bar watches budgets made from its start
        report = check(lib, _cli_signature(args.table), sample=args.sample,
                       step=_stepper(budget))
    if args.json:
        print(json.dumps({"table": args.table, "tables": report.tables,
                          "checked": report.checked, "moves": report.children,
                          "mismatches": report.mismatches, "markings": report.indices,
                          "wrong_markings": report.wrong_marks,
                          "misplaced": report.misplaced, "stopped": report.stopped}, indent=2))
    else:
        print(f"{args.table}: {report.checked:,} positions, {report.children:,} moves checked "
              f"with python-chess, {report.indices:,} INVALID markings (tables "
              f"{', '.join(report.tables)}): {report.faults} mismatches"
              + (f"; stopped early ({report.stopped}): not every position checked"
                 if report.stopped else ""))
        for text in report_lines(report)[:20]:
            print(f"  {text}")
    if report.faults:
        return EXIT_MISMATCH
    if report.stopped:
        return EXIT_INTERRUPTED if report.stopped == INTERRUPTED else EXIT_UNKNOWN
    return EXIT_OK if report.ok else EXIT_MISMATCH


class _stepper:
    """The forward check's `step`: each batch charged to `budget` (positions as nodes: the
    progress bar counts them), its limit or Ctrl-C the reason to stop; `room()`, the nodes
    left, lets the check cut its last batch to the limit (a limit below a whole batch checked
    nothing before 2026-11-30)."""

    def __init__(self, budget: Any) -> None:
        self.budget = budget

    def __call__(self, count: int) -> str | None:
        from retrologic.limits import LimitHit
        try:
            self.budget.check(count, every=1)
        except LimitHit as e:
            return e.reason
        return None

    def room(self) -> int | None:
        return self.budget.nodes_left()


def report_lines(report: Any) -> list[str]:
    """A forward check's faults as lines: wrong INVALID markings, then wrong values."""
    from retrologic.tablebase import retrograde as rg
    lines = [f"{sig} index {index}: {why}" for sig, index, why in report.misplaced]
    for fen, have, want in report.mismatches:
        lines.append(f"{fen}: stored {have}, but a child reached by a legal move is marked "
                     "INVALID" if want[0] == rg.INVALID else
                     f"{fen}: stored {have}, children give {want}")
    return lines
