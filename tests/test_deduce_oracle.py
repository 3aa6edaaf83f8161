"""Soundness of the history model against real games: python-chess plays random legal games,
we record what really happened (captures, by which pawns from which file to which, promotions,
which pieces are promoted, on which colour each unit was taken, which units never moved), and
the model must accept all of it at once. A rejection would mean the model can 'prove' a falsehood."""

from __future__ import annotations

import chess
import pytest

from conftest import random_game
from retrologic.history.deduce import Constraint, deduce
from retrologic.position import Position

SIDE = {chess.WHITE: "white", chess.BLACK: "black"}


def true_history(pairs: list[tuple[chess.Board, chess.Move]]) -> tuple[chess.Board, list[str]]:
    """The final board and the facts of its real history, as expressions of the language."""
    caps = {chess.WHITE: 0, chess.BLACK: 0}
    proms = {chess.WHITE: 0, chess.BLACK: 0}
    pawn_caps: dict[tuple, int] = {}
    on_colour: dict[tuple, int] = {}
    promoted: set[int] = set()
    still = set(chess.SQUARES[:16]) | set(chess.SQUARES[48:])
    board = chess.Board()
    for before, move in pairs:
        mover = before.turn
        if before.is_capture(move):
            victim = move.to_square
            if before.is_en_passant(move):
                victim += -8 if mover else 8
            key = (not mover, before.piece_type_at(victim), (chess.square_file(victim) + chess.square_rank(victim)) % 2 == 0)
            on_colour[key] = on_colour.get(key, 0) + 1
            caps[mover] += 1
            if before.piece_type_at(move.from_square) == chess.PAWN:
                k = (mover, chess.square_file(move.from_square), chess.square_file(move.to_square))
                pawn_caps[k] = pawn_caps.get(k, 0) + 1
            promoted.discard(victim)
            still.discard(victim)
        carried = move.from_square in promoted
        promoted.discard(move.from_square)
        if move.promotion or carried:
            promoted.add(move.to_square)
        proms[mover] += bool(move.promotion)
        still -= {move.from_square, move.to_square}
        if before.is_castling(move):
            rank = chess.square_rank(move.from_square)
            still.discard(chess.square(7 if chess.square_file(move.to_square) > 4 else 0, rank))
        board = before.copy()
        board.push(move)
    facts = []
    for c in chess.COLORS:
        facts += [f"captures({SIDE[c]}) == {caps[c]}", f"promotions({SIDE[c]}) == {proms[c]}",
                  f"missing({SIDE[c]}) == {16 - len(board.piece_map()) + len([p for p in board.piece_map().values() if p.color != c])}"]
        for a in range(8):
            for b in (a - 1, a + 1):
                if 0 <= b < 8:
                    facts.append(f'pawn_captures({SIDE[c]}, from_file="{chess.FILE_NAMES[a]}", '
                                 f'to_file="{chess.FILE_NAMES[b]}") == {pawn_caps.get((c, a, b), 0)}')
        for t in range(1, 7):
            for dark in (True, False):
                facts.append(f'captured_on_color({SIDE[c]}, "{chess.piece_name(t)}", '
                             f'"{"dark" if dark else "light"}") == {on_colour.get((c, t, dark), 0)}')
    for sq, p in board.piece_map().items():
        if p.piece_type not in (chess.PAWN, chess.KING):
            facts.append(f'promoted("{chess.square_name(sq)}") == {"true" if sq in promoted else "false"}')
        if sq in still:
            facts.append(f'never_moved("{chess.square_name(sq)}")')
    return board, facts


CASES = [(seed, cut) for seed in range(16) for cut in (25, 70, 160)]


@pytest.mark.parametrize("seed,cut", CASES)
def test_real_history_is_a_model_history(seed, cut):
    board, facts = true_history(random_game(seed)[:cut])
    pos = Position.from_board(board)
    assumptions = [Constraint.parse(f"fact{i}", text) for i, text in enumerate(facts)]
    d = deduce(pos, assumptions, [], explain=False)
    if d.consistent is not True:
        core = deduce(pos, assumptions, []).core
        pytest.fail(f"model rejects the real history of {board.fen()}: core {core}")


def test_true_claims_are_never_refuted_by_cpsat():
    """CP-SAT sees the same model: each true fact, claimed, is never refuted (no history of the
    model falsifies a fact the model proves), and facts it can prove match pysat's."""
    board, facts = true_history(random_game(3)[:90])
    pos = Position.from_board(board)
    claims = [Constraint.parse(f"fact{i}", text) for i, text in enumerate(facts[::6])]
    sat = deduce(pos, [], claims, engine="sat", explain=False)
    cp = deduce(pos, [], claims, engine="cp-sat", explain=False)
    assert [c.status for c in sat.claims] == [c.status for c in cp.claims]
    assert any(c.status == "proved" for c in sat.claims)
