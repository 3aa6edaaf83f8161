"""A legal game as the engines hand it on: its moves, the position it reaches, its SAN text
and its `legal-game` certificate (checked by `legalgame.checker`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess


@dataclass(frozen=True)
class LegalGame:
    """A game from the initial array (`moves`) that reaches `target` exactly, never moving nor
    taking the units on `frozen` (stipulated never to have moved)."""

    moves: tuple[chess.Move, ...]
    target: chess.Board
    frozen: int = 0

    @property
    def plies(self) -> int:
        return len(self.moves)

    def uci(self) -> list[str]:
        return [m.uci() for m in self.moves]

    def san(self) -> str:
        """The game in SAN with move numbers ("1.e4 e5 2.Nf3 ..."), as the checkers read it."""
        from retrologic.spg.checker import san_text
        return san_text(list(self.moves))

    def certificate(self) -> dict[str, Any]:
        """The `legal-game` certificate: the position and the moves (UCI), with the SAN text,
        and the frozen units (square names) when there are any."""
        from retrologic.certformat import stamp
        cert = {"type": "legal-game", "fen": self.target.fen(en_passant="fen"),
                "plies": self.plies, "moves": self.uci(), "san": self.san()}
        if self.frozen:
            cert["frozen"] = [chess.square_name(s) for s in chess.scan_forward(self.frozen)]
        return stamp(cert)
