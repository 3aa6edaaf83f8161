"""The published proof games of the problem files, read with python-chess: shared by the tests
(through conftest) and bench/spg-audit.py, which must not import conftest (it turns the
proof-game race off for the suite)."""

from __future__ import annotations

import re
import tomllib

import chess


def published_games(folder, extra: dict | None = None) -> list[tuple[str, list[chess.Move]]]:
    """The published solutions of a folder's proof-game files (their [expect] answers and a
    meta note "published: ..."), replayed by python-chess: (file stem, moves). `extra` gives
    more solution texts by stem prefix, for files whose answer is not written out."""
    out = []
    for path in sorted(folder.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        texts = list(data.get("expect", {}).get("answer", []))
        notes = data.get("meta", {}).get("notes", "")
        if notes.startswith("published: "):
            texts.append(notes[len("published: "):])
        for prefix, more in (extra or {}).items():
            if path.stem.startswith(prefix) and not texts:
                texts += more
        for text in texts:
            board = chess.Board()
            for token in text.split():
                token = re.sub(r"^\d+\.(\.\.)?", "", token)
                if token:
                    board.push_san(token)
            out.append((path.stem, list(board.move_stack)))
    return out
