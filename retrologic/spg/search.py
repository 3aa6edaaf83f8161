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
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import chess

from retrologic.limits import Budget, LimitHit, interrupted

Key = tuple
END = ()  # children of a final, matching position: the empty path


CHECK_EVERY = 256  # nodes between two looks at the limits (a node: about 0.1 ms)
TRAIL_PLIES = 12   # plies from the root whose move counts make `--progress`'s share estimate
MAX_POSITIONS = 3_000_000  # memoised positions kept at most by default (about 1 GB)


@dataclass
class Limits:
    """The limits of one proof-game question and its progress reporting.

    Time, nodes and Ctrl-C are the shared `retrologic.limits.Budget` (`budget`, made from
    `timeout`/`nodes` when not given), so every reason quotes the user's own figure; the node
    count is the searches' nodes and CP-SAT's work (the strategy layer, the schedule model: its
    conflicts or deterministic time, `cpsat_limits`)
    over the whole question. `positions` is the memory limit: the memoised positions one
    search may keep (then unknown, "memory limit ...").
    """

    timeout: float | None = None
    nodes: int | None = None
    progress: bool = False
    positions: int = MAX_POSITIONS
    budget: Budget | None = None

    def __post_init__(self) -> None:
        if self.budget is None:
            self.budget = Budget(self.timeout, self.nodes)
        else:
            self.timeout, self.nodes = self.budget.timeout, self.budget.nodes

    @property
    def started(self) -> float:
        return self.budget.started

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no time limit)."""
        return self.budget.left()

    def share(self, fraction: float = 1.0, *, seconds: float | None = None,
              node_fraction: float = 1.0) -> "Limits":
        """Limits for an inner step: a share of the time left (see Budget.share), the same node
        count and `node_fraction` of the nodes left (at least one), the reason quoting the
        user's figure; `absorb` takes the count back."""
        parent = self.budget
        child = parent.share(fraction, seconds=seconds)
        child.nodes, child.spent = parent.nodes, parent.spent
        if parent.nodes is not None:
            child.nodes_figure = parent.nodes_figure or parent.nodes
            if node_fraction < 1.0:
                child.nodes = parent.spent + max(int(parent.nodes_left() * node_fraction), 1)
        return Limits(progress=self.progress, positions=self.positions, budget=child)

    def absorb(self, child: "Limits") -> None:
        """Take back the node count of a share made by `share`."""
        self.budget.spent = max(self.budget.spent, child.budget.spent)

    def interrupted(self) -> bool:
        """Ctrl-C (or limits.request_stop) asked every engine to stop."""
        return interrupted()


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


