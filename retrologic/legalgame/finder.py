"""A legal game from the initial array to a full position, of any length: legality by
construction (issue #19; Texel's proof-game tool is the reference: a capture kernel first, then
a guided search).

The game is built in two phases on the proof-game analysis (`spg.analysis`: the identity-free
lower bound of each side's remaining moves, §10 of shared/seeds/malikovic-spg-trajectories-coq.txt):

1. **Captures.** While either side still has captures to make (its opponent has more units
   than the target), a greedy best-first search looks for the next capture that keeps both
   sides' bounds finite, guided by the capture plan (`legalgame.kernel`: one joint assignment
   of each side's units to its target units says which pawns must capture, where, and which
   of the opponent's units are left over to be taken) -- how close a planned pawn and a
   left-over victim stand to one of its capture squares, or a piece or left-over pawn of the
   capturing side to a victim (a piece's way around the position's pawns in every other try,
   `Reach.blocked_rings`, on the distance maps alone in the others). The best `BRANCHES`
   captures found are tried in turn, depth first (backtracking at dead ends).
2. **Placement.** A weighted A* on the bound (with the side to move and the castling rights
   the target asks for) plays the units to their target squares.

A game that fails is tried again with the other settings of `TRIES` (weights, guide, slack),
then again with random tie-breaks (a hash of each position with the try's and the search's
salt, `Finder.tie`), until the node cap (`FIND_NODES`, a count: every expanded position
counts). The tries start short (`FIRST_SHARE` nodes) and double per round: a bad capture prefix
is left early, and a restart often finds one that places in a few nodes (bench/README-legal.md);
a jittered try also follows another plan of the same capture count (a salted assignment). Each
round ends with tries from the deepest boards the tries reached (`legalgame.elite`). A capture
counts as an outcome only when the opponent can still give up the right units at the right
places (`kernel.victims_fit`: seed 3000's last capture was b5xa4 with White's left-over unit a
pawn walled in on c2; the settled pawns, `legalgame.walls`, count as never leaving their files,
`kernel.locked_pawns`) and the proof kernel still leads to the target's pawn columns
(`legalgame.columns`). The per-node work is memoised by what it depends on, and a child is
scored only when it comes out of the queue first (under a floor of its score: `Phase.floor`,
the same order of expansion). Dead ends the
bound misses are cut by two checks of our own (`legalgame.bounds`, with the bound itself): the
pawns' captures must fit within the captures left all together (`captures_fit`), and pawns
that can never move again must stand on target pawns (`stuck_pawns`); and the bound treats the
pawns settled for good as walls (`walls`). The search is a heuristic: it never proves anything
by failing (the caller says *unknown*); what it finds is a real game, which `legalgame.checker`
replays with python-chess.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Callable, Iterator, NamedTuple

import chess

from retrologic.legalgame.columns import Columns
from retrologic.legalgame.elite import Elite
from retrologic.legalgame.bounds import BOUNDS_MEMO, Bounds, plies_needed
from retrologic.legalgame.kernel import (Planner, SidePlan, plan_distance, promotions_fit,
                                         victims_fit)
from retrologic.legalgame.last_check import (check_lines, early_check, early_checkers,
                                             late_arrival)
from retrologic.legalgame.stipulated import immobile
from retrologic.legalgame.walls import Walls
from retrologic.limits import Budget, LimitHit
from retrologic.spg.analysis import Analysis, scipy_hungarian
from retrologic.spg.distances import INF
from retrologic.spg.targets import BACK_RANK, anchored

class Try(NamedTuple):
    """One try of the finder: the weight of the capture distance in the capture searches, the
    weight of the guide in the placement search, the node cap of a capture search, the slack
    (how much a capture may raise the victim side's bound: a unit the target needs, to be
    replaced by a promotion, raises it; 0 keeps such units; the last capture has none, see
    `capture_phase`), and the capture searches' guide:
    "moves" (both sides' bounds added up) or "plies" (the plies the bounds need, with the side
    to move), besides the capture plan (`kernel.plan_distance`); every placement search's
    guide is `Finder.placement_moves`."""

    capture_weight: float
    place_weight: float
    nodes: int
    slack: int
    guide: str


# two tries weigh the guides half, closer to plain A*: with the second, 18 of 50 positions the
# 10 s runs missed were found in 10 s, against 6 (2026-12-03, bench/README-legal.md); try 3,
# the one with slack and the "plies" guide, finds games no other does (august-1924's)
TRIES = (Try(2.0, 3.0, 1_500, 0, "moves"), Try(2.0, 3.0, 1_500, 0, "plies"),
         Try(1.0, 1.5, 4_000, 0, "moves"), Try(2.0, 3.0, 4_000, INF, "plies"),
         Try(1.0, 1.5, 4_000, 0, "plies"))
GUIDES = ("moves", "plies")  # the first tries, one per guide, run without jitter
PLACEMENT_SCALE = 3  # the placement search may expand this many times a capture search's cap
BRANCHES = 3  # capture outcomes tried in turn before backtracking further
TRY_SHARE = 6  # a try expands at most 1/TRY_SHARE of the node cap
FIRST_SHARE = 300  # nodes of each try in the first round (each round doubles it)
UNPLANNED = 40  # the capture distance of a position whose captures the plan cannot place
JITTER = 2.0  # random tie-break of the restarts, in moves of the guide
FIND_NODES = 60_000  # positions one `find` expands at most over all its tries (then: not found)
TIE_MASK = (1 << 32) - 1  # the bits of a position's hash that make its tie-break (`tie`)
CHECK_VICTIMS = True  # a capture is an outcome only when `kernel.victims_fit` holds after it
ELITE_TRIES = 1  # tries per round from the deepest boards reached (`legalgame.elite`)
RELEASE_HELD = True  # `placement_moves` releases held pieces one at a time (seed 79426)
SALT = 0  # added to every jittered try's salt (bench/legal.py --salt: other draws, same rules)
LATE_ARRIVAL = True  # the placement guide counts a checker's way round (`last_check`, 79597)
LATE_SCORES = True  # children queued under a floor of their score, scored when they come out


class GiveUp(Exception):
    """The finder's own node cap (FIND_NODES) is spent: no game found, no limit of the user's."""


class TryOver(Exception):
    """One try's share of the node cap is spent: the next try starts."""


