"""The history model of a full position, as solver-neutral constraints (one IR, two backends).

Each of the 32 units of the game array is on the board (on which square; promoted or not) or
captured (on a light or dark square). A pawn's path is the file it stands on at each rank it
reached; it changes file only by capturing, one file per capture. Each capture removes one
opponent unit, a promoted piece needs a pawn of its side that reached the last rank, bishops keep
their square colour. The rules are *named groups* switched on by selector literals, so an UNSAT
core reads as the facts a proof used. retrologic.history.cnf and retrologic.history.cpsat turn
the IR into CNF (pysat) and CP-SAT models.

The model over-approximates real games: every legal game has a matching model history, so
UNSAT proves; a model history is not necessarily a playable game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

import chess

from retrologic.legality.static_cages import frozen_units, sealed_homes
from retrologic.position import Position, castling_frozen
from retrologic.vocabulary import CASTLINGS, PROMOTION_TYPES, Unit, color_name, game_array

# Named rule groups: id -> what the rule says (printed with cores).
RULES: dict[str, str] = {
    "captures-remove-units": "each capture removes one opponent unit: a side's pawn captures are at "
                             "most the opponent's missing units",
    "file-changes-are-captures": "a pawn changes file only by capturing, one file per capture",
    "bishops-keep-colour": "a bishop stays on its square colour; a promoted bishop has the colour "
                           "of its promotion square",
    "capture-colours": "a pawn captures on the colour of the square it stands on; the units "
                       "captured on each colour must cover those captures",
    "kings-never-captured": "a king is never captured",
    "castling-rights": "a castling right means king and rook never moved",
    "en-passant": "an en-passant square means a pawn just made a double step",
    "frozen-units-block-pawns": "a pawn never stood on a square held all game by a unit that "
                                "never moved (Retractor's frozen units)",
}
UNIT_DOC = "a unit on the board comes from exactly one unit of the game array"
CAGE_DOC = ("static cage (Retractor): every way out of this home square was always blocked by "
            "units that never moved")


def rel_rank(square: chess.Square, color: chess.Color) -> int:
    """Rank 1..8 as seen from `color` (a white pawn starts on 2, a black one on 2 as well)."""
    r = chess.square_rank(square)
    return r + 1 if color else 8 - r


def square_at(file: int, rho: int, color: chess.Color) -> chess.Square:
    """The square on `file` at relative rank `rho` for `color`."""
    return chess.square(file, rho - 1 if color else 8 - rho)


def is_dark(square: chess.Square) -> bool:
    """A dark square (a1, c1, ...): bishops and capture colours are counted by it."""
    return (chess.square_file(square) + chess.square_rank(square)) % 2 == 0


@dataclass(frozen=True)
class Card:
    """sum(lits) OP bound (a literal may repeat: its weight), enforced when `guard` is true."""

    lits: tuple[int, ...]
    op: str                        # "<=", ">=" or "=="
    bound: int
    guard: int | None = None


@dataclass
class LinearForm:
    """sum(coef * literal) + const over model literals: the value of a number term."""

    terms: list[tuple[int, int]] = field(default_factory=list)
    const: int = 0

    @classmethod
    def count(cls, lits: Iterable[int]) -> "LinearForm":
        return cls([(1, lit) for lit in lits], 0)

    def plus(self, other: "LinearForm", sign: int = 1) -> "LinearForm":
        return LinearForm(self.terms + [(sign * c, l) for c, l in other.terms],
                          self.const + sign * other.const)

    def scaled(self, k: int) -> "LinearForm":
        return LinearForm([(k * c, l) for c, l in self.terms], k * self.const)


class Model:
    """Variables, clauses and cardinality constraints of one position's history model.

    Literals are non-zero ints (DIMACS style). `clauses` and `cards` are the IR both backends
    read; `groups` maps a group name to its selector variable (assumed true unless dropped).
    """

    def __init__(self, position: Position) -> None:
        if position.partial:
            raise ValueError("the history model needs a full position (a FEN)")
        self.position = position
        self.names: list[str] = [""]
        self.clauses: list[tuple[int, ...]] = []
        self.cards: list[Card] = []
        self.groups: dict[str, int] = {}
        self.group_doc: dict[str, str] = {}
        self._cache: dict[tuple, int] = {}
        self.TRUE = self.new_var("true")
        self.add_clause([self.TRUE])
        self.units: dict[chess.Color, list[Unit]] = {c: game_array(c) for c in chess.COLORS}
        self.board: dict[chess.Square, chess.Piece] = dict(position.placement.units())
        self.on: dict[tuple[Unit, chess.Square], int] = {}      # unit (as itself) on square
        self.cap: dict[Unit, int] = {}                           # piece captured / pawn captured as pawn
        self.prom: dict[Unit, int] = {}                          # pawn left the board by promotion
        self.pon: dict[tuple[Unit, chess.Square], int] = {}     # promoted pawn now on square
        self.pcap: dict[Unit, int] = {}                          # promoted piece later captured
        self.ptype: dict[tuple[Unit, int], int] = {}            # promotion piece type
        self.miss: dict[Unit, int] = {}                          # unit missing from the board
        self.cdark: dict[Unit, int] = {}                         # captured on a dark square
        self.F: dict[tuple[Unit, int, int], int] = {}           # pawn on file f at rank rho
        self.act: dict[tuple[Unit, int], int] = {}              # pawn stepped from rho to rho+1
        self.cR: dict[tuple[Unit, int], int] = {}               # that step captured towards h
        self.cL: dict[tuple[Unit, int], int] = {}               # that step captured towards a
        self._build()

    # --- IR primitives (also the API for custom predicate encoders) --------------------------

    @property
    def FALSE(self) -> int:
        return -self.TRUE

    @property
    def num_vars(self) -> int:
        return len(self.names) - 1

    def new_var(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1

    def add_clause(self, lits: Iterable[int]) -> None:
        self.clauses.append(tuple(lits))

    def add_card(self, lits: Iterable[int], op: str, bound: int, guard: int | None = None) -> None:
        if op not in ("<=", ">=", "=="):
            raise ValueError(op)
        self.cards.append(Card(tuple(lits), op, bound, guard))

    def group(self, name: str, doc: str = "") -> int:
        """The selector of a named group (created on first use)."""
        if name not in self.groups:
            self.groups[name] = self.new_var(f"group:{name}")
            self.group_doc[name] = doc
        return self.groups[name]

    def and_(self, lits: Iterable[int], name: str = "and") -> int:
        """A literal equivalent to the conjunction of `lits`."""
        lits = tuple(sorted(set(lits)))
        if not lits:
            return self.TRUE
        if len(lits) == 1:
            return lits[0]
        return self.cached(("and", lits), lambda: self._new_and(lits, name))

    def _new_and(self, lits: tuple[int, ...], name: str) -> int:
        """A fresh literal with the clauses of `v <-> and(lits)`."""
        v = self.new_var(name)
        for lit in lits:
            self.add_clause([-v, lit])
        self.add_clause([v] + [-lit for lit in lits])
        return v

    def cached(self, key: tuple, make: Callable[[], int]) -> int:
        """One literal per `key`, made once (`and_`, the reified sums, `never_moved`): the same
        fact asked twice is one variable, so an assumption about it binds a claim about it
        (`never_moved` is one-sided: two variables for one square would leave
        `never_moved("d1")` unproved under that very assumption)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def or_(self, lits: Iterable[int], name: str = "or") -> int:
        """A literal equivalent to the disjunction of `lits`."""
        return -self.and_([-lit for lit in lits], name)

    def reify(self, form: LinearForm, op: str, rhs: int = 0) -> int:
        """A literal equivalent to `form OP rhs` (op one of == != <= >= < >)."""
        const = form.const
        lits: list[int] = []
        for coef, lit in form.terms:
            if coef < 0:                       # c*l = c + |c|*(not l)
                const += coef
                coef, lit = -coef, -lit
            lits.extend([lit] * coef)
        k = rhs - const                        # sum(lits) OP k
        if op == "<":
            op, k = "<=", k - 1
        elif op == ">":
            op, k = ">=", k + 1
        if op == "==":
            return self.and_([self._reify_card(lits, "<=", k), self._reify_card(lits, ">=", k)])
        if op == "!=":
            return -self.and_([self._reify_card(lits, "<=", k), self._reify_card(lits, ">=", k)])
        return self._reify_card(lits, op, k)

    def _reify_card(self, lits: list[int], op: str, k: int) -> int:
        n = len(lits)
        if op == "<=":
            if k < 0:
                return self.FALSE
            if k >= n:
                return self.TRUE
        else:
            if k <= 0:
                return self.TRUE
            if k > n:
                return self.FALSE
        return self.cached(("card", tuple(sorted(lits)), op, k),
                           lambda: self._new_card(lits, op, k))

    def _new_card(self, lits: list[int], op: str, k: int) -> int:
        """A fresh literal guarding `sum(lits) op k` and its complement the other way."""
        t = self.new_var(f"[sum {op} {k}]")
        other = (">=", k + 1) if op == "<=" else ("<=", k - 1)
        self.add_card(lits, op, k, guard=t)
        self.add_card(lits, other[0], other[1], guard=-t)
        return t

    def exactly_one(self, lits: Iterable[int], guard: int | None = None) -> None:
        self.add_card(lits, "==", 1, guard)

    # --- queries on the history (used by the predicate encoders) -----------------------------

    def side_units(self, side: chess.Color) -> list[Unit]:
        return self.units[side]

    def missing_lits(self, side: chess.Color) -> list[int]:
        """One literal per unit of `side` that is missing from the board."""
        return [self.miss[u] for u in self.units[side]]

    def pawn_capture_lits(self, side: chess.Color, from_file: int | None = None,
                          to_file: int | None = None) -> list[int]:
        """One literal per possible pawn capture of `side`, from one file to another if given."""
        out = []
        for u in self.units[side]:
            if not u.is_pawn:
                continue
            for rho in range(2, 8):
                if from_file is None and to_file is None:
                    out += [self.cR[(u, rho)], self.cL[(u, rho)]]
                    continue
                for d, c in ((1, self.cR[(u, rho)]), (-1, self.cL[(u, rho)])):
                    for f in range(8):
                        if (from_file is not None and f != from_file) or \
                                (to_file is not None and f + d != to_file) or not 0 <= f + d < 8:
                            continue
                        fv = self.F.get((u, rho, f))
                        if fv is not None:
                            out.append(self.and_([fv, c], f"{chess.square_name(u.home)} captures "
                                                          f"{chess.FILE_NAMES[f]}->"
                                                          f"{chess.FILE_NAMES[f + d]} at {rho}"))
        return out

    def promotion_lits(self, side: chess.Color) -> list[int]:
        return [self.prom[u] for u in self.units[side] if u.is_pawn]

    def promoted_lit(self, square: chess.Square) -> int:
        """True when the unit on `square` is a promoted piece."""
        lits = [v for (u, s), v in self.pon.items() if s == square]
        return self.or_(lits, f"promoted {chess.square_name(square)}") if lits else self.FALSE

    def captured_on_color_lits(self, side: chess.Color, piece: int, dark: bool) -> list[int]:
        """Units of `side` captured as a `piece` on a square of the given colour."""
        out = []
        for u in self.units[side]:
            col = self.cdark[u] if dark else -self.cdark[u]
            if u.is_pawn:
                if piece == chess.PAWN:
                    out.append(self.and_([self.cap[u], col]))
                elif piece in PROMOTION_TYPES:
                    out.append(self.and_([self.pcap[u], self.ptype[(u, piece)], col]))
            elif u.piece_type == piece:
                out.append(self.and_([self.cap[u], col]))
        return out

    def preferred(self) -> list[int]:
        """Literals a witness should satisfy when it can: units at home, no captures, no
        promotions, pawns on their files (solver phases, for readable witnesses)."""
        out = []
        for (u, s), v in self.on.items():
            out.append(v if s == u.home else -v)
        out += [-v for v in self.cap.values()] + [-v for v in self.prom.values()]
        out += [-v for v in self.cR.values()] + [-v for v in self.cL.values()]
        out += [v for (u, rho, f), v in self.F.items() if f == u.file]
        return out

    def home_unit(self, square: chess.Square, piece: chess.Piece) -> Unit | None:
        """The unit of the game array that starts on `square`, if it has the piece's type."""
        for u in self.units[piece.color]:
            if u.home == square and u.piece_type == piece.piece_type:
                return u
        return None

    # --- the model -----------------------------------------------------------------------------

    def _build(self) -> None:
        for side in chess.COLORS:
            self._board_vars(side)
        for side in chess.COLORS:
            self._pawn_paths(side)
        for sq, piece in sorted(self.board.items()):
            self._board_unit(sq, piece)
        for side in chess.COLORS:
            self._fates(side)
        for side in chess.COLORS:
            self._captures(side)
        self._castling()
        self._en_passant()
        self._frozen()
        self._cages()
        self._blocked_paths()

    def _board_vars(self, side: chess.Color) -> None:
        squares = sorted(s for s, p in self.board.items() if p.color == side)
        for u in self.units[side]:
            tag = chess.square_name(u.home)
            if u.is_pawn:
                for s in squares:
                    if self.board[s].piece_type == chess.PAWN:
                        rho = rel_rank(s, side)
                        if 2 <= rho <= 7 and abs(chess.square_file(s) - u.file) <= rho - 2:
                            self.on[(u, s)] = self.new_var(f"{tag} on {chess.square_name(s)}")
                    elif self.board[s].piece_type in PROMOTION_TYPES:
                        self.pon[(u, s)] = self.new_var(f"{tag} promoted, on {chess.square_name(s)}")
                self.cap[u] = self.new_var(f"{tag} captured as pawn")
                self.prom[u] = self.new_var(f"{tag} promoted")
                self.pcap[u] = self.new_var(f"{tag} promoted, captured")
                for t in PROMOTION_TYPES:
                    self.ptype[(u, t)] = self.new_var(f"{tag} promoted to {chess.piece_symbol(t)}")
                self.miss[u] = self.or_([self.cap[u], self.pcap[u]], f"{tag} missing")
            else:
                for s in squares:
                    if self.board[s].piece_type == u.piece_type:
                        self.on[(u, s)] = self.new_var(f"{tag} on {chess.square_name(s)}")
                self.cap[u] = self.new_var(f"{tag} captured")
                self.miss[u] = self.cap[u]
            self.cdark[u] = self.new_var(f"{tag} captured on dark")

    def _pawn_paths(self, side: chess.Color) -> None:
        """Files at each rank, steps taken, captures per step (hard), straight moves (group)."""
        rule = self.group("file-changes-are-captures", RULES["file-changes-are-captures"])
        for u in self.units[side]:
            if not u.is_pawn:
                continue
            tag = chess.square_name(u.home)
            for rho in range(2, 9):
                files = [f for f in range(8) if abs(f - u.file) <= rho - 2]
                for f in files:
                    self.F[(u, rho, f)] = self.new_var(f"{tag} file {chess.FILE_NAMES[f]} at rank {rho}")
                self.exactly_one(self.F[(u, rho, f)] for f in files)
            self.add_clause([self.F[(u, 2, u.file)]])
            for rho in range(2, 8):
                a = self.act[(u, rho)] = self.new_var(f"{tag} steps {rho}->{rho + 1}")
                r = self.cR[(u, rho)] = self.new_var(f"{tag} captures right at {rho}")
                l = self.cL[(u, rho)] = self.new_var(f"{tag} captures left at {rho}")
                self.add_clause([-r, a])
                self.add_clause([-l, a])
                self.add_clause([-r, -l])
                if rho > 2:
                    self.add_clause([-a, self.act[(u, rho - 1)]])
                for f in range(8):
                    fv = self.F.get((u, rho, f))
                    if fv is None:
                        continue
                    if f < 7:
                        self.add_clause([-fv, -r, self.F[(u, rho + 1, f + 1)]])
                    else:
                        self.add_clause([-fv, -r])
                    if f > 0:
                        self.add_clause([-fv, -l, self.F[(u, rho + 1, f - 1)]])
                    else:
                        self.add_clause([-fv, -l])
                    self.add_clause([-rule, -fv, r, l, self.F[(u, rho + 1, f)]])
            self.add_clause([-self.prom[u], self.act[(u, 7)]])
            self.add_clause([self.prom[u], -self.act[(u, 7)]])

    def _board_unit(self, sq: chess.Square, piece: chess.Piece) -> None:
        """Each unit on the board comes from exactly one unit of the game array (a group)."""
        name = f"{color_name(piece.color)} {chess.piece_name(piece.piece_type)} {chess.square_name(sq)}"
        sel = self.group(name, UNIT_DOC)
        origins = [v for (u, s), v in self.on.items() if s == sq]
        origins += [v for (u, s), v in self.pon.items() if s == sq]
        self.exactly_one(origins, guard=sel)

    def _fates(self, side: chess.Color) -> None:
        """Exactly one fate per unit; pawn positions follow its path; promotions and colours."""
        bishops = self.group("bishops-keep-colour", RULES["bishops-keep-colour"])
        kings = self.group("kings-never-captured", RULES["kings-never-captured"])
        for u in self.units[side]:
            ons = [v for (w, s), v in self.on.items() if w == u]
            if not u.is_pawn:
                self.exactly_one(ons + [self.cap[u]])
                if u.piece_type == chess.KING:
                    self.add_clause([-kings, -self.cap[u]])
                if u.piece_type == chess.BISHOP:
                    dark = is_dark(u.home)
                    for (w, s), v in self.on.items():
                        if w == u and is_dark(s) != dark:
                            self.add_clause([-bishops, -v])
                    self.add_clause([-bishops, self.cdark[u] if dark else -self.cdark[u]])
                continue
            prom = self.prom[u]
            self.exactly_one(ons + [self.cap[u], prom])
            for (w, s), v in self.on.items():
                if w != u:
                    continue
                rho = rel_rank(s, side)
                self.add_clause([-v, self.F[(u, rho, chess.square_file(s))]])
                if rho >= 3:
                    self.add_clause([-v, self.act[(u, rho - 1)]])
                self.add_clause([-v, -self.act[(u, rho)]])
            # a promoted pawn's piece is on the board or was captured; its type
            pons = [(s, v) for (w, s), v in self.pon.items() if w == u]
            self.exactly_one([v for _, v in pons] + [self.pcap[u]], guard=prom)
            self.add_clause([prom, -self.pcap[u]])
            types = [self.ptype[(u, t)] for t in PROMOTION_TYPES]
            self.exactly_one(types, guard=prom)
            for t in types:
                self.add_clause([prom, -t])
            prom_dark = self.or_([self.F[(u, 8, f)] for f in range(8)
                                  if (u, 8, f) in self.F and is_dark(square_at(f, 8, side))],
                                 f"{chess.square_name(u.home)} promotes on dark")
            for s, v in pons:
                self.add_clause([prom, -v])
                self.add_clause([-v, self.ptype[(u, self.board[s].piece_type)]])
                if self.board[s].piece_type == chess.BISHOP:
                    self.add_clause([-bishops, -v, prom_dark if is_dark(s) else -prom_dark])
            pb = self.and_([self.pcap[u], self.ptype[(u, chess.BISHOP)]])
            self.add_clause([-bishops, -pb, -self.cdark[u], prom_dark])
            self.add_clause([-bishops, -pb, self.cdark[u], -prom_dark])

    def _captures(self, side: chess.Color) -> None:
        """Pawn captures of `side` need missing opponent units, and of the right colours."""
        other = not side
        removes = self.group("captures-remove-units", RULES["captures-remove-units"])
        colours = self.group("capture-colours", RULES["capture-colours"])
        events = self.pawn_capture_lits(side)
        missing = self.missing_lits(other)
        self.add_card(events + [-m for m in missing], "<=", len(missing), guard=removes)
        ev_dark, ev_light = [], []
        for u in self.units[side]:
            if not u.is_pawn:
                continue
            for rho in range(2, 8):
                ev = self.or_([self.cR[(u, rho)], self.cL[(u, rho)]])
                dk = self.or_([self.F[(u, rho, f)] for f in range(8)
                               if (u, rho, f) in self.F and is_dark(square_at(f, rho, side))])
                ev_dark.append(self.and_([ev, dk]))
                ev_light.append(self.and_([ev, -dk]))
        flexible = [self.cap[u] for u in self.units[other] if u.is_pawn]  # e.p. victims
        for evs, dark in ((ev_dark, True), (ev_light, False)):
            covers = []
            for u in self.units[other]:
                gone = self.pcap[u] if u.is_pawn else self.cap[u]
                covers.append(self.and_([gone, self.cdark[u] if dark else -self.cdark[u]]))
            covers += flexible
            self.add_card(evs + [-c for c in covers], "<=", len(covers), guard=colours)

    def _castling(self) -> None:
        rights = [(c, r) for (c, r) in CASTLINGS if self.position.castling & chess.BB_SQUARES[r]]
        if not rights:
            return
        sel = self.group("castling-rights", RULES["castling-rights"])
        for color, rook in rights:
            king_home = CASTLINGS[(color, rook)][0]
            for home in (king_home, rook):
                unit = next(u for u in self.units[color] if u.home == home)
                v = self.on.get((unit, home))
                self.add_clause([-sel, v] if v is not None else [-sel])

    def _en_passant(self) -> None:
        ep = self.position.ep_square
        if ep is None:
            return
        sel = self.group("en-passant", RULES["en-passant"])
        if chess.square_rank(ep) not in (2, 5):
            self.add_clause([-sel])          # no double step passes that square
            return
        mover = chess.square_rank(ep) == 2   # e3: White just moved e2-e4
        sq = ep + 8 if mover else ep - 8
        unit = next(u for u in self.units[mover]
                    if u.is_pawn and u.file == chess.square_file(ep))
        v = self.on.get((unit, sq))
        if v is None:
            self.add_clause([-sel])
            return
        self.add_clause([-sel, v])
        for rho in (2, 3):
            self.add_clause([-sel, -self.cR[(unit, rho)]])
            self.add_clause([-sel, -self.cL[(unit, rho)]])

    def _frozen(self) -> None:
        for sq in chess.scan_forward(self.position.frozen):
            piece = self.board[sq]
            sel = self.group(f"frozen {chess.square_name(sq)}", "a unit declared never moved")
            unit = self.home_unit(sq, piece)
            v = self.on.get((unit, sq)) if unit is not None else None
            self.add_clause([-sel, v] if v is not None else [-sel])

    def _cages(self) -> None:
        """Retractor's frozen units are their own originals; an original sealed on its home
        square and not there was captured there (retrologic.legality.static_cages)."""
        pl = self.position.placement
        frozen = frozen_units(self.position)
        plain = (pl.pawns & (chess.BB_RANK_2 | chess.BB_RANK_7)) | self.position.frozen \
            | castling_frozen(self.position.castling)
        for sq in chess.scan_forward(frozen & ~plain):
            unit = self.home_unit(sq, self.board[sq])
            if unit is None:
                continue
            sel = self.group(f"cage: {chess.square_name(sq)} never moved", CAGE_DOC)
            v = self.on.get((unit, sq))
            self.add_clause([-sel, v] if v is not None else [-sel])
        sealed = sealed_homes(self.position, frozen) & ~frozen
        for side in chess.COLORS:
            for u in self.units[side]:
                if u.is_pawn or u.piece_type == chess.KING or not sealed & chess.BB_SQUARES[u.home]:
                    continue
                sel = self.group(f"cage: {chess.square_name(u.home)} original captured there",
                                 CAGE_DOC)
                self.add_clause([-sel, self.cap[u]])
                self.add_clause([-sel, self.cdark[u] if is_dark(u.home) else -self.cdark[u]])

    def _blocked_paths(self) -> None:
        """Squares held all game by frozen units are closed to every pawn's path."""
        frozen = frozen_units(self.position)
        if not frozen:
            return
        sel = self.group("frozen-units-block-pawns", RULES["frozen-units-block-pawns"])
        for side in chess.COLORS:
            for u in self.units[side]:
                if not u.is_pawn:
                    continue
                for rho in range(3, 9):
                    for f in range(8):
                        fv = self.F.get((u, rho, f))
                        if fv is not None and frozen & chess.BB_SQUARES[square_at(f, rho, side)]:
                            self.add_clause([-sel, -fv, -self.act[(u, rho - 1)]])
