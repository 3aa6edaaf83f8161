"""Question kind `legal`, proved on both sides: *illegal* by static proofs (counts, back-rank
pawns, impossible checks, castling and e.p. state, retro-stalemate, Retractor's static cages),
each with its rule, and with `lemmas` by deduce -> cage chains (a cage verified under deduced
restrictions); *legal* (a full position) by construction: a game from the initial array that
reaches it (`legalgame.find`, certificate `legal-game`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Iterable

import chess
from retrologic.console import add_limit_arguments, emit
from retrologic.errors import InputError
from retrologic.legalgame.given import GivenGame, game_arguments, games_field, given_games, reaching
from retrologic.legality import rules as legality
from retrologic.limits import Budget
from retrologic.options import SolveOptions, budget_of
from retrologic.position import Position, given_frozen, parse
from retrologic.progress import node_bar
from retrologic.problemfile import KindSpec, Problem, parse as parse_problem, resolve_path
from retrologic.result import Result
from retrologic.schema import Field

KIND = "legal"
POSITION = "either"
QUESTION = {
    "games": Field(list, default=[], check=games_field,
                   doc="legal games to the position (SAN, Popeye or PGN move text), given: "
                       "each is replayed, and the first proves the position legal"),
}
EXPECT = {"rule", "rules", "legal", "plies"}


def chain_reasons(pos: Position, lemmas: list[Path], file: str | None = None,
                  budget: Budget | None = None) -> list[legality.Reason]:
    """Illegality from lemmas: deduce problems about this very position supply proved claims,
    which become retraction restrictions; cage entries (verified again before use) that stand
    in the position under those restrictions prove it illegal. The deductions run under
    `budget` (LimitHit when it is spent). A lemma problem is read with the deduce kind's fields
    and solved by it directly (not through retrologic.problem, which imports this module)."""
    from retrologic.limits import LimitHit, budget_for
    budget = budget_for(budget=budget)
    from retrologic.cages.library import load_library
    from retrologic.cages.rules import restrictions_from
    from retrologic.schema import read_toml
    from retrologic.questions import deduce
    exprs, cage_files, facts = [], [], []
    for path in lemmas:
        data = read_toml(path)
        if "question" not in data:
            cage_files.append(path)
            continue
        sub = _deduce_lemma(path, data, file)
        _lemma_fault(sub, pos, path, file)
        res = deduce.solve(sub, SolveOptions(budget=budget))
        budget.check_now()
        if budget.nodes_used_up() and res.verdict == "unknown":
            raise LimitHit(budget.node_reason())
        if res.verdict == "proved":
            proved = deduce.cage_restrictions(res)
            exprs += proved
            facts += [str(e) for e in proved]
    if not cage_files:
        return []
    library = load_library(cage_files)
    rules, _ = restrictions_from(exprs, pos) if exprs else ([], 0)
    match = library.matches(pos, rules)
    proof = None if match is None else library.proof(match.entry)
    if match is None or proof is None or not proof.proved:
        return []
    e = match.entry
    under = f" under the deduced {'; '.join(facts)}" if facts and e.restrictions else ""
    return [legality.Reason("cage", f"contains the verified cage {e.name} ({e.board}"
                                    f"{', colours swapped' if match.swapped else ''}){under}")]


def _lemma_fault(sub: Problem, pos: Position, path: Path, file: str | None) -> None:
    """InputError unless the deduction lemma `sub` is about this very position (placement,
    side to move, castling rights, e.p. square, frozen units) and assumes nothing: its proved
    claims are then facts of every game reaching the position. (Before 2026-11-30 only the
    placement was compared, and a claim proved under an assumption -- even the claim itself,
    assumed -- was taken as deduced: a legal position was called illegal.)"""
    lemma = sub.position
    if lemma is None or (lemma.placement, lemma.turn, lemma.castling, lemma.ep_square,
                         lemma.frozen) != (pos.placement, pos.turn, pos.castling,
                                           pos.ep_square, pos.frozen):
        raise InputError("the deduction lemma is about another position (placement, side to "
                         "move, castling, e.p. or frozen units differ)", file=file,
                         field="lemmas", value=str(path))
    assumed = [c["name"] for c in sub.constraints if c["role"] != "claim"]
    assumed += list(sub.question.get("assume") or [])
    if assumed:
        raise InputError(f"the deduction lemma assumes {assumed[0]}: a lemma's claims must be "
                         "proved from the position alone", file=file, field="lemmas",
                         value=str(path))


def _deduce_lemma(path: Path, data: dict, file: str | None) -> Problem:
    """A lemma problem (its decoded TOML `data`), validated with the fields of the deduce kind,
    the only kind a lemma may be."""
    from retrologic.questions import deduce

    def deduce_only(kind: object, _file: str) -> KindSpec:
        if kind != "deduce":
            raise InputError("a problem used as a lemma must be a deduce question", file=file,
                             field="lemmas", value=str(path))
        return deduce

    return parse_problem(data, deduce_only, file=str(path))


def answer(pos: Position, lemmas: Iterable[Path] = (), file: str | None = None,
           budget: Budget | None = None, certificate_dir: Any = None,
           games: list[GivenGame] | None = None) -> Result:
    """Illegal (proved, with the rules), legal (proved, with a game: full positions only) or
    unknown (neither found within the limits of `budget`; partial positions: no static proof).
    `games` (given by the user, `legalgame.given`) must each reach the position exactly
    (InputError otherwise); the first is then the proof of legality, and the static rules run
    as a cross-check: a rule that calls such a position illegal is a bug (an internal error)."""
    from retrologic.limits import LimitHit, active, budget_for
    budget = budget_for(budget=budget)
    games = list(games or [])
    if games:
        if pos.partial or pos.turn is None:
            raise InputError("a game proves a full position legal (placement, side to move, "
                             "castling, e.p.); this one is partial or leaves the side to move "
                             "open", file=file,
                             field=games[0].field)
        reaching(games, pos.to_board(), pos.frozen, file=file)
    try:
        with active(budget):               # the pawn-columns search may take seconds
            found = legality.reasons(pos)
    except LimitHit as e:
        return _given_or_unknown(pos, games, certificate_dir, "no static illegality found yet",
                                 e.reason)
    if not found and lemmas:
        try:
            found = chain_reasons(pos, list(lemmas), file, budget)
        except LimitHit as e:
            return _given_or_unknown(pos, games, certificate_dir, "no static illegality found",
                                     e.reason)
    if found and games:
        raise AssertionError(f"contradiction: the rule {found[0].rule} calls the position "
                             f"illegal ({found[0].message}), but the game of {games[0].field} "
                             "reaches it (a bug: please report it)")
    if found:
        rules = sorted({r.rule for r in found})
        return Result(KIND, "proved", "illegal", reason=given_frozen(pos)[2:] or None,
                      facts={"legal": False, "rule": found[0].rule, "rules": rules},
                      details={"reasons": [{"rule": r.rule, "message": r.message} for r in found]},
                      lines=["illegal" + given_frozen(pos)]
                      + [f"[{r.rule}] {r.message}" for r in found],
                      unordered=frozenset({"rules"}))
    if pos.partial or pos.turn is None:
        return _unknown("no static illegality found",
                        "static checks only for a partial position; a proof of legality needs "
                        "a full position (a game reaches one exact position)")
    if games:
        return _legal(pos, games[0].moves, certificate_dir, games[0].field)
    return _by_construction(pos, budget, certificate_dir)


def _given_or_unknown(pos: Position, games: list[GivenGame], certificate_dir: Any, answer: str,
                      reason: str) -> Result:
    """Where a limit stopped the static rules: legal by the first given game (the rules' cross
    -check not finished), else unknown."""
    if games:
        return _legal(pos, games[0].moves, certificate_dir, games[0].field)
    return _unknown(answer, reason)


def _unknown(answer: str, reason: str) -> Result:
    return Result(KIND, "unknown", answer, reason=reason,
                  facts={"legal": None, "rule": None, "rules": []})


def _by_construction(pos: Position, budget: Budget, certificate_dir: Any) -> Result:
    """Legal, proved by a game found by the finder and replayed by the certificate's checker;
    unknown when the finder stops (its tries or the budget spent)."""
    from retrologic.legalgame.find import find_game
    from retrologic.limits import LimitHit
    target = pos.to_board()
    try:
        moves = find_game(target, budget, route=True, frozen=pos.frozen)
    except LimitHit as e:
        return _unknown("no static illegality found, no game found", e.reason)
    if moves is None:
        return _unknown("no static illegality found, no game found",
                        "the game finder's tries ran out (a heuristic search: no proof either "
                        "way)")
    return _legal(pos, moves, certificate_dir)


def _legal(pos: Position, moves: Iterable[chess.Move], certificate_dir: Any,
           given: str | None = None) -> Result:
    """Legal, proved by `moves` (the finder's game, or the one the user gave in the field
    `given`), which must pass the certificate checker's own test; with its certificate."""
    from retrologic.legalgame.checker import reached_fault
    from retrologic.legalgame.game import LegalGame
    target = pos.to_board()
    moves = list(moves)
    game = LegalGame(tuple(moves), target, pos.frozen)
    board = chess.Board()
    for move in moves:              # the game must pass the checker's own test
        if not board.is_legal(move):
            raise AssertionError(f"the game ({given or 'found'}) plays {move.uci()} in "
                                 f"{board.fen()}")
        board.push(move)
    fault = reached_fault(board, target)
    if fault:
        raise AssertionError(f"the game ({given or 'found'}) is wrong: {fault}")
    details: dict[str, Any] = {"game": game.san(), "uci": game.uci(),
                               "game_source": "given" if given else "found"}
    if certificate_dir:
        from retrologic.certformat import as_destination
        cert = game.certificate()
        stated: dict[str, Any] = {"fen": target.fen(en_passant="fen")}
        if pos.frozen:
            stated["frozen"] = cert["frozen"]
        dest = as_destination(certificate_dir, question={"kind": KIND}, position=stated)
        details["certificate"] = str(dest.write(cert, "legal-game"))
    return Result(KIND, "proved", "legal",
                  facts={"legal": True, "rule": None, "rules": [], "plies": game.plies},
                  details=details,
                  lines=[f"legal: a game of {game.plies} {'ply' if game.plies == 1 else 'plies'} "
                         f"reaches it{_never_touching(pos)}"
                         + (f" (the game given: {given}, replayed)" if given else "")]
                  + ([game.san()] if game.plies else []))


