"""Question kind `spg`: shortest proof games (`question = { kind = "spg", moves = 8.0 }`).

Finds every game of the stipulated length (Popeye: N.0 ends with Black's move, N.5 with White's)
that reaches the diagram, and proves the verdict: unique, cooked, no solution, shorter, unknown.
"""

from __future__ import annotations

import argparse
from typing import Any

import chess

from retrologic.spg import solver as spg
from retrologic.errors import InputError
from retrologic.limits import Budget
from retrologic.result import Result, Verdict
from retrologic.schema import Field, one_of
from retrologic.spg.search import Limits
from retrologic.spg.status import Feasibility, Listing, SpgStatus

KIND = "spg"
POSITION = "full"
QUESTION = {
    "moves": Field((float, int, str), required=True,
                   doc="length, Popeye style: N.0 (2N plies) or N.5 (2N+1 plies)"),
    "engine": Field(str, default="auto", check=one_of(*spg.ENGINES),
                    doc="auto (search, then the CP-SAT schedule model), search or schedule"),
}
EXPECT = {"status", "count", "plies", "shorter", "count_at_least", "shorter_at_most",
          "shorter_game"}

VERDICT = {SpgStatus.UNIQUE: Verdict.PROVED, SpgStatus.COOKED: Verdict.REFUTED,
           SpgStatus.NO_SOLUTION: Verdict.REFUTED, SpgStatus.SHORTER: Verdict.REFUTED,
           SpgStatus.UNKNOWN: Verdict.UNKNOWN}
SHOWN = 10  # games printed in full unless --all


def answer_result(answer: spg.SpgAnswer, show: int | None = SHOWN,
                  certificate_dir: str | None = None, budget: Budget | None = None,
                  tags: dict[str, str] | None = None, certificate_mib: int | None = None,
                  progress: bool = False) -> Result:
    """A Result from a solved proof game: facts for [expect], SAN and PGN of every game (with
    `tags`, a problem's PGN tags, in the text as in the JSON); the listing certificate is
    written under the size knob `certificate_mib` (retrologic.certsize; None: the default),
    with its progress lines on stderr when `progress`."""
    status = answer.status
    sans = [spg.san_text(g) for g in answer.games]
    length = spg.moves_text(answer.plies)
    reason = None
    if status == SpgStatus.UNKNOWN:
        reason = answer.reason or "a limit was hit"
    elif status == SpgStatus.NO_SOLUTION:
        reason = f"no game of {length} reaches the diagram"
    elif status == SpgStatus.SHORTER:
        bound = "" if answer.shorter_exact else "at most "
        reason = f"a shorter game reaches the diagram (the shortest: {bound}" \
                 f"{spg.moves_text(answer.shorter)})"
    elif status == SpgStatus.COOKED:
        reason = f"{'' if answer.complete else 'at least '}{answer.count} games of {length} " \
                 "reach the diagram"
    # a limit never overstates: the count is exact only when the length was decided, and
    # "no shorter game" only when every shorter length was
    # and "the shortest game has L plies" only when every length below L was (a game of L
    # plies with a length below it undecided is "at most L": fact shorter_at_most)
    if answer.shorter is not None:
        shorter = answer.shorter if answer.shorter_exact else None
    else:
        shorter = False if answer.shorter_complete else None
    facts: dict[str, Any] = {"status": status, "count": answer.count if answer.complete else None,
                             "count_at_least": answer.count,   # a lower bound, exact if complete
                             "plies": answer.plies, "shorter": shorter}
    # an upper bound on the shortest length (`Result.ceilings`): the witness's length, exact or
    # not; None when no shorter game was found (open while the shorter lengths are)
    facts["shorter_at_most"] = answer.shorter
    if answer.shorter_game is not None:            # the witness, in the JSON answer too
        facts["shorter_game"] = spg.san_text(answer.shorter_game)
    if answer.complete:
        head = f"{status}: {answer.count} game(s) of {length} ({answer.plies} plies)"
    elif answer.count:
        head = f"{status}: at least {answer.count} game(s) of {length} ({answer.plies} plies), " \
               "found before the limit"
    else:
        head = f"{status}: no game of {length} ({answer.plies} plies) found before the limit"
    lines = [head]
    if answer.shorter is not None:
        which = "shortest game" if answer.shorter_exact else \
            "shorter game (a length below it was not decided: the shortest is at most this)"
        lines.append(f"{which}, {spg.moves_text(answer.shorter)}: "
                     f"{spg.san_text(answer.shorter_game) or '(no move: the initial array)'}")
    elif answer.shorter_complete:
        lines.append("no shorter game (same side to move): searched exhaustively")
    else:
        lines.append("shorter lengths: not decided (limit)")
    truncated = len(answer.games) < answer.count
    if truncated:
        lines.append(f"only the first {len(answer.games)} of {answer.count} games are listed")
    for i, (g, text) in enumerate(zip(answer.games, sans)):
        if show is not None and i >= show:
            lines.append(f"... {len(sans) - show} more (use --all to print every game)")
            break
        lines.append(f"{i + 1}) {text}")
        lines.extend("   " + row for row in spg.pgn_text(g, answer.target, tags=tags).splitlines())
    lines.extend(strategy_lines(answer))
    lines.extend(schedule_lines(answer))
    lines.append(f"search: {answer.nodes} nodes, {answer.seconds:.2f} s; lengths searched: "
                 + ", ".join(f"{spg.moves_text(s['plies'])}"
                             + ("" if s["complete"] else " (incomplete)")
                             + (" (beside the stipulated length)" if s.get("beside") else "")
                             for s in answer.searches))
    details = {"pgn": [spg.pgn_text(g, answer.target, tags=tags) for g in answer.games],
               "searches": answer.searches, "nodes": answer.nodes,
               "seconds": round(answer.seconds, 3)}
    if truncated:                       # the answer lists fewer games than the count
        details["games_listed"] = len(answer.games)
    if answer.strategy is not None:
        details["strategy"] = answer.strategy.as_dict()
    if answer.shorter_game is not None:
        details["shorter_game"] = spg.san_text(answer.shorter_game)
    if certificate_dir:
        from retrologic.certformat import as_destination
        dest = as_destination(certificate_dir, question={"kind": KIND, "moves": length},
                              position={"fen": answer.target.board_fen()})
        paths = []
        for i, g in enumerate(answer.games):
            paths.append(str(dest.write(spg.certificate(g, answer.target, answer.plies),
                                        f"spg-game-{i + 1}")))
        if answer.shorter_game is not None:
            paths.append(str(dest.write(spg.certificate(answer.shorter_game, answer.target,
                                                        answer.shorter), "spg-game-shorter")))
        if answer.complete and status in (SpgStatus.UNIQUE, SpgStatus.COOKED,
                                          SpgStatus.NO_SOLUTION):
            # the listing certificate (issue 22): all games and no other, checkable by `check`
            from retrologic.certsize import allowing
            from retrologic.spg.certify import certify
            with allowing(certificate_mib):
                path, line = certify(dest, answer.target, answer.plies, answer.games, budget,
                                     answer.count, status, progress)
            paths += [path] if path else []
            details["listing_certificate"] = line
            lines.append(line)
        details["certificates"] = paths
        lines.append(f"certificates: {', '.join(paths) or 'none (no game found)'}")
    # None is what a limit leaves of these two (see above): an [expect] on one is not decided
    open_facts = frozenset(k for k in ("count", "shorter") if facts[k] is None)
    if "shorter" in open_facts and answer.shorter is None:
        open_facts |= {"shorter_at_most"}
    return Result(KIND, VERDICT[status], answer=sans, reason=reason, facts=facts,
                  details=details, lines=lines, position=answer.target, open_facts=open_facts,
                  bounds={"count_at_least": "count"}, ceilings={"shorter_at_most": "shorter"})


