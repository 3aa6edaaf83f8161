"""The public Python API: one function per question, each returning a `Result`.

Loaded on first use by `retrologic.__getattr__` (so `import retrologic` stays light). Every
function takes a position as a python-chess `Board` (a full position), a `BaseBoard` (a
placement only: a partial position), a FEN, a board-only string such as
`8/8/8/8/8/8/PPkPP3/KR1b4` (a partial position: Hwa's extension principle), or a
`retrologic.position.Position`; it wraps the same engine and builds the same `Result` as the
question module of the CLI, so the API and `retrologic KIND ... --json` agree. Limits:
`timeout` (seconds) and `nodes` make one `limits.Budget` for the call; a limit hit gives the
verdict unknown with the limit quoted. Bad input raises `retrologic.errors.InputError`.

    >>> import retrologic, chess
    >>> retrologic.retractions(chess.Board())
    Result(kind='retractions', verdict='proved', answer=['Na6-b8', 'Nc6-b8', 'Nf6-g8', 'Nh6-g8'])
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Union

import chess

from retrologic.errors import InputError
from retrologic.position import Position, parse
from retrologic.result import Result

if TYPE_CHECKING:
    from retrologic.history.deduce import Constraint
    from retrologic.limits import Budget

__all__ = ["retractions", "verify_cage", "deduce", "last_move", "is_legal", "solve_spg",
           "position_of"]

PositionLike = Union[chess.BaseBoard, Position, str]
"""What the API's functions take as a position (see the module docstring)."""


def position_of(position: PositionLike, *, frozen: Any = None,
                to_move: str | None = None) -> Position:
    """A retrologic Position from any accepted form; `frozen` (squares of units that never
    moved) and `to_move` ("white", "black" or "?") as in a problem file's position table."""
    if isinstance(position, Position):
        if frozen is None and to_move is None:
            return position
        text, key = position.fen(), "board" if position.partial else "fen"
    elif isinstance(position, chess.Board):
        text, key = position.fen(en_passant="fen"), "fen"  # a double step just played is known
    elif isinstance(position, chess.BaseBoard):
        text, key = position.board_fen(), "board"
    elif isinstance(position, str):
        text, key = position, "fen" if " " in position.strip() else "board"
    else:
        raise InputError("must be a chess.Board, a FEN or a board string", field="position",
                         value=type(position).__name__)
    if to_move not in (None, "white", "black", "?"):
        raise InputError('must be "white", "black" or "?"', field="to_move", value=to_move)
    try:
        out = parse(**{key: text}, frozen=frozen, to_move=to_move)
    except ValueError as e:      # a fault of the frozen squares names them, not the position
        if _frozen_at_fault(key, text, frozen, to_move):
            raise InputError(str(e), field="frozen", value=frozen) from None
        raise InputError(str(e), field="position", value=text) from None
    if isinstance(position, Position):      # keep what the text form cannot say
        out = replace(out, frozen=out.frozen | position.frozen,
                      turn=position.turn if to_move is None else out.turn)
    return out


def _frozen_at_fault(key: str, text: str, frozen: Any, to_move: str | None) -> bool:
    """Whether the position reads without the frozen squares (so they are what is wrong)."""
    if frozen is None:
        return False
    try:
        parse(**{key: text}, to_move=to_move)
    except ValueError:
        return False
    return True


def _full(position: PositionLike, what: str, **kwargs: Any) -> Position:
    pos = position_of(position, **kwargs)
    if pos.partial:
        raise InputError(f"{what} needs a full position: a FEN or a chess.Board",
                         field="position", value=pos.fen())
    return pos


def _budget(timeout: float | None, nodes: int | None) -> Budget:
    """The call's Budget, as the question modules make it (a timeout of 0: already spent; a
    figure the CLI refuses, such as nan or a fractional node count, is an InputError)."""
    from retrologic.options import SolveOptions, budget_of
    return budget_of(SolveOptions(timeout=timeout, nodes=nodes))


