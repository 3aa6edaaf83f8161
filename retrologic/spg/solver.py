"""Shortest proof games: every game of the stipulated length that reaches a diagram, with the
verdict unique / cooked / no solution / shorter / unknown (SpgStatus).

The search (spg/search.py) is complete and pruned only by the sound bounds of spg/analysis.py,
so "unique" means the search of that length was exhausted; lengths below it (same side to move)
are searched too, so "unique" also means no shorter game exists. Every printed game is replayed
by python-chess before it is reported; the spg-game certificate it writes is checked by
spg/checker.py, which shares none of this code.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import chess

from retrologic import limits as _limits
from retrologic.certformat import stamp
from retrologic.errors import InputError
from retrologic.spg.analysis import Analysis
# the length and move notation is defined beside the checker; parse_moves is re-exported for
# the callers that read `solver` as the proof-game namespace (bench/spg.py, questions/spg.py)
from retrologic.spg.checker import moves_text, parse_moves, san_text  # noqa: F401
from retrologic.spg import race
from retrologic.spg import pgntext
from retrologic.spg.quick import Settled, settle
from retrologic.spg.search import Limits, Search, SearchResult, share_text
from retrologic.spg.shorter import ShorterLengths
from retrologic.spg.status import Feasibility, Listing, SpgStatus
from retrologic.vocabulary import side_name

if TYPE_CHECKING:  # the strategy and schedule layers load OR-Tools: imported where used
    from retrologic.spg.strategy import StrategyReport


def parse_target(fen: str, plies: int, field: str = "fen") -> chess.Board:
    """The diagram as a board with the side to move the length implies.

    Only the placement is compared with a game's end; a side to move given in the FEN must agree
    with the length; castling and e.p. fields are ignored.
    """
    if not isinstance(fen, str) or not fen.strip():
        raise InputError("must be a FEN (at least its board part)", field=field, value=fen)
    parts = fen.split()
    try:
        board = chess.Board(None)
        board.set_board_fen(parts[0])
    except ValueError as e:
        raise InputError(f"malformed FEN board: {e}", field=field, value=fen) from None
    turn = chess.WHITE if plies % 2 == 0 else chess.BLACK
    if len(parts) > 1:
        if parts[1] not in ("w", "b"):
            raise InputError("side to move must be 'w' or 'b'", field=field, value=fen)
        if (parts[1] == "w") != (turn == chess.WHITE):
            raise InputError(f"side to move {parts[1]!r} disagrees with the length "
                             f"{moves_text(plies)} ({side_name(turn)} is to move "
                             "after it)", field=field, value=fen)
    for color in chess.COLORS:
        if chess.popcount(board.kings & board.occupied_co[color]) != 1:
            raise InputError(f"the diagram needs exactly one {chess.COLOR_NAMES[color]} king",
                             field=field, value=fen)
    board.turn = turn
    return board


@dataclass
class SpgAnswer:
    """The outcome of a proof-game question."""

    target: chess.Board
    plies: int
    games: list[list[chess.Move]]          # solutions found (all of them when complete)
    count: int                             # solutions of the stipulated length: exact when
    complete: bool                         # complete (searched exhaustively), else found so far
    reason: str | None = None              # the limit that was hit ("interrupted...": Ctrl-C)
    shorter: int | None = None             # plies of a shorter game found (same side to move)
    shorter_game: list[chess.Move] | None = None
    shorter_complete: bool = True          # every shorter length was searched exhaustively
    shorter_exact: bool = False            # `shorter` is the shortest length (all below decided)
    nodes: int = 0
    seconds: float = 0.0
    searches: list[dict[str, Any]] = field(default_factory=list)
    strategy: StrategyReport | None = None  # the strategy layer's report on the stipulated length

    @property
    def status(self) -> SpgStatus:
        """cooked, unknown, no solution, shorter (a shorter game exists) or unique."""
        if self.count >= 2:
            return SpgStatus.COOKED
        if self.complete and self.count == 0:
            return SpgStatus.NO_SOLUTION
        if self.shorter is not None:       # a replayed shorter game: proved whatever the length's
            return SpgStatus.SHORTER       # own search left undecided
        if not self.complete:
            return SpgStatus.UNKNOWN
        return SpgStatus.UNIQUE if self.shorter_complete else SpgStatus.UNKNOWN


def search_length(target: chess.Board, plies: int, limits: Limits,
                  start: chess.Board | None = None, analysis: Analysis | None = None
                  ) -> tuple[SearchResult, Analysis]:
    """All games of exactly `plies` plies from `start` (default: the initial array) to `target`."""
    search, analysis = _search(target, plies, limits, start, analysis)
    return search.run(), analysis


def _search(target: chess.Board, plies: int, limits: Limits, start: chess.Board | None = None,
            analysis: Analysis | None = None) -> tuple[Search, Analysis]:
    """The search of one length, not yet run (a limit-stopped run can be run on)."""
    start = start if start is not None else chess.Board()
    analysis = analysis or Analysis(start, target)
    return Search(start, target, plies, analysis.prune, None, limits,
                  analysis.candidate_moves), analysis


MAX_GAMES = 1000  # games listed at most; the search's count is exact regardless


ENGINES = ("auto", "search", "schedule")
# "auto": the search first, for AUTO_SEARCH_SECONDS without a time limit, else that share of
# the time left; measured over the problem files (docs/spg.md), 30 s of search then the schedule
# model decides 11 of the 16 hardest problems in under a minute, 60 s only 8.
# This wall-clock slice decides only WHICH engine answers, never the answer: both engines are
# complete, and when the schedule model cannot decide a length for a reason of its own (a model
# too large, the listing limit before two games), the stopped search is run on from where it
# stopped with the rest of the user's budget. Only the user's own limits (time, nodes, Ctrl-C)
# can leave a length undecided. (Whether a cooked length's count is exact can depend on it: the
# search counts every game, the schedule model lists at most MAX_GAMES.)
AUTO_SEARCH_SECONDS = 30.0
AUTO_SEARCH_SHARE = 0.25
# On two cores or more ("auto" only): the search alone for RACE_AFTER seconds (a short problem
# needs no second process), then the search and the schedule model side by side, each with the
# whole budget left, the first complete listing answering (spg/race.py).
RACE = True
RACE_AFTER = 1.0
# In the race, the search that has run GIVE_UP[0] s on a length and estimates it has searched
# under GIVE_UP[1] of its tree (Search.share_done) gives its core to a second listing (another
# seed: SECOND_LISTING). The six undecided 23-40-ply problems read 0.11 % at most by 5 s, the
# six slowest decided 9 % or more. Both listings are complete: the rule picks the engine only.
GIVE_UP: tuple[float, float] | None = (5.0, 0.01)
SECOND_LISTING: dict[str, Any] = {"random_seed": 1}
# A lone listing (no race) and the race's second fix the strategy groups and add the walk counts
# (`fix_groups`, `ScheduleModel(walk_counts=)`): 1.2-3.4x fewer conflicts on 7 edge problems
# than groups assumed without them. The race's first keeps them assumed, without: two configs
# decided frolkin-1991 in 60 s, one config and two seeds not (bench/README-spg.md, 2026-12-08).
LISTING: dict[str, bool] = {"fixed_groups": True, "walk_counts": True}
# The search runs on after a second listing that could not decide (a model too large) when at
# least this many seconds are left: a listing its time limit stopped leaves none worth a run.
RUN_ON_LEAST = 1.0
# The quick path (spg/quick.py, issue #22 "Latency"): the search alone under QUICK_NODES nodes
# on every length before the strategy layer; off: the full path only (tests of its mechanics).
QUICK = True


@dataclass
class _Length:
    """What one length's engines found: its games, exactly all of them when `complete`."""

    games: list[list[chess.Move]]
    complete: bool
    count: int
    reason: str | None
    nodes: int
    seconds: float
    entry: dict[str, Any]
    analysis: Analysis


