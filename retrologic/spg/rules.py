"""The proof-game search's prune as a list of named rules (the pattern of
`retrologic.legality.rules` and `retrologic.cages.rules`): each rule proves, its own way, that the
target cannot be reached in exactly the plies left. They are tried in the order of `RULES`,
cheapest first; a rule whose switch (`BoundOptions`) is off is left out. Every rule is sound, so
the search pruned by them stays complete."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import chess

from retrologic.spg.bound import Bound, Plans, SideKey, moves_left
from retrologic.spg.coupling import Coupling
from retrologic.spg.memo import Memo
from retrologic.spg.obstruction import Obstruction
from retrologic.spg.options import BoundOptions
from retrologic.spg.targets import Targets

# `VictimVisits` gives itself up when, after VISIT_TRIAL tries, fewer than one in VISIT_RATE
# cut (the obstruction split's rule, spg/obstruction.py): sound either way, only slower or faster
VISIT_TRIAL = 2000
VISIT_RATE = 20


class VictimVisits:
    """The victim-visit cut (issue #22, reach) and its give-up counters: a side's units that
    must be captured cannot all get, within the side's moves left, to squares where the
    opponent can still land a move (`Bound.visit_bound` against the opponent's
    `Coupling.landing_squares` for its moves left). Its cuts are memoised by both side keys
    and the moves left (`dead`, which the move filter reads to drop a quiet move into a
    position already found stranded before it is played, as it does for obstruction)."""

    def __init__(self, targets: Targets, bound: Bound, coupler: Coupling) -> None:
        self.target_count = targets.count
        self.bound = bound
        self.coupler = coupler
        self.tries = self.hits = 0
        # (White's side key, Black's, White's moves left, Black's) -> True: stranded
        self.dead: Memo[tuple[SideKey, SideKey, int, int], bool] = Memo("stranded victims")

    def stranded(self, board: chess.Board, plies: int, keys: tuple[SideKey, SideKey]) -> bool:
        """True when the victims of a side (`keys`: the side keys of the side to move and of
        the other) cannot all be visited in time: no game to the target goes on from here. Not
        tried with an e.p. square pending (as the victims-unreached rules), nor once it has cut
        fewer than one in VISIT_RATE of its first VISIT_TRIAL tries."""
        if board.ep_square is not None or self.hits * VISIT_RATE < self.tries \
                and self.tries >= VISIT_TRIAL:
            return False  # (or it rarely cuts on this problem: not worth its cost)
        left = moves_left(board.turn, plies)
        kw, kb = keys if board.turn == chess.WHITE else keys[::-1]
        memo_key = (kw, kb) + left
        if memo_key in self.dead:
            return True  # (every value the verdict reads is memoised by these keys)
        cut = False
        for key, other in (keys, keys[::-1]):
            color = key.color
            slots = self.bound.plans(board, color, key).slots
            if chess.popcount(board.occupied_co[color]) - self.target_count[color] <= len(slots):
                continue  # no victim beyond the slots of the opponent's forced pawn captures
            mine, theirs = left[0 if color == chess.WHITE else 1], \
                left[1 if color == chess.WHITE else 0]
            where = self.coupler.landing_squares(board, not color, theirs, other)
            if self.bound.visit_bound(board, color, where, key) > mine:
                cut = True
                break
        self.tries += 1
        self.hits += cut
        if cut:
            self.dead[memo_key] = True
        return cut


class Deductions(Protocol):
    """The deductions the rules use besides the bound (`Analysis` has them)."""

    coupler: Coupling
    obstruction_split: Obstruction
    visits: VictimVisits


class Facts:
    """What one prune call knows about the position: the moves each side has left (`w`, `b`),
    and each side's key and plans: White's (`kw`, `pw`) worked out at once (the first rule reads
    them), Black's (`black()`) when a rule first asks (the second rule), as the prune always
    did: a position White's bound cuts never computes Black's plans (the memo tables, which the
    move filter reads, stay as they were)."""

    __slots__ = ("board", "plies", "w", "b", "bound", "kw", "pw", "_black")

    def __init__(self, bound: Bound, board: chess.Board, plies: int) -> None:
        self.board, self.plies = board, plies
        self.w, self.b = moves_left(board.turn, plies)
        self.bound = bound
        self.kw = bound.side_key(board, chess.WHITE)
        self.pw = bound.plans(board, chess.WHITE, self.kw)
        self._black: tuple[SideKey, Plans] | None = None

    def black(self) -> tuple[SideKey, Plans]:
        """Black's side key and plans (worked out on the first call)."""
        black = self._black
        if black is None:
            key = self.bound.side_key(self.board, chess.BLACK)
            black = self._black = key, self.bound.plans(self.board, chess.BLACK, key)
        return black


@dataclass(frozen=True)
class PruneRule:
    """A named deduction that cuts a position: `cuts(analysis, facts)` is True when it proves the
    target out of reach. `switch`: the `BoundOptions` field that turns it on (None: always on)."""

    name: str
    switch: str | None
    cuts: Callable[[Deductions, Facts], bool]


def _white_bound(a: Deductions, f: Facts) -> bool:
    """White's bound exceeds the moves White has left."""
    return f.pw.bound > f.w


def _black_bound(a: Deductions, f: Facts) -> bool:
    """Black's bound exceeds the moves Black has left."""
    return f.black()[1].bound > f.b


def _black_coupled(a: Deductions, f: Facts) -> bool:
    """White has no spare move, so it captures only on its cheapest routes: Black's units that
    must be captured walk there first, and Black's bound so coupled exceeds its moves left."""
    return f.pw.cheapest == f.w and \
        a.coupler.coupled_bound(f.board, chess.BLACK, f.black()[0], f.kw) > f.b


def _white_coupled(a: Deductions, f: Facts) -> bool:
    """As `_black_coupled`, the sides swapped."""
    kb, pb = f.black()
    return pb.cheapest == f.b and a.coupler.coupled_bound(f.board, chess.WHITE, f.kw, kb) > f.w


def _victims_unreached(a: Deductions, board: chess.Board, color: chess.Color, key: SideKey,
                       theirs: int, other_key: SideKey) -> bool:
    """`color`'s forced victims (`color` has no spare move: they stand where they are) include
    one on a square where the other side, with `theirs` moves left, cannot land a move."""
    standing = 0
    for usq, _ in a.coupler.forced_victims(board, color, key):
        standing |= chess.BB_SQUARES[usq]
    return bool(standing and standing & ~a.coupler.landing_squares(board, not color, theirs,
                                                                   other_key))


def _white_victims_unreached(a: Deductions, f: Facts) -> bool:
    """White has no spare move and its forced victims stand where no move of Black can land in
    time (not tried with an e.p. square pending)."""
    return f.board.ep_square is None and f.pw.cheapest == f.w and \
        _victims_unreached(a, f.board, chess.WHITE, f.kw, f.b, f.black()[0])


def _black_victims_unreached(a: Deductions, f: Facts) -> bool:
    """As `_white_victims_unreached`, the sides swapped."""
    if f.board.ep_square is not None:
        return False
    kb, pb = f.black()
    return pb.cheapest == f.b and _victims_unreached(a, f.board, chess.BLACK, kb, f.w, f.kw)


def _obstructed(a: Deductions, f: Facts) -> bool:
    """Out of reach whether or not the units on their target squares are disturbed."""
    kb, pb = f.black()
    return a.obstruction_split.obstructed(f.board, f.plies, f.w, f.b, f.pw, pb, f.kw, kb)


def _victims_stranded(a: Deductions, f: Facts) -> bool:
    """A side's units that end captured cannot all reach, in its moves left, a square where the
    other side can still land a move (`VictimVisits`; last: the costliest, and it was tried
    only where every other rule had failed when it lived in the move filter)."""
    kb = f.black()[0]
    keys = (f.kw, kb) if f.board.turn == chess.WHITE else (kb, f.kw)
    return a.visits.stranded(f.board, f.plies, keys)


RULES: tuple[PruneRule, ...] = (
    PruneRule("white-bound", None, _white_bound),
    PruneRule("black-bound", None, _black_bound),
    PruneRule("black-coupled-bound", "coupling", _black_coupled),
    PruneRule("white-coupled-bound", "coupling", _white_coupled),
    PruneRule("white-victims-unreached", "landings", _white_victims_unreached),
    PruneRule("black-victims-unreached", "landings", _black_victims_unreached),
    PruneRule("obstruction", "obstruction", _obstructed),
    PruneRule("victims-stranded", "victim_visits", _victims_stranded),
)


def active_rules(options: BoundOptions) -> tuple[PruneRule, ...]:
    """The rules `options` switch on, in `RULES` order."""
    return tuple(r for r in RULES if r.switch is None or getattr(options, r.switch))