def _texts(value: Any, name: str = "value") -> list[Any]:
    """One item or an iterable of them, as a list (None: none); InputError naming `name` for
    anything else (an int was iterated deep inside the engine)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, bytearray)):
        raise InputError("must be a string (str, not bytes) or a list of them", field=name,
                         value=type(value).__name__)
    try:
        return list(value)
    except TypeError:
        raise InputError("must be a string or a list of them", field=name,
                         value=type(value).__name__) from None


def _paths(value: Any, name: str) -> list[Path]:
    """File paths: one (str or Path) or an iterable of them; a string is one path, not a list
    of one-letter names."""
    items = [value] if isinstance(value, (str, os.PathLike)) else _texts(value, name)
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise InputError("must be a file path (str or Path) or a list of them", field=name,
                             value=item)
    return [Path(p) for p in items]


def _games(value: Any) -> list:
    """Given games (`legalgame.given`): one move text (SAN, Popeye or PGN) or a list of them."""
    from retrologic.legalgame.given import games_field, given_games
    texts = _texts(value, "games")
    try:
        games_field(texts)          # the problem file's check of `question.games`
    except ValueError as e:
        raise InputError(str(e), field="games", value=value) from None
    return given_games(texts, field="games")


def _flag(value: Any, name: str) -> bool:
    """A yes/no argument: True or False (or 1 and 0, a numpy boolean); the string "no" is not
    False, so strings and other values are refused."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise InputError("must be True or False", field=name, value=value)


def _squares(value: Any, name: str) -> Any:
    """A zone or frozen set given as a bitboard must be one (0 to 2**64 - 1); other forms (square
    names) are read by the engine."""
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < 1 << 64:
        raise InputError("a bitboard is a whole number from 0 to 2**64 - 1", field=name,
                         value=value)
    return value


