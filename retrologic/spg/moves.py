"""The proof-game search's move filter (§10 of shared/seeds/malikovic-spg-trajectories-coq.txt:
the moves generated are those that keep to the trajectories): no move of a frozen unit, no capture
when the opponent has no unit to lose, only the steps of cheapest routes when the mover has no
spare move, no piece move (nor single pawn push) that wastes a move the mover's victim visits
need, no move of a side with one spare move that leaves it short of a move, no castling its plans
cannot afford, no move or capture of a held unit its side cannot afford to disturb (issue #22),
and no quiet move into a position a memoised bound, obstruction or victim-visit verdict already
cuts."""

from __future__ import annotations

import functools
import operator
from typing import Any

import chess

from retrologic.spg.bound import Bound, SideKey, SpareRows, moves_left, new_side_key
from retrologic.spg.coupling import Coupling
from retrologic.spg.obstruction import ObstructedKey, Obstruction
from retrologic.spg.options import BoundOptions
from retrologic.spg.targets import BACK_RANK, Targets
from retrologic.vocabulary import CASTLINGS

# `MoveFilter.visits_tight`: the landing squares, captures due, victim slots, rows per unit,
# and the victim slots the mover's pawns impose on the opponent now
Tight = tuple[int, int, tuple[int, ...], dict[int, tuple[int, ...]], tuple[int, ...]]

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
        self.pawn_steps = True  # visit steps for single pawn pushes too (off: A/B in tests)
        self.pawn_cuts = 0  # pawn moves among `visit_cuts`
        # with `route_steps` on (the steps of a side with no spare move), issue #22's
        # `spent` (a side with one spare move) and `castling_spent`; off: A/B in tests
        self.spare_steps = self.castling_steps = options.route_steps
        self.spare_cuts = 0  # moves `spent` dropped
        self.spare_capture_cuts = 0  # ... of them captures
        self.castling_cuts = 0  # castlings `castling_spent` dropped
        self.fixed_steps = True  # `fixed_units`: held units no game can afford to disturb
        self.fixed_nodes = 0  # positions where `fixed_units` found some
        self.obstruction = obstruction
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
        fixed = self.fixed_units(board, plies, keys) if self.split and self.fixed_steps else 0
        if fixed:
            self.fixed_nodes += 1
            from_mask &= ~fixed
            to_mask &= ~fixed
        tight = self.visits_tight(board, plies, keys) if self.visit_steps and steps is None \
            else None
        loose = self.one_spare(board, plies, keys[0]) if self.spare_steps and steps is None \
            else None
        out = []
        for move in board.generate_legal_moves(from_mask, to_mask):
            if board.is_en_passant(move) and (no_capture or fixed & chess.BB_SQUARES[
                    move.to_square ^ 8]):
                continue  # (the pawn taken e.p. stands behind the landing square)
            if tight is not None and self.wasted(board, move, tight):
                self.visit_cuts += 1
                continue
            if loose is not None and self.spent(board, move, loose):
                self.spare_cuts += 1
                self.spare_capture_cuts += board.is_capture(move)
                continue
            if self.castling_steps and board.is_castling(move) and \
                    self.castling_spent(board, move, plies, keys[0]):
                self.castling_cuts += 1
                continue
            if steps is not None and \
                    not steps.get(move.from_square, 0) & chess.BB_SQUARES[move.to_square]:
                if not board.is_castling(move):
                    continue
            if self.quiet_child_pruned(board, move, plies, keys):
                continue
            out.append(move)
        return out

    def castling_spent(self, board: chess.Board, move: chess.Move, plies: int,
                       key: SideKey) -> bool:
        """True when the castling `move` leaves the side more moves to make than it has: after
        it the side's units stand as in the plans' scenario of that castling, with no castling
        right left, so the side's plain assignment is that scenario's less the castling move
        (same units, captures due and victim slots), and its bound at least that plus the
        capacity term, and at least the captures due (issue #22, reach: Faybish 2005's tail,
        where castling was let through with no spare move and cut one ply down)."""
        color = board.turn
        plans = self.bound.plans(board, color, key)
        rook = (chess.H1 if board.is_kingside_castling(move) else chess.A1) ^ \
            (0 if color == chess.WHITE else 0x38)
        king_to = CASTLINGS[(color, rook)][1]
        for scenario in plans.scenarios:
            if scenario.castling and (king_to, chess.KING) in scenario.placed:
                after = max(scenario.moves - 1 +
                            self.bound.capacity_short(scenario.capacity, plans.captures),
                            plans.captures)
                return after > (plies + 1) // 2 - 1
        return True  # (no finite assignment in that scenario: none after it either)

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
            self.bound.visit_rows(board, color, where, key), keys[1].slots

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

        A single pawn push (issue #22: the pawn moves left over last session) is tested the
        same way when it leaves the victim slots the mover's pawns impose on the opponent as
        they are (`Bound.slots` of the pawns after it): then the opponent's side key, plans
        and landing squares are unchanged, and each entry of the pawn falls by at most one
        (its entries are shortest distances in the pawn's move graph, which has the push as
        an edge, at the same capture count: a quiet push makes no capture), which is all
        the argument needs (it never uses that entries cannot rise).

        Let through (never dropped): double steps (an e.p. square follows them), other pawn
        pushes that change the opponent's victim slots (and so its landing squares),
        captures, promotions, castling, and moves of a king or rook while the side may still
        castle (they change the castling scenarios)."""
        if move.promotion or board.is_capture(move):
            return False
        frm = move.from_square
        ptype = board.piece_type_at(frm)
        if ptype is None:
            return False
        if ptype == chess.PAWN and not self.pawn_push_kept(board, move, tight[4]):
            return False
        if ptype == chess.KING and board.castling_rights & BACK_RANK[board.turn] or \
                board.castling_rights & chess.BB_SQUARES[frm] or board.is_castling(move):
            return False
        where, captures, slots, rows, _ = tight
        if frm not in rows:
            return False  # (not placed in a scenario of the fewest moves: not filtered)
        color, entries = board.turn, self.bound.visit_entries
        before = entries(color, ptype, frm, captures, slots, where)
        after = entries(color, ptype, move.to_square, captures, slots, where)
        if any(after[r] < before[r] for r in rows[frm]):
            return False
        self.pawn_cuts += ptype == chess.PAWN
        return True

    def fixed_units(self, board: chess.Board, plies: int, keys: tuple[SideKey, SideKey]) -> int:
        """The held units (`Obstruction.held_units`) that no game from here moves or captures:
        those whose side's bound with that unit disturbed (`Bound.disturbed_bound`'s value for
        it alone: its stay costing two moves, a pawn's never) exceeds the side's moves left
        (issue #22, reach: Faybish 2005's tail, where only White's Nb1 of the held units may
        still be disturbed). Their moves and captures are filtered."""
        held = self.obstruction.held_units(board)
        if not held:
            return 0
        mover = board.turn
        left = moves_left(mover, plies)
        out = 0
        for key, moves in zip(keys, (left[0], left[1]) if mover == chess.WHITE else
                              (left[1], left[0])):
            mine = held & board.occupied_co[key.color]
            if not mine:
                continue
            self.bound.disturbed_bound(board, key.color, mine, key)
            values = self.bound.disturbed[(mine, key)]
            if len(values) != chess.popcount(mine):
                continue  # (the side is dead: no per-unit values)
            for sq, value in zip(chess.scan_forward(mine), values):
                if value > moves:
                    out |= chess.BB_SQUARES[sq]
        return out

    def one_spare(self, board: chess.Board, plies: int, key: SideKey
                  ) -> tuple[int, tuple[int, ...], dict[int, SpareRows]] | None:
        """When the side to move has exactly one spare move (its moves left are its cheapest
        plans' moves plus one): (its captures due, its victim slots, `Bound.spare_rows`);
        else None. Then a move that raises the cheapest plans' moves leaves the side short of
        a move (`spent`)."""
        plans = self.bound.plans(board, board.turn, key)
        if plans.cheapest != (plies + 1) // 2 - 1:
            return None
        return plans.captures, plans.slots, self.bound.spare_rows(board, board.turn, key)

    def spent(self, board: chess.Board, move: chess.Move,
              loose: tuple[int, tuple[int, ...], dict[int, SpareRows]]) -> bool:
        """True when `move` (the side to move having one spare move: `one_spare`; not a
        castling, a promotion nor a capture of a pawn) is a move after which every assignment of
        the side's units costs more than its cheapest plans' moves c now, so more than the c
        moves it has left after the move (issue #22, reach: the pattern "a move away from its
        targets with one spare move" of Probleemblad R349 and R311's tails, cut one ply later by
        the side's bound).

        Why: a quiet move changes only the moving unit's entries (the opponent's unit count, the
        side's victim slots and captures due stay), each by at least -1 (a piece's move is
        reversible; a pawn's entries are shortest distances in its move graph, which has the
        push, single or double, as an edge). A capture of a piece (not a pawn: the victim slots
        the opponent's pawns impose stay) also lowers the captures due by one, so every entry is
        asked with one capture fewer: no other unit's entry falls (fewer routes), and the
        mover's falls by at most one (its move, for a pawn one of its captures, prefixed to a
        route from the new square). A king's move, or a rook's from its castling square, also
        removes castling scenarios: the assignments left are those of the scenarios where the
        unit stands on its square, whose rows `spare_rows` holds under that square (castling
        itself is let through). An assignment costing c + 1 or more before costs c or more after
        when it leaves the unit out or puts it in a row whose entry did not fall; one costing c
        + 2 or more costs c + 1 or more anyway. So when the unit may not be left out of an
        assignment of c moves, its entry rises in every row it may take in one (the rows of
        `Bound.spare_rows`, a superset), and falls in no row it may take in one of c + 1 moves,
        every assignment after the move costs c + 1 or more."""
        if move.promotion or board.is_castling(move):
            return False
        taken = board.is_capture(move)
        if taken and (board.is_en_passant(move) or
                      board.pawns & chess.BB_SQUARES[move.to_square]):
            return False  # (taking a pawn changes the victim slots the opponent imposes)
        frm = move.from_square
        ptype = board.piece_type_at(frm)
        if ptype is None:
            return False
        captures, slots, rows = loose
        unit = rows.get(frm)
        if unit is None or unit[0]:
            return False  # (not placed in any scenario, or it may stand aside)
        _, tight, wide = unit
        color, entries = board.turn, self.bound.plain_entries
        before = entries(color, ptype, frm, captures, slots)
        after = entries(color, ptype, move.to_square, captures - taken, slots)
        return all(after[r] > before[r] for r in tight) and \
            all(after[r] >= before[r] for r in wide)

    def pawn_push_kept(self, board: chess.Board, move: chess.Move,
                       their_slots: tuple[int, ...]) -> bool:
        """True when the quiet pawn move `move` is a single push after which the victim slots
        the mover's pawns impose on the opponent are still `their_slots` (the opponent's side
        key then does not change): the pawn moves `wasted` may test."""
        if not self.pawn_steps or abs(move.to_square - move.from_square) != 8:
            return False  # (a double step, or en passant: a capture, never here)
        if not self.victim_slots:
            return True  # (no slots in the side keys)
        mover = board.turn
        budget = chess.popcount(board.occupied_co[not mover]) - self.target_count[not mover]
        pawns = board.pawns & board.occupied_co[mover]
        moved = chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]
        return self.bound.slots(mover, pawns ^ moved, budget) == their_slots

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
