"""Rules of the cage search beyond the retraction generator: restrictions from `[[constraint]]`
tables, the line-check test of the extended model (Figure 5), castling squares, the zone.

Every rule here only *removes* retractions, so each must be impossible in every real game that
the partial position is a part of; the reasons are given next to each rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import chess
from chess import BB_SQUARES

from retrologic.constraints import SIDE_COLORS, BoolAtom, Call, Compare, Junction, parse_expr
from retrologic.errors import InputError
from retrologic.position import (Placement, Position, away_from_home, castling_frozen,
                                 default_zone)
from retrologic.retract import Retraction
from retrologic.schema import parse_squares
from retrologic.vocabulary import CASTLINGS, castling_owner

MODELS = ("lines", "plain")
SWAP_SIDE = {"white": "black", "black": "white", "either": "either"}


# --- restrictions ----------------------------------------------------------------------------

@dataclass(frozen=True)
class NoPawnCaptures:
    """`pawn_captures(side, from_file=, to_file=) == 0`: no such pawn capture in the whole game,
    so no retraction may un-make one (un-promotions with capture included)."""

    side: str                   # white | black | either
    from_file: int | None       # 0..7, None: any file
    to_file: int | None
    name: str = ""

    def forbids(self, r: Retraction) -> bool:
        if r.uncapture is None or r.moved_type != chess.PAWN or r.color not in SIDE_COLORS[self.side]:
            return False
        return ((self.from_file is None or chess.square_file(r.from_square) == self.from_file)
                and (self.to_file is None or chess.square_file(r.to_square) == self.to_file))

    def swapped(self) -> "NoPawnCaptures":
        """The same restriction for the colour-swapped board (files do not change)."""
        return NoPawnCaptures(SWAP_SIDE[self.side], self.from_file, self.to_file, self.name)

    def expr(self) -> str:
        args = [self.side]
        if self.from_file is not None:
            args.append(f'from_file="{chess.FILE_NAMES[self.from_file]}"')
        if self.to_file is not None:
            args.append(f'to_file="{chess.FILE_NAMES[self.to_file]}"')
        return f"pawn_captures({', '.join(args)}) == 0"

    def to_json(self) -> dict[str, Any]:
        return {"expr": self.expr(), "pawn_captures": {
            "side": self.side,
            "from_file": None if self.from_file is None else chess.FILE_NAMES[self.from_file],
            "to_file": None if self.to_file is None else chess.FILE_NAMES[self.to_file]}}

    def key(self) -> tuple:
        return (self.side, self.from_file, self.to_file)


def covers(have: Iterable[NoPawnCaptures], need: Iterable[NoPawnCaptures]) -> bool:
    """Does the set `have` imply every restriction of `need`? (Exact match per restriction, or
    a broader one: 'either' covers each side, a missing file covers every file.)"""
    have = list(have)
    for n in need:
        if not any(h.side in (n.side, "either") and h.from_file in (None, n.from_file)
                   and h.to_file in (None, n.to_file) for h in have):
            return False
    return True


def restrictions_from(items: Iterable[Any], position: Position | None = None
                      ) -> tuple[list[NoPawnCaptures], int]:
    """Restrictions and never-moved squares from constraint tables, parsed expressions or strings.

    Only what becomes a retraction filter is accepted: `pawn_captures(...) == 0` (or `<= 0`,
    `< 1`), `never_moved("sq")` on an occupied square, joined by `and`; anything else is an
    InputError naming the constraint, never silently ignored.
    """
    rules: list[NoPawnCaptures] = []
    frozen = 0
    for i, item in enumerate(items):
        field, name = "constraint", ""
        if isinstance(item, dict):
            name = item.get("name", "")
            field = f"constraint[{i}]"
            if item.get("role", "assume") != "assume":
                raise InputError("a cage question takes assumptions only (role = \"assume\")",
                                 field=f"{field}.role", value=item.get("role"))
            text = item.get("expr")
            if not isinstance(text, str):
                raise InputError("a constraint table needs an expression string 'expr'",
                                 field=f"{field}.expr", value=text)
            expr = item.get("parsed") or parse_expr(text)
            field += ".expr"
        elif isinstance(item, str):
            try:
                text, expr = item, parse_expr(item)
            except InputError as e:      # a syntax error names its restriction, as others do
                raise InputError(e.message, field=field, value=item) from None
        else:
            text, expr = str(item), item
        for atom in _conjuncts(expr, text, field):
            if isinstance(atom, BoolAtom):
                sq = chess.parse_square(atom.call.arg("square"))
                if position is not None and not position.placement.occupied & BB_SQUARES[sq]:
                    raise InputError(f"never_moved: square {chess.square_name(sq)} is empty in "
                                     "the cage position", field=field, value=text)
                if position is not None and away_from_home(position.placement, BB_SQUARES[sq]):
                    # found in review (2026-11-30): a rook on d4 "never moved" made any board a
                    # cage, as `--frozen d4` (refused) would have
                    raise InputError(f"never_moved: the unit on {chess.square_name(sq)} stands "
                                     "where no unit of its type and colour starts the game",
                                     field=field, value=text)
                frozen |= BB_SQUARES[sq]
            else:
                rules.append(_pawn_rule(atom, text, field, name))
    return rules, frozen


def _conjuncts(expr: Any, text: str, field: str) -> list[Any]:
    if isinstance(expr, Junction) and expr.op == "and":
        return [a for item in expr.items for a in _conjuncts(item, text, field)]
    if isinstance(expr, BoolAtom) and expr.call.name == "never_moved" and expr.value:
        return [expr]
    if isinstance(expr, Compare):
        return [expr]
    raise _unusable(text, field)


def _unusable(text: str, field: str) -> InputError:
    return InputError("cannot be turned into a cage retraction filter (accepted: "
                      "pawn_captures(side, from_file=, to_file=) == 0 and never_moved(\"sq\"), "
                      "joined by 'and')", field=field, value=text)


def _pawn_rule(cmp: Compare, text: str, field: str, name: str) -> NoPawnCaptures:
    """`pawn_captures(...) == 0` in any of its equivalent spellings."""
    left, right, op = cmp.left, cmp.right, cmp.op
    if not left.terms and right.terms:
        left, right = right, left
        op = {"<=": ">=", ">=": "<=", "<": ">", ">": "<"}.get(op, op)
    if len(left.terms) != 1 or right.terms or left.terms[0][0] != 1:
        raise _unusable(text, field)
    call: Call = left.terms[0][1]
    bound = right.const - left.const
    if call.name != "pawn_captures" or not ((op == "==" and bound == 0) or
                                            (op == "<=" and bound == 0) or (op == "<" and bound == 1)):
        raise _unusable(text, field)
    files = {k: (None if call.arg(k) is None else "abcdefgh".index(call.arg(k)))
             for k in ("from_file", "to_file")}
    return NoPawnCaptures(call.arg("side"), files["from_file"], files["to_file"], name)


# --- squares a retraction proves empty ---------------------------------------------------------

def vacated(r: Retraction) -> tuple[int, int]:
    """Squares certainly empty in P (after the move) and in Q (before it), in every extension:
    the square a unit left and the squares a line piece or a double step passed over; before an
    uncapture-free move its target; the squares castling needs empty."""
    if r.castling:
        back = chess.square_rank(r.to_square) * 8
        rook_home = back + (7 if chess.square_file(r.to_square) == 6 else 0)
        _, _, rook_after = CASTLINGS[(castling_owner(rook_home), rook_home)]
        span = chess.between(r.from_square, rook_home)
        before = span
        after = (span | BB_SQUARES[r.from_square] | BB_SQUARES[rook_home]) & \
            ~(BB_SQUARES[r.to_square] | BB_SQUARES[rook_after])
        return after, before
    path = chess.between(r.from_square, r.to_square)
    after = path | BB_SQUARES[r.from_square]
    before = path | (BB_SQUARES[r.to_square] if r.uncapture is None or r.en_passant else 0)
    return after, before


# between(a, b) for squares on one rank or file (ORTH) or one diagonal (DIAG), 0 otherwise.
ORTH = [[0] * 64 for _ in range(64)]
DIAG = [[0] * 64 for _ in range(64)]
for _a in chess.SQUARES:
    for _b in chess.SQUARES:
        _dr = chess.square_rank(_a) - chess.square_rank(_b)
        _df = chess.square_file(_a) - chess.square_file(_b)
        if _a == _b:
            continue
        if _dr == 0 or _df == 0:
            ORTH[_a][_b] = chess.between(_a, _b)
        elif abs(_dr) == abs(_df):
            DIAG[_a][_b] = chess.between(_a, _b)


def line_checked(pl: Placement, king_color: chess.Color, empty: int) -> bool:
    """Is `king_color`'s king in check from a line piece whose every in-between square is in
    `empty` (known empty in every extension, so no added unit can block it)?"""
    k = pl.king(king_color)
    if k is None or not empty:
        return False
    enemy = pl.color_mask(not king_color)
    occ = pl.occupied
    orth, diag = ORTH[k], DIAG[k]
    for sq in chess.scan_forward(enemy & (pl.rooks | pl.queens)):
        b = orth[sq]
        if b and not b & ~empty and not b & occ:
            return True
    for sq in chess.scan_forward(enemy & (pl.bishops | pl.queens)):
        b = diag[sq]
        if b and not b & ~empty and not b & occ:
            return True
    return False


def occupied_unseen(pos: Position) -> int:
    """Empty squares of the partial position that hold a unit in every extension: the king and
    rook squares a castling right keeps occupied since the game began."""
    return castling_frozen(pos.castling) & ~pos.placement.occupied


def prune_rule(pos: Position, r: Retraction, q_placement: Placement, model: str,
               restrictions: Iterable[NoPawnCaptures]) -> str | None:
    """The rule that makes retraction `r` of `pos` impossible in every extension, or None.

    restriction:<expr>  the move is a pawn capture the restrictions forbid;
    castling-square     the move starts on or crosses a square a castling right keeps occupied;
    line-check-after    (lines model) after the move the mover's own king stands in a line check
                        whose every in-between square the move itself emptied;
    line-check-before   (lines model) before the move, with the mover to play, the other king
                        stands in such a check (e.g. the move vacated the only blocking square).
    """
    for rule in restrictions:
        if rule.forbids(r):
            return "restriction:" + (rule.name or rule.expr())
    after, before = vacated(r)
    if (after | before) & occupied_unseen(pos):
        return "castling-square"
    if model == "lines":
        if line_checked(pos.placement, r.color, after):
            return "line-check-after"
        if line_checked(q_placement, not r.color, before):
            return "line-check-before"
    return None


# --- zone --------------------------------------------------------------------------------------

def zone_mask(zone: Any, placement: Placement, *, field: str = "zone") -> int:
    """The zone as a mask: 'auto'/None (occupied squares and their king-move neighbours), a
    mask, or square names; it must hold every occupied square."""
    if zone is None or zone == "auto":
        return default_zone(placement)
    if isinstance(zone, int) and not isinstance(zone, bool):
        mask = zone
    else:
        try:
            mask = 0
            for sq in parse_squares(zone):
                mask |= BB_SQUARES[sq]
        except ValueError as e:
            raise InputError(str(e), field=field, value=zone) from None
    missing = placement.occupied & ~mask
    if missing:
        names = ", ".join(chess.square_name(s) for s in chess.scan_forward(missing))
        raise InputError(f"the zone must contain every occupied square (missing: {names})",
                         field=field, value=zone if not isinstance(zone, int) else squares_of(zone))
    return mask


def squares_of(mask: int) -> list[str]:
    return [chess.square_name(s) for s in chess.scan_forward(mask)]


def retraction_key(r: Retraction) -> str:
    """A retraction's name in certificates: side and notation ('w Ka2-a1', 'b Nb8xa6')."""
    return ("w " if r.color else "b ") + r.notation()