def strategy_lines(answer: spg.SpgAnswer) -> list[str]:
    """What the CP-SAT strategy layer proved before the search, one line per length it decided
    or froze units in."""
    out = []
    report = answer.strategy
    if report is not None:
        if report.status == Feasibility.INFEASIBLE:
            out.append(f"strategies of {spg.moves_text(answer.plies)}: none ({report.reason}), "
                       "so no game; not searched")
        elif report.status == Feasibility.FEASIBLE:
            still = " ".join(chess.square_name(s) for s in chess.scan_forward(report.frozen))
            out.append(f"strategies of {spg.moves_text(answer.plies)}: feasible; units proved "
                       f"still: {still or 'none beyond the frozen ones'} "
                       f"({report.solves} CP-SAT solves, {report.conflicts} nodes, "
                       f"{report.seconds:.2f} s)")
        else:
            out.append(f"strategies: not decided ({report.reason}); searched without them")
    skipped = [s["plies"] for s in answer.searches[1:]
               if s.get("strategies") == Feasibility.INFEASIBLE]
    if skipped:
        out.append("shorter lengths without a strategy (not searched): "
                   + ", ".join(spg.moves_text(p) for p in skipped))
    return out


def schedule_lines(answer: spg.SpgAnswer) -> list[str]:
    """What the CP-SAT schedule model did on each length it was run on."""
    out = []
    for entry in answer.searches:
        rep = entry.get("schedule")
        if rep is None:
            continue
        verdict = "every game listed" if rep["status"] == Listing.COMPLETE else rep["reason"]
        out.append(f"schedule model, {spg.moves_text(entry['plies'])}: {verdict}; "
                   f"{rep['games']} game(s), {rep['rejected']} cut off by the play-out, "
                   f"{rep['solves']} CP-SAT solves, {rep.get('conflicts', 0)} nodes, "
                   f"{rep['variables']} variables, "
                   f"{rep['seconds']:.2f} s")
    return out