def solve(target: chess.Board, plies: int, limits: Limits | None = None,
          start: chess.Board | None = None, max_games: int | None = MAX_GAMES,
          check_shorter: bool = True, bound_options: dict[str, bool] | None = None,
          strategies: bool = True, engine: str = "auto", quick: bool = True) -> SpgAnswer:
    """Solve a proof game: all games of `plies` plies, then shorter lengths of the same parity.

    At most `max_games` games are listed (None: all); `count` is exact when the length is
    decided. `bound_options` switches parts of the search's lower bound (Analysis's
    `victim_slots`, `capture_accounting`); every setting is sound, they differ in speed only.
    With `strategies`, each length is first put to the CP-SAT strategy model (spg/strategy.py):
    a length without strategy has no game and is not searched, and the units it proves still
    are frozen. `engine`: "search" (spg/search.py), "schedule" (the CP-SAT schedule model,
    spg/schedule.py) or "auto": the search for a quarter of the time left (AUTO_SEARCH_SECONDS
    without a time limit), then, if it did not finish, the schedule model for the rest. Both engines
    are complete; either one's exhausted listing decides a length. With `quick` (and QUICK),
    the search alone first tries to settle every length under a small node budget before the
    strategy layer runs (spg/quick.py; then `strategy` is None).
    """
    if engine not in ENGINES:
        raise InputError(f"must be one of {', '.join(ENGINES)}", field="engine", value=engine)
    limits = limits or Limits()
    start = start if start is not None else chess.Board()
    plain = Analysis(start, target, **(bound_options or {}))
    settled = None
    if quick and QUICK and strategies and engine != "schedule" and check_shorter:
        settled = settle(lambda length, lim, top: _decide(
            target, length, start, plain, None, lim, "search", max_games if top else 1,
            None if top else 1), lambda length: plain.prune(start, length), plies, limits)
        if settled is not None and settled.done:  # the search alone settled every length
            return _quick(settled, target, plies)
    # shorter lengths in rising order, so that the first game found is the shortest one when
    # every length below it was decided (issue #22: a witness of 19 plies is no proof that the
    # shortest game has 19 plies when one of 15 exists)
    lengths = [n for n in range(plies % 2, plies - 1, 2)
               if check_shorter and not plain.prune(start, n)]

    def shorter(length: int, lim: Limits, main_analysis: Analysis,
                search_first: float | None = None,
                give_up: tuple[float, float] | None = None) -> _Length:
        sub_report, sub_analysis = _prepared(plain, target, length, start, lim, strategies)
        if sub_analysis.extra_frozen == main_analysis.extra_frozen:
            sub_analysis = main_analysis  # the same frozen units: keep the first one's caches
        return _decide(target, length, start, sub_analysis, sub_report, lim, engine, 1, 1,
                       search_first=search_first, give_up=give_up)
    beside = ShorterLengths(lengths, shorter) if lengths else None
    if settled is not None and settled.main.complete:  # the quick search listed the length
        report, main = None, settled.main              # (spg/quick.py): not searched again
        main.entry["quick"] = True
    else:
        report, analysis = _prepared(plain, target, plies, start, limits, strategies)
        main = _decide(target, plies, start, analysis, report, limits, engine, max_games, None,
                       beside=beside)
    answer = SpgAnswer(target, plies, main.games, main.count, main.complete, main.reason,
                       nodes=main.nodes, seconds=main.seconds, strategy=report)
    answer.searches.append(main.entry)
    if not check_shorter:
        answer.shorter_complete = False
        return _interrupted(answer, limits)
    for length in lengths:
        note = beside.settled(length) if beside is not None else None
        if note is not None:        # decided beside the stipulated length (spg/shorter.py)
            sub = _told(note, start, target, main.analysis)
        elif limits.budget.expired() or limits.budget.nodes_used_up():
            # out of time or nodes, Ctrl-C: the shorter lengths left are undecided
            from retrologic.spg.strategy import limit_reason    # the listing's own words
            answer.shorter_complete = False
            if answer.reason is None:
                answer.reason = f"{limit_reason(limits.budget)} (before {moves_text(length)})"
            break
        else:
            sub = shorter(length, limits, main.analysis)
        answer.nodes += sub.nodes
        answer.seconds += sub.seconds
        answer.searches.append(sub.entry)
        if sub.games:
            answer.shorter = length
            answer.shorter_game = sub.games[0]
            answer.shorter_exact = answer.shorter_complete  # every length below was decided
            break
        if not sub.complete:
            # a length left undecided: a longer one may still show a shorter game exists, but
            # "no shorter game" and "the shortest is L" are no longer provable
            answer.shorter_complete = False
            if answer.reason is None:
                answer.reason = f"{sub.reason} (searching {moves_text(length)})"
    return _interrupted(answer, limits)


