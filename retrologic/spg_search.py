"""The complete move-level search of a proof game: every legal game of exactly N plies from the
start that ends on the target placement, found by depth-first search with python-chess.

Pruning uses only a sound test (`prune(board, plies_left)` is True only when no continuation
can reach the target), so nothing is lost. Searched positions are memoised with the plies left
(those the bound prunes at once are not: pruning again is as cheap): a dead position is never
searched twice, and live ones keep the moves that lead on to the target, so the
solutions form a small graph that is counted and listed without searching again.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import chess

Key = tuple
END = ()  # children of a final, matching position: the empty path


class LimitHit(Exception):
    """A node or time limit stopped the search; the answer is unknown."""


@dataclass
class Limits:
    """Resource limits of one search (None: unlimited) and progress reporting."""

    timeout: float | None = None
    nodes: int | None = None
    progress: bool = False
    positions: int = 3_000_000  # memoised positions kept at most (about 1 GB): then unknown
    started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float | None:
        return None if self.timeout is None else self.timeout - (time.monotonic() - self.started)


def key_of(board: chess.Board, plies: int) -> Key:
    """A position with the plies still to play (e.p. kept only when a capture is legal)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.turn, board.castling_rights,
            board.ep_square if board.ep_square is not None and board.has_legal_en_passant()
            else None, plies)


@dataclass
class SearchResult:
    """The graph of solutions (live position key -> (move, child key) pairs) and statistics."""

    root: Key
    graph: dict[Key, tuple]
    nodes: int
    seconds: float
    complete: bool = True
    reason: str | None = None

    def count(self) -> int:
        """The number of solutions (paths from the root to a final position)."""
        memo: dict[Key, int] = {}

        def walk(k: Key) -> int:
            hit = memo.get(k)
            if hit is not None:
                return hit
            children = self.graph.get(k)
            if children is None:
                n = 0
            elif children == END:
                n = 1
            else:
                n = sum(walk(c) for _, c in children)
            memo[k] = n
            return n

        return walk(self.root) if self.root in self.graph else 0

    def games(self, limit: int | None = None) -> Iterator[list[chess.Move]]:
        """The solutions as move lists, in search order (at most `limit`)."""
        produced = 0
        stack: list[tuple[Key, list[chess.Move]]] = [(self.root, [])]
        if self.graph.get(self.root) is None:
            return
        while stack:
            k, path = stack.pop()
            children = self.graph.get(k)
            if children is None:
                continue
            if children == END:
                yield path
                produced += 1
                if limit is not None and produced >= limit:
                    return
                continue
            for move, child in reversed(children):
                stack.append((child, path + [move]))


class Search:
    """Depth-first search for all games of `plies` plies from `start` ending on `target`."""

    def __init__(self, start: chess.Board, target: chess.BaseBoard, plies: int,
                 prune: Callable[[chess.Board, int], bool],
                 move_filter: Callable[[chess.Board, chess.Move, int], bool] | None = None,
                 limits: Limits | None = None,
                 candidates: Callable[[chess.Board, int], list[chess.Move]] | None = None) -> None:
        self.start = start
        self.target = target
        self.plies = plies
        self.prune = prune
        self.move_filter = move_filter
        self.candidates = candidates  # the moves to try, generated once per position
        self.limits = limits or Limits()
        self.graph: dict[Key, tuple | None] = {}
        self.nodes = 0
        self._target_key = (target.pawns, target.knights, target.bishops, target.rooks,
                            target.queens, target.kings, target.occupied_co[chess.WHITE])
        self._next_check = self._check_after(0)
        self._last_report = time.monotonic()

    def run(self) -> SearchResult:
        board = self.start.copy(stack=False)
        t0 = time.monotonic()
        complete, reason = True, None
        root = key_of(board, self.plies)
        try:
            self._visit(board, self.plies)
        except LimitHit as e:
            complete, reason = False, str(e)
        graph = {k: v for k, v in self.graph.items() if v is not None}
        if self.limits.progress:
            print(f"spg: {self.nodes} nodes, {time.monotonic() - t0:.2f} s", file=sys.stderr)
        return SearchResult(root, graph, self.nodes, time.monotonic() - t0, complete, reason)

    def _check_after(self, nodes: int) -> int:
        """The node count of the next limit check: every 4096 nodes, and just past a node limit."""
        nxt = nodes + 4096
        limit = self.limits.nodes
        return nxt if limit is None or limit < nodes else min(nxt, limit + 1)

    def _check_limits(self) -> None:
        lim = self.limits
        if lim.nodes is not None and self.nodes > lim.nodes:
            raise LimitHit(f"node limit {lim.nodes} reached")
        if len(self.graph) > lim.positions:
            raise LimitHit(f"memory limit reached ({lim.positions} positions stored)")
        now = time.monotonic()
        if lim.timeout is not None and now - lim.started > lim.timeout:
            raise LimitHit(f"time limit {lim.timeout:g} s reached")
        if lim.progress and now - self._last_report > 2.0:
            self._last_report = now
            print(f"spg: {self.nodes} nodes, {len(self.graph)} positions, "
                  f"{now - lim.started:.1f} s", file=sys.stderr)

    def _is_target(self, board: chess.Board) -> bool:
        return (board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                board.kings, board.occupied_co[chess.WHITE]) == self._target_key

    def _visit(self, board: chess.Board, plies: int) -> bool:
        """Search below `board`; True when some continuation reaches the target."""
        key = key_of(board, plies)
        if key in self.graph:
            return self.graph[key] is not None
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._next_check = self._check_after(self.nodes)
            self._check_limits()
        if plies == 0:
            live = self._is_target(board)
            self.graph[key] = END if live else None
            return live
        if self.prune(board, plies):
            # not memoised: the bounds are cached per side, so pruning again costs no more than a
            # lookup, and most positions end here (keeps the memory limit for searched ones)
            return False
        children = []
        flt = self.move_filter
        moves = self.candidates(board, plies) if self.candidates else list(board.legal_moves)
        for move in moves:
            if flt is not None and not flt(board, move, plies):
                continue
            board.push(move)
            if self._visit(board, plies - 1):
                children.append((move, key_of(board, plies - 1)))
            board.pop()
        self.graph[key] = tuple(children) if children else None
        return bool(children)
