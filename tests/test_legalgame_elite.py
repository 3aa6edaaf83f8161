"""The deepest boards the legal-game finder keeps (issue #19, `legalgame.elite`): the ranking
(most captures made, then fewest moves left, then the shortest game), the size bound, the uses
before a board is dropped for good, and the finder's tries from them: every game a try from a
kept board returns is a real game from the initial array (replayed here with python-chess)."""

from __future__ import annotations

import chess

from conftest import replayed, stub_tries

from retrologic.legalgame.elite import Elite
from retrologic.legalgame.finder import ELITE_TRIES, TRIES, Finder
from retrologic.limits import Budget


def board_after(uci: str) -> chess.Board:
    """The initial array after the moves `uci` (space-separated), move stack kept."""
    return replayed([chess.Move.from_uci(move) for move in uci.split()])


ONE_CAPTURE = "e2e4 d7d5 e4d5"
TWO_CAPTURES = "e2e4 d7d5 e4d5 d8d5"
NONE = "g1f3 g8f6"


def test_ranks_by_captures_then_moves_left_then_length() -> None:
    elite = Elite(size=2, uses=1)
    elite.offer(board_after(NONE), 5)                       # no capture made: never kept
    assert not elite.entries
    elite.offer(board_after(ONE_CAPTURE), 9)
    elite.offer(board_after(TWO_CAPTURES), 30)
    elite.offer(board_after("e2e4 d7d5 e4d5 g8f6"), 7)      # displaces ONE_CAPTURE (9 left)
    taken = [elite.take() for _ in range(3)]
    assert taken[0] is not None and chess.popcount(taken[0].occupied) == 30
    assert taken[1] is not None and taken[1].piece_at(chess.F6) is not None
    assert taken[2] is None


def test_the_shorter_game_first_when_captures_and_moves_left_tie() -> None:
    elite = Elite(size=2, uses=1)
    elite.offer(board_after("g1f3 d7d5 e2e4 g8f6 e4d5"), 5)
    elite.offer(board_after(ONE_CAPTURE), 5)
    first, second = elite.take(), elite.take()
    assert first is not None and second is not None
    assert (len(first.move_stack), len(second.move_stack)) == (3, 5)


def test_a_position_is_kept_once_however_many_games_reach_it() -> None:
    elite = Elite(size=2, uses=1)
    elite.offer(board_after("g1f3 d7d5 f3g1 g8f6 e2e4 f6g8 e4d5"), 5)
    elite.offer(board_after(ONE_CAPTURE), 5)               # the same position, a shorter game
    assert len(elite.entries) == 1


def test_a_board_is_handed_out_uses_times_then_dropped_for_good() -> None:
    elite = Elite(size=2, uses=2)
    board = board_after(ONE_CAPTURE)
    elite.offer(board, 4)
    first, second = elite.take(), elite.take()
    assert first is not None and second is not None and first is not second
    assert first.move_stack == board.move_stack
    assert elite.take() is None
    elite.offer(board, 4)                                  # dropped: never kept again
    assert elite.take() is None
    first.push_uci("a7a6")                                 # copies: the kept board is untouched
    assert board.move_stack == board_after(ONE_CAPTURE).move_stack


def test_a_worse_board_does_not_displace_a_better_one() -> None:
    elite = Elite(size=1, uses=1)
    elite.offer(board_after(TWO_CAPTURES), 20)
    elite.offer(board_after(ONE_CAPTURE), 1)
    taken = elite.take()
    assert taken is not None and chess.popcount(taken.occupied) == 30


def test_the_finders_tries_from_kept_boards_give_real_games() -> None:
    # a target with captures on both sides: the finder's tries offer their capture boards, and
    # a try started from a kept board returns the whole game from the initial array
    target = chess.Board("r1bqkb1r/ppp2ppp/2n5/3p4/3P4/5N2/PPP2PPP/RNBQKB1R w KQkq - 0 6")
    finder = Finder(target, Budget(), 6_000)
    game = finder.find()
    assert game is not None
    offered = list(finder.elite.entries.values())
    assert offered, "the tries offered no board past a capture"
    for entry in offered:
        assert chess.popcount(entry.board.occupied) < 32
    from_kept = None
    while from_kept is None:
        board = finder.elite.take()
        assert board is not None, "no try from a kept board found the game"
        from_kept = finder._run_try(TRIES[0], 3_000, board)
    assert finder.is_target(replayed(from_kept))


def test_each_round_ends_with_tries_from_the_kept_boards(monkeypatch) -> None:
    target = chess.Board("r1bqkb1r/ppp2ppp/2n5/3p4/3P4/5N2/PPP2PPP/RNBQKB1R w KQkq - 0 6")
    finder = Finder(target, Budget(), 20_000)
    kept = board_after(TWO_CAPTURES)
    finder.elite = Elite(size=1, uses=3)
    finder.elite.offer(kept, 10)
    seen = stub_tries(monkeypatch, finder, lambda board: (
        finder.round, finder.next_try, len(board.move_stack), finder.plan_salt))
    assert finder.find() is None
    from_kept = [(r, n, salt) for r, n, plies, salt in seen if plies]
    # the kept board three times (its uses), as the tries after a round's plain ones (which
    # all start from the initial array), at most ELITE_TRIES a round, each salted apart
    assert len(from_kept) == 3
    assert all(len(TRIES) <= n < len(TRIES) + ELITE_TRIES for _, n, _ in from_kept)
    assert all(salt < 0 for _, _, salt in from_kept)
    assert all(n < len(TRIES) for _, n, plies, _ in seen if not plies)
    for r, n, _ in from_kept:
        assert [m for q, m, _, _ in seen if q == r and m < len(TRIES)] == list(range(len(TRIES)))
    assert len({r for r, _, _ in from_kept}) == 3 // ELITE_TRIES + (3 % ELITE_TRIES > 0)


def test_salt_moves_every_jittered_try_and_no_other(monkeypatch) -> None:
    """`finder.SALT` (bench/legal.py --salt, a fair screen on seeds earlier finders missed)
    shifts the salt of every jittered try, kept boards' too, and leaves the plain tries' 0."""
    from retrologic.legalgame import finder as finder_module
    target = chess.Board("r1bqkb1r/ppp2ppp/2n5/3p4/3P4/5N2/PPP2PPP/RNBQKB1R w KQkq - 0 6")
    runs = []
    for salt in (0, 1000):
        monkeypatch.setattr(finder_module, "SALT", salt)
        finder = Finder(target, Budget(), 20_000)
        finder.elite = Elite(size=1, uses=3)
        finder.elite.offer(board_after(TWO_CAPTURES), 10)
        runs.append(stub_tries(monkeypatch, finder, lambda board, finder=finder: (
            finder.round, finder.next_try, finder.plan_salt)))
        assert finder.find() is None
    plain, salted = runs
    assert [(r, n) for r, n, _ in plain] == [(r, n) for r, n, _ in salted]
    assert any(s == 0 for _, _, s in plain) and any(s > 0 for _, _, s in plain)
    for (_, _, before), (_, _, after) in zip(plain, salted):
        assert after == (0 if before == 0 else before + 1000 if before > 0 else before - 1000)
