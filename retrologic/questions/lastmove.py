"""Question kind `last-move`: what were the last N single moves? Proved on both sides: every
rejected candidate comes with a proof tree, every possible one with a legal game ending in it;
the answer is unique, several or none possible, or unknown while a candidate is unresolved."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

import chess

from retrologic.console import add_limit_arguments, emit
from retrologic.errors import InputError
from retrologic.files import path_kind
from retrologic.lastmove import search as lastmove
from retrologic.lastmove.checker import Status, board_labels, board_moves, shown_differ
from retrologic.lastmove.pgn import support_pgn
from retrologic.legalgame.given import GivenGame, game_arguments, games_field, given_games, reaching
from retrologic.limits import Budget, budget_for
from retrologic.options import SolveOptions, budget_of
from retrologic.position import Position, given_frozen, parse
from retrologic.progress import node_bar
from retrologic.problemfile import Problem, resolve_path
from retrologic.result import Result, Verdict
from retrologic.schema import Field

KIND = "last-move"
POSITION = "full"


# Upper bounds of the search's sizes, checked before anything runs. The candidates are every
# sequence of `plies` retractions, about 20-30 times more per ply: measured 14,127 / 295,498
# candidates at 3 / 4 plies for a middlegame diagram, 718,690 at 4 plies for Brandis; beyond 8
# plies no diagram could be enumerated. `depth` and `support` are plies of a depth-first search
# (one level of recursion per ply), bounded by the node limit well before 64.
MAX_PLIES = 8
MAX_DEPTH = 64


def _positive(v: int) -> int:
    if v < 1:
        raise ValueError("must be at least 1")
    return v


def _at_most(limit: int) -> Callable[[int], int]:
    """A Field check: a whole number from 1 to `limit`."""
    def check(v: int) -> int:
        if not 1 <= v <= limit:
            raise ValueError(f"must be from 1 to {limit}")
        return v
    return check


QUESTION = {
    "plies": Field(int, default=1, check=_at_most(MAX_PLIES), doc="number of last single moves"),
    "depth": Field(int, default=6, check=_at_most(MAX_DEPTH),
                   doc="plies of refutation search per candidate"),
    "support": Field(int, default=6, check=_at_most(MAX_DEPTH), doc="plies of a supporting line"),
    "nodes": Field(int, default=200_000, check=_positive, doc="node limit"),
    "discover": Field(bool, default=True, doc="discover cages automatically"),
    "library": Field(bool, default=True, doc="use the verified cages of encodings/cages"),
    "duplex": Field(bool, default=False,
                    doc="answer for each side separately: White's last move, then Black's"),
    "games": Field(list, default=[], check=games_field,
                   doc="legal games to the diagram (SAN, Popeye or PGN move text), given: each "
                       "shows the candidate it ends with possible"),
}
_SIDED = ("impossible", "possible", "on_board", "unresolved", "finding", "verdict")
EXPECT = {"impossible", "possible", "on_board", "unresolved", "illegal_for", "discovered",
          "finding", "possible_at_least"} | {
    f"{side}_{key}" for side in ("white", "black") for key in (*_SIDED, "possible_at_least")}


def answer(pos: Position, *, plies: int = 1, depth: int = 6, support: int = 6,
           nodes: int = 200_000, timeout: float | None = None, lemmas: Iterable[Path] = (),
           discover: bool = True, use_library: bool = True, duplex: bool = False,
           certificate_dir: Any = None, budget: Budget | None = None,
           games: list[GivenGame] | None = None, file: str | None = None) -> Result:
    """Solve and render a last-move problem (limits: `budget`, the question's shared one, else
    `timeout`; `nodes` is the node limit when the budget has none). With `duplex`, the question
    is asked twice, White having moved last and then Black, in one budget (see `_duplex`).
    `games` (given by the user) must each reach the diagram (InputError naming the field
    otherwise); each shows the candidate it ends with possible (`lastmove.given`)."""
    from retrologic.lastmove.cages import closers_for
    games = list(games or [])
    for game in games:          # the side to move is the game's when the diagram leaves it open
        target = pos if pos.turn is not None and not duplex else pos.with_turn(game.board().turn)
        reaching([game], target.to_board(), pos.frozen, ep_open=True, file=file)
    closer, discovered = closers_for(list(lemmas), discover, use_library)
    limits = lastmove.Limits(depth=depth, support=support, nodes=nodes, timeout=timeout,
                             budget=budget)
    if duplex:
        return _duplex(pos, plies, limits, closer, discovered, certificate_dir, games)
    res = lastmove.solve(pos, plies, limits, [closer], games)
    lines, facts, details = _rendered(res)
    _given(pos, res, lines)
    if discovered:
        lines.insert(-1, "cages discovered: " + ", ".join(d["cage"] for d in discovered))
    facts["discovered"] = [d["cage"] for d in discovered]
    details["discovered_cages"] = discovered
    if certificate_dir:
        details["certificate"] = _write_certificate(pos, plies, res, certificate_dir)
        if details["certificate"] is None:
            lines.append(NOT_WRITTEN)
    return Result(KIND, res.verdict, None if _open(res) else res.answer, reason=res.reason,
                  facts=facts, details=details, lines=lines,
                  unordered=frozenset(facts) | {"answer"}, position=pos,
                  open_facts=_open_facts(res), bounds=BOUNDS, **_known(res))


SHOWN = 40  # impossible or unresolved candidates the text lists per status; JSON has them all


def _given(pos: Position, res: lastmove.LastMoveResult, lines: list[str]) -> None:
    """State the stated frozen units a proof may rest on, in the reason and first line."""
    given = given_frozen(pos)
    if given:
        lines.insert(0, given[2:].capitalize())
        if res.reason:
            res.reason += given


def _rendered(res: lastmove.LastMoveResult) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    """The readable lines, the [expect] facts and the JSON details of one solve. The text lists
    every possible candidate and at most `SHOWN` of each other status (a last-3-moves question
    may have thousands), then counts the rest."""
    lines: list[str] = []
    listed = {Status.IMPOSSIBLE: 0, Status.UNRESOLVED: 0}
    for c in res.candidates:
        if c.status in listed:
            listed[c.status] += 1
            if listed[c.status] > SHOWN:
                continue
        if c.status == Status.IMPOSSIBLE:
            lines.append(f"{c.notation:<28} impossible: {_summary(c.proof)}")
        elif c.status == Status.POSSIBLE:
            lines.append(f"{c.notation:<28} possible: " + (
                f"a legal game of {len(c.game)} plies ends with it" if c.line
                else "the empty game (no move has been played)")
                + (f" (the game given: {c.given}, replayed)" if c.given else ""))
        elif c.support_line:
            lines.append(f"{c.notation:<28} unresolved, not refuted: line "
                         f"{' '.join(c.support_line)}")
        else:
            lines.append(f"{c.notation:<28} unresolved: {c.reason}")
    unlisted = [f"{count - SHOWN} more {status}" for status, count in listed.items()
                if count > SHOWN]
    if unlisted:
        lines.append(f"... and {' and '.join(unlisted)} (--json lists every one)")
    possible = [c for c in res.candidates if c.status == Status.POSSIBLE]
    shown = [c.notation for c in possible]
    boards = [c.board for c in possible]        # each as played on the board (`on_board`)
    unresolved = [c.notation for c in res.candidates if c.status == Status.UNRESOLVED]
    if _open(res):
        differ = shown_differ(boards, res.plies)
        lines.append(f"{res.finding}, at least {len(shown)} ({differ}; "
                     f"{len(unresolved)} unresolved): {', '.join(shown)}")
    elif res.finding:
        lines.append(f"{res.finding}" + (f": {', '.join(res.answer)}" if res.answer else ""))
        board = board_moves(boards, res.plies)
        if board:
            lines.append(board)
    if res.illegal_for:
        lines.append("illegal if " + " / ".join(res.illegal_for) + " moved last")
    lines.append(f"{res.nodes} nodes, {res.seconds:.2f} s")
    facts: dict[str, Any] = {
        "impossible": [c.notation for c in res.candidates if c.status == Status.IMPOSSIBLE],
        "possible": shown,
        "on_board": board_labels(boards),
        "unresolved": unresolved,
        "illegal_for": res.illegal_for,
        "finding": None if res.finding is None else str(res.finding),
    }
    facts["possible_at_least"] = len(shown)     # a lower bound, exact when none is open
    if _open(res):
        # several, shown before a limit: which candidates are possible, impossible, and so the
        # answer, stay open (None: an [expect] on them is not decided)
        facts.update(dict.fromkeys(OPEN))
    details = {
        "candidates": [{"notation": c.notation, "on_board": c.board[1],
                        "status": c.status, "reason": c.reason,
                        "support": c.support_line, "pgn": support_pgn(c),
                        "game": [m.uci() for m in c.game],
                        "game_source": "given" if c.given else "found" if c.game else None,
                        "proof": c.proof} for c in res.candidates],
        "nodes": res.nodes, "seconds": round(res.seconds, 3),
    }
    return lines, facts, details


NOT_WRITTEN = ("certificate: not written (a limit cut the candidate list short, or it would "
               "pass check's size cap)")


# the facts a several shown before a limit leaves open
OPEN = ("impossible", "possible", "on_board", "answer")
BOUNDS = {"possible_at_least": "possible"}       # a lower bound and the fact it bounds


def _open(res: lastmove.LastMoveResult) -> bool:
    """A proved answer with candidates left unresolved (several, at least those shown): which
    candidates are possible, and so the answer, stay open."""
    return res.finding is not None and not res.complete


def _open_facts(res: lastmove.LastMoveResult) -> frozenset[str]:
    """The facts a limit leaves open whenever candidates stay unresolved (or unlisted), whatever
    the verdict: the lists of each status, and so the answer (review of 2026-11-30: `unresolved
    = []` was missed, and `possible_at_least` called "exact", on an undecided run)."""
    if res.complete and res.listed:
        return frozenset()
    return frozenset({*OPEN, "unresolved", "illegal_for"})


def _known(res: lastmove.LastMoveResult, prefix: str = "") -> dict[str, Any]:
    """The candidates proved in the answer (a game) or out of it (a proof tree), and when the
    list is whole every candidate (nothing else can be in it), for `includes` / `excludes`
    while a limit leaves the answer open (`Result.known_in`)."""
    return {"known_in": tuple(prefix + c.notation for c in res.candidates
                              if c.status == Status.POSSIBLE),
            "known_out": tuple(prefix + c.notation for c in res.candidates
                               if c.status == Status.IMPOSSIBLE),
            "within": tuple(prefix + c.notation for c in res.candidates) if res.listed
            else None}


def _write_certificate(pos: Position, plies: int, res: lastmove.LastMoveResult,
                       certificate_dir: Any, suffix: str = "") -> str | None:
    """Write the `lastmove-proof` certificate of one solve; returns its path, or None when
    there is none `check` could accept: a limit cut the candidate list itself short (found in
    review, 2026-11-30: an empty list was written), or the file would pass `check`'s size cap."""
    from retrologic.certformat import as_destination
    from retrologic.certificate import MAX_CERT_BYTES
    if not res.listed:
        return None
    cert = lastmove.certificate(pos, plies, res)
    stated = {"fen": pos.fen(), **({"to_move": "?"} if pos.turn is None else {}),
              **({"frozen": cert["frozen"]} if cert["frozen"] else {})}
    dest = as_destination(certificate_dir, question={"kind": KIND, "plies": plies},
                          position=stated)
    if suffix:   # one side of a duplex problem: the certificate states that side's diagram
        dest = dest.stating(position=stated)
    written = dest.write(cert, "lastmove-proof" + suffix, MAX_CERT_BYTES)
    return None if written is None else str(written)


