"""The `pawn-columns` rule (retrologic.legality.pawn_columns, Texel's proof kernel): no sequence
of captures and promotions turns the initial array's pawn columns into the position's. Oracles:
python-chess's random games (every position of a real game keeps a kernel to the game's end,
counted with the promotions really made), and positions argued by hand, among them one the
counting rules, the proof-game bound and the history model all pass."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Iterator

import chess
from conftest import listing_nodes, random_game, replayed

from retrologic.certificate import check
from retrologic.history.deduce import deduce
from retrologic.lastmove import search as lastmove
from retrologic.legality import pawn_columns, reachability, rules
from retrologic.position import Position
from retrologic.questions import legal

# White's e-pawn on e6 above Black's on e5, one capture each (the h-rooks): neither pawn can
# leave the e-file and come back, so they never passed each other
PASSED = "rnbqkbn1/pppp1ppp/4P3/4p3/8/8/PPPP1PPP/RNBQKBN1 w Qq - 0 1"
# the same with a second black unit missing: e2-e3, e3xd4, d4-d5, d5xe6 goes round Black's pawn
PASSED_ROUND = "rnbqkb2/pppp1ppp/4P3/4p3/8/8/PPPP1PPP/RNBQKBN1 w Qq - 0 1"


def _games(seeds: range) -> list[list[chess.Move]]:
    """The moves of conftest's random games (biased towards captures, e.p., castlings and
    promotions)."""
    return [[move for _, move in random_game(seed, 200)] for seed in seeds]


# e.p. captures, capture-promotions (an underpromotion among them), a promoted piece taken,
# and a capture onto a column of one pawn at home
SCRIPTED = ["e4 a6 e5 d5 exd6 cxd6 b4 a5 bxa5 Rxa5 c4 Ra8 c5 dxc5",
            "a4 h5 a5 h4 a6 h3 axb7 hxg2 bxa8=Q gxh1=N Qxb8 Nf2 Kxf2 g5 h4 g4 Qxc8 g3+ Kxg3",
            "h4 g5 h5 g4 f4 gxf3 exf3 e5 Bc4 e4 fxe4",
            # g7xf6 enters a column whose one pawn is Black's at home (f7): below it
            "f4 e5 fxe5 a6 Nc3 a5 Ne4 a4 Nf6+ gxf6"]


def _scripted() -> list[list[chess.Move]]:
    games = []
    for line in SCRIPTED:
        board = chess.Board()
        for san in line.split():
            board.push_san(san)
        games.append(board.move_stack)
    return games


def _kernel_states(
        moves: list[chess.Move]) -> Iterator[tuple[chess.Board, pawn_columns.State, bool]]:
    """Each position of a game (the board after each move), its kernel state with the
    promotions made so far, and whether that move took en passant."""
    board = chess.Board()
    made = {chess.WHITE: 0, chess.BLACK: 0}
    for move in moves:
        made[board.turn] += move.promotion is not None
        en_passant = board.is_en_passant(move)
        board.push(move)
        yield board, pawn_columns.state_of(board, made[chess.WHITE], made[chess.BLACK]), en_passant


def test_every_position_of_a_real_game_keeps_a_kernel_to_its_end() -> None:
    """Each position of 10 random games and two scripted ones, with the promotions made so far:
    the kernel search from it reaches the game's last position (the moves of the kernel space
    follow the real captures, e.p. and promotions included), and the rule is silent on the
    last position. bench/README-legal.md reports longer runs (5,269 positions of 60 more games)."""
    positions = promoted = en_passant = 0
    for moves in _games(range(10)) + _scripted():
        final = replayed(moves)
        kernel = pawn_columns.Kernel.towards(final)
        assert pawn_columns.reasons(Position.from_board(final)) == [], final.fen()
        for board, state, took_en_passant in _kernel_states(moves):
            en_passant += took_en_passant
            assert kernel.reachable(state) is True, (board.fen(), final.fen())
            positions += 1
        promoted += any(move.promotion for move in moves)
    assert positions > 800 and promoted >= 3 and en_passant >= 2


def test_a_kernel_remembering_dead_states_answers_as_a_fresh_one() -> None:
    """One kernel asked about many states keeps the states it found dead (as the legal-game
    finder's `Columns` asks it); its answers must be a fresh kernel's wherever the fresh one
    decides: the positions of four real games, towards each game's last position (those of
    the other games mostly out of reach) and towards PASSED (whose searches fail late)."""
    games = _games(range(20, 24))
    # PASSED is out of reach from the array: its searches expand states and find them dead
    finals = [replayed(moves) for moves in games] + [chess.Board(PASSED)]
    answers, dead, searched = {True: 0, False: 0}, 0, 0
    for final in finals:
        kernel = pawn_columns.Kernel.towards(final)
        for moves in games:
            for ply, (board, state, _) in enumerate(_kernel_states(moves)):
                if ply % 4:
                    continue
                alone = pawn_columns.Kernel.towards(final)
                fresh = alone.reachable(state)
                if fresh is not None:
                    # asked twice: the second answer comes from what the first left behind
                    for _ in range(2):
                        assert kernel.reachable(state) is fresh, (board.fen(), final.fen())
                    answers[fresh] += 1
                    searched += fresh is False and alone.expanded > 0
        dead += len(kernel.dead)
    assert answers[True] > 50 and answers[False] > 50 and searched > 0, (answers, searched)
    assert dead > 0


def test_pawns_never_pass_on_a_file() -> None:
    """PASSED is illegal by this rule alone: the counting rules, the proof-game bound and the
    history model (which keeps files, not their order) find a history."""
    pos = Position.from_fen(PASSED)
    assert rules.state_and_count_reasons(pos) == [] and reachability.reasons(pos) == []
    assert deduce(pos, [], []).consistent                # the history model has a history
    found = pawn_columns.reasons(pos)
    assert [r.rule for r in found] == ["pawn-columns"]
    assert "1 capture(s) by white and 1 by black" in found[0].message
    result = legal.answer(pos)
    assert result.facts["legal"] is False and result.facts["rules"] == ["pawn-columns"]


def test_a_pawn_passes_by_capturing_round() -> None:
    """With a second black unit missing White's e-pawn goes round Black's by two captures."""
    kernel = pawn_columns.Kernel.towards(chess.Board(PASSED_ROUND))
    assert kernel.reachable() is True
    assert pawn_columns.reasons(Position.from_fen(PASSED_ROUND)) == []


def test_pawns_at_home_close_their_columns() -> None:
    """Two white queens need a promotion, and White made one capture. Every black pawn is on
    its seventh rank, so it never moved and stays the highest pawn of its file all game: a
    white pawn never gets above one, so none promotes (the a-pawn's capture onto the b-file
    lands below b7). Without the pawns at home (Texel's blocked squares) the kernel, which keeps
    no ranks, would let a2xb3 enter the b-column above b7 and promote. (The proof-game bound,
    with the home pawns as obstacles, proves this position illegal too: `unreachable`.)"""
    fen = "rnbqkbn1/pppppppp/8/8/8/8/1PPPPPPP/RQBQKBNR w KQq - 0 1"
    pos = Position.from_fen(fen)
    assert [r.rule for r in pawn_columns.reasons(pos)] == ["pawn-columns"]
    assert pawn_columns.home_files(chess.Board(fen)) == (0b11111110, 0b11111111)
    kernel = pawn_columns.Kernel.towards(chess.Board(fen))
    kernel.home = (0, 0)
    assert kernel.reachable() is True
    # with Black's b-pawn gone too (one white capture more) the a-pawn goes round: b-file, c8
    assert pawn_columns.reasons(Position.from_fen(
        "rnbqkb2/p1pppppp/8/8/8/8/1PPPPPPP/RQBQKBNR w KQq - 0 1")) == []


def test_a_capped_search_proves_nothing() -> None:
    """Without nodes the search stops at once: the rule is silent (unknown is not illegal)."""
    pos = Position.from_fen(PASSED)
    assert pawn_columns.reasons(pos, nodes=0) == []
    assert pawn_columns.Kernel.towards(chess.Board(PASSED), nodes=0).reachable() is None


def test_partial_and_miscounted_positions_are_left_to_the_other_rules() -> None:
    assert pawn_columns.reasons(Position.partial_from("8/8/4P3/4p3/8/8/8/8")) == []
    assert pawn_columns.reasons(Position.from_fen("P3k3/8/8/8/8/8/8/4K3 b - - 0 1")) == []
    assert pawn_columns.reasons(Position.from_fen("4k3/8/8/8/8/8/8/8 w - - 0 1")) == []


def test_columns_of_a_placement() -> None:
    board = chess.Board(PASSED)
    assert pawn_columns.columns_of(board)[4] == "BW"
    assert pawn_columns.columns_of(board)[0] == "WB"
    # two queens and two dark-square bishops: two promotions at least
    assert pawn_columns.promotions_needed(chess.Board(
        "rnbqkbn1/pppppppp/8/8/8/8/2PPPPPP/RQBQKBBR w KQq - 0 1"), chess.WHITE) == 2


def test_last_move_uncaptures_closed_by_the_pawn_columns() -> None:
    """PASSED_ROUND with Black to move: every white retraction that uncaptures a black unit
    leaves one white capture for the e-pawn's two, so each is impossible by this rule (the
    bound and the cages close none of them but the b1 rook's); `check` runs the rule again at
    each leaf, and rejects a quiet candidate's position marked so."""
    pos = Position.from_fen(PASSED_ROUND.replace(" w Qq ", " b - "))
    result = lastmove.solve(pos, 1, lastmove.Limits(nodes=listing_nodes(pos, 1) + 300))
    cert = lastmove.certificate(pos, 1, result)
    closed = {c["notation"] for c in cert["candidates"]
              if c["status"] == "impossible" and c["proof"].get("rule") == "pawn-columns"}
    assert len(closed) == 28 and "Ke2xNe1" in closed and "Qe2xRd1" in closed
    assert all("x" in notation for notation in closed)
    assert check(cert).ok
    leaf = next(c for c in lastmove.candidates(pos, 1) if c.notation == "Ke2-e1").positions[-1]
    bad = copy.deepcopy(cert)
    entry = next(c for c in bad["candidates"] if c["notation"] == "Ke2-e1")
    entry.update(status="impossible", proof={"fen": leaf.fen(), "rule": "pawn-columns"})
    verdict = check(bad)
    assert not verdict.ok and "does not hold" in verdict.reason


FIGURE_6 = "2kq4/pppp1p2/n4P2/4PKP1/2P1pRrB/2P2pp1/2PP4/RN1Q4 w - - 0 1"


def test_the_ceriani_position_falls_to_the_columns_and_to_the_chain() -> None:
    """problems/legal/deduce-then-cage.toml's position (after Hwa's Figure 6): the rule proves
    it illegal by itself (4 White and 3 Black captures cannot reverse the pawns' order on the
    e- and g-files and bring two more White pawns to the c-file), so `legal` no longer reaches
    its lemmas; the lemma chain still proves it (the deduction "no d->e", then the Figure 7
    cage under it), and the cage alone, without the deduction, may not be used."""
    pos = Position.from_fen(FIGURE_6)
    assert rules.state_and_count_reasons(pos) == [] and reachability.reasons(pos) == []
    assert [r.rule for r in pawn_columns.reasons(pos)] == ["pawn-columns"]
    root = Path(__file__).resolve().parent.parent
    deduction = root / "problems" / "deduce" / "no-dxe-for-a-cage.toml"
    cage = root / "encodings" / "cages" / "hwa-fig7-ceriani-no-dxe.toml"
    assert [r.rule for r in legal.chain_reasons(pos, [deduction, cage])] == ["cage"]
    assert legal.chain_reasons(pos, [cage]) == []


# Krystufek, 100 mal Kniffel-Schach (1986) no. 18 before the candidate e7xNd6: Black's bishop of
# f8 never left it (e7 and g7 at home), so the dark bishop on a1 is promoted, and no Black pawn
# can have promoted with the one White unit Black took (bench/lastmove-collection)
SEALED_F8 = "n7/ppBQpppp/1PpN4/3P4/K3P3/P1P2R1P/qkNRB1P1/brrb2n1 b - - 0 1"
# real games in which an original sealed in at home is taken there: the f8 bishop, then a
# Black promotion to a dark bishop; White's c1 bishop; Black's queen (castling rights stand)
TAKEN_AT_HOME = {"f8": "Nf3 a5 Ng5 a4 Ne6 a3 Nxf8 axb2 Ne6 bxa1=B",
                 "c1": "a3 Nc6 h3 Nd4 h4 Nb3 h5 Nxc1",
                 "d8": "Nf3 a6 Ng5 a5 Ne6 a4 Nxd8 h6"}


def test_an_original_sealed_in_at_home_and_gone_was_taken_there_by_a_piece() -> None:
    """SEALED_F8 falls to the rule only with the sealed bishop: the plain kernel (the array as
    the start, one dark bishop counted as the original) finds a way. Oracle: every position of
    three real games in which a sealed original is taken at home keeps the rule silent, the
    last position with that home square among the losses."""
    pos = Position.from_fen(SEALED_F8)
    assert pawn_columns.sealed_losses(pos) == chess.BB_F8
    found = pawn_columns.reasons(pos)
    assert [r.rule for r in found] == ["pawn-columns"] and "bishop of f8" in found[0].message
    board = chess.Board(SEALED_F8)
    assert pawn_columns.promotions_needed(board, chess.BLACK) == 0
    assert pawn_columns.promotions_needed(board, chess.BLACK, chess.BB_F8) == 1
    goal, needed, home = pawn_columns.kernel_goal(board)
    assert not pawn_columns.has_no_kernel(goal, needed, home)
    assert [r.rule for r in rules.reasons(pos)] == ["pawn-columns"]
    for square, line in TAKEN_AT_HOME.items():
        board = chess.Board()
        for san in line.split():
            board.push_san(san)
            assert pawn_columns.reasons(Position.from_board(board)) == [], board.fen()
        lost = pawn_columns.sealed_losses(Position.from_board(board))
        assert lost == chess.BB_SQUARES[chess.parse_square(square)], board.fen()
