"""The retraction generator: every un-move of orthodox chess for the side that moved last.

Plain retractions, uncaptures (type chosen, or left open), un-promotions (straight and with an
uncapture), un-castling and un-en-passant. A retraction turns position P (after the move) into
its predecessor Q (before it); in Q the retractor is to move, so the other side's king may not
stand in check there, and in P the retractor's own king may not stand in check.

Full positions count every check. Partial positions follow Hwa's extension principle: units may
be added on empty squares, so only *unblockable* (contact, knight, pawn) checks count, a king may
not stand in two of them, and either side may retract (no forced alternation; a king left in an
unblockable check forces the next retraction to be the checker's, which follows from the rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import chess
from chess import (BB_DIAG_ATTACKS, BB_DIAG_MASKS, BB_FILE_ATTACKS, BB_FILE_MASKS, BB_KING_ATTACKS,
                   BB_KNIGHT_ATTACKS, BB_PAWN_ATTACKS, BB_RANK_ATTACKS, BB_RANK_MASKS, BB_SQUARES)

from retrologic.position import Placement, Position
from retrologic.vocabulary import (CASTLINGS, DIAGONAL_NEIGHBOURS, ORTHOGONAL_NEIGHBOURS,
                                   PROMOTION_TYPES)

OPEN = 0  # an uncaptured unit whose type is left open
UNCAPTURE_TYPES = PROMOTION_TYPES + (chess.PAWN,)  # Q R B N P: the types a unit reappears as
PIECE_LETTER = {OPEN: "", chess.PAWN: "P", chess.KNIGHT: "N", chess.BISHOP: "B", chess.ROOK: "R",
                chess.QUEEN: "Q", chess.KING: "K"}

LIGHT = chess.BB_LIGHT_SQUARES


@dataclass(frozen=True, slots=True)
class Retraction:
    """One un-move: the unit of `color` now on `to_square` goes back to `from_square`.

    `piece_type` is its type in P; `uncapture` is None (no capture), OPEN (a unit of unknown type)
    or the type of the opponent unit that reappears (on `to_square`, or beside it en passant).
    """

    color: chess.Color
    piece_type: int
    from_square: chess.Square
    to_square: chess.Square
    uncapture: int | None = None
    unpromotion: bool = False
    castling: bool = False
    en_passant: bool = False
    double_step: bool = False

    def move(self) -> chess.Move:
        """The forward move in Q that gives P (python-chess convention, castling as e1g1)."""
        promo = self.piece_type if self.unpromotion else None
        return chess.Move(self.from_square, self.to_square, promotion=promo)

    @property
    def moved_type(self) -> int:
        """The unit's type in Q (a pawn for an un-promotion)."""
        return chess.PAWN if self.unpromotion else self.piece_type

    @property
    def capture_square(self) -> chess.Square | None:
        """Where the uncaptured unit reappears."""
        if self.uncapture is None:
            return None
        if self.en_passant:
            return self.to_square - 8 if self.color == chess.WHITE else self.to_square + 8
        return self.to_square

    def notation(self, check: bool = False, taken: bool = True, side: bool = False) -> str:
        """Long algebraic notation of the retracted move: Ka2-a1, a2xRb3, b7-b8=Q, b4xc3 e.p., O-O;
        with `taken` False the move as seen on the board, the unit taken unnamed (a2xb3); with
        `side` a castling names its side (white O-O): every other move names a square the
        diagram shows the mover's unit on, but with the side to move open White's and Black's
        O-O would read alike."""
        if self.castling:
            text = "O-O" if chess.square_file(self.to_square) == 6 else "O-O-O"
            if side:
                text = f"{chess.COLOR_NAMES[self.color]} {text}"
        else:
            letter = "" if self.moved_type == chess.PAWN else PIECE_LETTER[self.piece_type]
            if self.uncapture is None:
                sep = "-"
            elif self.en_passant or not taken:
                sep = "x"
            else:
                sep = "x" + PIECE_LETTER[self.uncapture]
            text = (f"{letter}{chess.square_name(self.from_square)}{sep}"
                    f"{chess.square_name(self.to_square)}")
            if self.unpromotion:
                text += "=" + PIECE_LETTER[self.piece_type]
            if self.en_passant:
                text += " e.p."
        return text + ("+" if check else "")

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        """Side and notation: Retraction('w e2-e4'), Retraction('b Nb8xRa6')."""
        return f"Retraction({('w ' if self.color else 'b ') + self.notation()!r})"