def listed_strategies(target: chess.Board, plies: int, limit: int,
                      timeout: float | None, budget: Budget | None = None
                      ) -> tuple[list[str], dict[str, Any]]:
    """Up to `limit` strategies of the stipulated length, as lines and as a details entry."""
    from retrologic.spg.strategy import analyse  # loads OR-Tools (issue #22: only here)
    report, _ = analyse(target, plies, limit=limit, timeout=timeout, budget=budget)
    head = f"strategies of {spg.moves_text(plies)}: {len(report.strategies)}" + \
        (" (all of them)" if report.complete else f" listed (limit {limit} or time)")
    if report.status == Feasibility.INFEASIBLE:
        head = f"strategies of {spg.moves_text(plies)}: none ({report.reason})"
    lines = [head] + [f"  S{i + 1}: {s.text()}" for i, s in enumerate(report.strategies)]
    return lines, report.as_dict()


def _limits(options: Any) -> Limits:
    """The question's limits: the CLI's shared Budget when it made one, else one made from
    --timeout/--nodes (the clock starts here)."""
    from retrologic.options import budget_of
    return Limits(progress=options.progress, budget=budget_of(options))


def solve(problem: Any, options: Any) -> Result:
    """Answer a problem file's spg question."""
    try:
        plies = spg.parse_moves(problem.question["moves"], field="question.moves")
        table = problem.position_table or {}
        if "fen" not in table:
            raise InputError("a proof game needs the diagram as 'fen'", field="position.fen")
        for extra in ("frozen", "to_move"):
            if extra in table:
                raise InputError("not used by proof games (the length fixes the side to move)",
                                 field=f"position.{extra}", value=table[extra])
        target = spg.parse_target(table["fen"], plies, field="position.fen")
    except InputError as e:
        raise e.located(problem.path) from None
    limits = _limits(options)
    answer = spg.solve(target, plies, limits,
                       engine=problem.question["engine"])
    from retrologic.certformat import destination
    from retrologic.pictures.pgn import headers   # the problem's tags (issue #20)
    tags = headers(problem.meta, f"PG {spg.moves_text(plies)}")  # written without chess.pgn
    result = answer_result(answer, show=None,
                           certificate_dir=destination(options.certificate_dir, problem),
                           budget=limits.budget, tags=tags,
                           certificate_mib=getattr(options, "certificate_mib", None),
                           progress=bool(getattr(options, "progress", False)))
    result.position = target
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`retrologic spg FEN --moves 8.0 [--all] [--timeout S]`."""
    from retrologic.console import add_certificate_mib_argument, add_limit_arguments
    parser.add_argument("fen", metavar="FEN", help="the diagram (board part of a FEN is enough)")
    parser.add_argument("--moves", required=True, metavar="N.0|N.5",
                        help="length, Popeye style: N.0 ends with Black's move, N.5 with White's")
    parser.add_argument("--all", action="store_true",
                        help=f"print every game (default: the first {SHOWN}; the count is exact)")
    parser.add_argument("--list-strategies", type=int, default=0, metavar="N",
                        help="list up to N strategies (unit fates, castlings) of the length")
    parser.add_argument("--no-strategies", action="store_true",
                        help="search without the CP-SAT strategy layer (for comparison)")
    parser.add_argument("--engine", choices=spg.ENGINES, default="auto",
                        help="auto: the search for a quarter of the time limit (30 s without "
                             "one), then the CP-SAT schedule model (the search runs on if the "
                             "model cannot decide); with a core to spare, after 1 s both race "
                             "in two processes (docs/spg.md); or either one alone")
    add_limit_arguments(parser)
    add_certificate_mib_argument(parser, reading=False)
    from retrologic.pictures import output as pictures
    pictures.add_arguments(parser, steps=True)


def run(args: argparse.Namespace) -> int:
    """Run the `spg` subcommand."""
    from retrologic.console import emit, options_from
    plies = spg.parse_moves(args.moves, field="--moves")
    target = spg.parse_target(args.fen, plies, field="FEN")
    if args.list_strategies < 0:
        raise InputError("must be 0 or a positive number", field="--list-strategies",
                         value=args.list_strategies)
    options = options_from(args)
    limits = _limits(options)
    listing = None
    if args.list_strategies:
        listing = listed_strategies(target, plies, args.list_strategies, None, limits.budget)
    answer = spg.solve(target, plies, limits, strategies=not args.no_strategies,
                       engine=args.engine, quick=not args.list_strategies)  # (the layer's
    # report is wanted beside the listing: no quick path, spg/quick.py)
    result = answer_result(answer, show=None if args.all else SHOWN,
                           certificate_dir=options.certificate_dir, budget=limits.budget,
                           certificate_mib=options.certificate_mib,
                           progress=bool(options.progress))
    if listing is not None:
        result.lines[1:1] = listing[0]
        result.details["strategies"] = listing[1]
    from retrologic.pictures import output as pictures
    pictures.save(result, target, args)
    return emit(result, args)
