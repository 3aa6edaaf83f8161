"""The proof-game search's move filter (§10 of shared/seeds/malikovic-spg-trajectories-coq.txt:
the moves generated are those that keep to the trajectories): no move of a frozen unit, no capture
when the opponent has no unit to lose, only the steps of cheapest routes when the mover has no
spare move, no piece move that wastes a move the mover's victim visits need (issue #22), and no
quiet move into a position a memoised bound, obstruction or victim-visit verdict already cuts."""

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

# `MoveFilter.visits_tight`: the landing squares, captures due, victim slots, rows per unit
Tight = tuple[int, int, tuple[int, ...], dict[int, tuple[int, ...]]]

# ObstructedKey from its fields as one iterable (as `new_side_key`: made for many moves per node)
_new_obstructed_key = functools.partial(tuple.__new__, ObstructedKey)


class MoveFilter:
    """The candidate moves of one analysis (the memo tables it reads are bound once: the filter
    runs on every move of every node)."""

    def __init__(self, targets: Targets, bound: Bound, coupler: Coupling,
                 obstruction: Obstruction, options: BoundOptions,
                 stranded: dict[tuple[SideKey, SideKey, int, int], bool]) -> None:
        self.frozen = targets.frozen
        self.target_count = targets.count
        self.bound = bound
        self.coupler = coupler
        self.route_steps = options.route_steps
        self.visit_steps = options.visit_steps
        self.visit_cuts = 0  # moves `visit_steps` dropped (for tests and profiling)
        self.victim_slots = options.victim_slots
        self.split = options.obstruction
        self.known_plans = bound.plans_by_key  # read only: the filter never computes a bound
        self.known_verdicts = obstruction.verdicts  # ... nor an obstruction split
        self.known_stranded = stranded  # ... nor the victim visits (`rules.VictimVisits.dead`)

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
        steps = None
        if self.route_steps and self.bound.no_spare(board, board.turn, (plies + 1) // 2, keys[0]):
            steps = self.coupler.next_steps(board, board.turn, keys[0])
            # generate only what the filter below can let through (castling: king to rook)
            castling = board.castling_rights & BACK_RANK[board.turn]
            from_mask &= sum(chess.BB_SQUARES[sq] for sq, to in steps.items() if to) | (
                board.kings & board.occupied_co[board.turn] if castling else 0)
            to_mask &= functools.reduce(operator.or_, steps.values(), 0) | castling
        tight = self.visits_tight(board, plies, keys) if self.visit_steps and steps is None \
            else None
        out = []
        for move in board.generate_legal_moves(from_mask, to_mask):
            if no_capture and board.is_en_passant(move):
                continue
            if tight is not None and self.wasted(board, move, tight):
                self.visit_cuts += 1
                continue
            if steps is not None and \
                    not steps.get(move.from_square, 0) & chess.BB_SQUARES[move.to_square]:
                if not board.is_castling(move):
                    continue
            if self.quiet_child_pruned(board, move, plies, keys):
                continue
            out.append(move)
        return out

    def visits_tight(self, board: chess.Board, plies: int, keys: tuple[SideKey, SideKey]
                     ) -> Tight | None:
        """When the side to move needs every move it has left for its victim visits (the
        fewest moves of `Bound.visit_bound`'s assignment, against the opponent's landing
        squares, equal its moves left): (those squares, its captures due, its victim slots,
        and per unit the rows it may take in an assignment of that many moves:
        `Bound.visit_rows`); else None. Then a piece's move that brings it no closer in any of
        its rows leaves the side short of a move (`wasted`)."""
        color, key = board.turn, keys[0]
        left = moves_left(color, plies)
        mine, theirs = (left[0], left[1]) if color == chess.WHITE else (left[1], left[0])
        where = self.coupler.landing_squares(board, not color, theirs, keys[1])
        if not where or self.bound.visit_moves(board, color, where, key) != mine:
            return None
        plans = self.bound.plans(board, color, key)
        return where, plans.captures, plans.slots, \
            self.bound.visit_rows(board, color, where, key)

    def wasted(self, board: chess.Board, move: chess.Move,
               tight: Tight) -> bool:
        """True when `move` (the side to move being `visits_tight`) is a quiet move of a piece
        that lowers none of its unit's entries in the rows it may take (`Bound.visit_rows`)
        of the visit assignment. A piece's move changes each of its entries by at most one
        (its moves are reversible), and no other unit's, the opponent's landing squares nor
        the side's scenarios; so every assignment after it costs at least what it cost
        before, less one where it uses the unit in a row whose entry fell: at least the moves
        the side had before the move (an assignment using the unit in a row it may not take
        cost more than that), one more than it has left: no game to the target goes on.

        Let through (never dropped): pawn moves (they change the opponent's victim slots and
        landing squares), captures, promotions, castling, and moves of a king or rook while
        the side may still castle (they change the castling scenarios)."""
        if move.promotion or board.is_capture(move):
            return False
        frm = move.from_square
        ptype = board.piece_type_at(frm)
        if ptype == chess.PAWN or ptype is None:
            return False
        if ptype == chess.KING and board.castling_rights & BACK_RANK[board.turn] or \
                board.castling_rights & chess.BB_SQUARES[frm] or board.is_castling(move):
            return False
        where, captures, slots, rows = tight
        if frm not in rows:
            return False  # (not placed in a scenario of the fewest moves: not filtered)
        color, entries = board.turn, self.bound.visit_entries
        before = entries(color, ptype, frm, captures, slots, where)
        after = entries(color, ptype, move.to_square, captures, slots, where)
        return not any(after[r] < before[r] for r in rows[frm])

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
        if double_step:
            return False  # (an e.p. square pending: neither verdict below was asked there)
        kw, kb = (child, other) if mover == chess.WHITE else (other, child)
        w, b = moves_left(not mover, plies - 1)
        if (kw, kb, w, b) in self.known_stranded:
            return True  # a child already found stranded (the victim visits' memo)
        # a child already found obstructed (the split memoises by both side keys)
        return self.split and \
            bool(self.known_verdicts.get(_new_obstructed_key((kw, kb, w, b, None))))
