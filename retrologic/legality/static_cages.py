"""Retractor 2's static cages as illegality rules (shared/seeds/retractor2-cages.html).

Everything rests on *frozen* units: units that never moved, so their squares were occupied all
game. Frozen are: pawns on their second rank, king and rook under a castling right, units the
problem declares frozen (when they stand on a home square of their type), and, to a fixpoint,
any unit on its home square whose every exit is a frozen unit's square (a bishop on c1 between
pawns on b2 and d2). From them:

  bishop-cage / sealed-square   a unit on a square every way into which was always blocked, and
                                that is not its starting square (Retractor's bishop cages:
                                White B on b1 with pawns a2, c2; Black B on c1 with b2, c2, d2;
                                and pawns X2, Y3, Z2 with a bishop on Y1 and a rook on Y2)
  strong-first-rank-cage        frozen walls on the first rank, pawns on the second rank of
                                every file between: no enemy piece but a knight inside, friendly
                                pieces only if their home is inside, in their starting order
  weak-first-rank-cage          the same with pawns on the 2nd or 3rd rank (no two adjacent on
                                the 3rd): sealed for rooks; enemy rooks inside were promoted
                                there, each after a pawn capture
  rook-count                    originals sealed in a cage are not available outside it, so the
                                pieces outside need more promotions than there are missing pawns
  king-behind-pawn-cage         the king cannot walk home without crossing a square that a frozen
                                unit occupies or attacks unblockably (or a 3rd-rank pawn's square
                                with a pawn behind it on the 2nd rank)

Every rule fires only on positions that no game from the initial position reaches.
"""

from __future__ import annotations

from itertools import product

import chess

from retrologic.legality.reason import Reason
from retrologic.position import HOME, Position, castling_frozen, home_mask
from retrologic.retract import unit_attacks
from retrologic.vocabulary import color_name

LIGHT = chess.BB_LIGHT_SQUARES
_ORIGINALS = {chess.QUEEN: 1, chess.ROOK: 2, chess.BISHOP: 2, chess.KNIGHT: 2}


def _reason(rule: str, message: str) -> Reason:
    return Reason(rule, message)


_SQ = {c: [[chess.square(f, r if c else 7 - r) for f in range(8)] for r in range(8)]
       for c in chess.COLORS}


def _sq(f: int, r: int, c: chess.Color) -> chess.Square:
    """Square on file f at relative rank r (0-based: 0 = own first rank)."""
    return _SQ[c][r][f]


def _names(mask: int) -> str:
    return ", ".join(chess.square_name(s) for s in chess.scan_forward(mask))


def _unit(pos: Position, sq: chess.Square) -> str:
    p = pos.placement.piece_at(sq)
    return f"the {color_name(p.color)} {chess.piece_name(p.piece_type)} on {chess.square_name(sq)}"


# --- frozen units ----------------------------------------------------------------------------

def entries(piece: chess.Piece, sq: chess.Square) -> int:
    """Squares a unit of this kind must have stood on just before arriving on `sq` (for a
    promoted piece: its pawn's squares; for a castled king or rook: its home)."""
    t, c = piece.piece_type, piece.color
    if t == chess.PAWN:
        back = -8 if c else 8
        out = chess.BB_SQUARES[sq + back] if 0 <= sq + back < 64 else 0
        return out | chess.BB_PAWN_ATTACKS[not c][sq]
    out = unit_attacks(t, c, sq, 0, True)
    if chess.square_rank(sq) == (7 if c else 0):          # promotion square of its side
        pawn = sq - 8 if c else sq + 8
        out |= chess.BB_SQUARES[pawn] | chess.BB_PAWN_ATTACKS[not c][sq]
    first = 0 if c else 7
    if chess.square_rank(sq) == first:
        f = chess.square_file(sq)
        if t == chess.KING and f in (2, 6):
            out |= chess.BB_SQUARES[chess.square(4, first)]
        if t == chess.ROOK and f in (3, 5):
            out |= chess.BB_SQUARES[chess.square(0 if f == 3 else 7, first)]
    return out


