"""Settled pawns as walls (`legalgame.walls`, issue #19) against real games: every pawn the rule
calls settled stays on its square to the end of the game, the bound with those pawns frozen
never exceeds the moves each side really plays, a bishop the walls shut in has no bound (a
breadth-first search of python-chess's bishop attacks agrees), and the finder then finds the
game of seed 6204 of bench/legal.py, which it does not find within the same cap without them
(and seed 41711's, where the settled pawns' attacks shut the king out); and the placement
guide sees pieces held on their target squares in the way (seed 6057) and guides every try's
placement search (seed 25848)."""

from __future__ import annotations

import random

import chess
import pytest

from conftest import game_targets, random_game
from retrologic.legalgame.checker import replay
from retrologic.legalgame import finder as finder_module
from retrologic.legalgame.finder import Finder
from retrologic.legalgame.walls import Walls, settled_pawns, stuck_pawns, unreplaceable_pawns
from retrologic.limits import Budget
from retrologic.spg import targets as spg_targets
from retrologic.spg.analysis import Analysis
from retrologic.spg.distances import INF

SEED_6204 = "r4rk1/qbpB1p1p/n3pn2/Pp4p1/P1p3PP/2NPPP2/5K1R/R1BQ2N1 w - - 4 21"
# a position the finder reached on the way to it: the light bishop on h3 behind g4
SHUT_IN = "r4rk1/qbp2p1p/n3pn2/Pp4p1/P1p3PP/2NPPP1B/5K1R/R1BQ2N1 b - - 4 20"


def squares(*names: str) -> int:
    """The mask of the named squares."""
    out = 0
    for name in names:
        out |= chess.BB_SQUARES[chess.parse_square(name)]
    return out


@pytest.mark.parametrize("pawns, goal, settled", [
    (("e4",), ("e4",), ("e4",)),
    (("e2", "e4"), ("e4", "e5"), ()),          # the e4 pawn must go on to e5, e2 to e4
    (("e2", "e4"), ("e2", "e4"), ("e2", "e4")),
    (("e3", "e4"), ("e4",), ()),               # one too many on the file: no order known
    (("e4", "d4"), ("e4", "d5"), ("e4",)),
    (("a7", "a5"), ("a7", "a4"), ("a7",)),     # black: the same order from a1 up
])
def test_settled_pawns_pair_each_file_in_order(pawns, goal, settled):
    assert settled_pawns(squares(*pawns), squares(*goal)) == squares(*settled)


@pytest.mark.parametrize("color, pawns, goal, captures, held", [
    (chess.WHITE, ("e4",), ("e4",), 3, ("e4",)),          # no other pawn: it stays
    (chess.WHITE, ("e4", "e2"), ("e4",), 0, ()),           # e2 could step up to e4
    (chess.WHITE, ("e4", "d2"), ("e4",), 0, ("e4",)),      # d2 needs a capture, none left
    (chess.WHITE, ("e4", "d2"), ("e4",), 1, ()),
    (chess.WHITE, ("e4", "c3"), ("e4",), 2, ("e4",)),      # two files in one rank: never
    (chess.WHITE, ("e4", "e5"), ("e4",), 1, ("e4",)),      # a pawn ahead never comes back
    (chess.BLACK, ("d6", "e5"), ("d6", "e5"), 1, ("d6", "e5")),  # d6 held, so e5 too
    (chess.BLACK, ("e5", "e6"), ("e5",), 0, ()),           # black: e6 is behind e5
    (chess.BLACK, ("e5", "f7", "d4"), ("e5", "d4"), 1, ()),  # f7xe5, then e5xd4 can follow
    (chess.BLACK, ("e5", "f7", "d4"), ("e5", "d4"), 0, ("e5", "d4")),
])
def test_unreplaceable_pawns_have_no_pawn_to_take_their_place(color, pawns, goal, captures,
                                                              held):
    assert unreplaceable_pawns(squares(*pawns), squares(*goal), color, captures) == \
        squares(*held)