def _quick(settled: Settled[_Length], target: chess.Board, plies: int) -> SpgAnswer:
    """The answer of the quick path (spg/quick.py, issue #22 "Latency"): every length decided
    by the search alone (`_decide` without the strategy layer) under a small node budget, so
    OR-Tools is loaded only when the bounds and the search alone do not settle the question."""
    main = settled.main
    answer = SpgAnswer(target, plies, main.games, main.count, True, None, nodes=main.nodes,
                       seconds=main.seconds)
    answer.searches.append(dict(main.entry, quick=True))
    for _, sub in settled.runs:
        answer.nodes += sub.nodes
        answer.seconds += sub.seconds
        answer.searches.append(dict(sub.entry, quick=True))
    if settled.shorter is not None:
        answer.shorter = settled.shorter
        answer.shorter_game = settled.runs[-1][1].games[0]
        answer.shorter_exact = True  # every length below it was searched to the end
    return answer


def _told(note: dict[str, Any], start: chess.Board, target: chess.Board,
          analysis: Analysis) -> _Length:
    """A shorter length as the race's search worker decided it (spg/shorter.py), its games
    replayed here like every other engine's."""
    games = [replay_checked(start, [chess.Move.from_uci(u) for u in g], target)
             for g in note["games"]]
    return _Length(games, note["complete"], note["count"], note["reason"], note["nodes"],
                   note["seconds"], note["entry"], analysis)