def exits(piece: chess.Piece, sq: chess.Square, frozen: int) -> int:
    """Squares a piece on its home square must pass to leave it (castling when not blocked)."""
    t, c = piece.piece_type, piece.color
    out = unit_attacks(t, c, sq, 0, True)
    if t == chess.KING:
        r = 0 if c else 7
        if not frozen & (chess.BB_SQUARES[chess.square(5, r)] | chess.BB_SQUARES[chess.square(6, r)]):
            out |= chess.BB_SQUARES[chess.square(6, r)]
        if not frozen & (chess.BB_SQUARES[chess.square(1, r)] | chess.BB_SQUARES[chess.square(2, r)]
                         | chess.BB_SQUARES[chess.square(3, r)]):
            out |= chess.BB_SQUARES[chess.square(2, r)]
    return out


def frozen_units(pos: Position) -> int:
    """Units that never moved (see the module docstring), as a bitboard."""
    pl = pos.placement
    home = home_mask(pl)
    frozen = (pl.pawns & pl.white & chess.BB_RANK_2) | (pl.pawns & ~pl.white & chess.BB_RANK_7)
    frozen |= (pos.frozen | castling_frozen(pos.castling)) & home
    changed = True
    while changed:
        changed = False
        for sq in chess.scan_forward(home & ~frozen):
            piece = pl.piece_at(sq)
            if exits(piece, sq, frozen) & ~frozen == 0:
                frozen |= chess.BB_SQUARES[sq]
                changed = True
    return frozen


_PIECE_HOMES = [(chess.Piece(t, c), sq, unit_attacks(t, c, sq, 0, True))
                for (t, c), homes in HOME.items() if t not in (chess.PAWN, chess.KING)
                for sq in chess.scan_forward(homes)]


def sealed_homes(pos: Position, frozen: int) -> int:
    """Home squares of pieces (not kings) whose every exit is frozen: the original never left."""
    out = 0
    for _, sq, way_out in _PIECE_HOMES:
        if not way_out & ~frozen:
            out |= chess.BB_SQUARES[sq]
    return out


# --- bishop cages and sealed squares ---------------------------------------------------------

def sealed_square_reasons(pos: Position, frozen: int) -> list:
    """Units standing where nothing could ever arrive, off their starting squares."""
    out = []
    pl = pos.placement
    for sq in chess.scan_forward(pl.occupied & ~frozen & ~home_mask(pl)):
        piece = pl.piece_at(sq)
        way_in = entries(piece, sq)
        if way_in & ~frozen:
            continue
        rule = "bishop-cage" if piece.piece_type == chess.BISHOP else "sealed-square"
        out.append(_reason(rule, f"{_unit(pos, sq)} cannot have arrived there: {_names(way_in)} "
                                 f"held units that never moved, and it did not start there"))
    for c in chess.COLORS:
        out += _bishop_rook_reasons(pos, c)
    return out


def _bishop_rook_reasons(pos: Position, c: chess.Color) -> list:
    """Pawns X2, Y3, Z2 of one side: not both a bishop on Y1 and a rook on Y2 (either colour)."""
    pl, out = pos.placement, []
    own_pawns = pl.pieces(chess.PAWN, c)
    for y in range(1, 7):
        need = [_sq(y - 1, 1, c), _sq(y + 1, 1, c), _sq(y, 2, c)]
        if not all(own_pawns & chess.BB_SQUARES[s] for s in need):
            continue
        y1, y2 = _sq(y, 0, c), _sq(y, 1, c)
        if pl.bishops & chess.BB_SQUARES[y1] and pl.rooks & chess.BB_SQUARES[y2]:
            out.append(_reason("bishop-cage",
                               f"{_unit(pos, y1)} and {_unit(pos, y2)} behind {color_name(c)} pawns on "
                               f"{_names(sum(chess.BB_SQUARES[s] for s in need))}: the rook can "
                               f"never have entered {chess.square_name(y2)}"))
    return out


# --- first-rank cages ------------------------------------------------------------------------