def _directory(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise InputError("must be a directory path (str or Path)", field=name,
                         value=type(value).__name__)
    return None if value is None else str(value)


def retractions(position: PositionLike, *, uncaptures: str = "typed",
                counts: bool = True) -> Result:
    """Every retraction of the position (the last move taken back), each with its predecessor's
    FEN in `details["retractions"]`; complete by construction (`retract.retractions`).

    `uncaptures`: "typed" (one retraction per type of uncaptured unit), "open" (type left open)
    or "none"; `counts`: reject predecessors with impossible unit counts."""
    from retrologic.questions import retractions as question
    counts = _flag(counts, "counts")
    if uncaptures not in question.MODES:
        raise InputError(f"must be one of {', '.join(question.MODES)}", field="uncaptures",
                         value=uncaptures)
    return question.answer(position_of(position), uncaptures, counts)


def is_legal(position: PositionLike, *, lemmas: Iterable[str | Path] = (),
             games: str | Iterable[str] = (), timeout: float | None = None,
             nodes: int | None = None) -> Result:
    """Legal or illegal, as the `legal` question: proved "illegal" with every static rule that
    fires in `details["reasons"]`, or proved "legal" with a game from the initial array that
    reaches a full position (`legalgame`; a partial one, a cage question, is never shown
    legal), else unknown with the limit or the reason. `lemmas`: deduce problem files and cage
    files chained into a proof (`legality.rules.reasons`, then deduce -> cage); their
    deductions run under the limits. `games`: legal games to the position the caller knows
    (move text), replayed; the first proves it legal (`legalgame.given`)."""
    from retrologic.questions import legal as question
    return question.answer(position_of(position), _paths(lemmas, "lemmas"),
                           budget=_budget(timeout, nodes), games=_games(games))


def verify_cage(position: PositionLike, zone: Any = "auto", frozen: Any = None, *,
                restrictions: Iterable[Any] | str = (), model: str = "lines",
                library: bool | str | Path | Iterable[str | Path] = False,
                timeout: float | None = None, nodes: int | None = None) -> Result:
    """Verify that the position is a cage (Hwa, "Cages in Retrograde Analysis", section 3):
    proved with the closed set of reachable zone positions, refuted with the retraction line
    that gets every unit home (facts `line`, `escape`), or unknown at a limit
    (`cages.search.verify`).

    `zone`: "auto" (occupied squares and their king-move neighbours) or squares; `frozen`:
    squares of units that never moved; `restrictions`: predicate-language expressions such as
    'pawn_captures(either, from_file="d", to_file="e") == 0'; `model`: "lines" or "plain" (the
    paper's); `library`: True for the verified cages of encodings/cages, or paths."""
    from retrologic.cages import search as cage
    from retrologic.cages.library import DEFAULT_DIR, load_library
    from retrologic.constraints import parse_expr
    if library is True:
        paths: list[Any] = [DEFAULT_DIR]
    elif library is False or library is None:
        paths = []
    else:
        paths = _paths(library, "library")
    known = load_library(paths) if paths else None
    restrictions = _texts(restrictions, "restrictions")
    for i, text in enumerate(restrictions):
        if isinstance(text, str):
            try:
                parse_expr(text)
            except InputError as e:
                raise InputError(e.message, field=f"restrictions[{i}]", value=text) from None
    result = cage.verify(position_of(position), None if zone == "auto" else _squares(zone, "zone"),
                         restrictions, known, model=model,
                         frozen=_squares(frozen, "frozen"), budget=_budget(timeout, nodes))
    return result.to_result()


def deduce(position: PositionLike, claims: Iterable[Any] | str = (),
           assumptions: Iterable[Any] | str = (), *, engine: str = "sat",
           explain: bool = True, frozen: Any = None, timeout: float | None = None,
           nodes: int | None = None, certificate_dir: str | None = None) -> Result:
    """Prove or refute claims about the position's history (captures, promotions, pawn files)
    with the history model on SAT/CP-SAT (`history.deduce.deduce`): proved (with an UNSAT core;
    a DRUP certificate in `certificate_dir`), refuted (a witness history) or unknown.

    `claims` and `assumptions`: an expression, "name: expression", the name of an
    encodings/constraints entry, or a list of those (or of `history.deduce.Constraint`).
    Without claims the answer says whether the position has a history at all. `nodes` counts
    SAT conflicts over the query."""
    from retrologic.options import SolveOptions
    from retrologic.questions import deduce as question
    pos = _full(position, "deduce", frozen=frozen)

    def constraints(values: Any, name: str, where: str) -> list[Constraint]:
        """Constraints named as the CLI names them (claim1, assume1, ...)."""
        from retrologic.history.deduce import Constraint
        out = []
        for i, value in enumerate(_texts(values, where)):
            if isinstance(value, str):
                value = question._constraint(value, f"{name}{i + 1}", f"{where}[{i}]", None)
            elif not isinstance(value, Constraint):
                raise InputError("must be an expression string or a Constraint",
                                 field=f"{where}[{i}]", value=type(value).__name__)
            out.append(value)
        return out

    explain = _flag(explain, "explain")
    options = SolveOptions(budget=_budget(timeout, nodes),
                           certificate_dir=_directory(certificate_dir, "certificate_dir"))
    return question.answer(pos, constraints(assumptions, "assume", "assumptions"),
                           constraints(claims, "claim", "claims"), engine=engine, explain=explain,
                           options=options)


def last_move(position: PositionLike, plies: int = 1, *, to_move: str | None = None,
              depth: int = 6, support: int = 6, lemmas: Iterable[str | Path] = (),
              discover: bool = True, library: bool = True, games: str | Iterable[str] = (),
              timeout: float | None = None, nodes: int | None = None) -> Result:
    """The last `plies` single moves: each candidate sequence of retractions is proved
    impossible (a refutation tree, cages discovered on the way), shown possible by a legal
    game from the initial array that ends with it, or left unresolved (`lastmove.search.solve`;
    docs/lastmove.md); the answer lists the candidates not proved impossible.

    The side to move says who moved last (`to_move="?"`: either). `depth`/`support`: plies of
    refutation search and of a supporting line; `nodes`: positions examined (default 200,000,
    the question's); `lemmas`: cage files; `library`: use encodings/cages; `games`: legal
    games to the diagram the caller knows (move text), each showing its candidate possible."""
    from retrologic.questions import lastmove as question
    pos = _full(position, "last_move", to_move=to_move)
    for name, value, limit in (("plies", plies, question.MAX_PLIES),
                               ("depth", depth, question.MAX_DEPTH),
                               ("support", support, question.MAX_DEPTH)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
            raise InputError(f"must be a whole number from 1 to {limit}", field=name, value=value)
    return question.answer(pos, plies=plies, depth=depth, support=support,
                           nodes=nodes or 200_000, budget=_budget(timeout, nodes),
                           lemmas=_paths(lemmas, "lemmas"), discover=_flag(discover, "discover"),
                           use_library=_flag(library, "library"), games=_games(games))


def solve_spg(position: PositionLike, moves: float | str, *, engine: str = "auto",
              strategies: bool = True, timeout: float | None = None,
              nodes: int | None = None) -> Result:
    """Shortest proof games: every game of `moves` (Popeye: N.0 ends with Black's move, N.5
    with White's) from the initial array to the diagram's placement, then every shorter length
    (`spg.solver.solve`). Verdict proved when unique; refuted when cooked, without solution or
    shorter; the answer lists the games in SAN, `details["pgn"]` as PGN.

    `engine`: "auto", "search" or "schedule"; `strategies`: the CP-SAT strategy layer first."""
    from retrologic.questions import spg as question
    from retrologic.spg import solver as spg
    from retrologic.spg.search import Limits
    plies = spg.parse_moves(moves)
    if isinstance(position, Position):
        text = position.placement.board_fen()
    elif isinstance(position, chess.BaseBoard):
        text = position.board_fen()     # only the placement is compared with a game's end
    else:
        text = position
    target = spg.parse_target(text, plies, field="position")
    answer = spg.solve(target, plies, Limits(budget=_budget(timeout, nodes)),
                       strategies=_flag(strategies, "strategies"), engine=engine)
    return question.answer_result(answer, show=None)
