"""PGN headers of a problem (issue #20, item 3), after the conventions problem databases use for
proof games: Event is the problem's title, Site its source, White its authors (as PGN wants
"Last, First" joined by "; "), Black the stipulation ("PG 8.0"), plus the non-standard but
common tags Title, Source, Stipulation; the game's own moves and result are kept.
"""

from __future__ import annotations

import io
from typing import Any


def headers(meta: dict[str, Any] | None, stipulation: str | None = None) -> dict[str, str]:
    """The PGN tags of a problem's `meta` table and stipulation (only those that are known)."""
    meta = meta or {}
    out: dict[str, str] = {}
    authors = meta.get("authors") or ([meta["author"]] if meta.get("author") else [])
    if meta.get("title"):
        out["Event"] = out["Title"] = str(meta["title"])
    if meta.get("source"):
        out["Site"] = out["Source"] = str(meta["source"])
        out.setdefault("Event", str(meta["source"]))
    if authors:
        out["White"] = "; ".join(str(a) for a in authors)
    if stipulation:
        out["Black"] = out["Stipulation"] = stipulation
    return out


def with_headers(pgn: str, meta: dict[str, Any] | None, stipulation: str | None = None) -> str:
    """A PGN text with the problem's tags set (python-chess reads and writes it back)."""
    import chess.pgn  # here only: it loads chess.engine and asyncio (issue #22, latency)
    game = chess.pgn.read_game(io.StringIO(pgn))
    if game is None:
        return pgn
    for key, value in headers(meta, stipulation).items():
        game.headers[key] = value
    return str(game)