def _regions(pos: Position, c: chess.Color, frozen: int) -> list[tuple[list[int], str, int]]:
    """Cages on c's first rank: (files of the region, "strong"|"weak", rook-sealed squares)."""
    pl = pos.placement
    own_pawns = pl.pieces(chess.PAWN, c)
    walls = [bool(frozen & chess.BB_SQUARES[_sq(f, 0, c)]) for f in range(8)]
    out = []
    f = 0
    while f < 8:
        if walls[f]:
            f += 1
            continue
        lo = f
        while f < 8 and not walls[f]:
            f += 1
        hi = f - 1
        files = list(range(max(lo - 1, 0), min(hi + 1, 7) + 1))
        on2 = [bool(own_pawns & chess.BB_SQUARES[_sq(x, 1, c)]) for x in files]
        on3 = [bool(own_pawns & chess.BB_SQUARES[_sq(x, 2, c)]) for x in files]
        region = list(range(lo, hi + 1))
        squares = sum(chess.BB_SQUARES[_sq(x, 0, c)] for x in region)
        if all(on2):
            out.append((region, "strong", squares))
            continue
        third = [not a and b for a, b in zip(on2, on3)]
        if all(a or b for a, b in zip(on2, on3)) and not any(p and q for p, q in zip(third, third[1:])):
            holes = sum(chess.BB_SQUARES[_sq(x, 1, c)] for x, t in zip(files, third)
                        if t and lo <= x <= hi)
            out.append((region, "weak", squares | holes))
    return out


def _order_ok(units: list[tuple[int, int]], rook_homes: list[int]) -> bool:
    """Queen left of king; a-rook left of queen and of the h-rook; queen left of the h-rook."""
    queens = [f for t, f in units if t == chess.QUEEN]
    kings = [f for t, f in units if t == chess.KING]
    rooks = [f for t, f in units if t == chess.ROOK]
    for labels in product(rook_homes, repeat=len(rooks)):
        if len(set(labels)) != len(labels):
            continue
        a = [f for f, l in zip(rooks, labels) if l == 0]
        h = [f for f, l in zip(rooks, labels) if l == 7]
        ok = all(q < k for q in queens for k in kings)
        ok &= all(x < q for x in a for q in queens) and all(q < x for q in queens for x in h)
        ok &= all(x < y for x in a for y in h)
        if ok:
            return True
    return False


def all_regions(pos: Position, frozen: int) -> dict[chess.Color, list[tuple[list[int], str, int]]]:
    return {c: _regions(pos, c, frozen) for c in chess.COLORS}


def cage_reasons(pos: Position, frozen: int, regions: dict | None = None) -> list:
    """Strong and weak first-rank cages of both sides."""
    out = []
    pl = pos.placement
    regions = regions or all_regions(pos, frozen)
    for c in chess.COLORS:
        for region, kind, squares in regions[c]:
            where = f"{color_name(c)}'s first-rank cage {chess.square_name(_sq(region[0], 0, c))}-" \
                    f"{chess.square_name(_sq(region[-1], 0, c))}"
            rook_homes = [f for f in (0, 7) if f in region]
            if kind == "strong":
                out += _strong(pos, c, region, squares, rook_homes, where)
            else:
                own_rooks = pl.pieces(chess.ROOK, c) & squares
                if chess.popcount(own_rooks) > len(rook_homes):
                    out.append(_reason("weak-first-rank-cage",
                                       f"{where} (sealed for rooks) holds {color_name(c)} rooks on "
                                       f"{_names(own_rooks)} but only {len(rook_homes)} rook "
                                       f"start(s) inside"))
    return out + _weak_enemy_rooks(pos, regions)