def test_unreplaceable_pawns_stay_along_real_games():
    """Every pawn the rule holds, with its side's captures left (a side with captures left
    too: the file-order rule says nothing there), stays on its square to the end of a real
    game (the oracle) of 30 random games, targets every 10 plies."""
    held_with_captures = 0
    for seed in range(30):
        game = random_game(5100 + seed, max_plies=120)
        boards = [board for board, _ in game]
        for k in range(10, len(boards), 10):
            target = boards[k]
            for i in range(k):
                board = boards[i]
                for color in chess.COLORS:
                    captures = chess.popcount(board.occupied_co[not color]) - \
                        chess.popcount(target.occupied_co[not color])
                    goal = target.pawns & target.occupied_co[color]
                    held = unreplaceable_pawns(board.pawns & board.occupied_co[color], goal,
                                               color, captures)
                    held_with_captures += chess.popcount(held) if captures > 0 else 0
                    for later in boards[i:k + 1]:
                        for sq in chess.scan_forward(held):
                            assert later.piece_at(sq) == board.piece_at(sq), (seed, i, k)
    assert held_with_captures > 1000          # the check is not vacuous


def test_a_walls_view_is_the_whole_analysis_bound():
    """`Walls.view` builds the proof-game bound alone (2026-12-07); the whole analysis with the
    same units frozen, as the views were built before, is the oracle: the same side bounds
    along real games, with the settled pawns frozen, and with the pieces standing on their
    own target squares held too (the placement guide's sets, `Finder.frozen_parts`)."""
    compared = finite = 0
    for boards, k in game_targets(range(5000, 5010), max_plies=100):
        target = boards[k]
        walls_of = Walls(chess.Board(), target, 0)
        for board in boards[:k:3]:
            walls = walls_of.of(board)
            held = spg_targets.anchored(target, 0, board) & ~board.pawns
            for frozen in {walls, walls | held} - {0}:
                whole = Analysis(chess.Board(), target, extra_frozen=frozen).bound
                view = walls_of.view(frozen)
                for color in chess.COLORS:
                    value = view.side_bound(board, color)
                    assert value == whole.side_bound(board, color), (target.fen(), board.fen())
                    compared += 1
                    finite += value < INF
    assert compared > 200 and finite > 100      # the check is not vacuous


def test_settled_pawns_stay_and_the_walled_bound_holds_along_real_games():
    """Targets every 10 plies of 20 random games, each earlier position of the game checked:
    the real game is the oracle (the settled pawns never leave; each side plays at least the
    walled bound's moves to the target)."""
    with_walls = stronger = 0
    for boards, k in game_targets(range(5000, 5020), max_plies=100):
        target = boards[k]
        walls_of = Walls(chess.Board(), target, 0)
        plain = Analysis(chess.Board(), target)
        for i in range(k):
            board = boards[i]
            walls = walls_of.of(board)
            if not walls:
                continue
            with_walls += 1
            for later in boards[i:k + 1]:
                for sq in chess.scan_forward(walls):
                    assert later.piece_at(sq) == board.piece_at(sq), (target.fen(), i, k)
            view = walls_of.view(walls)
            for color in chess.COLORS:
                played = sum(1 for m in range(i, k) if boards[m].turn == color)
                walled = view.side_bound(board, color)
                assert walled <= played, (target.fen(), i, k, color, board.fen())
                stronger += walled > plain.bound.side_bound(board, color)
    assert with_walls > 500 and stronger > 0      # the check is not vacuous


def bishop_reaches(frm: int, to: int, walls: int) -> bool:
    """Breadth-first over python-chess's bishop attacks on a board holding only `walls`."""
    seen, frontier = chess.BB_SQUARES[frm], [frm]
    while frontier:
        sq = frontier.pop()
        for nxt in chess.scan_forward(chess.BB_DIAG_ATTACKS[sq][chess.BB_DIAG_MASKS[sq] & walls]
                                      & ~walls & ~seen):
            seen |= chess.BB_SQUARES[nxt]
            frontier.append(nxt)
    return bool(seen & chess.BB_SQUARES[to])


