"""Independent oracles for the trajectory tests (a helper module; it holds no tests): one-move
generators (python-chess's, and a plain geometric one that also handles enter-only and
cross-only obstacles), breadth-first search, and exhaustive enumeration of every walk of a given
length. Nothing here imports retrologic."""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterator

import chess

STEPS = {
    chess.KNIGHT: [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
    chess.KING: [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)],
    chess.BISHOP: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    chess.ROOK: [(1, 0), (-1, 0), (0, 1), (0, -1)],
}
STEPS[chess.QUEEN] = STEPS[chess.BISHOP] + STEPS[chess.ROOK]
SLIDERS = {chess.BISHOP, chess.ROOK, chess.QUEEN}
INF = 10**9

Moves = Callable[[int], list[tuple[int, bool]]]


def geometric_moves(piece: int, color: bool, no_entry: set[int], no_cross: set[int]) -> Moves:
    """One-move destinations (square, is_capture) by walking the board's geometry."""
    def moves(sq: int) -> list[tuple[int, bool]]:
        f, r = chess.square_file(sq), chess.square_rank(sq)
        out: list[tuple[int, bool]] = []
        if piece == chess.PAWN:
            if r in (0, 7):
                return []
            dr = 1 if color else -1
            home = 1 if color else 6
            one = chess.square(f, r + dr)
            if one not in no_entry:
                out.append((one, False))
            if r == home and one not in no_cross and chess.square(f, r + 2 * dr) not in no_entry:
                out.append((chess.square(f, r + 2 * dr), False))
            for df in (-1, 1):
                if 0 <= f + df < 8 and chess.square(f + df, r + dr) not in no_entry:
                    out.append((chess.square(f + df, r + dr), True))
            return out
        for df, dr in STEPS[piece]:
            x, y = f + df, r + dr
            while 0 <= x < 8 and 0 <= y < 8:
                s = chess.square(x, y)
                if s not in no_entry:
                    out.append((s, False))
                if piece not in SLIDERS or s in no_cross:
                    break
                x, y = x + df, y + dr
        return out
    return moves


def python_chess_moves(piece: int, color: bool, blocked: set[int]) -> Moves:
    """One-move destinations from python-chess's pseudo-legal move generator: the unit alone with
    own-colour blockers on `blocked`; for pawns, enemy victims on both diagonal squares."""
    def moves(sq: int) -> list[tuple[int, bool]]:
        if piece == chess.PAWN and chess.square_rank(sq) in (0, 7):
            return []
        board = chess.Board(None)
        board.turn = color
        for b in blocked:
            board.set_piece_at(b, chess.Piece(chess.KNIGHT, color))
        board.set_piece_at(sq, chess.Piece(piece, color))
        if piece == chess.PAWN:
            f, r = chess.square_file(sq), chess.square_rank(sq)
            dr = 1 if color else -1
            for df in (-1, 1):
                if 0 <= f + df < 8:
                    v = chess.square(f + df, r + dr)
                    if v not in blocked:
                        board.set_piece_at(v, chess.Piece(chess.KNIGHT, not color))
        out = {(m.to_square, board.is_capture(m)) for m in board.pseudo_legal_moves
               if m.from_square == sq}
        return sorted(out)
    return moves


def bfs(moves: Moves, start: int) -> dict[int, int]:
    """Plain breadth-first distances over squares."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        x = queue.popleft()
        for y, _ in moves(x):
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


def pawn_state_bfs(moves: Moves, color: bool, start: int,
                   promoted: Moves | None = None) -> dict[tuple[int, int, bool], int]:
    """Breadth-first distances over (square, captures so far, promoted?) for a pawn."""
    top = 7 if color else 0
    dist = {(start, 0, False): 0}
    queue = deque(dist)
    while queue:
        x = queue.popleft()
        sq, c, prom = x
        if prom:
            nxt = [(y, c, True) for y, _ in promoted(sq)] if promoted else []
        elif chess.square_rank(sq) == top:
            nxt = []
        else:
            nxt = [(y, c + cap, promoted is not None and chess.square_rank(y) == top)
                   for y, cap in moves(sq)]
        for y in nxt:
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


def walks(moves: Moves, start: int, length: int, target: int) -> Iterator[tuple[int, ...]]:
    """Every walk of exactly `length` moves from start to target (no pruning at all)."""
    path = [start]

    def rec() -> Iterator[tuple[int, ...]]:
        if len(path) - 1 == length:
            if path[-1] == target:
                yield tuple(path)
            return
        for y, _ in moves(path[-1]):
            path.append(y)
            yield from rec()
            path.pop()
    yield from rec()


def min_pieces(walk: tuple[int, ...], dist: Callable[[int, int], int]) -> int:
    """Fewest cuts of a walk into shortest pieces, by dynamic programming over all cut points."""
    n = len(walk)
    best = [INF] * n
    best[0] = 0
    for j in range(1, n):
        for i in range(j):
            if best[i] < INF and dist(walk[i], walk[j]) == j - i:
                best[j] = min(best[j], best[i] + 1)
    return max(best[-1], 1) if n > 1 else 1