def attackers(pl: Placement, square: chess.Square, by_color: chess.Color, occupied: int,
              unblockable: bool) -> int:
    """Units of `by_color` attacking `square`; with `unblockable`, only checks no unit could block."""
    pawns, knights, bishops, rooks, queens, kings, white = pl
    cm = white if by_color else ~white
    att = (BB_KNIGHT_ATTACKS[square] & knights) | (BB_KING_ATTACKS[square] & kings)
    att |= BB_PAWN_ATTACKS[not by_color][square] & pawns
    rq = rooks | queens
    bq = bishops | queens
    if unblockable:
        att |= (ORTHOGONAL_NEIGHBOURS[square] & rq) | (DIAGONAL_NEIGHBOURS[square] & bq)
    else:
        att |= (BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & occupied]
                | BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & occupied]) & rq
        att |= BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied] & bq
    return att & cm


def unit_attacks(piece_type: int, color: chess.Color, square: chess.Square, occupied: int,
                 unblockable: bool) -> int:
    """Squares a unit on `square` attacks (only its unblockable attacks if asked)."""
    if piece_type == chess.PAWN:
        return BB_PAWN_ATTACKS[color][square]
    if piece_type == chess.KNIGHT:
        return BB_KNIGHT_ATTACKS[square]
    if piece_type == chess.KING:
        return BB_KING_ATTACKS[square]
    out = 0
    if piece_type in (chess.ROOK, chess.QUEEN):
        out |= ORTHOGONAL_NEIGHBOURS[square] if unblockable else (
            BB_RANK_ATTACKS[square][BB_RANK_MASKS[square] & occupied]
            | BB_FILE_ATTACKS[square][BB_FILE_MASKS[square] & occupied])
    if piece_type in (chess.BISHOP, chess.QUEEN):
        out |= DIAGONAL_NEIGHBOURS[square] if unblockable else \
            BB_DIAG_ATTACKS[square][BB_DIAG_MASKS[square] & occupied]
    return out


def _moves_back(piece_type: int, square: chess.Square, occupied: int) -> int:
    """Empty squares a non-pawn unit on `square` can have come from (line pieces: unobstructed)."""
    if piece_type == chess.KNIGHT:
        return BB_KNIGHT_ATTACKS[square] & ~occupied
    if piece_type == chess.KING:
        return BB_KING_ATTACKS[square] & ~occupied
    return unit_attacks(piece_type, chess.WHITE, square, occupied, False) & ~occupied


def counts_ok(pl: Placement, color: chess.Color) -> bool:
    """Unit counts one side may have: ≤ 16 units, ≤ 8 pawns, ≤ 1 king, and no more promoted
    pieces (beyond 1 Q, 2 R, 2 N, one bishop per square colour) than missing pawns."""
    cm = pl.color_mask(color)
    pawns = chess.popcount(pl.pawns & cm)
    if pawns > 8 or chess.popcount(pl.kings & cm) > 1 or chess.popcount(pl.occupied & cm) > 16:
        return False
    bishops = pl.bishops & cm
    excess = (max(0, chess.popcount(pl.queens & cm) - 1) + max(0, chess.popcount(pl.rooks & cm) - 2)
              + max(0, chess.popcount(pl.knights & cm) - 2)
              + max(0, chess.popcount(bishops & LIGHT) - 1) + max(0, chess.popcount(bishops & ~LIGHT) - 1))
    return excess <= 8 - pawns


def _put(masks: list[int], piece_type: int, color: chess.Color, square: chess.Square) -> None:
    bb = BB_SQUARES[square]
    masks[piece_type - 1] |= bb
    if color:
        masks[6] |= bb