def _interrupted(answer: SpgAnswer, limits: Limits) -> SpgAnswer:
    """After Ctrl-C, an answer left undecided says so first: its reason starts with
    "interrupted" (the CLI exits 130), the details of each engine following."""
    if limits.interrupted() and answer.reason is not None and \
            not answer.reason.startswith(_limits.INTERRUPTED):
        answer.reason = f"{_limits.INTERRUPTED} ({answer.reason})"
    return answer


def _decide(target: chess.Board, plies: int, start: chess.Board, analysis: Analysis,
            report: StrategyReport | None, limits: Limits, engine: str,
            max_games: int | None, enough: int | None, search_first: float | None = None,
            give_up: tuple[float, float] | None = None,
            beside: ShorterLengths | None = None) -> _Length:
    """The games of one length by the chosen engine(s); `enough` games stop the listing (a
    shorter length needs one to be refuted). `search_first`: the seconds of search alone in
    "auto" without a race, `give_up` its rule for stopping sooner (`Search.give_up`);
    `beside`: the shorter lengths the race's search process decides before it runs on."""
    if report is not None and report.status == Feasibility.INFEASIBLE:  # no strategy: no game
        return _Length([], True, 0, None, 0, 0.0, _search_entry(plies, None, 0, report), analysis)
    found: dict[tuple[str, ...], list[chess.Move]] = {}
    nodes, seconds, reasons = 0, 0.0, []
    entry: dict[str, Any] | None = None
    search: Search | None = None
    # no race under a node limit: the nodes (searched positions and CP-SAT conflicts) then
    # decide which engine answers, and the same figure gives the same verdict on any machine
    racing = engine == "auto" and RACE and limits.budget.nodes is None and race.available()
    if racing and RACE_AFTER <= 0 and not limits.budget.expired():   # the race from the start
        search, _ = _search(target, plies, limits, start, analysis)
        return _race(search, target, plies, start, analysis, report, limits, max_games,
                     enough, _search_entry(plies, None, None, report), found, beside)
    if engine in ("search", "auto"):
        sub = limits if engine == "search" else _share(limits, racing, search_first)
        search, _ = _search(target, plies, sub, start, analysis)
        search.give_up = give_up
        res = search.run()
        limits.absorb(sub)
        nodes, seconds = res.nodes, res.seconds
        games = [replay_checked(start, g, target) for g in res.games(max_games)]
        count = res.count() if res.complete else len(games)
        entry = _search_entry(plies, res, count if res.complete else None, report)
        if res.complete:
            entry["engine"] = "search"
            return _Length(games, True, count, None, nodes, seconds, entry, analysis)
        reasons.append(f"search: {res.reason}")
        found.update((_uci(g), g) for g in games)
        if racing and not limits.budget.expired() and not (enough and found):
            return _race(search, target, plies, start, analysis, report, limits, max_games,
                         enough, entry, found, beside)
    if engine in ("schedule", "auto") and not (enough and found):
        listing = None if max_games is None else max(max_games, enough or 0)
        rep = list_games(analysis, plies, limit=enough or listing,
                         progress=_schedule_progress if limits.progress else None,
                         budget=limits.budget, **LISTING)
        seconds += rep.seconds
        games = [replay_checked(start, g, target) for g in rep.games]
        if entry is None:
            entry = _search_entry(plies, None, None, report)
        entry["schedule"] = rep.as_dict()
        entry["seconds"] = round(seconds, 3)
        if rep.status == Listing.COMPLETE:
            entry.update(engine="schedule", complete=True, solutions=len(games), searched=True)
            return _Length(games, True, len(games), None, nodes, seconds, entry, analysis)
        reasons.append(f"schedule model: {rep.reason}")
        for g in games:
            found.setdefault(_uci(g), g)
        if search is not None and len(found) < (enough or 2) and not limits.budget.expired():
            # the schedule model could not decide the length for a reason of its own (see
            # AUTO_SEARCH_SECONDS): the search runs on with the rest of the user's budget
            search.limits, search.give_up = limits, None
            res = search.run()
            nodes, seconds = res.nodes, seconds + res.seconds
            games = [replay_checked(start, g, target) for g in res.games(max_games)]
            entry.update(nodes=res.nodes, seconds=round(seconds, 3), complete=res.complete,
                         resumed=True)
            if res.complete:
                count = res.count()
                entry.update(engine="search", solutions=count)
                return _Length(games, True, count, None, nodes, seconds, entry, analysis)
            reasons[0] = f"search: {res.reason}"
            for g in games:
                found.setdefault(_uci(g), g)
    assert entry is not None
    entry.update(engine=engine, complete=False)
    games = list(found.values())
    return _Length(games, False, len(games), "; ".join(reasons), nodes, seconds, entry, analysis)


