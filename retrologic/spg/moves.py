"""The proof-game search's move filter (§10 of shared/seeds/malikovic-spg-trajectories-coq.txt:
the moves generated are those that keep to the trajectories): no move of a frozen unit, no capture
when the opponent has no unit to lose, only the steps of cheapest routes when the mover has no
spare move, and no quiet move into a position a memoised bound or obstruction verdict already
cuts."""

from __future__ import annotations

import functools
import operator
from typing import Any

import chess

from retrologic.spg.bound import Bound, SideKey, moves_left, new_side_key
from retrologic.spg.coupling import Coupling
from retrologic.spg.obstruction import ObstructedKey, Obstruction
from retrologic.spg.options import BoundOptions
from retrologic.spg.targets import BACK_RANK, Targets

# `victims_stranded` gives itself up when, after VISIT_TRIAL tries, fewer than one in VISIT_RATE
# cut (the obstruction split's rule, spg/obstruction.py): sound either way, only slower or faster
VISIT_TRIAL = 2000
VISIT_RATE = 20

# ObstructedKey from its fields as one iterable (as `new_side_key`: made for many moves per node)
_new_obstructed_key = functools.partial(tuple.__new__, ObstructedKey)


class MoveFilter:
    """The candidate moves of one analysis (the memo tables it reads are bound once: the filter
    runs on every move of every node)."""

    def __init__(self, targets: Targets, bound: Bound, coupler: Coupling,
                 obstruction: Obstruction, options: BoundOptions) -> None:
        self.frozen = targets.frozen
        self.target_count = targets.count
        self.bound = bound
        self.coupler = coupler
        self.route_steps = options.route_steps
        self.victim_slots = options.victim_slots
        self.split = options.obstruction
        self.known_plans = bound.plans_by_key  # read only: the filter never computes a bound
        self.visits = options.landings  # `victims_stranded` (it reads the landing squares)
        self.visit_tries = self.visit_hits = 0
        self.known_verdicts = obstruction.verdicts  # ... nor an obstruction split

    def candidate_moves(self, board: chess.Board, plies: int) -> list[chess.Move]:
        """The legal moves a game to the target in exactly `plies` plies may make next (a
        superset), generated once per position."""
        from_mask = ~self.frozen & chess.BB_ALL
        to_mask = from_mask
        no_capture = chess.popcount(board.occupied_co[not board.turn]) <= \
            self.target_count[not board.turn]
        if no_capture:
            to_mask &= ~board.occupied_co[not board.turn]
        keys = (self.bound.side_key(board, board.turn),
                self.bound.side_key(board, not board.turn))
        if self.visits and self.victims_stranded(board, plies, keys):
            return []  # no game goes on from here: the position is dead (memoised so)
        steps = None
        if self.route_steps and self.bound.no_spare(board, board.turn, (plies + 1) // 2, keys[0]):
            steps = self.coupler.next_steps(board, board.turn, keys[0])
            # generate only what the filter below can let through (castling: king to rook)
            castling = board.castling_rights & BACK_RANK[board.turn]
            from_mask &= sum(chess.BB_SQUARES[sq] for sq, to in steps.items() if to) | (
                board.kings & board.occupied_co[board.turn] if castling else 0)
            to_mask &= functools.reduce(operator.or_, steps.values(), 0) | castling
        out = []
        for move in board.generate_legal_moves(from_mask, to_mask):
            if no_capture and board.is_en_passant(move):
                continue
            if steps is not None and \
                    not steps.get(move.from_square, 0) & chess.BB_SQUARES[move.to_square]:
                if not board.is_castling(move):
                    continue
            if self.quiet_child_pruned(board, move, plies, keys):
                continue
            out.append(move)
        return out

    def victims_stranded(self, board: chess.Board, plies: int,
                         keys: tuple[SideKey, SideKey]) -> bool:
        """True when a side's units that must be captured cannot all get to squares where the
        opponent can still land a move (`Bound.visit_bound` against the opponent's
        `Coupling.landing_squares` for its moves left) within the side's moves left: no game
        to the target goes on from here, so the position has no candidate move (issue #22).
        Tried after the prune's rules (the search asks for candidates only when none cut),
        not with an e.p. square pending (as the prune's victims-unreached rules)."""
        if board.ep_square is not None or self.visit_hits * VISIT_RATE < self.visit_tries \
                and self.visit_tries >= VISIT_TRIAL:
            return False  # (or it rarely cuts on this problem: not worth its cost)
        left = moves_left(board.turn, plies)
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
        self.visit_tries += 1
        self.visit_hits += cut
        return cut

    def quiet_child_pruned(self, board: chess.Board, move: chess.Move, plies: int,
                           keys: tuple[SideKey, SideKey]) -> bool:
        """True when `move` is a quiet move (no capture, castling or promotion) after which a
        side bound already memoised exceeds that side's moves left: `prune` of the child,
        without playing the move. `keys`: the side keys of the mover and the opponent now."""
        frm, to = chess.BB_SQUARES[move.from_square], chess.BB_SQUARES[move.to_square]
        if move.promotion or board.occupied & to:
            return False
        ptype = board.piece_type_at(move.from_square)
        assert ptype is not None  # a legal move's from-square holds the mover
        if ptype == chess.PAWN and move.from_square & 7 != move.to_square & 7:
            return False  # en passant
        if ptype == chess.KING and abs(move.from_square - move.to_square) == 2:
            return False  # castling
        mover = board.turn
        mine, theirs = keys
        rights = board.castling_rights & ~frm & ~to
        if ptype == chess.KING:
            rights &= ~BACK_RANK[mover]
        parts: list[Any] = list(mine)
        parts[ptype] ^= frm | to  # SideKey's fields 1..6: the units by piece type
        parts[7] = rights & BACK_RANK[mover]  # its castling rights
        child = new_side_key(parts)
        plans = self.known_plans.get(child)
        if plans is not None and plans.bound > (plies - 1) // 2:
            return True
        parts = list(theirs)
        parts[7] = rights & BACK_RANK[not mover]
        if ptype == chess.PAWN and self.victim_slots:
            budget = chess.popcount(board.occupied_co[not mover]) - self.target_count[not mover]
            parts[9] = self.bound.slots(mover, mine.pawns ^ (frm | to), budget)  # its slots
        other = new_side_key(parts)
        plans = self.known_plans.get(other)
        if plans is not None and plans.bound > plies // 2:
            return True
        double_step = ptype == chess.PAWN and abs(move.to_square - move.from_square) == 16
        if self.split and not double_step:
            # a child already found obstructed (the split memoises by both side keys)
            kw, kb = (child, other) if mover == chess.WHITE else (other, child)
            w, b = moves_left(not mover, plies - 1)
            return bool(self.known_verdicts.get(_new_obstructed_key((kw, kb, w, b, None))))
        return False