def _remove(masks: list[int], square: chess.Square) -> None:
    keep = ~BB_SQUARES[square]
    for i in range(7):
        masks[i] &= keep


def predecessor_placement(pl: Placement, r: Retraction, uncapture: int | None = None) -> Placement:
    """The placement of Q (before the move); an OPEN uncapture leaves its square empty."""
    masks = list(pl)
    _remove(masks, r.to_square)
    _put(masks, r.moved_type, r.color, r.from_square)
    if r.castling:
        _, _, rook_after = _castling_squares(r)
        if pl.rooks & pl.color_mask(r.color) & BB_SQUARES[rook_after]:
            _remove(masks, rook_after)
            _put(masks, chess.ROOK, r.color, _castling_rook_home(r))
        # else (partial positions only): the rook stands outside the partial position
    unc = r.uncapture if uncapture is None else uncapture
    if unc:
        _put(masks, unc, not r.color, r.capture_square)  # type: ignore[arg-type]
    return Placement(*masks)


def _castling_rook_home(r: Retraction) -> chess.Square:
    back = 0 if r.color == chess.WHITE else 56
    return back + (7 if chess.square_file(r.to_square) == 6 else 0)


def _castling_squares(r: Retraction) -> tuple[chess.Square, chess.Square, chess.Square]:
    return CASTLINGS[(r.color, _castling_rook_home(r))]


def apply(pos: Position, r: Retraction) -> Position:
    """The predecessor position Q of `pos` by retraction `r`.

    In a full position an OPEN uncapture has no single predecessor and raises ValueError; in a
    partial one the unit stays outside the position (its square is left empty).
    """
    if r.uncapture == OPEN and not pos.partial:
        raise ValueError("an uncapture of open type has no single predecessor board; choose a type")
    q_pl = predecessor_placement(pos.placement, r)
    castling = pos.castling
    if r.castling:
        castling |= BB_SQUARES[_castling_rook_home(r)]
    turn = None if pos.partial else r.color
    ep = r.to_square if r.en_passant else None
    # Frozen units never retract, so the frozen squares stay as they are.
    return Position(q_pl, turn, castling, ep, pos.frozen, pos.partial)


def in_check(pos: Position, color: chess.Color) -> bool:
    """Is `color`'s king attacked (in a partial position: unblockably)?"""
    pl = pos.placement
    k = pl.king(color)
    return k is not None and bool(attackers(pl, k, not color, pl.occupied, pos.partial))


def retractors(pos: Position) -> list[chess.Color]:
    """The sides that may have made the last move."""
    if pos.turn is not None and not pos.partial:
        return [not pos.turn]
    return [chess.WHITE, chess.BLACK]


def retractions(pos: Position, *, color: chess.Color | None = None, uncaptures: str = "typed",
                counts: bool = True) -> list[Retraction]:
    """Every retraction of `pos` (by `color`, or by each side that may have moved last).

    `uncaptures` is "typed" (one retraction per type Q R B N P), "open" (one, type left open)
    or "none"; `counts` rejects predecessors with impossible unit counts for the changed side.
    """
    if uncaptures not in ("typed", "open", "none"):
        raise ValueError(f"uncaptures must be typed, open or none, not {uncaptures!r}")
    out: list[Retraction] = []
    for c in ([color] if color is not None else retractors(pos)):
        _generate(pos, c, uncaptures, counts, out)
    return out