def _race(search: Search, target: chess.Board, plies: int, start: chess.Board,
          analysis: Analysis, report: StrategyReport | None, limits: Limits,
          max_games: int | None, enough: int | None, entry: dict[str, Any],
          found: dict[tuple[str, ...], list[chess.Move]],
          beside: ShorterLengths | None = None) -> _Length:
    """"auto" on two cores (spg/race.py): the stopped search runs on in one process and the
    schedule model lists the length in another, each with the user's whole budget; the first
    to decide the length answers. `enough` games decide a shorter length too. The search's
    process first decides the shorter lengths `beside` (spg/shorter.py). A search that finds
    itself hopeless (GIVE_UP) lists the length a second way (SECOND_LISTING)."""
    search.limits = limits

    def run_search() -> dict[str, Any]:
        if beside is not None:      # needed whichever engine decides this length
            beside.run(limits, analysis)
        search.give_up = GIVE_UP
        res = search.run()
        out = {"complete": res.complete, "searched": res.complete,
               "count": res.count() if res.complete else None,
               "games": [[m.uci() for m in g] for g in res.games(max_games)],
               "reason": res.reason, "nodes": res.nodes, "seconds": res.seconds,
               "spent": limits.budget.spent}
        if not res.complete and not search.gave_up and search.give_up is not None:
            out["share"] = search.share_done()          # tracked since give_up is set
        if search.gave_up and not limits.budget.expired():
            search.graph.clear()                       # its memory, for the second model
            second = run_schedule(SECOND_LISTING, second=True)
            out.update(complete=second["complete"], listed=second["listed"],
                       second=second["report"], seconds=res.seconds + second["seconds"],
                       reason=f"{res.reason}; second listing: {second['reason']}",
                       spent=limits.budget.spent)
            out["games"] = _merged(out["games"], second["games"])
            left = limits.budget.left()
            if not second["complete"] and (left is None or left >= RUN_ON_LEAST) \
                    and not limits.budget.nodes_used_up() and not limits.interrupted():
                out.update(_search_on(search, max_games, out))
        return out

    def run_schedule(parameters: dict[str, Any] | None = None,
                     second: bool = False) -> dict[str, Any]:
        listing = None if max_games is None else max(max_games, enough or 0)
        shown = partial(_schedule_progress, label="second listing" if second
                        else "schedule model")
        rep = list_games(analysis, plies, limit=enough or listing,
                         progress=shown if limits.progress else None,
                         budget=limits.budget, parameters=parameters,
                         on_game=_tell_game, **(LISTING if second else {}))
        games = [[m.uci() for m in g] for g in rep.games]
        return {"complete": rep.status == Listing.COMPLETE or bool(enough and games),
                "listed": rep.status == Listing.COMPLETE, "games": games,
                "reason": rep.reason, "report": rep.as_dict(), "seconds": rep.seconds}

    def on_note(name: str, note: dict[str, Any]) -> None:
        if "listed" in note:        # a game a listing found (`_tell_game`): kept if stopped
            game = replay_checked(start, [chess.Move.from_uci(u) for u in note["listed"]],
                                  target)
            found.setdefault(_uci(game), game)
        elif beside is not None:
            beside.take(name, note)

    answers = race.first_complete({"search": run_search, "schedule": run_schedule},
                                  stop=limits.interrupted, deadline=limits.budget.deadline,
                                  budget=limits.budget, on_note=on_note)
    entry["race"] = {name: ("decided" if a.get("complete") else a.get("error") or a["reason"])
                     for name, a in answers.items()}
    nodes, seconds = entry.get("nodes", 0), entry.get("seconds", 0.0)
    got = answers.get("search")
    if got is not None and "spent" in got:
        limits.budget.spent = max(limits.budget.spent, got["spent"])
        nodes, seconds = got["nodes"], seconds + got["seconds"]
        entry.update(nodes=nodes, resumed=True)
    sched = answers.get("schedule")
    if sched is not None and "report" in sched:
        entry["schedule"] = sched["report"]
    if got is not None and "second" in got:
        entry["second_listing"] = got["second"]
    entry["seconds"] = round(seconds, 3)
    reasons = []
    for name, got in answers.items():
        games = [replay_checked(start, [chess.Move.from_uci(u) for u in g], target)
                 for g in got.get("games", [])]
        if name == "search" and got.get("searched"):
            entry.update(engine="search", complete=True, solutions=got["count"])
            return _Length(games, True, got["count"], None, nodes, seconds, entry, analysis)
        if got.get("listed"):       # the schedule model's listing, or the second one
            entry.update(engine="schedule", complete=True, solutions=len(games), searched=True)
            return _Length(games, True, len(games), None, nodes, seconds, entry, analysis)
        for g in games:
            found.setdefault(_uci(g), g)
        label = "search" if name == "search" else "schedule model"
        reasons.append(f"{label}: {got.get('error') or got.get('reason')}")
        if "share" in got:          # where the search stopped: an estimate, said to be one
            entry["search_share_estimate"] = round(got["share"], 6)
            reasons[-1] += f", an estimated {share_text(got['share'])} of its tree searched"
    for name in ("search", "schedule"):
        if name not in answers:
            reasons.append(f"{name}: stopped ({limits.budget.expired() or 'the other engine'})")
    entry.update(engine="auto", complete=False)
    games = list(found.values())
    return _Length(games, False, len(games), "; ".join(reasons), nodes, seconds, entry, analysis)