def _never_touching(pos: Position) -> str:
    """What a game for a position with frozen units shows besides reaching it (empty: none)."""
    names = ", ".join(chess.square_name(sq) for sq in chess.scan_forward(pos.frozen))
    return f", never moving nor taking the unit(s) on {names} (stated frozen)" if names else ""


def solve(problem: Problem, options: SolveOptions) -> Result:
    from retrologic.certformat import destination
    lemmas = [resolve_path(problem, lemma) for lemma in problem.lemmas]
    with node_bar(KIND, options.progress, options.nodes):
        return answer(problem.position, lemmas, problem.path, budget_of(options),
                      destination(options.certificate_dir, problem),
                      given_games(problem.question["games"], problem.path))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("position", metavar="FEN|BOARD", help="a FEN, or a board-only placement (partial)")
    add_frozen_argument(p, "a game proving the position legal never moves nor takes them")
    add_game_argument(p, "it proves the position legal (replayed; the finder does not run)")
    add_limit_arguments(p)
    from retrologic.pictures import output as pictures
    pictures.add_arguments(p)


def add_frozen_argument(p: argparse.ArgumentParser, effect: str) -> None:
    """--frozen SQ,...: units stated never to have moved, as a problem file's `position.frozen`
    (each must stand where a unit of its type and colour starts the game)."""
    p.add_argument("--frozen", metavar="SQ,...",
                   help=f"units that never moved (comma-separated squares): {effect}")