def test_a_bishop_shut_in_by_settled_pawns_has_no_bound():
    target, board = chess.Board(SEED_6204), chess.Board(SHUT_IN)
    walls_of = Walls(chess.Board(), target, 0)
    walls = walls_of.of(board)
    assert walls & squares("g4", "f3", "e3", "d3")
    assert not bishop_reaches(chess.H3, chess.D7, walls)
    assert walls_of.view(walls).side_bound(board, chess.WHITE) >= INF
    assert Analysis(chess.Board(), target).bound.side_bound(board, chess.WHITE) < INF


def test_pawns_no_other_pawn_can_replace_shut_in_a_bishop():
    """Seed 10017 of bench/legal.py (Black's bishop ends on a1): the finder reached a position
    with Black's bishop on g7, one capture left to Black and its pawns on d6, e5 and h6 on
    their target squares. No black pawn can come to d6 or h6 again, hence none to e5: all
    three stay, the bishop never leaves g7, f8, h8, f6 and e7, and the walled bound has no
    value where the plain one said one move (the finder found no game within 10 s before;
    bench/README-legal.md)."""
    target = chess.Board("3rR3/7k/1pBp3p/pN1Pp1pP/P1P5/7P/8/b2KB3 b - - 0 60")
    board = chess.Board("3r4/6bk/1pBp3p/pN1Pp1pP/P1P1R3/7P/5P2/3KB3 b - - 0 41")
    walls_of = Walls(chess.Board(), target, 0)
    walls = walls_of.of(board)
    assert walls & squares("d6", "e5", "h6") == squares("d6", "e5", "h6")
    assert not bishop_reaches(chess.G7, chess.A1, walls | squares("d8", "h7"))
    assert walls_of.view(walls).side_bound(board, chess.BLACK) >= INF
    assert Analysis(chess.Board(), target).bound.side_bound(board, chess.BLACK) == 1


@pytest.mark.slow          # two finder runs of 2,500 positions: half a minute on a slow machine
def plain_stuck_pawns(board: chess.Board, fixed: dict[bool, bool]) -> set[int]:
    """Square by square: a pawn of a side with no capture left (`fixed`) is stuck when the
    square straight ahead holds a pawn of the other such side facing it, or a stuck pawn."""
    stuck: set[int] = set()
    while True:
        more = set(stuck)
        for square, piece in board.piece_map().items():
            if piece.piece_type != chess.PAWN or not fixed[piece.color]:
                continue
            ahead = square + (8 if piece.color == chess.WHITE else -8)
            other = board.piece_at(ahead) if 0 <= ahead < 64 else None
            if ahead in stuck or other == chess.Piece(chess.PAWN, not piece.color) \
                    and fixed[not piece.color]:
                more.add(square)
        if more == stuck:
            return stuck
        stuck = more


def test_stuck_pawns_square_by_square():
    """`stuck_pawns` (bitboard shifts) against the square-by-square definition, on pawn
    chains of random positions and either side fixed."""
    rng = random.Random(77)
    chains = 0
    for _ in range(300):
        board = chess.Board(None)
        files = rng.sample(range(8), 3)  # crowded files, so chains form
        for square in rng.sample([sq for sq in range(8, 56) if sq % 8 in files],
                                 rng.randint(2, 14)):
            board.set_piece_at(square, chess.Piece(chess.PAWN, rng.choice(chess.COLORS)))
        fixed = {chess.WHITE: rng.random() < 0.7, chess.BLACK: rng.random() < 0.7}
        got = stuck_pawns(board, fixed[chess.WHITE], fixed[chess.BLACK])
        want = plain_stuck_pawns(board, fixed)
        assert set(chess.scan_forward(got)) == want, (board.fen(), fixed)
        chains += len(want) >= 3
    assert chains > 10


