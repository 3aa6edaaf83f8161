"""Games a user gives for the possible side of a retro question (issue #19): a legal game from
the initial array that reaches the position, as a composer publishes one or a judge receives it.

Why: the finders are heuristic, and record positions need exact move orders they do not build
(bench/lastmove-collection: four answers are refuted down to the published one, which then
waits for a game). A human solver proves the possible side with a game and leaves the machine
the rest -- every other candidate refuted. A given game is no trusted input: it is replayed by
python-chess here and again by `check` from the certificate, and a game that does not reach
the position is bad input naming the field it came from. `legal` then answers *legal* with it;
`lastmove` marks the candidate the game ends with *possible* (`lastmove.search.shown_by`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess

from retrologic.errors import InputError
from retrologic.files import path_kind, read_text
from retrologic.formats.notation import NotationError, legal_line, read_game
from retrologic.legalgame.checker import MAX_GAME_PLIES, reached_fault
from retrologic.legalgame.stipulated import touches

MAX_GAMES = 16               # games one question may give
MAX_GAME_BYTES = 256 * 1024  # text of one game (a PGN of 5,000 plies with comments fits)


@dataclass(frozen=True)
class GivenGame:
    """A game as given: its moves (legal from the initial array) and where it was given (the
    problem file's `question.games[N]` or `--game`), which an error names."""

    moves: tuple[chess.Move, ...]
    field: str

    def board(self) -> chess.Board:
        """The position the game ends on (python-chess, move stack kept)."""
        board = chess.Board()
        for move in self.moves:
            board.push(move)
        return board


def read_given(text: str, field: str, file: str | None = None) -> GivenGame:
    """A game given as SAN, Popeye or PGN move text (`formats.notation.read_game`); InputError
    naming `field` when it does not replay from the initial array or is too long."""
    if len(text.encode("utf-8", "replace")) > MAX_GAME_BYTES:
        raise InputError(f"a game of more than {MAX_GAME_BYTES // 1024} KiB of text", file=file,
                         field=field, value=text[:40])
    try:
        moves = read_game(text)
        if len(moves) > MAX_GAME_PLIES:
            raise InputError(f"a game of more than {MAX_GAME_PLIES} plies", file=file,
                             field=field)
        legal_line(moves)             # whatever the reader let through
    except NotationError as e:
        raise InputError(f"the game does not replay: {e}", file=file, field=field,
                         value=text[:40]) from None
    return GivenGame(tuple(moves), field)


def games_field(value: list[Any]) -> list[str]:
    """The problem-file check of `question.games`: a list of at most MAX_GAMES strings, each a
    game's move text (read against the position by `given_games`)."""
    if len(value) > MAX_GAMES:
        raise ValueError(f"at most {MAX_GAMES} games")
    if not all(isinstance(g, str) for g in value):
        raise ValueError("each game must be a string of move text (SAN, Popeye or PGN)")
    return value


def given_games(texts: list[str], file: str | None = None,
                field: str = "question.games") -> list[GivenGame]:
    """The problem file's `question.games` (or the API's `games`, `field`), each read
    (`read_given`)."""
    return [read_given(text, f"{field}[{i}]", file) for i, text in enumerate(texts)]


def game_arguments(values: list[str] | None) -> list[GivenGame]:
    """The `--game` options: each a move text, or the name of a file holding one (PGN, SAN)."""
    if values and len(values) > MAX_GAMES:
        raise InputError(f"at most {MAX_GAMES} games", field="--game", value=len(values))
    out = []
    for value in values or []:
        text, kind = value, None
        if "\n" not in value:
            try:
                kind = path_kind(value, field="--game")
            except InputError:      # no name the system could look up: a move text
                kind = None
        if kind == "dir":
            raise InputError("a directory, not a game", field="--game", value=value)
        if kind == "file":
            text = read_text(value, limit=MAX_GAME_BYTES, what="game")
        out.append(read_given(text, "--game"))
    return out


def reaching(games: list[GivenGame], target: chess.Board, frozen: int = 0, *,
             ep_open: bool = False, file: str | None = None) -> None:
    """InputError unless every game ends on `target` exactly (`checker.reached_fault`: placement,
    side to move, castling rights, e.p. square; `ep_open` as there) and never moves nor takes a
    unit on a `frozen` square."""
    for game in games:
        fault = reached_fault(game.board(), target, ep_open=ep_open)
        if fault is None and touches(game.moves, frozen):
            fault = "it moves or takes a unit stated frozen (never moved)"
        if fault is not None:
            raise InputError(f"the game does not reach the position: {fault}", file=file,
                             field=game.field)