def add_game_argument(p: argparse.ArgumentParser, effect: str) -> None:
    """--game MOVES|FILE (repeatable): a legal game to the position the user knows."""
    p.add_argument("--game", action="append", metavar="MOVES|FILE",
                   help="a legal game from the initial array to the position, as SAN, Popeye or "
                        f"PGN move text or a file holding one (repeatable): {effect}")


def frozen_argument(text: str | None) -> list[str] | None:
    """The --frozen squares as names (None: none given); the position's parser checks them."""
    return None if text is None else [name.strip() for name in text.split(",")]


def position_argument(text: str, frozen: str | None = None) -> Position:
    """A FEN (full) or board-only string (partial) from the command line, with --frozen
    (a fault of the position is named as the position's, one of --frozen as that option's)."""
    key = "fen" if " " in text.strip() else "board"
    try:
        parse(**{key: text})
    except ValueError as e:
        raise InputError(str(e), field="position", value=text) from None
    try:
        return parse(**{key: text}, frozen=frozen_argument(frozen))
    except ValueError as e:
        raise InputError(str(e), field="--frozen", value=frozen) from None


def run(args: argparse.Namespace) -> int:
    pos = position_argument(args.position, args.frozen)
    games = game_arguments(args.game)
    with node_bar(KIND, args.progress, args.nodes):
        result = answer(pos, budget=budget_of(args), certificate_dir=args.certificate_dir,
                        games=games)
    from retrologic.pictures import output as pictures
    pictures.save(result, pos, args)
    return emit(result, args)