def test_the_walls_let_the_finder_place_seed_6204(monkeypatch):
    target = chess.Board(SEED_6204)
    game = Finder(target, Budget(), 2_500).find()
    assert game is not None
    replay([move.uci() for move in game], target)     # python-chess: Rejected if it fails
    monkeypatch.setattr(Walls, "of", lambda self, board: 0)
    assert Finder(target, Budget(), 2_500).find() is None


def test_the_kings_walls_let_the_finder_place_seed_41711(monkeypatch):
    """Seed 41711 of bench/legal.py: White's king ends on a6 among Black's pawns a5, c6 and d5,
    whose attacks shut it out once they settle (`targets.frozen_attacks`: the king's maps avoid
    squares frozen units attack). With them the finder places it within 1,000 positions; with
    the king's maps blind to them (as before 2026-12-03) it does not (nor in 40 s)."""
    target = chess.Board("1qb2b1r/4k1p1/K1p1p2n/pB1p1p1p/3P1P1P/PP2P3/5NP1/RNB1Q2R w - - 1 20")
    game = Finder(target, Budget(), 1_000).find()
    assert game is not None
    replay([move.uci() for move in game], target)
    monkeypatch.setattr(spg_targets, "frozen_attacks", lambda *args: 0)
    assert Finder(target, Budget(), 1_000).find() is None


def test_the_placement_guide_sees_pieces_held_on_their_target_squares(monkeypatch):
    """Seed 6057's placement: Black's rook on f8 must reach a8 past its queen and rook on e8 and
    d8, which stand on their own target squares. The bound says one move; python-chess shows
    the rook has no move to a8, nor a way there, alone, with either of them lifted (both: it
    has), and the guide (`Finder.placement_moves`) asks four more: both step aside and back."""
    target = chess.Board("r2rq3/3pb2p/p1n1p1pn/1pQ2P2/4k3/2P4N/1Bb3KP/R3NB1R w - - 0 34")
    board = chess.Board("3rqr2/3pb2p/p1n1p1pn/1pQ2P2/4k3/2P4N/1Bb3KP/R3NB1R b - - 6 29")
    assert chess.Move(chess.F8, chess.A8) not in board.legal_moves
    lifted = {name: board.copy() for name in ("e8", "d8", "both")}
    lifted["e8"].remove_piece_at(chess.E8)
    lifted["d8"].remove_piece_at(chess.D8)
    for square in (chess.E8, chess.D8):
        lifted["both"].remove_piece_at(square)
    reached = {name: rook_squares(lifted_board, chess.F8) for name, lifted_board in lifted.items()}
    assert not reached["e8"] & chess.BB_A8 and not reached["d8"] & chess.BB_A8
    assert reached["both"] & chess.BB_A8
    finder = Finder(target, Budget(), 1_000)
    assert finder.side_bounds(board) == (0, 1)
    assert finder.placement_moves(board) == finder.moves_left(board) + 4
    monkeypatch.setattr(finder_module, "RELEASE_HELD", False)     # the guide before: two more
    finder.held.clear()
    assert finder.placement_moves(board) == finder.moves_left(board) + 2
    for guide in ("moves", "plies"):        # every try's placement search: `placement_moves`
        finder.guide_name = guide
        assert finder.guide(board) == finder.placement_moves(board)
    # with nothing held (the initial array's own position as target) the guide is the bound
    start = Finder(chess.Board(), Budget(), 1_000)
    assert start.placement_moves(chess.Board()) == start.moves_left(chess.Board()) == 0


