"""One problem read from a composer's file (issue #20): the same table a `retrologic/1` TOML
file decodes to, where it stood in its file, and the readers' shared pieces (errors naming
file, line and field; the spg table with its published answer as [expect]).

Every reader builds the table retrologic.problemfile.parse validates, so the question kinds
and everything downstream see exactly what a TOML file would give them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess

from retrologic import problemfile, questions
from retrologic.errors import InputError
from retrologic.formats import notation
from retrologic.formats.twins import twin_label
from retrologic.spg.checker import moves_text, parse_moves, san_text


@dataclass
class Entry:
    """A problem table and its origin: file, 1-based line, and a time limit the file set
    (Popeye's `Option MaxTime`), which the table itself has no field for."""

    table: dict[str, Any]
    file: str
    line: int
    time_limit: float | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def fail(message: str, file: str, line: int, field: str, value: object = None) -> InputError:
    """The reader's error: `file:line: field 'F': value V: message` (exit status 3)."""
    return InputError(message, file=f"{file}:{line}", field=field, value=value)


def _spec(kind: Any, file: str) -> questions.QuestionKind:
    """The kind's fields, as retrologic.problem looks them up (not imported here: no cycle)."""
    if not isinstance(kind, str) or kind not in questions.KINDS:
        raise InputError(f"unknown question kind (known: {', '.join(sorted(questions.KINDS))})",
                         file=file, field="question.kind", value=kind)
    return questions.load(kind)


def to_problem(entry: Entry) -> problemfile.Problem:
    """Validate an entry's table as problemfile.parse does for a TOML file; the Problem's path
    is the file, its time limit kept as `time_limit` (read by retrologic.problem.solve)."""
    problem = problemfile.parse(entry.table, _spec, file=entry.where)
    problem.path = entry.file
    problem.time_limit = entry.time_limit          # type: ignore[attr-defined]
    return problem


def check_diagram(board: chess.Board, file: str, line: int, field: str) -> None:
    """A diagram needs one king of each side (python-chess would accept others)."""
    for color in chess.COLORS:
        if chess.popcount(board.kings & board.occupied_co[color]) != 1:
            raise fail(f"the diagram needs exactly one {chess.COLOR_NAMES[color]} king",
                       file, line, field, board.board_fen())


def plies_of(text: str, file: str, line: int, field: str) -> int:
    """A proof game's length (`8`, `8.0`, `7.5`, `dia8`, `PG 7.5`) in plies."""
    try:
        return parse_moves(text, field=field)
    except InputError as e:
        raise fail(e.message, file, line, field, text) from None


def expected_games(games: list[str], file: str, line: int, field: str) -> list[str]:
    """Published games (SAN or Popeye move text) replayed and written as retrologic writes its
    answers, so [expect] compares like with like; a game that does not replay is an error."""
    out = []
    for text in games:
        try:
            out.append(san_text(notation.replay(text)))
        except notation.NotationError as e:
            raise fail(f"the published solution does not replay: {e}", file, line, field,
                       text) from None
    return out


def games_by_twin(solutions: dict[str, list[str]], count: int, file: str, line: int,
                  field: str) -> list[list[str]]:
    """The published games of each of `count` diagrams (a), b), ... in order), from a solution
    text split by twin label; a single diagram takes every game. A label naming no diagram is
    an error: its games would be dropped or given to another twin."""
    letters = [twin_label(k) for k in range(count)]
    stray = sorted(set(solutions) - set(letters))
    if stray:
        raise fail(f"the solution names twin {stray[0]}), which the problem does not have "
                   f"(its diagrams: {', '.join(f'{x})' for x in letters)})", file, line, field,
                   " ".join(solutions[stray[0]])[:60])
    if count == 1:
        return [[g for gs in solutions.values() for g in gs]]
    return [solutions.get(x, []) for x in letters]


def spg_table(board: chess.Board, plies: int, meta: dict[str, Any], games: list[str],
              file: str, line: int, field: str) -> dict[str, Any]:
    """The table of a proof-game problem; the published games (if any) become [expect]:
    their number is the count (1: unique), and each must reach the diagram in the length. A
    game stated twice (in two notations, say) is one game."""
    table: dict[str, Any] = {
        "format": problemfile.FORMAT, "meta": {**meta, "stipulation": f"dia{moves_text(plies)}"},
        "position": {"fen": board.board_fen()},
        "question": {"kind": "spg", "moves": float(moves_text(plies))},
    }
    answer = expected_games(games, file, line, field)
    for text, game in zip(games, answer):
        end = chess.Board()
        moves = notation.replay(game)
        for move in moves:
            end.push(move)
        if len(moves) != plies or end.board_fen() != board.board_fen():
            raise fail(f"the published solution is not a proof game of {moves_text(plies)} "
                       f"to the diagram ({len(moves)} plies, ends at {end.board_fen()})",
                       file, line, field, text)
    answer = list(dict.fromkeys(answer))
    if answer:
        table["expect"] = {"status": "unique" if len(answer) == 1 else "cooked",
                           "count": len(answer), "answer": answer}
    return table