def _generate(pos: Position, R: chess.Color, uncaptures: str, counts: bool,
              out: list[Retraction]) -> None:
    pl = pos.placement
    occ = pl.occupied
    own = pl.color_mask(R)
    contact = pos.partial
    S = not R
    rk = pl.king(R)
    if rk is not None and attackers(pl, rk, S, occ, contact):
        return  # R's king stands in check: R cannot have made the last move
    if pos.ep_square is not None:
        _double_step_only(pos, R, out)
        return
    sk = pl.king(S)
    movable = own & ~pos.immobile
    typed = uncaptures == "typed"
    allow_unc = uncaptures != "none"

    def ok(q: Placement, q_occ: int, king_from: chess.Square | None = None) -> bool:
        """Q legal for the retractor R to move: S not in check; in a partial position R's king
        not in two unblockable checks (a triple check never happens in a full one)."""
        if sk is not None and attackers(q, sk, R, q_occ, contact):
            return False
        k = rk if king_from is None else king_from
        if k is not None:
            # Two unblockable checks at once never happen (one checker must have just moved,
            # the other could only be discovered, from a distance); three checks never either.
            if chess.popcount(attackers(q, k, S, q_occ, True)) > 1:
                return False
            if not contact and _impossible_checkers(attackers(q, k, S, q_occ, False), k):
                return False
        return True

    def unc_types(square: chess.Square, q: Placement, king_sq: chess.Square | None, q_occ: int):
        """Uncapture types allowed on `square` given counts and R's king (checks it would add).
        Open mode: one OPEN uncapture when some type is allowed (a full position; found in
        review, 2026-11-30: Bd7xc8 was listed where no missing unit could stand on c8); in a
        partial position (the cage engines' model, mirrored by `cages.fast`), whenever S has
        fewer than 16 units."""
        if not allow_unc:
            return ()
        if not typed and contact:
            if counts and chess.popcount(q.occupied & q.color_mask(S)) >= 16:
                return ()
            return (OPEN,)
        rank = chess.square_rank(square)
        result = []
        for t in UNCAPTURE_TYPES:
            if t == chess.PAWN and rank in (0, 7):
                continue
            masks = list(q)
            _put(masks, t, S, square)
            q2 = Placement(*masks)
            if counts and not counts_ok(q2, S):
                continue
            if king_sq is not None and _adds_impossible_check(q, t, S, square, king_sq, q_occ, contact):
                continue
            result.append(t)
        return result if typed else (OPEN,) if result else ()

    for to in chess.scan_forward(movable):
        t = pl.piece_type_at(to)
        bb_to = BB_SQUARES[to]
        if t == chess.PAWN:
            # e.p.: always when typed; in open mode only in a full position (found in review,
            # 2026-11-30: d5xe6 e.p.+ was missing); a partial position's open mode is the cage
            # engines' model, as before
            _pawn_retractions(pos, R, to, ok, unc_types, allow_unc and (typed or not contact),
                              counts, out)
            continue
        king_moves = t == chess.KING
        # plain retractions and uncaptures
        for frm in chess.scan_forward(_moves_back(t, to, occ)):  # type: ignore[arg-type]
            masks = list(pl)
            _remove(masks, to)
            _put(masks, t, R, frm)  # type: ignore[arg-type]
            q = Placement(*masks)
            q_occ = occ ^ bb_to ^ BB_SQUARES[frm]
            ksq = frm if king_moves else rk
            if ok(q, q_occ, ksq):
                out.append(Retraction(R, t, frm, to))  # type: ignore[arg-type]
            if allow_unc and ok(q, q_occ | bb_to, ksq):
                for u in unc_types(to, q, ksq, q_occ | bb_to):
                    out.append(Retraction(R, t, frm, to, u))  # type: ignore[arg-type]
        last_rank = 7 if R == chess.WHITE else 0
        if t != chess.KING and chess.square_rank(to) == last_rank:
            _unpromotions(pos, R, t, to, ok, unc_types, counts, out)  # type: ignore[arg-type]
        if king_moves:
            _uncastlings(pos, R, to, ok, out)


def _impossible_checkers(checkers: int, king: chess.Square) -> bool:
    """Checks no move gives in a full position: three, or two on one line with the king (on
    one side the nearer blocks the other; on both sides the moved unit would have had to pass
    through the king to uncover the other). python-chess's STATUS_IMPOSSIBLE_CHECK; found in
    review, 2026-11-30: Ke2-d2 was listed with the king on e2 checked from b5 and f1."""
    if chess.popcount(checkers) > 2:
        return True
    if chess.popcount(checkers) == 2:
        first, second = chess.scan_forward(checkers)
        return bool(chess.BB_RAYS[first][second] & BB_SQUARES[king])
    return False