def rook_squares(board: chess.Board, start: chess.Square) -> int:
    """The squares the rook on `start` reaches moving alone (every other unit standing still),
    by a search over python-chess's rook attacks."""
    piece, alone = board.piece_at(start), board.copy()
    assert piece is not None and piece.piece_type == chess.ROOK
    alone.remove_piece_at(start)
    reached, frontier = chess.BB_SQUARES[start], [start]
    while frontier:
        square = frontier.pop()
        alone.set_piece_at(square, piece)
        steps = alone.attacks_mask(square) & ~alone.occupied & ~reached
        alone.remove_piece_at(square)
        reached |= steps
        frontier.extend(chess.scan_forward(steps))
    return reached


def assert_places(board: chess.Board, moves: list[chess.Move] | None,
                  target: chess.Board) -> None:
    """python-chess plays `moves` from `board` to the target's placement, side to move and
    rights."""
    assert moves is not None
    for move in moves:
        assert move in board.legal_moves
        board.push(move)
    assert (board.board_fen(), board.turn, board.castling_rights) == \
        (target.board_fen(), target.turn, target.castling_rights)


# seed 79426 of bench/legal.py: every capture made, Black's rook on a8 must reach h3, its only
# way out past its bishops on d7 and e7, which stand on their own target squares
SEED_79426 = "qn2n3/3bb1Pk/1p1p4/p2B1pp1/2P3p1/PPQp1N1r/3N1K1R/1RB5 w - - 7 55"
CRAMPED = "rnq1n3/3bb1Pk/1p1p4/p2B1pp1/2P3p1/PPQp1N2/3N1K1R/1RB5 b - - 8 41"


def test_the_placement_guide_counts_the_held_pieces_that_must_step_aside(monkeypatch):
    """Seed 79426's cramped board: Black's rook on a8 must reach h3; with the pieces on their
    own target squares standing still it has no way there (python-chess: it reaches neither h3
    nor any square of the h-file), so the guide releases one held piece at a time, and the
    placement search finds the target within 1,000 positions (python-chess replays it); with
    the guide before (two moves more, whatever the held pieces), 3,000 are not enough."""
    target, board = chess.Board(SEED_79426), chess.Board(CRAMPED)
    held = spg_targets.anchored(target, 0, board) & ~board.pawns
    still = board.copy()
    still.clear_board()
    for square in chess.scan_forward(held | board.pawns | chess.BB_A8):
        piece = board.piece_at(square)
        assert piece is not None
        still.set_piece_at(square, piece)
    assert not rook_squares(still, chess.A8) & chess.BB_FILE_H
    finder = Finder(target, Budget(), 10_000)
    assert finder.placement_moves(board) > finder.moves_left(board) + 2
    assert_places(board, next(finder.search(board.copy(), finder.placement_phase(3.0, 1_000)),
                              None), target)
    monkeypatch.setattr(finder_module, "RELEASE_HELD", False)
    before = Finder(target, Budget(), 10_000)
    assert next(before.search(chess.Board(CRAMPED), before.placement_phase(3.0, 3_000)),
                None) is None


def test_a_plies_try_places_with_the_placement_guide():
    """Seed 25848 of bench/legal.py: a board the finder reached with every capture made, seven
    moves from the target by the bound. Its placement search with the placement guide finds the
    target in 10 positions; guided by the plies the bounds need (a "plies" try's guide until
    2026-12-02) it took 481. A "plies" try now places within 100, and python-chess plays the
    moves to the target's placement, side to move and rights."""
    target = chess.Board("1n4n1/4p2r/r2k2p1/1p1pNP1p/1PPP3P/P2Bb1P1/4q3/RN1b2KR w - - 0 35")
    board = chess.Board("1n4n1/3kp2r/r5pb/1pNp1P1p/1PPP4/P4bP1/4q2P/RN3BKR b - - 0 18")
    finder = Finder(target, Budget(), 10_000)
    assert finder.captures_left(board, chess.WHITE) == finder.captures_left(board, chess.BLACK) == 0
    finder.guide_name = "plies"
    assert_places(board, next(finder.search(board.copy(), finder.placement_phase(3.0, 100)),
                              None), target)