def share_text(share: float) -> str:
    """A share of a tree (`Search.share_done`) as a percentage, two digits down to 0.01 %."""
    percent = 100 * share
    if percent < 0.01:
        return "under 0.01 %"
    return f"{percent:.2g} %" if percent < 10 else f"{percent:.0f} %"


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
        self._charged = 0                 # nodes charged to the budget so far
        self._next_check = 1              # look at the limits on the first node
        self._last_report = time.monotonic()
        # with --progress: [moves done, moves] of each ply of the current path near the root
        self._trail: list[list[int]] = []
        self._trail_above = plies + 1      # plies left above which a position is tracked
        self._finished = False             # the whole tree searched (`share_done` 1.0)
        # (seconds, share): stop once this length's search ran that long and `share_done` is
        # below the share (the race's rule, spg/solver.py); `gave_up` then says so
        self.give_up: tuple[float, float] | None = None
        self.gave_up = False
        self._first_run: float | None = None   # time.monotonic() of the first `run`

    def run(self) -> SearchResult:
        """Search (on from where a limit stopped an earlier run: every memoised position was
        searched to the end, so a second run with more budget only redoes the path it was on)."""
        board = self.start.copy(stack=False)
        t0 = time.monotonic()
        if self._first_run is None:
            self._first_run = t0
        complete, reason = True, None
        self._next_check = self.nodes + 1
        root = key_of(board, self.plies)
        self._trail = []
        tracked = self.limits.progress or self.give_up is not None
        self._trail_above = self.plies - TRAIL_PLIES if tracked else self.plies + 1
        try:
            self._visit(board, self.plies)
            self._finished = True
        except LimitHit as e:
            complete, reason = False, e.reason
        finally:
            self._charge()
        graph = {k: v for k, v in self.graph.items() if v is not None}
        if self.limits.progress:
            print(f"spg: {self.nodes} nodes, {time.monotonic() - t0:.2f} s", file=sys.stderr)
        return SearchResult(root, graph, self.nodes, time.monotonic() - t0, complete, reason)

    def _charge(self) -> None:
        """Charge the nodes searched since the last look to the budget (no check)."""
        self.limits.budget.spent += self.nodes - self._charged
        self._charged = self.nodes

    def _check_after(self, nodes: int) -> int:
        """The node count of the next limit check: every CHECK_EVERY nodes, and just past the
        node limit (the budget's `spent` already holds every node up to `nodes`)."""
        nxt = nodes + CHECK_EVERY
        budget = self.limits.budget
        left = budget.nodes_left()
        if left is not None:
            nxt = min(nxt, nodes + max(left, 0) + 1)
        return nxt

    def _check_limits(self) -> None:
        """Charge the nodes since the last look and raise LimitHit at a limit: nodes, time,
        Ctrl-C (the shared budget), or memory (stored positions)."""
        lim = self.limits
        delta, self._charged = self.nodes - self._charged, self.nodes
        lim.budget.check(delta, every=1)
        if len(self.graph) > lim.positions:
            raise LimitHit(f"memory limit: {lim.positions:,} positions stored (about 1 GB)")
        if self.give_up is not None:
            self._give_up_if_hopeless(*self.give_up)
        if lim.progress:
            now = time.monotonic()
            if now - self._last_report > 2.0:
                self._last_report = now
                print(f"spg: {self.plies} plies, about {share_text(self.share_done())} of the "
                      f"length's tree, {self.nodes} nodes, {len(self.graph)} positions, "
                      f"{lim.budget.elapsed():.1f} s", file=sys.stderr)

    def _give_up_if_hopeless(self, seconds: float, share: float) -> None:
        """Raise LimitHit (and set `gave_up`) once this length has been searched `seconds`
        and the estimated share searched (`share_done`) is still below `share`."""
        assert self._first_run is not None
        ran = time.monotonic() - self._first_run
        if ran >= seconds and self.share_done() < share:
            self.gave_up = True
            raise LimitHit(f"given up after {ran:.0f} s: under {100 * share:g} % of the "
                           f"length's tree searched")

    def _tracked(self, moves: list[chess.Move]) -> Iterator[chess.Move]:
        """`moves` with their place on the trail (`share_done`): a move counts as done when
        the next one is asked for (the search has come back from it, or filtered it out). A
        limit leaves the trail as it was (`share_done` then says where the search stopped;
        `run` starts a fresh one)."""
        place = [0, len(moves)]
        self._trail.append(place)
        for move in moves:
            yield move
            place[0] += 1
        self._trail.pop()

    def share_done(self) -> float:
        """The share of this length's tree searched so far, estimated from the path's place
        among its siblings near the root as if sibling subtrees were alike (Knuth's estimate of
        a backtrack tree, Math. Comp. 29, 1975): never falls as the search goes on, 1.0 at the
        end. Only tracked with --progress (0.0 without, until the end)."""
        if self._finished:
            return 1.0
        share, weight = 0.0, 1.0
        for done, moves in self._trail:
            share += weight * done / moves
            weight /= moves
        return share

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
            self._check_limits()
            self._next_check = self._check_after(self.nodes)
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
        order: Iterable[chess.Move] = moves
        if plies > self._trail_above and moves:    # --progress, near the root
            order = self._tracked(moves)
        for move in order:
            if flt is not None and not flt(board, move, plies):
                continue
            board.push(move)
            if self._visit(board, plies - 1):
                children.append((move, key_of(board, plies - 1)))
            board.pop()
        self.graph[key] = tuple(children) if children else None
        return bool(children)
