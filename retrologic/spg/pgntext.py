"""A proof game as PGN text without importing `chess.pgn` (issue #22, item 1 "Latency").

`chess.pgn` imports `chess.engine` and with it asyncio: about 0.05-0.15 s of a proof-game
answer that otherwise costs a few milliseconds. A proof game's PGN is only a main line from the
initial array with one comment after the last move, so it is written here the way
`str(chess.pgn.Game)` writes it: the Seven Tag Roster (defaults "?", "????.??.??", "*") then
the other tags in the order given, a blank line, the move text on one line (move numbers,
SAN from python-chess's `Board.san`, "N..." before a first Black move), the comment as
"{ text }" and the result. tests/test_spg_latency.py compares it with `chess.pgn` on random
games, with and without extra tags.
"""

from __future__ import annotations

from typing import Mapping

import chess

ROSTER = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
          "Black": "?", "Result": "*"}


def pgn_text(moves: list[chess.Move], comment: str | None = None,
             tags: Mapping[str, str] | None = None) -> str:
    """The PGN of a game from the initial array, `comment` after the last move, `tags` over
    the roster's defaults."""
    headers = dict(ROSTER)
    board = chess.Board()
    for key, value in (tags or {}).items():
        if "\n" in value or "\r" in value:      # chess.pgn refuses these too
            raise ValueError(f"line break in pgn header {key}: {value!r}")
        headers[key] = value
    out = [f'[{key} "{value}"]' for key, value in headers.items()]
    tokens = []
    for i, move in enumerate(moves):
        if board.turn == chess.WHITE:
            tokens.append(f"{board.fullmove_number}. ")
        elif i == 0:
            tokens.append(f"{board.fullmove_number}... ")
        tokens.append(board.san(move) + " ")
        board.push(move)
    if comment:
        tokens.append("{ " + comment.replace("}", "").strip() + " } ")
    tokens.append(headers["Result"])
    return "\n".join(out) + "\n\n" + "".join(tokens).rstrip()
