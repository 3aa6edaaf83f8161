"""Readable reprs of the core's values: positions as FEN-like text, placements and
retractions by square names (never raw bitboards)."""

from __future__ import annotations

import chess

from retrologic.position import Position
from retrologic.retract import retractions
from retrologic.vocabulary import Unit


def test_a_full_position_prints_as_its_fen_fields():
    pos = Position.from_fen(chess.STARTING_FEN)
    assert repr(pos) == "Position('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -')"
    assert repr(pos.with_turn(None)).endswith(" ? KQkq -')")
    after = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    assert repr(after) == "Position('4k3/8/8/3pP3/8/8/8/4K3 w - d6')"


def test_a_partial_position_prints_its_board_and_frozen_units():
    pos = Position.partial_from("8/8/8/8/8/8/1P1P4/2B5", frozen=chess.BB_C1)
    assert repr(pos) == "Position('8/8/8/8/8/8/1P1P4/2B5 partial frozen c1')"


def test_a_placement_prints_square_names_kings_first():
    pl = Position.from_fen("4k3/8/8/8/8/8/4P3/R3K3 w Q - 0 1").placement
    assert repr(pl) == "Placement('Ke1 Ra1 Pe2 / ke8')"
    assert str(Position.partial_from("8/8/8/8/8/8/8/2b5").placement) == "- / bc1"


def test_a_retraction_prints_its_side_and_notation():
    pos = Position.from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1")
    assert [repr(r) for r in retractions(pos)] == ["Retraction('w e2-e4')"]
    rook = Position.from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
    assert "Retraction('w Rb1xQa1')" in map(repr, retractions(rook))


def test_a_unit_prints_its_name():
    assert repr(Unit(chess.WHITE, chess.G1, chess.KNIGHT)) == "Unit(wNg1)"
    assert Unit(chess.BLACK, chess.E7, chess.PAWN).label() == "Black's e-pawn"