def _adds_impossible_check(q: Placement, t: int, S: chess.Color, square: chess.Square,
                           king_sq: chess.Square, q_occ: int, contact: bool) -> bool:
    """Would an S unit of type t on `square` make the checks on R's king impossible?"""
    bb_k = BB_SQUARES[king_sq]
    if unit_attacks(t, S, square, q_occ, True) & bb_k:
        if attackers(q, king_sq, S, q_occ, True):
            return True  # a second unblockable check
    if contact:
        return False
    if unit_attacks(t, S, square, q_occ, False) & bb_k:
        return chess.popcount(attackers(q, king_sq, S, q_occ, False)) >= 2
    return False


def _checks_before_double_step(q: Placement, king: chess.Square | None, R: chess.Color,
                               pushed_to: chess.Square, pushed_from: chess.Square,
                               occupied: int) -> bool:
    """In the predecessor of an e.p. capture (S's pawn has just double-stepped from
    `pushed_from` to `pushed_to`), checks on R's king the double step cannot have given: two
    checkers, or one other than the pawn that already checked before the step (python-chess's
    STATUS_IMPOSSIBLE_CHECK with an e.p. square; found in review, 2026-11-30: e5xd6 e.p. was
    listed with the king on b4 checked from f8 through d6, a check d7-d5 does not give)."""
    if king is None:
        return False
    checkers = attackers(q, king, not R, occupied, False)
    if not checkers or checkers == BB_SQUARES[pushed_to]:
        return False
    if chess.popcount(checkers) > 1:
        return True
    before = (occupied & ~BB_SQUARES[pushed_to]) | BB_SQUARES[pushed_from]
    return bool(attackers(q, king, not R, before, False))


def _pawn_retractions(pos, R, to, ok, unc_types, ep_allowed, counts, out) -> None:
    pl = pos.placement
    occ = pl.occupied
    rank = chess.square_rank(to)
    rel = rank if R == chess.WHITE else 7 - rank       # rank counted from R's side, 0-based
    if rel <= 1:
        return                                          # on its home rank (or impossibly behind)
    back = -8 if R == chess.WHITE else 8
    bb_to = BB_SQUARES[to]
    rk = pl.king(R)

    def q_of(frm: chess.Square) -> tuple[Placement, int]:
        masks = list(pl)
        _remove(masks, to)
        _put(masks, chess.PAWN, R, frm)
        return Placement(*masks), occ ^ bb_to ^ BB_SQUARES[frm]

    b = to + back
    if not occ & BB_SQUARES[b]:
        q, q_occ = q_of(b)
        if ok(q, q_occ):
            out.append(Retraction(R, chess.PAWN, b, to))
        if rel == 3:
            b2 = b + back
            if not occ & BB_SQUARES[b2]:
                q, q_occ = q_of(b2)
                if ok(q, q_occ):
                    out.append(Retraction(R, chess.PAWN, b2, to, double_step=True))
    file = chess.square_file(to)
    for df in (-1, 1):
        if not 0 <= file + df <= 7:
            continue
        frm = b + df
        if occ & BB_SQUARES[frm]:
            continue
        q, q_occ = q_of(frm)
        if ok(q, q_occ | bb_to):
            for u in unc_types(to, q, rk, q_occ | bb_to):
                out.append(Retraction(R, chess.PAWN, frm, to, u))
        if ep_allowed and rel == 5:
            cap = to + back                 # the double-stepped pawn stood beside the capturer
            origin = to - back              # and came from the square in front of `to`
            if occ & (BB_SQUARES[cap] | BB_SQUARES[origin]):
                continue
            masks = list(q)
            _put(masks, chess.PAWN, not R, cap)
            q2 = Placement(*masks)
            q2_occ = q_occ | BB_SQUARES[cap]
            if counts and not counts_ok(q2, not R):
                continue
            if ok(q2, q2_occ) and (pos.partial or
                                   not _checks_before_double_step(q2, rk, R, cap, origin, q2_occ)):
                out.append(Retraction(R, chess.PAWN, frm, to, chess.PAWN, en_passant=True))