def _tell_game(moves: list[chess.Move]) -> None:
    """In a race's worker: tell the parent a game its listing found, as soon as it is found, so
    that the game outlives a worker stopped before it answers (CP-SAT slow to stop)."""
    race.tell({"listed": [m.uci() for m in moves]})


def _search_on(search: Search, max_games: int | None, out: dict[str, Any]) -> dict[str, Any]:
    """The search run on, without giving up, when the second listing could not decide the
    length for a reason of its own (a model too large, the listing limit): the race's rule
    chooses the engine, never leaves a length undecided with the user's budget unspent
    (docs/spg.md). The search starts afresh (its memory went to the second listing)."""
    search.give_up = None
    res = search.run()
    games = [[m.uci() for m in g] for g in res.games(max_games)]
    return {"complete": res.complete, "searched": res.complete, "listed": False,
            "count": res.count() if res.complete else None,
            "games": _merged(out["games"], games),
            "reason": res.reason if res.complete else f"{out['reason']}; search run on: "
                                                        f"{res.reason}",
            "nodes": res.nodes, "seconds": out["seconds"] + res.seconds,
            "spent": search.limits.budget.spent}


def _merged(games: list[list[str]], more: list[list[str]]) -> list[list[str]]:
    """`games` (UCI lists) followed by those of `more` not among them, in their order."""
    known = {tuple(g) for g in games}
    return games + [g for g in more if tuple(g) not in known]


