"""Witness histories: decoded from a solver's model, checked independently, printed readably.

A `History` gives every unit of the game array its fate (square now, or captured and on which
colour; a pawn's file at each rank it reached; its promotion). `check_history` re-checks the
counting rules on it in plain Python, without the encoding, so a refutation never rests on the
solver alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from retrologic.history.model import Model, is_dark, rel_rank, square_at
from retrologic.position import Position
from retrologic.vocabulary import CASTLINGS, PROMOTION_TYPES, Unit, game_array, side_name


@dataclass
class Fate:
    """What became of one unit: where it stands, or that it was captured (and on which colour)."""

    unit: Unit
    square: chess.Square | None = None   # where it stands now (as itself or promoted)
    captured: bool = False
    capture_dark: bool | None = None
    path: list[int] | None = None         # pawns: file at relative ranks 2, 3, ... reached
    promoted_to: int | None = None        # piece type of a promoted pawn

    @property
    def type_now(self) -> int:
        """Its type on the board, or when it was captured."""
        return self.promoted_to or self.unit.piece_type

    def pawn_captures(self) -> list[tuple[int, int, int]]:
        """(relative rank, from file, to file) of each capture this pawn made as a pawn."""
        if not self.path:
            return []
        return [(i + 2, a, b) for i, (a, b) in enumerate(zip(self.path, self.path[1:])) if a != b]

    def promotion_square(self) -> chess.Square | None:
        if self.promoted_to is None or not self.path:
            return None
        return square_at(self.path[-1], 8, self.unit.color)


@dataclass
class History:
    """A history of the model: the fate of each of the 32 units."""

    position: Position
    fates: dict[Unit, Fate] = field(default_factory=dict)

    def side(self, side: chess.Color) -> list[Fate]:
        return [f for u, f in self.fates.items() if u.color == side]

    def captures(self, side: chess.Color) -> int:
        """Captures made by `side` = units of the opponent that left the board."""
        return sum(f.captured for f in self.side(not side))

    def pawn_capture_events(self, side: chess.Color) -> list[tuple[Fate, int, int, int]]:
        return [(f, rho, a, b) for f in self.side(side) for rho, a, b in f.pawn_captures()]

    def fate_on(self, square: chess.Square) -> Fate | None:
        for f in self.fates.values():
            if f.square == square:
                return f
        return None


def decode(model: Model, value: dict[int, bool] | list[bool]) -> History:
    """Read a history off the primary variables of a model assignment."""
    def val(v: int) -> bool:
        return bool(value[v]) if v > 0 else not value[-v]

    hist = History(model.position)
    for side in chess.COLORS:
        for u in model.units[side]:
            fate = Fate(u)
            for (w, s), v in list(model.on.items()) + list(model.pon.items()):
                if w == u and val(v):
                    fate.square = s
            if u.is_pawn:
                fate.path = [next(f for f in range(8) if (u, 2, f) in model.F and val(model.F[(u, 2, f)]))]
                for rho in range(2, 8):
                    if not val(model.act[(u, rho)]):
                        break
                    fate.path.append(next(f for f in range(8) if (u, rho + 1, f) in model.F
                                          and val(model.F[(u, rho + 1, f)])))
                if val(model.prom[u]):
                    fate.promoted_to = next(t for t in PROMOTION_TYPES if val(model.ptype[(u, t)]))
                fate.captured = val(model.cap[u]) or val(model.pcap[u])
            else:
                fate.captured = val(model.cap[u])
            if fate.captured:
                fate.capture_dark = val(model.cdark[u])
            hist.fates[u] = fate
    return hist


def check_history(hist: History) -> list[str]:
    """Every way the history breaks the counting rules (empty: it is a history of the model)."""
    pos = hist.position
    board = dict(pos.placement.units())
    bad: list[str] = []
    units = [u for side in chess.COLORS for u in game_array(side)]
    if sorted(hist.fates, key=units.index) != units:
        return ["the history must give a fate to each of the 32 units"]
    seen: dict[chess.Square, Unit] = {}
    for u, f in hist.fates.items():
        name = u.label()
        if (f.square is None) == (not f.captured):
            bad.append(f"{name}: exactly one of 'on a square' and 'captured' must hold")
        if f.captured and f.capture_dark is None:
            bad.append(f"{name}: captured, but on no colour")
        if u.piece_type == chess.KING and f.captured:
            bad.append(f"{name}: a king is never captured")
        if f.square is not None:
            if f.square in seen:
                bad.append(f"{name} and {seen[f.square].label()} both on {chess.square_name(f.square)}")
            seen[f.square] = u
            piece = board.get(f.square)
            if piece is None or piece.color != u.color or piece.piece_type != f.type_now:
                bad.append(f"{name}: the unit on {chess.square_name(f.square)} is not a "
                           f"{chess.piece_name(f.type_now)} of its side")
        if u.piece_type == chess.BISHOP:
            if f.square is not None and is_dark(f.square) != is_dark(u.home):
                bad.append(f"{name}: on the wrong colour")
            if f.captured and f.capture_dark != is_dark(u.home):
                bad.append(f"{name}: captured on the wrong colour")
        if u.is_pawn:
            bad += _check_pawn(u, f)
        elif f.path is not None or f.promoted_to is not None:
            bad.append(f"{name}: only pawns have paths and promotions")
    for sq in board:
        if sq not in seen:
            bad.append(f"the unit on {chess.square_name(sq)} comes from no unit of the game array")
    for side in chess.COLORS:
        bad += _check_captures(hist, side)
    bad += _check_flags(hist)
    return bad


def _check_pawn(u: Unit, f: Fate) -> list[str]:
    name, path = u.label(), f.path
    if not path or path[0] != u.file:
        return [f"{name}: its path must start on its own file"]
    bad = []
    if any(abs(a - b) > 1 for a, b in zip(path, path[1:])):
        bad.append(f"{name}: a pawn changes file by one at a time")
    if len(path) > 7:
        bad.append(f"{name}: a path beyond the last rank")
    reached = len(path) + 1              # the relative rank it reached
    if f.promoted_to is not None:
        if reached != 8:
            bad.append(f"{name}: promoted without reaching the last rank")
        if f.promoted_to not in PROMOTION_TYPES:
            bad.append(f"{name}: promoted to a {chess.piece_name(f.promoted_to)}")
        prom = f.promotion_square()
        if f.promoted_to == chess.BISHOP and prom is not None:
            if f.square is not None and is_dark(f.square) != is_dark(prom):
                bad.append(f"{name}: its bishop is not on the colour of {chess.square_name(prom)}")
            if f.captured and f.capture_dark != is_dark(prom):
                bad.append(f"{name}: its bishop captured off the colour of {chess.square_name(prom)}")
    elif f.square is not None:
        if rel_rank(f.square, u.color) != reached or chess.square_file(f.square) != path[-1]:
            bad.append(f"{name}: its path does not end on {chess.square_name(f.square)}")
    elif reached > 7:
        bad.append(f"{name}: reached the last rank without promoting")
    return bad


def _check_captures(hist: History, side: chess.Color) -> list[str]:
    """Pawn captures need missing opponent units, of the colour the pawn captured on."""
    events = hist.pawn_capture_events(side)
    gone = [f for f in hist.side(not side) if f.captured]
    bad = []
    name = side_name(side)
    if len(events) > len(gone):
        bad.append(f"{name}'s pawns made {len(events)} captures but only {len(gone)} "
                   f"opponent units are missing")
    flexible = sum(1 for f in gone if f.unit.is_pawn and f.promoted_to is None)
    for dark in (True, False):
        n = sum(1 for _, rho, a, _ in events if is_dark(square_at(a, rho, side)) == dark)
        cover = sum(1 for f in gone if not (f.unit.is_pawn and f.promoted_to is None)
                    and f.capture_dark == dark) + flexible
        if n > cover:
            word = "dark" if dark else "light"
            bad.append(f"{name}'s pawns captured {n} times on {word} squares but only {cover} "
                       f"opponent units can have been captured there")
    return bad


def _check_flags(hist: History) -> list[str]:
    """Castling rights, the e.p. square and frozen units pin units to their home squares."""
    pos, bad = hist.position, []
    for (color, rook), (king, _, _) in CASTLINGS.items():
        if pos.castling & chess.BB_SQUARES[rook]:
            for home in (king, rook):
                f = next(f for u, f in hist.fates.items() if u.color == color and u.home == home)
                if f.square != home:
                    bad.append(f"castling right: {f.unit.label()} must stand on its home square")
    if pos.ep_square is not None:
        mover = chess.square_rank(pos.ep_square) == 2
        sq = pos.ep_square + (8 if mover else -8)
        f = next(f for u, f in hist.fates.items() if u.color == mover and u.is_pawn
                 and u.file == chess.square_file(pos.ep_square))
        if f.square != sq or f.pawn_captures():
            bad.append(f"en passant: {f.unit.label()} must have just stepped to {chess.square_name(sq)}")
    for sq in chess.scan_forward(pos.frozen):
        f = hist.fate_on(sq)
        if f is None or f.unit.home != sq:
            bad.append(f"frozen {chess.square_name(sq)}: the unit there must be the one that started there")
    return bad


def match_captures(hist: History, side: chess.Color) -> tuple[list[tuple[tuple, Fate]], list[Fate]]:
    """Pair `side`'s pawn captures with missing opponent units (colours respected); the rest of
    the missing units were taken by pieces."""
    events = hist.pawn_capture_events(side)
    gone = [f for f in hist.side(not side) if f.captured]
    flexible = [f for f in gone if f.unit.is_pawn and f.promoted_to is None]
    by_colour = {d: [f for f in gone if f not in flexible and f.capture_dark == d] for d in (True, False)}
    pairs = []
    for ev in events:
        _, rho, a, _ = ev
        dark = is_dark(square_at(a, rho, side))
        pool = by_colour[dark] if by_colour[dark] else flexible
        if pool:
            pairs.append((ev, pool.pop(0)))
    taken = {id(v) for _, v in pairs}
    return pairs, [f for f in gone if id(f) not in taken]


def render(hist: History) -> list[str]:
    """Readable lines: captures per side, then each unit whose history is not 'stayed home'."""
    lines = []
    for side in chess.COLORS:
        name = side_name(side)
        pairs, by_pieces = match_captures(hist, side)
        lines.append(f"{name} captured {hist.captures(side)} unit(s): {len(pairs)} by pawns, "
                     f"{len(by_pieces)} by pieces")
        for (fate, rho, a, b), victim in pairs:
            frm = chess.square_name(square_at(a, rho, side))
            to = chess.square_name(square_at(b, rho + 1, side))
            lines.append(f"  {fate.unit.label()} {frm}x{to} took {_victim(victim)}")
        for victim in by_pieces:
            colour = "dark" if victim.capture_dark else "light"
            lines.append(f"  a {name} piece took {_victim(victim)} on a {colour} square")
    for side in chess.COLORS:
        for f in hist.side(side):
            text = _story(f)
            if text:
                lines.append(text)
    return lines


def _victim(f: Fate) -> str:
    if f.promoted_to is not None:
        return f"{f.unit.label()} (promoted to a {chess.piece_name(f.promoted_to)})"
    return f.unit.label()


def _story(f: Fate) -> str | None:
    u = f.unit
    if not u.is_pawn:
        if f.square is not None and f.square != u.home:
            return f"{u.label()} now on {chess.square_name(f.square)}"
        return None
    assert f.path is not None
    route = _route(f)
    if f.promoted_to is not None:
        where = f"now on {chess.square_name(f.square)}" if f.square is not None else "later captured"
        return (f"{u.label()} {route}, promoted on {chess.square_name(f.promotion_square())} "
                f"to a {chess.piece_name(f.promoted_to)}, {where}")
    if f.captured:
        return f"{u.label()} {route}, captured as a pawn"
    if f.square is not None and (f.square != u.home):
        return f"{u.label()} {route}, now on {chess.square_name(f.square)}"
    return None


def _route(f: Fate) -> str:
    caps = f.pawn_captures()
    if not caps:
        return f"stayed on the {chess.FILE_NAMES[f.unit.file]}-file"
    side = f.unit.color
    steps = ", ".join(f"{chess.square_name(square_at(a, rho, side))}x"
                      f"{chess.square_name(square_at(b, rho + 1, side))}" for rho, a, b in caps)
    return f"changed file by capturing ({steps})"