def _duplex(pos: Position, plies: int, limits: lastmove.Limits, closer: Any,
            discovered: list[dict], certificate_dir: Any, games: list[GivenGame]) -> Result:
    """A duplex last-move problem: the question answered for each side separately (White's last
    move with Black to move, Black's with White to move), both in one budget: White's side
    gets at most half of its time and nodes, Black's what is left (a hard first side no longer
    leaves the second none, review of 2026-11-30). Proved only when both sides are; the facts
    carry each side's answer under `white_...` / `black_...` keys, and each side gets its own
    `lastmove-proof` certificate (a normal one, its side to move set)."""
    if limits.budget is None:
        limits.budget = budget_for(limits.timeout, limits.nodes)
    # the question's node limit (a problem file's `nodes`, the default) when the budget has
    # none: the two sides share it, as they share a --nodes figure
    whole = limits.budget if limits.budget.nodes is not None else \
        limits.budget.share(nodes=limits.nodes)
    lines: list[str] = []
    facts: dict[str, Any] = {}
    details: dict[str, Any] = {"duplex": {}}
    verdicts, reasons, answer = [], [], []
    complete = True             # both sides' lists decided (else the answer stays open)
    open_facts: set[str] = set()
    known: dict[str, Any] = {"known_in": (), "known_out": (), "within": ()}
    for mover in (chess.WHITE, chess.BLACK):
        name = chess.COLOR_NAMES[mover]
        sided = pos.with_turn(not mover)
        half = _half(whole) if mover == chess.WHITE else whole
        try:
            res = lastmove.solve(sided, plies, replace(limits, budget=half), [closer], games)
        finally:
            if half is not whole:
                whole.spent += half.spent
        side_lines, side_facts, side_details = _rendered(res)
        _given(sided, res, side_lines)
        if res.reason:        # the header joins both sides' reasons; each side states its own
            side_lines.insert(-1, f"why: {res.reason}")
        lines.append(f"{name.capitalize()} moved last ({name.capitalize()}'s last move?):")
        lines.extend("  " + line for line in side_lines)
        facts.update({f"{name}_{k}": v for k, v in side_facts.items() if k != "illegal_for"})
        facts[f"{name}_verdict"] = str(res.verdict)
        if certificate_dir:
            side_details["certificate"] = _write_certificate(sided, plies, res, certificate_dir,
                                                             f"-{name}-moved")
            if side_details["certificate"] is None:
                lines.append("  " + NOT_WRITTEN)
        details["duplex"][name] = side_details
        verdicts.append(res.verdict)
        if _open(res):
            complete = False
        open_facts.update(f"{name}_{k}" for k in _open_facts(res))
        answer.extend(f"{name}: {n}" for n in res.answer)
        for key, items in _known(res, f"{name}: ").items():
            known[key] = None if items is None or known[key] is None else known[key] + items
        if res.reason:
            reasons.append(f"{name}: {res.reason}")
    if whole is not limits.budget:       # the caller's budget is charged what both sides spent
        limits.budget.spent += whole.spent
    if discovered:
        lines.append("cages discovered: " + ", ".join(d["cage"] for d in discovered))
    facts["discovered"] = [d["cage"] for d in discovered]
    details["discovered_cages"] = discovered
    verdict = Verdict.PROVED if all(v == Verdict.PROVED for v in verdicts) else Verdict.UNKNOWN
    if not complete:
        facts["answer"] = None
        open_facts.add("answer")
    return Result(KIND, verdict, answer if complete else None, reason="; ".join(reasons) or None,
                  facts=facts,
                  details=details, lines=lines, unordered=frozenset(facts) | {"answer"},
                  position=pos, open_facts=frozenset(open_facts),
                  bounds={f"{side}_{k}": f"{side}_{v}" for side in ("white", "black")
                          for k, v in BOUNDS.items()}, **known)