def _share(limits: Limits, racing: bool = False, seconds: float | None = None) -> Limits:
    """The search's limits in "auto": its share of the time left, or AUTO_SEARCH_SECONDS;
    under a node limit, that share of the nodes left and no wall-clock slice (the engine that
    answers then depends on the figures alone); RACE_AFTER seconds when the engines race on
    two cores afterwards, `seconds` when given (no node limit). Ctrl-C applies unchanged."""
    if racing:
        return limits.share(seconds=RACE_AFTER)
    if seconds is not None and limits.budget.nodes is None:
        return limits.share(seconds=seconds)
    budget = limits.budget
    if budget.nodes is not None:
        return limits.share(AUTO_SEARCH_SHARE if budget.deadline is not None else 1.0,
                            node_fraction=AUTO_SEARCH_SHARE)
    if budget.deadline is None:
        return limits.share(seconds=AUTO_SEARCH_SECONDS)
    return limits.share(AUTO_SEARCH_SHARE)


def list_games(analysis: Analysis, plies: int, **kwargs: Any) -> Any:
    """spg/listing.py's `list_games` (the schedule model's listing), imported on first use:
    it loads OR-Tools (issue #22, latency); a name of this module so tests can replace it."""
    from retrologic.spg.listing import list_games as listing
    return listing(analysis, plies, **kwargs)


def _uci(game: list[chess.Move]) -> tuple[str, ...]:
    return tuple(m.uci() for m in game)


def _schedule_progress(report: Any, running: float | None = None,
                       label: str = "schedule model") -> None:
    """Progress of a schedule model's listing on stderr: after each solve, and every few
    seconds of one (`running`, spg/listing.py's `list_schedule`). `label`: which listing."""
    if running is None:
        text = (f"{report.solves} solves, {len(report.games)} game(s), "
                f"{report.rejected} cut off by the play-out")
    else:
        text = f"solve {report.solves + 1} running, {running:.0f} s, {report.variables:,} variables"
    print(f"{label}, {report.plies} plies: {text}", file=sys.stderr, flush=True)


def _prepared(plain: Analysis, target: chess.Board, plies: int, start: chess.Board,
              limits: Limits, strategies: bool) -> tuple[StrategyReport | None, Analysis]:
    """The strategy layer's report on one length and the analysis to search it with (`plain`
    when the layer is off, finds nothing still, or runs out of time)."""
    if not strategies:
        return None, plain
    from retrologic.spg.strategy import analyse  # OR-Tools: loaded only here (issue #22)
    return analyse(target, plies, start=start, enumerate_strategies=False, base=plain,
                   budget=limits.budget)


def _search_entry(plies: int, res: SearchResult | None, solutions: int | None,
                  report: StrategyReport | None) -> dict[str, Any]:
    """One line of `SpgAnswer.searches`: a length, its search figures and its strategy layer."""
    entry: dict[str, Any] = {"plies": plies, "nodes": res.nodes if res else 0,
                             "seconds": round(res.seconds, 3) if res else 0.0,
                             "complete": res.complete if res else True, "solutions": solutions,
                             "searched": res is not None}
    if report is not None:
        entry["strategies"] = report.status
        entry["still"] = chess.popcount(report.frozen)
        entry["strategy_seconds"] = round(report.seconds, 3)
    return entry


def replay_checked(start: chess.Board, moves: list[chess.Move], target: chess.BaseBoard
                   ) -> list[chess.Move]:
    """Replay a game with python-chess's move generator; raise if it is not a legal proof game."""
    board = start.copy(stack=False)
    for move in moves:
        if not board.is_legal(move):
            raise AssertionError(f"internal error: illegal move {move.uci()} in a found game")
        board.push(move)
    if board.board_fen() != target.board_fen():
        raise AssertionError("internal error: a found game does not reach the diagram")
    return moves


def pgn_text(moves: list[chess.Move], target: chess.Board, title: str = "Proof game",
             tags: dict[str, str] | None = None) -> str:
    """A game as PGN, the diagram's FEN in a comment after the last move; `tags` (e.g. a
    problem's, pictures.pgn.headers) over Event = `title`. Written by spg/pgntext.py exactly
    as chess.pgn writes it, without importing chess.pgn (issue #22: it loads asyncio)."""
    comment = f"target {target.board_fen()} {'w' if target.turn else 'b'}"
    return pgntext.pgn_text(moves, comment, {"Event": title, **(tags or {})})


def certificate(moves: list[chess.Move], target: chess.Board, plies: int) -> dict[str, Any]:
    """The spg-game certificate of one solution: the game, replayable by python-chess."""
    return stamp({"type": "spg-game", "target": target.board_fen(),
                  "to_move": "white" if plies % 2 == 0 else "black", "plies": plies,
                  "moves": [m.uci() for m in moves], "san": san_text(moves)})