def placement_key(board: chess.BaseBoard) -> tuple[int, ...]:
    """The placement as a tuple of bitboards (compares boards by units and squares only)."""
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE])


@dataclass
class Phase:
    """What one phase of the search is after: `done` a position (and its parent) that ends
    it, `score` the priority of a position (lower first; None: dead), over `nodes` at most;
    `floor`, when given, a cheaper lower bound of `score` (None only where `score` is None):
    a child is queued under it and scored when it comes out first (`Finder.search`)."""

    done: Callable[[chess.Board, chess.Board], bool]
    score: Callable[[chess.Board, int], float | None]
    nodes: int
    floor: Callable[[chess.Board, int], float | None] | None = None


class Finder(Bounds):
    """Builds a legal game from the initial array to `target` (a full position, no e.p. square:
    the caller retracts a double step first), under `budget` (LimitHit when it is spent)."""

    def __init__(self, target: chess.Board, budget: Budget, node_cap: int = FIND_NODES) -> None:
        self.target = target
        self.budget = budget
        self.rights = target.clean_castling_rights()
        self.start = chess.Board()
        self.frozen_extra = immobile(target)   # a right's king and rook, stipulated units
        # SciPy's assignment solver (loaded by `legalgame.kernel` anyway): the same bounds;
        # the walls' views and `captures_fit` take it from here
        self.analysis = Analysis(self.start, target, extra_frozen=self.frozen_extra,
                                 assignment=scipy_hungarian)
        self.frozen = self.analysis.frozen
        self.walls = Walls(self.start, target, self.frozen_extra, self.analysis.assignment)
        self.target_key = placement_key(target)
        self.target_pawns = {c: target.pawns & target.occupied_co[c] for c in chess.COLORS}
        self.count = {c: chess.popcount(target.occupied_co[c]) for c in chess.COLORS}
        self.nodes = 0
        self.node_cap = node_cap
        self.jitter = 0.0
        self.guide_name = "moves"
        self.try_end = node_cap
        self.place_cap = node_cap  # a placement search expands at most this many positions
        self.fits: dict[tuple, bool] = {}
        # memo tables of the per-node work (each a pure function of its key): a unit's fewest
        # pawn captures per target unit, the assignment blocks of `captures_fit`, distances, and
        # `side_bounds` by position (restarts and sibling searches meet the same positions)
        self.fit_columns: dict[tuple, tuple[tuple[int, ...], int]] = {}
        self.fit_blocks: dict[tuple, int] = {}
        self.distances: dict[tuple, int] = {}
        self.bounds: dict[tuple, tuple[int, int] | None] = {}
        self.held: dict[tuple, int | None] = {}
        self.parts: dict[tuple, int] = {}
        self.raw_parts: dict[tuple, int] = {}
        self.ring_memo: dict[tuple, tuple[int, ...]] = {}
        self.blocked_memo: dict[tuple, tuple[int, ...]] = {}
        self.plans: dict[tuple, SidePlan | None] = {}
        self.locks: dict[tuple, int] = {}
        self.victim_memo: dict[tuple, int] = {}
        self.planner = Planner(self.analysis)
        self.plan_salt = 0     # 0: the cheapest plan; else a salted one (`kernel.side_plan`)
        self.around_pawns = True  # the plan's guide walks pieces around the pawns (`find`)
        self.check_victims = CHECK_VICTIMS
        self.round = 0         # `find`'s place in its schedule (resumed there after a LimitHit)
        self.next_try = 0
        self.round_start = 0   # `nodes` when the round began
        self.exhausted = False  # the node cap is spent or every start is dead
        self.elite = Elite()   # the deepest boards the tries reached (`_extend`)
        self.checks = check_lines(target)
        self.checked_king = target.king(target.turn)   # the checks' king's target square
        self.late_memo: dict[tuple, int] = {}          # `last_check.late_arrival`'s figures
        self.columns = Columns(target)  # the proof kernel's check of capture outcomes

    # the guides ---------------------------------------------------------------------------------

    def guide(self, board: chess.Board) -> int | None:
        """The current try's guide (see `Try`; None: never); with no capture left, in every try,
        `placement_moves` ("plies" placed far slower: bench/README-legal.md, 2026-12-02); two
        more for a check of the target given too early (`legalgame.last_check`)."""
        if self.captures_done(board):
            return self.placement_moves(board)
        return self.capture_guide(board, self.side_bounds(board))

    def guide_floor(self, board: chess.Board) -> int | None:
        """A floor of `guide` while captures are left: its bounds from `side_floor`."""
        if self.captures_done(board):
            return self.guide(board)
        return self.capture_guide(board, self.side_floor(board))

    def capture_guide(self, board: chess.Board, bounds: tuple[int, int] | None) -> int | None:
        """The capture searches' guide from both sides' `bounds` (None: never): the plies they
        need (`plies_left`) or the moves (`moves_left`), as the try says, and two more for a
        check of the target given too early."""
        if bounds is None:
            return None
        white, black = bounds
        moves = plies_needed(board.turn, white, black, self.target.turn) \
            if self.guide_name != "moves" else self.with_parity(board, white + black)
        if self.checks and early_check(board, self.checks):
            moves += 2
        return moves

    def placement_moves(self, board: chess.Board) -> int | None:
        """`moves_left` with the obstruction split of Malikovic §7 as a guide (a heuristic, not
        claimed a bound): either the pieces standing on their own target squares all stay there
        (the bound with them frozen too: a rook whose way along the back rank its own queen
        and rook close, seed 6057) or one of them steps aside and back (two moves more) or
        two or more do (four). Where the frozen bound asks more than two, the split goes one
        level down: each held piece of the sides it hinders, released alone, gives the bound
        with the others frozen plus two (seed 79426: a rook shut in behind its own bishops,
        placed from that board in 692 positions against none in 5,000 with two more flat);
        two more as well for a check of the target given too early, or the moves a checker
        needs to keep off the checked king's square until the king is there
        (`legalgame.last_check`, whichever is more).
        Memoised by placement, castling rights and side to move."""
        key = self.bounds_key(board) + (board.turn,)
        hit = self.held.get(key, False)
        if hit is False:
            if len(self.held) > BOUNDS_MEMO:
                self.held.clear()
            hit = self.held[key] = self._placement_moves(board)
        return hit

    def _placement_moves(self, board: chess.Board) -> int | None:
        """`placement_moves` computed."""
        plain = self.moves_left(board)
        early = early_checkers(board, self.checks) if self.checks else 0
        if plain is not None and self.checks:
            late = late_arrival(board, self.checks, self.checked_king, self.frozen,
                                self.analysis.distances.piece_distance, self.late_memo) \
                if LATE_ARRIVAL and self.checked_king is not None else 0
            plain += max(2 if early else 0, late)
        # a checker there too early is not held: it steps aside and back (counted above)
        held = anchored(self.target, self.frozen, board) & ~board.pawns & \
            ~(early if LATE_ARRIVAL else 0)
        if plain is None or not held:
            return plain
        walls = self.walls.of(board)
        parts = self.frozen_parts(board, walls | held)
        stay = self.staying(board, parts)
        if not RELEASE_HELD or stay <= plain + 2:
            return max(plain, min(stay, plain + 2))
        # the held pieces hinder more than one step aside can explain: one of them steps aside
        # and back (the bound with the others held, two moves more), or two or more do (four);
        # the pieces released are those of the sides the held ones raise by more than two
        bounds = self.side_bounds(board)
        assert bounds is not None       # `moves_left` was finite
        crowded = 0
        for color, part, bound in zip((chess.WHITE, chess.BLACK), parts, bounds):
            if part > bound + 2:
                crowded |= board.occupied_co[color]
        best = plain + 4
        for square in chess.scan_forward(held & crowded):
            release = self.frozen_parts(board, walls | held & ~chess.BB_SQUARES[square])
            best = min(best, self.staying(board, release) + 2)
            if best <= plain + 2:
                # walls never lower a bound, so no other release gives less (but for the two of
                # a check given too early, which `plain` counts and `staying` does not)
                break
        return max(plain, best)

    def frozen_parts(self, board: chess.Board, walls: int) -> tuple[int, int]:
        """(White's, Black's) bounds with the units on `walls` never moving, each with two more
        per castling right kept that the target has lost (INF: never)."""
        view = self.walls.view(walls)
        white, black = (view.side_bound(board, color)
                        + self.rights_moves(board.castling_rights & BACK_RANK[color])
                        for color in chess.COLORS)
        return white, black

    def staying(self, board: chess.Board, parts: tuple[int, int]) -> int:
        """Both sides' `frozen_parts` added up, with the side to move (INF: never)."""
        if max(parts) >= INF:
            return INF
        return self.with_parity(board, sum(parts))

    # the phases ---------------------------------------------------------------------------------

    def legal_moves(self, board: chess.Board) -> Iterator[chess.Move]:
        """The legal moves that neither move nor capture a unit that must stand still."""
        frozen = self.frozen
        for move in board.legal_moves:
            if chess.BB_SQUARES[move.from_square] & frozen or \
                    chess.BB_SQUARES[move.to_square] & frozen:
                continue
            yield move

    def is_target(self, board: chess.Board) -> bool:
        # `find_game` strips a stated e.p. square, so the target here states none: a game whose
        # last double step leaves an e.p. capture legal reaches another position (FEN "-").
        return (board.turn == self.target.turn and placement_key(board) == self.target_key
                and board.clean_castling_rights() == self.rights
                and not board.has_legal_en_passant())

    def search(self, board: chess.Board, phase: Phase) -> Iterator[list[chess.Move]]:
        """Best-first search from `board` for positions `phase.done` accepts: the moves to each,
        best first, until the phase's node cap is reached or every position is dead. Boards are
        kept without their move stacks; a path is rebuilt from parent links.
        With the phase's `floor` (and `LATE_SCORES`), a child is queued under its floor and
        scored only when it comes out of the queue: expanded then if its score is still no
        worse than every entry left (each a floor or a score, so it is the best score of all),
        else queued again under its score. The positions expanded and their order are the
        same as when every child is scored at once (ties go by the same index), but most
        children are never scored: the capture plan's distance, a fifth of the search's CPU,
        was computed for seven to nine times fewer children (bench/README-legal.md, 2026-12-07)."""
        first = phase.score(board, 0)
        if first is None:
            return
        parents: list[tuple[int, chess.Move | None]] = [(-1, None)]
        root = board.copy(stack=False)
        # (score or floor, index, board, depth, scored)
        heap: list[tuple[float, int, chess.Board, int, bool]] = [(first, 0, root, 0, True)]
        floor = phase.floor if LATE_SCORES else None
        seen = {root._transposition_key()}
        expanded = 0
        jitter, salt = self.jitter, self.search_salt(root)

        def path(index: int) -> list[chess.Move]:
            moves = []
            while index > 0:
                index, move = parents[index]
                moves.append(move)
            return moves[::-1]

        while heap:
            _, index, node, depth, scored = heapq.heappop(heap)
            if not scored:
                score = phase.score(node, depth)
                if score is None:
                    continue
                if jitter:
                    score += jitter * self.tie(node, salt)
                if heap and (score, index) > heap[0][:2]:
                    heapq.heappush(heap, (score, index, node, depth, True))
                    continue
            expanded += 1
            self.nodes += 1
            self.budget.check(1, every=16)
            if self.nodes > self.node_cap:
                raise GiveUp
            if self.nodes > self.try_end:
                raise TryOver
            if expanded > phase.nodes:
                return
            for move in list(self.legal_moves(node)):
                child = node.copy(stack=False)
                child.push(move)
                key = child._transposition_key()
                if key in seen:
                    continue
                seen.add(key)
                parents.append((index, move))
                if phase.done(child, node):
                    yield path(len(parents) - 1)
                    continue
                score = (floor or phase.score)(child, depth + 1)
                if score is not None:
                    if jitter:
                        score += jitter * self.tie(child, salt)
                    heapq.heappush(heap, (score, len(parents) - 1, child, depth + 1,
                                          floor is None))

    def capture_phase(self, units: int, weight: float, nodes: int, slack: int) -> Phase:
        """The next capture (fewer than `units` units on the board) that keeps both bounds
        finite and raises the victim side's bound by at most `slack`, unless it is the last
        capture: then only the placement is left, and a unit the target needs may have to be
        the victim, replaced by a promotion (seed 33531's tries stalled at their last capture,
        where every capture that kept the bounds finite raised the victim's;
        bench/README-legal.md, 2026-12-02). With the plan, a
        position where a capture still to make has no planned capturer and victim in reach
        (`plan_distance` INF: e.g. a pawn must capture on f5 but the one unit left over is a
        pawn on another file, seed 126) is searched only after the others, as if its
        capture were `UNPLANNED` moves away (not dead: another plan may still fit). Greedy:
        the plies played cost nothing, so a plateau of equal guide values is walked rather
        than swept breadth first (a quarter move per ply: 21-24 % more CPU, the same share
        found; bench/README-legal.md, 2026-11-29). A capture the checks reject is a dead end
        (below it a later move's check would compare the other side's bounds)."""
        bound = self.analysis.bound

        def done(board: chess.Board, parent: chess.Board) -> bool:
            if chess.popcount(board.occupied) >= units or self.side_bounds(board) is None:
                return False
            victim = board.turn
            return (self.captures_done(board) or bound.side_bound(board, victim)
                    <= bound.side_bound(parent, victim) + slack) \
                and (not self.check_victims or victims_fit(self, board)
                     and promotions_fit(self, self.target, board)) and self.columns.fit(board)

        def score(board: chess.Board, _depth: int) -> float | None:
            if chess.popcount(board.occupied) < units:
                return None     # a capture `done` rejected: not a way to the next capture
            moves = self.guide(board)
            return None if moves is None else weight * self.capture_near(board) + 0.5 * moves

        def floor(board: chess.Board, _depth: int) -> float | None:
            # `capture_near` is at least 1: a capture takes a move (`kernel.plan_distance`)
            if chess.popcount(board.occupied) < units:
                return None
            moves = self.guide_floor(board)
            return None if moves is None else weight + 0.5 * moves

        return Phase(done, score, nodes, floor)

    def capture_near(self, board: chess.Board) -> int:
        """The capture searches' distance to the next capture: the capture plan's (at most
        `UNPLANNED`); the plan finder adds its trapped units."""
        return min(plan_distance(self, board), UNPLANNED)

    @staticmethod
    def tie(board: chess.Board, salt: int) -> float:
        """The random tie-break of a position in [0, 1) (`search` adds `jitter` times it): a
        hash of its placement, side to move and rights with the search's `salt` (`search_salt`),
        a function of the position alone rather than a draw per scored child, so a cut that
        drops some children leaves the others' order as it was, and an A/B run of a cut
        compares searches that differ only where the cut bites. Python's hash of a tuple of
        ints is the same in every process."""
        key = placement_key(board) + (board.turn, board.castling_rights, salt)
        return (hash(key) & TIE_MASK) / (TIE_MASK + 1)

    def search_salt(self, root: chess.Board) -> int:
        """The salt of a search's tie-breaks: the try's (`plan_salt`, set by `find` from the
        round and the try) with the search's root, so the same search in the same try draws
        the same, however many searches came before it."""
        return hash((self.plan_salt, root.turn, root.castling_rights) + placement_key(root))

    def placement_phase(self, weight: float, nodes: int) -> Phase:
        """The target position itself."""
        def score(board: chess.Board, depth: int) -> float | None:
            moves = self.guide(board)
            return None if moves is None else depth + weight * moves

        def floor(board: chess.Board, depth: int) -> float | None:
            # `placement_moves` is `moves_left` with moves added, never fewer
            if not self.captures_done(board):
                return score(board, depth)
            moves = self.moves_left(board)
            return None if moves is None else depth + weight * moves

        return Phase(lambda board, _parent: self.is_target(board), score, nodes, floor)

    def find(self, rounds: int | None = None) -> list[chess.Move] | None:
        """A game to the target (None: not found within the tries; LimitHit past the budget).
        Resumable (the proof-game route's turns, issue #19): with `rounds`, the search pauses
        once that many rounds of its schedule are done in all (None: it runs until a game, the
        node cap or no start left, `exhausted`), and a later call goes on with the next round;
        after a LimitHit, a later call (with `budget` set to a fresh share) runs the stopped
        try again. The memo tables are kept."""
        if self.analysis.impossible or self.exhausted or self.nodes > self.node_cap:
            return None
        if self.round == 0 and self.next_try == 0:
            self.round_start = self.nodes      # the round's start, again after a LimitHit
        try:
            # the tries in order, then again with random tie-breaks (hashed from the positions
            # and the salts: the same target gives the same game) until the node cap: other
            # captures, other orders. Each round doubles the tries' share of the node cap, from
            # FIRST_SHARE up to 1/TRY_SHARE of the cap: most games are found fast or after a
            # restart, rarely by a long try (measured: bench/README-legal.md)
            while True:
                share = max(min(FIRST_SHARE << self.round, self.node_cap // TRY_SHARE), 1)
                self.place_cap = max(share // 2, 1)
                while self.next_try < len(TRIES) + ELITE_TRIES:
                    number = self.next_try
                    board: chess.Board | None = self.start
                    attempt, salt = TRIES[number % len(TRIES)], \
                        (self.round + 1) * len(TRIES) + number + SALT
                    if number >= len(TRIES):
                        # a round's last tries start from the kept deep boards (`elite`),
                        # another try's settings each round (after a LimitHit: the next one)
                        board, attempt, salt = self.elite.take(), \
                            TRIES[(self.round + number) % len(TRIES)], -salt
                    # the later tries share their first capture searches with the first two
                    # (measured: the same games, the same dead ends), so they start jittered
                    if number >= len(GUIDES):
                        self.jitter = JITTER
                    # a jittered try follows another plan of the same capture count, and its
                    # salt draws its searches' tie-breaks (`search_salt`)
                    self.plan_salt = salt if self.jitter else 0
                    # every other try measures the pieces' ways on the maps alone: each guide
                    # finds games the other misses (bench/README-legal.md, 2026-11-27 23:34)
                    self.around_pawns = (self.round + number) % 2 == 0
                    game = None if board is None else self._run_try(attempt, share, board)
                    self.next_try += 1
                    if game is not None:
                        return game
                if self.nodes == self.round_start:     # nothing to search: every start is dead
                    self.exhausted = True
                    return None
                self.round, self.next_try, self.round_start = self.round + 1, 0, self.nodes
                self.jitter = JITTER
                if rounds is not None and self.round >= rounds:
                    return None
        except GiveUp:
            self.exhausted = True
        return None

    def _run_try(self, attempt: Try, nodes: int, board: chess.Board) -> list[chess.Move] | None:
        """One try from `board` (the start or a kept deep board, its move stack the game so
        far), with at most `nodes` positions (its jitter, plan and salt as the caller set them):
        its game, or None when it ends without one."""
        self.guide_name = attempt.guide
        self.try_end = self.nodes + nodes
        try:
            return self._extend(board.copy(), attempt)
        except TryOver:
            return None

    def _extend(self, board: chess.Board, attempt: Try) -> list[chess.Move] | None:
        """A game through `board` (its move stack is the game so far): depth first over the
        captures, the best `BRANCHES` outcomes of each capture search in turn, then the
        placement search (a dead end at any point backtracks to the previous capture). A
        board past a capture is offered to the deepest boards kept (`elite`)."""
        self.elite.offer(board, self.moves_left(board))
        if self.captures_done(board):
            if self.is_target(board):
                return list(board.move_stack)
            phase = self.placement_phase(attempt.place_weight,
                                         min(PLACEMENT_SCALE * attempt.nodes, self.place_cap))
            moves = next(self.search(board.copy(), phase), None)
            return None if moves is None else board.move_stack + moves
        phase = self.capture_phase(chess.popcount(board.occupied), attempt.capture_weight,
                                   attempt.nodes, attempt.slack)
        outcomes = self.search(board.copy(), phase)
        for moves in itertools.islice(outcomes, BRANCHES):
            after = board.copy()
            for move in moves:
                after.push(move)
            game = self._extend(after, attempt)
            if game is not None:
                return game
        return None


__all__ = ["Finder", "GiveUp", "LimitHit", "Try"]