def _strong(pos: Position, c: chess.Color, region: list[int], squares: int,
            rook_homes: list[int], where: str) -> list:
    pl, out = pos.placement, []
    enemy = pl.color_mask(not c) & squares & ~pl.knights
    if enemy:
        out.append(_reason("strong-first-rank-cage",
                           f"{where}: no enemy unit but a knight can get in, yet "
                           f"{_names(enemy)} hold {color_name(not c)} units"))
    units = []
    for sq in chess.scan_forward(pl.color_mask(c) & squares & ~pl.knights):
        t = pl.piece_type_at(sq)
        f = chess.square_file(sq)
        units.append((t, f))
        ok = {chess.KING: 4 in region, chess.QUEEN: 3 in region, chess.ROOK: bool(rook_homes),
              chess.BISHOP: bool(HOME[(chess.BISHOP, c)] & chess.BB_SQUARES[sq])}.get(t, False)
        if not ok:
            out.append(_reason("strong-first-rank-cage",
                               f"{where}: {_unit(pos, sq)} cannot have entered it and did not "
                               f"start inside"))
    rooks = sum(1 for t, _ in units if t == chess.ROOK)
    queens = sum(1 for t, _ in units if t == chess.QUEEN)
    if rooks > len(rook_homes) or queens > 1:
        out.append(_reason("strong-first-rank-cage",
                           f"{where}: more rooks or queens inside than started there"))
    elif not _order_ok(units, rook_homes):
        out.append(_reason("strong-first-rank-cage",
                           f"{where}: rooks, queen and king cannot pass each other there, and "
                           f"they are out of their starting order"))
    king = pl.king(c)
    if 4 in region and (king is None or not chess.BB_SQUARES[king] & squares):
        out.append(_reason("strong-first-rank-cage",
                           f"{where}: the {color_name(c)} king started inside and can never have left"))
    return out


def _excess(pos: Position, c: chess.Color, sealed: dict[str, int], inside: int) -> dict[str, int]:
    """Promotions side c needs per class, given originals that cannot be outside (sealed) and
    units standing inside their cages (`inside`, not counted)."""
    pl = pos.placement
    cm = pl.color_mask(c) & ~inside
    b = pl.bishops & cm
    counts = {"queen": chess.popcount(pl.queens & cm), "rook": chess.popcount(pl.rooks & cm),
              "knight": chess.popcount(pl.knights & cm), "light bishop": chess.popcount(b & LIGHT),
              "dark bishop": chess.popcount(b & ~LIGHT)}
    avail = {"queen": 1, "rook": 2, "knight": 2, "light bishop": 1, "dark bishop": 1}
    return {k: max(0, counts[k] - (avail[k] - sealed.get(k, 0))) for k in counts}


def _classes(sq: chess.Square, t: int) -> str:
    if t == chess.BISHOP:
        return "light bishop" if chess.BB_SQUARES[sq] & LIGHT else "dark bishop"
    return chess.piece_name(t)


def count_reasons(pos: Position, frozen: int, regions: dict | None = None) -> list:
    """rook-count: originals sealed in cages are not available outside them."""
    pl, out = pos.placement, []
    homes = sealed_homes(pos, frozen)
    regions = regions or all_regions(pos, frozen)
    for c in chess.COLORS:
        sealed: dict[str, int] = {}
        inside = 0
        for region, kind, squares in regions[c]:
            for f in region:
                sq = _sq(f, 0, c)
                for t in (chess.QUEEN, chess.ROOK, chess.BISHOP):
                    if HOME[(t, c)] & chess.BB_SQUARES[sq] and (kind == "strong" or t == chess.ROOK) \
                            and not homes & chess.BB_SQUARES[sq]:
                        sealed[_classes(sq, t)] = sealed.get(_classes(sq, t), 0) + 1
            mask = squares & pl.color_mask(c)
            inside |= mask & (pl.rooks if kind == "weak" else ~pl.knights)
        for (t, cc), hs in HOME.items():
            if cc != c or t in (chess.PAWN, chess.KING):
                continue
            for sq in chess.scan_forward(hs & homes):
                sealed[_classes(sq, t)] = sealed.get(_classes(sq, t), 0) + 1
                inside |= chess.BB_SQUARES[sq] & pl.color_mask(c) & pl.pieces(t, c)
        if not sealed:
            continue
        missing = 8 - chess.popcount(pl.pieces(chess.PAWN, c))
        plain = sum(_excess(pos, c, {}, 0).values())
        caged = _excess(pos, c, sealed, inside)
        if plain <= missing < sum(caged.values()):
            rule = "rook-count" if "rook" in sealed else "bishop-cage" if any(
                "bishop" in k for k in sealed) else "strong-first-rank-cage"
            what = ", ".join(f"{v} {k}(s)" for k, v in caged.items() if v)
            out.append(_reason(rule, f"{color_name(c)} originals sealed in cages ("
                                     f"{', '.join(f'{v} {k}' for k, v in sealed.items())}) cannot be "
                                     f"outside them: the pieces outside need promotions ({what}) "
                                     f"but only {missing} pawn(s) are missing"))
    return out


