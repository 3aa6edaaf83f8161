"""Shared fixtures: a corpus of positions from random legal games (python-chess is the oracle),
and a clean Ctrl-C state around every test."""

from __future__ import annotations

import functools
import itertools
import os
import random
from types import SimpleNamespace
from typing import Iterator

import chess
import pytest

from retrologic.spg.distances import INF
from spg_games import published_games  # noqa: F401  (the tests import it from here)

# The suite runs in two processes on two cores: the proof-game engines' race (spg/race.py) would
# only oversubscribe them, so it is off here (tests/test_spg_race.py turns it on for itself);
# set before any test runs, so CLI subprocesses inherit it too.
os.environ.setdefault("RETROLOGIC_RACE", "0")


def random_game(seed: int, max_plies: int = 160) -> list[tuple[chess.Board, chess.Move]]:
    """A random legal game biased towards captures, promotions, castling and en passant.

    Returns (position before, move) pairs; the bias makes rare move kinds common in the corpus.
    """
    rng = random.Random(seed)
    board = chess.Board()
    out = []
    for _ in range(max_plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        special = [m for m in moves if board.is_en_passant(m) or board.is_castling(m) or m.promotion]
        captures = [m for m in moves if board.is_capture(m)]
        roll = rng.random()
        if special and roll < 0.6:
            move = rng.choice(special)
        elif captures and roll < 0.45:
            move = rng.choice(captures)
        else:
            pawn_pushes = [m for m in moves if board.piece_type_at(m.from_square) == chess.PAWN]
            move = rng.choice(pawn_pushes if pawn_pushes and roll < 0.75 else moves)
        out.append((board.copy(stack=False), move))
        board.push(move)
    return out


def game_positions(seed: int, max_plies: int = 160) -> list[chess.Board]:
    """Every position of `random_game(seed, max_plies)`, from the initial array to the one after
    its last move."""
    game = random_game(seed, max_plies)
    boards = [board for board, _ in game]
    end = boards[-1].copy()
    end.push(game[-1][1])
    return boards + [end]


def game_targets(seeds: range, max_plies: int, step: int = 10
                 ) -> Iterator[tuple[list[chess.Board], int]]:
    """(positions of the game, k) for every `step`-th position k of each seed's game: the k-th
    as a target reached from each earlier one (the real game is the oracle)."""
    for seed in seeds:
        boards = game_positions(seed, max_plies)
        for k in range(step, len(boards), step):
            yield boards, k


@pytest.fixture(autouse=True)
def fresh_stop_flag():
    """Every test starts and ends without a pending stop request (limits.request_stop or a
    Ctrl-C in one test must not stop the engines of the next one in the same process)."""
    from retrologic import limits
    limits.reset()
    yield
    limits.reset()


@pytest.fixture(scope="session")
def game_corpus() -> list[tuple[chess.Board, chess.Move]]:
    """About 10,000 (position before, move) pairs from 80 seeded random games."""
    pairs = []
    for seed in range(80):
        pairs.extend(random_game(seed))
    return pairs


BRANDIS = "8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1"   # Hwa's Figure 1: White's last move?


@pytest.fixture(scope="session")
def brandis_discovered() -> SimpleNamespace:
    """Brandis's last move as lastmove/brandis-discovered.toml asks it (no cage library, the
    cage discovered): the result, the cages discovered and the `lastmove-proof` certificate.
    About a minute of CPU (the 103-ply game to Ka2-a1), so asked once per worker for the
    tests that read it (test_lastmove, test_forgery); none of them may change it."""
    from retrologic.lastmove import search as lastmove
    from retrologic.lastmove.cages import closers_for
    from retrologic.position import Position
    position = Position.from_fen(BRANDIS)
    closer, discovered = closers_for([], discover=True, use_library=False)
    result = lastmove.solve(position, 1, closers=[closer])
    return SimpleNamespace(position=position, result=result, discovered=discovered,
                           certificate=lastmove.certificate(position, 1, result))


def puzzle_walk(seed: int, plies: int) -> int:
    """A 4x4-puzzle position after `plies` uniformly random captures from a random start
    (fewer if stuck)."""
    from retrologic.puzzle4x4 import game as p4
    rng = random.Random(seed)
    key = p4.random_start(rng)
    for _ in range(plies):
        ms = p4.moves(key)
        if not ms:
            break
        key = p4.play(key, rng.choice(ms))
    return key


def listing_nodes(pos, plies: int) -> int:
    """The nodes the candidate listing of a last-move answer charges (each position listed is
    one: `lastmove.search.candidates`); a test's small node limit goes on top of them."""
    from retrologic.lastmove.search import candidates
    from retrologic.limits import Budget
    listing = Budget()
    candidates(pos, plies, listing)
    return listing.spent


def plain_blocked_distance(ptype: int, frm: int, to: int, obstacles: int) -> int:
    """A piece's fewest moves from `frm` to `to` with pawns standing on `obstacles`."""
    return plain_blocked_ways(ptype, frm, obstacles).get(to, INF)


@functools.lru_cache(maxsize=None)
def plain_blocked_ways(ptype: int, frm: int, obstacles: int) -> dict[int, int]:
    """A piece's fewest moves from `frm` to every square it reaches with pawns standing on
    `obstacles` (breadth first over python-chess attacks on a board holding only them and the
    piece): it may end on an obstacle's square, never pass or leave one (except `frm`)."""
    board = chess.BaseBoard.empty()
    for sq in chess.scan_forward(obstacles):
        board.set_piece_at(sq, chess.Piece(chess.PAWN, chess.BLACK))
    ways, frontier = {frm: 0}, [frm]
    while frontier:
        reached = []
        for sq in frontier:
            if sq != frm and obstacles & chess.BB_SQUARES[sq]:
                continue
            walker = board.copy()
            walker.set_piece_at(sq, chess.Piece(ptype, chess.WHITE))
            for to in walker.attacks(sq):
                if to not in ways:
                    ways[to] = ways[sq] + 1
                    reached.append(to)
        frontier = reached
    return ways


def random_walk(rng: random.Random, plies: int) -> chess.Board:
    """The board after up to `plies` random legal moves from the initial array (`rng` chooses;
    the walk stops early at mate or stalemate)."""
    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def replayed(moves: list[chess.Move]) -> chess.Board:
    """The board after `moves` from the initial array, each asserted legal by python-chess."""
    board = chess.Board()
    for move in moves:
        assert board.is_legal(move), (move.uci(), board.fen())
        board.push(move)
    return board


def stub_tries(monkeypatch, finder, note) -> list:
    """Replaces `finder`'s tries (`Finder._run_try`) by a stub that charges each try's share of
    positions and finds nothing (GiveUp past the node cap, as the real tries), and records
    `note(board)` (the try's start) for each try: what `Finder.find`'s schedule set up."""
    from retrologic.legalgame.finder import GiveUp
    seen: list = []

    def run_try(_attempt, nodes, board):
        seen.append(note(board))
        finder.nodes += nodes
        if finder.nodes > finder.node_cap:
            raise GiveUp
        return None

    monkeypatch.setattr(finder, "_run_try", run_try)
    return seen


def pigeonhole(n: int) -> list[list[int]]:
    """n + 1 pigeons in n holes, as CNF: unsatisfiable; var(p, h) = p * n + h + 1 (the
    proof-checker tests' refutation with a known answer)."""
    def v(p: int, h: int) -> int:
        return p * n + h + 1
    out = [[v(p, h) for h in range(n)] for p in range(n + 1)]
    for h in range(n):
        for p, q in itertools.combinations(range(n + 1), 2):
            out.append([-v(p, h), -v(q, h)])
    return out