def _unpromotions(pos, R, t, to, ok, unc_types, counts, out) -> None:
    pl = pos.placement
    occ = pl.occupied
    back = -8 if R == chess.WHITE else 8
    bb_to = BB_SQUARES[to]
    rk = pl.king(R)
    file = chess.square_file(to)
    for df in (0, -1, 1):
        if not 0 <= file + df <= 7:
            continue
        frm = to + back + df
        if occ & BB_SQUARES[frm]:
            continue
        masks = list(pl)
        _remove(masks, to)
        _put(masks, chess.PAWN, R, frm)
        q = Placement(*masks)
        if counts and not counts_ok(q, R):
            continue
        q_occ = occ ^ bb_to ^ BB_SQUARES[frm]
        if df == 0:
            if ok(q, q_occ):
                out.append(Retraction(R, t, frm, to, unpromotion=True))
        elif ok(q, q_occ | bb_to):
            for u in unc_types(to, q, rk, q_occ | bb_to):
                if u != chess.PAWN:
                    out.append(Retraction(R, t, frm, to, u, unpromotion=True))


def _uncastlings(pos, R, to, ok, out) -> None:
    """Un-castling: king on g1/c1 with its rook beside it; back to e1 and the corner."""
    pl = pos.placement
    occ = pl.occupied
    if not pos.partial and pos.castling & (chess.BB_RANK_1 if R == chess.WHITE else chess.BB_RANK_8):
        return  # a side that castled has no castling right left
    back = 0 if R == chess.WHITE else 56
    for rook_home in (back + 7, back):
        king_home, king_after, rook_after = CASTLINGS[(R, rook_home)]
        if to != king_after:
            continue
        rook_bb = BB_SQUARES[rook_after]
        if pl.rooks & pl.color_mask(R) & rook_bb:
            if pos.immobile & rook_bb:
                continue
        elif not (pos.partial and not occ & rook_bb):
            continue  # no rook beside the king (a partial position may add one on an empty square)
        must_be_empty = BB_SQUARES[king_home] | BB_SQUARES[rook_home]
        if rook_home == back:
            must_be_empty |= BB_SQUARES[back + 1]       # b1/b8 for the long castling
        if occ & must_be_empty:
            continue
        r = Retraction(R, chess.KING, king_home, king_after, castling=True)
        q = predecessor_placement(pl, r)
        q_occ = q.occupied
        if not ok(q, q_occ, king_home):
            continue
        # The king may not castle out of or through check.
        S = not R
        if attackers(q, king_home, S, q_occ, pos.partial) or attackers(q, rook_after, S, q_occ, pos.partial):
            continue
        out.append(r)


def _double_step_only(pos: Position, R: chess.Color, out: list[Retraction]) -> None:
    """The last move is known to be a double step over pos.ep_square: retract only that."""
    ep = pos.ep_square
    pl = pos.placement
    step = 8 if R == chess.WHITE else -8
    if chess.square_rank(ep) != (2 if R == chess.WHITE else 5):  # type: ignore[arg-type]
        return
    to = ep + step  # type: ignore[operator]
    frm = ep - step  # type: ignore[operator]
    if not pl.pieces(chess.PAWN, R) & BB_SQUARES[to] or pl.occupied & (BB_SQUARES[ep] | BB_SQUARES[frm]):
        return
    if pos.immobile & BB_SQUARES[to]:
        return
    r = Retraction(R, chess.PAWN, frm, to, double_step=True)
    q = predecessor_placement(pl, r)
    sk = pl.king(not R)
    if sk is not None and attackers(q, sk, R, q.occupied, pos.partial):
        return
    out.append(r)


def notations(pos: Position, rs: Iterable[Retraction]) -> list[str]:
    """Notation of each retraction, with '+' when the move gave check."""
    checked = {c: in_check(pos, not c) for c in chess.COLORS}
    return [r.notation(checked[r.color] and not pos.partial) for r in rs]