def _weak_enemy_rooks(pos: Position, regions: dict) -> list:
    """Enemy rooks inside a rook-sealed cage were promoted there after a pawn capture."""
    pl, out = pos.placement, []
    for c in chess.COLORS:
        inside = 0
        for _, kind, squares in regions[c]:
            if kind == "weak":
                inside |= squares & pl.pieces(chess.ROOK, not c)
        n = chess.popcount(inside)
        if not n:
            continue
        e = not c
        pawns_missing = 8 - chess.popcount(pl.pieces(chess.PAWN, e))
        captures = 16 - chess.popcount(pl.color_mask(c))
        other = sum(_excess(pos, e, {}, inside).values())
        if n + other > pawns_missing or n > captures:
            out.append(_reason("weak-first-rank-cage",
                               f"{color_name(e)} rooks on {_names(inside)} are inside {color_name(c)}'s "
                               f"rook-sealed cage, so each was promoted there after a pawn capture: "
                               f"{n + other} promotion(s) needed, {pawns_missing} pawn(s) missing, "
                               f"{captures} capture(s) available"))
    return out


# --- king behind an enemy pawn cage ----------------------------------------------------------

def forbidden_for_king(pos: Position, c: chess.Color, frozen: int) -> int:
    """Squares the king of side c can never have stood on."""
    pl = pos.placement
    out = frozen
    for sq in chess.scan_forward(frozen & pl.color_mask(not c)):
        p = pl.piece_at(sq)
        out |= unit_attacks(p.piece_type, p.color, sq, 0, True)
    e = not c
    epawns = pl.pieces(chess.PAWN, e)
    for f in range(8):
        s2, s3 = _sq(f, 1, e), _sq(f, 2, e)
        if epawns & chess.BB_SQUARES[s2] and epawns & chess.BB_SQUARES[s3]:
            out |= chess.BB_SQUARES[s3]
    return out


def _king_spread(b: int) -> int:
    """The squares of `b` and every square a king step away from them."""
    b |= ((b << 1) & ~chess.BB_FILE_A) | ((b >> 1) & ~chess.BB_FILE_H)
    return (b | (b << 8) | (b >> 8)) & chess.BB_ALL


def king_reasons(pos: Position, frozen: int) -> list:
    """The king must have walked from its home square through squares it could stand on."""
    pl, out = pos.placement, []
    for c in chess.COLORS:
        k = pl.king(c)
        home = chess.E1 if c else chess.E8
        if k is None or k == home:
            continue
        bad = forbidden_for_king(pos, c, frozen & ~chess.BB_SQUARES[k])
        if bad & chess.BB_SQUARES[k]:
            out.append(_reason("king-behind-pawn-cage",
                               f"the {color_name(c)} king stands on {chess.square_name(k)}, a square "
                               f"occupied or attacked by units that never moved"))
            continue
        castled = chess.BB_SQUARES[home + 2] | chess.BB_SQUARES[home - 2]
        seen = chess.BB_SQUARES[k]
        while True:
            grown = _king_spread(seen)
            if seen & castled:               # a castled king came from its home in one move
                grown |= chess.BB_SQUARES[home]
            grown &= ~bad
            if grown & chess.BB_SQUARES[home] or grown | seen == seen:
                seen |= grown
                break
            seen |= grown
        if not seen & chess.BB_SQUARES[home]:
            out.append(_reason("king-behind-pawn-cage",
                               f"the {color_name(c)} king on {chess.square_name(k)} has no way back to "
                               f"{chess.square_name(home)} that avoids squares occupied or "
                               f"attacked by units that never moved"))
    return out


def reasons(pos: Position) -> list:
    """Every static cage rule that proves the full position `pos` illegal (list of Reason)."""
    if pos.partial:
        return []
    frozen = frozen_units(pos)
    regions = all_regions(pos, frozen)
    return (sealed_square_reasons(pos, frozen) + cage_reasons(pos, frozen, regions)
            + count_reasons(pos, frozen, regions) + king_reasons(pos, frozen))
