"""Brute-force retractions with python-chess alone: every predecessor board a unit's geometry
allows, kept when a legal forward move gives back the position. The oracle of the retraction
tests and the baseline of bench/retract.py is the last-move checker's own generator
(retrologic.lastmove.unmoves), which shares no code with retrologic.retract."""

from __future__ import annotations

import chess

from retrologic.lastmove.unmoves import unmoves


def brute_retractions(after: chess.Board) -> set[tuple[str, int | None, bool]]:
    """(uci, uncaptured type, en passant) of every retraction of `after` (full position)."""
    return unmoves(after)