def _half(budget: Budget) -> Budget:
    """A share of `budget` ending at half its time left, with half its nodes left (a limit hit
    there quotes the user's figures)."""
    left = budget.nodes_left()
    half = budget.share(0.5, nodes=None if left is None else max(left // 2, 1))
    if left is not None:
        half.nodes_figure = budget.nodes_figure or budget.nodes
    return half


def _summary(proof: dict | None) -> str:
    """The rules at the leaves of a proof tree, counted."""
    counts: dict[str, int] = {}

    def walk(node: dict) -> None:
        if "rule" in node:
            counts[node["rule"]] = counts.get(node["rule"], 0) + 1
        for kid in node.get("retractions", []):
            walk(kid["proof"])

    if proof:
        walk(proof)
    return ", ".join(f"{k}" + (f" x{v}" if v > 1 else "") for k, v in sorted(counts.items()))


def solve(problem: Problem, options: SolveOptions) -> Result:
    from retrologic.certformat import destination
    q = problem.question
    lemmas = [resolve_path(problem, lemma) for lemma in problem.lemmas]
    nodes = options.nodes or q["nodes"]
    with node_bar(KIND, options.progress, nodes):
        return answer(problem.position, plies=q["plies"], depth=q["depth"],
                      support=q["support"], nodes=nodes, budget=budget_of(options),
                      lemmas=lemmas, discover=q["discover"], use_library=q["library"],
                      duplex=q["duplex"],
                      certificate_dir=destination(options.certificate_dir, problem),
                      games=given_games(q["games"], problem.path), file=problem.path)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("fen", metavar="FEN", help="the diagram (its side to move says who moved last)")
    p.add_argument("--plies", type=int, default=1,
                   help=f"number of last single moves (1 to {MAX_PLIES})")
    p.add_argument("--to-move", choices=["white", "black", "?"],
                   help="'?': either side may have moved last; 'white' or 'black' must be the "
                        "FEN's own side to move (a contradiction is an input error)")
    p.add_argument("--depth", type=int, default=6,
                   help=f"plies of refutation search (1 to {MAX_DEPTH})")
    p.add_argument("--lemma", action="append", default=[], metavar="CAGE.toml",
                   help="a verified cage to use (repeatable)")
    p.add_argument("--duplex", action="store_true",
                   help="answer for each side separately (White's last move, then Black's)")
    p.add_argument("--no-discover", action="store_true", help="do not discover cages")
    p.add_argument("--no-library", action="store_true", help="do not use encodings/cages")
    from retrologic.questions.legal import add_frozen_argument, add_game_argument
    add_frozen_argument(p, "no candidate's retractions or game move or take them")
    add_game_argument(p, "it shows the candidate it ends with possible (replayed)")
    p.add_argument("--pgn", action="store_true",
                   help="print a PGN for each candidate not impossible (a possible one's game; "
                        "an unresolved one's line, not refuted)")
    add_limit_arguments(p)
    from retrologic.pictures import output as pictures
    pictures.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    from retrologic.questions.legal import frozen_argument
    try:
        pos = parse(fen=args.fen, to_move=args.to_move)
    except ValueError as e:
        raise InputError(str(e), field="FEN", value=args.fen) from None
    try:
        pos = parse(fen=args.fen, to_move=args.to_move, frozen=frozen_argument(args.frozen))
    except ValueError as e:
        raise InputError(str(e), field="--frozen", value=args.frozen) from None
    for option, value, limit in (("--plies", args.plies, MAX_PLIES), ("--depth", args.depth, MAX_DEPTH)):
        if not 1 <= value <= limit:
            raise InputError(f"must be from 1 to {limit}", field=option, value=value)
    for lemma in args.lemma:
        if path_kind(lemma, field="--lemma") is None:
            raise InputError("no such file", field="--lemma", value=lemma)
    nodes = args.nodes or 200_000
    games = game_arguments(args.game)
    with node_bar(KIND, args.progress, nodes):
        result = answer(pos, plies=args.plies, depth=args.depth, nodes=nodes,
                        budget=budget_of(args), lemmas=[Path(x) for x in args.lemma],
                        discover=not args.no_discover, use_library=not args.no_library,
                        duplex=args.duplex, certificate_dir=args.certificate_dir, games=games)
    from retrologic.pictures import output as pictures
    pictures.save(result, pos, args)
    status = emit(result, args)
    if args.pgn and not args.json:
        sides = result.details.get("duplex", {"": result.details}).values()
        for c in (c for side in sides for c in side["candidates"]):
            if c["pgn"]:
                print(c["pgn"] + "\n")
    return status
