"""Cage verification as SAT: the zone's retraction system as a transition relation in CNF.
Long because: the engine and the checker must build the very same CNF, so the retraction
rules, the unrolling and the bounded model checking's variant of it stay in one module.

Issue #21 item 3 (Hwa, *Cages in Retrograde Analysis*, 2022, sections 3-4). The state of a
zone position is, for each unit of the start board, one of its *modes*: (type, square) on a
zone square (the type changes only by an un-promotion to a pawn) or GONE (left the zone). One
step is one retraction of one unit (or a stutter, so that paths of length <= k embed in length
k) under the same rules as the explicit engine (retrologic.cages.search with retract.py in
partial mode and cages.rules), written again here from the rules' statement, not imported:

- the retractor's own king is not in an unblockable check before the retraction (after the
  real move), the other king is not in one after it; a retracted king is not in two;
- the squares the unit passes and the square it came from are empty (of followed units);
- pawns retract from their third rank on, diagonally only as (un)captures; pieces on the last
  rank may un-promote; uncaptured units are not materialised;
- restrictions `pawn_captures(side, from_file, to_file) == 0` remove pawn (un)captures;
  castling rights keep their king and rook home and their empty squares occupied;
- the lines model adds `line-check-after` and `line-check-before` (cages.rules.prune_rule).

Each rule only removes transitions, and the CNF encodes each guard by one-sided definitions
(Plaisted-Greenbaum), so every transition of the explicit engine is a transition here
(tests/test_cages_sat.py checks it on every reachable state of the problem files) and a proof
of "no reachable state has every unit home" holds for the explicit engine too. Positions that
need uncastling or two kings of one side are not encoded (Unsupported: the engine says unknown).

The engine (cages.sat) and the checker (cages.sat_checker) both build their CNF here, from the
board, zone, frozen squares, castling rights, restrictions and model alone; this module imports
python-chess and, of ours, only retrologic.position, .vocabulary and .limits (its poll).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Callable, Iterable

import chess
from chess import BB_SQUARES

from retrologic.limits import poll
from retrologic.position import HOME, castling_fault, castling_frozen
from retrologic.vocabulary import CASTLINGS

GONE = (0, -1)           # the mode of a unit that left the zone
MODELS = ("lines", "plain")
LINE_TYPES = {chess.BISHOP: "d", chess.ROOK: "o", chess.QUEEN: "do"}


class Unsupported(Exception):
    """The position needs a rule this encoding does not have (the engine answers unknown)."""


@dataclass(frozen=True)
class Restriction:
    """No pawn capture by `side` (white, black, either) from `from_file` to `to_file` (0..7 or
    None: any file) in the whole game."""

    side: str
    from_file: int | None
    to_file: int | None

    def forbids(self, color: chess.Color, frm: int, to: int) -> bool:
        if self.side != "either" and (self.side == "white") != color:
            return False
        return ((self.from_file is None or chess.square_file(frm) == self.from_file)
                and (self.to_file is None or chess.square_file(to) == self.to_file))

    def expr(self) -> str:
        """The predicate-language text (`pawn_captures(...) == 0`), as cages.rules writes it."""
        args = [self.side]
        if self.from_file is not None:
            args.append(f'from_file="{chess.FILE_NAMES[self.from_file]}"')
        if self.to_file is not None:
            args.append(f'to_file="{chess.FILE_NAMES[self.to_file]}"')
        return f"pawn_captures({', '.join(args)}) == 0"


@dataclass(frozen=True)
class Spec:
    """What the CNF is built from (the checker rebuilds it from these fields alone)."""

    board: str
    zone: int
    frozen: int = 0
    castling: int = 0
    restrictions: tuple[Restriction, ...] = ()
    model: str = "lines"


@dataclass(frozen=True)
class Template:
    """A retraction of unit `unit` from mode `cur` (in the position after the real move) to
    `prev` (before it; GONE when the square `prev_sq` is outside the zone)."""

    unit: int
    cur: tuple[int, int]
    prev: tuple[int, int]
    prev_type: int
    prev_sq: int
    capture: bool
    after: int           # squares empty after the real move: the square left and those passed
    before: int          # squares proved empty before it (passed, and the target of a non-capture)
    need: int            # squares with no followed unit before the retraction
    partner: int | None = None              # un-castling: the rook of the partial position
    partner_cur: tuple[int, int] = GONE
    partner_prev: tuple[int, int] = GONE


def _between(a: int, b: int) -> int:
    return chess.between(a, b) if a != b else 0


def line_between(a: int, b: int, kind: str) -> int:
    """Squares between a and b when they share a line of `kind` ('o' rank/file, 'd' diagonal,
    'do' either), 0 when they do not or are adjacent."""
    dr = chess.square_rank(a) - chess.square_rank(b)
    df = chess.square_file(a) - chess.square_file(b)
    if a == b:
        return 0
    if ("o" in kind and (dr == 0 or df == 0)) or ("d" in kind and abs(dr) == abs(df)):
        return chess.between(a, b)
    return 0


@lru_cache(maxsize=None)
def contact_attacks(ptype: int, color: chess.Color, sq: int) -> int:
    """Squares a unit attacks unblockably (contact checks: retract.unit_attacks(..., True))."""
    if ptype == chess.PAWN:
        return chess.BB_PAWN_ATTACKS[color][sq]
    if ptype == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[sq]
    if ptype == chess.KING:
        return chess.BB_KING_ATTACKS[sq]
    out = 0
    for n in chess.scan_forward(chess.BB_KING_ATTACKS[sq]):
        diag = chess.square_rank(n) != chess.square_rank(sq) and chess.square_file(n) != chess.square_file(sq)
        if (diag and ptype in (chess.BISHOP, chess.QUEEN)) or (not diag and ptype in (chess.ROOK, chess.QUEEN)):
            out |= BB_SQUARES[n]
    return out


def _rays(sq: int, kind: str) -> list[list[int]]:
    dirs = []
    if "o" in kind:
        dirs += [(0, 1), (0, -1), (1, 0), (-1, 0)]
    if "d" in kind:
        dirs += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    out = []
    for dr, df in dirs:
        r, f, ray = chess.square_rank(sq) + dr, chess.square_file(sq) + df, []
        while 0 <= r < 8 and 0 <= f < 8:
            ray.append(chess.square(f, r))
            r, f = r + dr, f + df
        out.append(ray)
    return out


class Encoding:
    """Units, their modes and the retraction templates of a Spec, and its CNF unrollings.

    Raises Unsupported for positions outside the encoding, ValueError for a malformed Spec."""

    def __init__(self, spec: Spec) -> None:
        if spec.model not in MODELS:
            raise ValueError(f"unknown model {spec.model!r}")
        self.spec = spec
        board = chess.BaseBoard(spec.board)
        self.zone = spec.zone
        occ = board.occupied
        if occ & ~spec.zone:
            raise ValueError("the zone must contain every occupied square")
        if spec.frozen & ~occ:
            raise ValueError("frozen squares must hold a unit")
        fault = castling_fault(board, spec.castling, unseen=True)
        if fault:
            raise ValueError(fault)
        immobile = spec.frozen | castling_frozen(spec.castling)
        self.unseen = castling_frozen(spec.castling) & ~occ
        self.units: list[tuple[chess.Color, int, int]] = []   # (color, type, start square)
        for sq, piece in sorted(board.piece_map().items()):
            self.units.append((piece.color, piece.piece_type, sq))
        for color in chess.COLORS:
            if len([u for u in self.units if u[0] == color and u[1] == chess.KING]) > 1:
                raise Unsupported("two kings of one side")
        self.king = {c: next((i for i, u in enumerate(self.units) if u[0] == c and u[1] == chess.KING),
                             None) for c in chess.COLORS}
        self.immobile = immobile
        seeds: list[list[tuple[int, int]]] = [[(t, sq)] for _, t, sq in self.units]
        while True:                  # castling moves a rook too: close the domains jointly
            self.templates = []
            self.modes = []
            for i, (color, ptype, sq) in enumerate(self.units):
                modes = list(seeds[i])
                seen = set(modes)
                k = 0
                while k < len(modes):
                    mode = modes[k]
                    k += 1
                    if immobile & BB_SQUARES[mode[1]]:
                        continue
                    poll()                   # building may take seconds: the limit, Ctrl-C
                    for t in self._moves(i, color, mode):
                        self.templates.append(t)
                        if t.prev != GONE and t.prev not in seen:
                            seen.add(t.prev)
                            modes.append(t.prev)
                modes.append(GONE)
                self.modes.append(modes)
            castlings = self._uncastlings()
            grown = False
            for t in castlings:
                # the king's home too: its king moves may not reach it (found in review,
                # 2026-11-30: a king that reached c8 but not e8 in the zone, KeyError (6, 60))
                if t.prev != GONE and t.prev not in self.modes[t.unit] and \
                        t.prev not in seeds[t.unit]:
                    seeds[t.unit].append(t.prev)
                    grown = True
                if t.partner is not None and t.partner_prev != GONE and \
                        t.partner_prev not in self.modes[t.partner]:
                    seeds[t.partner].append(t.partner_prev)
                    grown = True
            if not grown:
                break
        self.templates += castlings
        self.index = [{m: j for j, m in enumerate(ms)} for ms in self.modes]
        self._shapes: dict[int, tuple[list, list]] = {}
        self._names: dict[str, tuple[int, int]] | None = None
        self._line_modes: list[tuple[int, int, tuple[int, int]]] | None = None

    def _uncastlings(self) -> list[Template]:
        """Un-castling (retract._uncastlings in partial mode): the king from its castled square
        home, with a rook of the partial position beside it (the partner) or that square
        empty; its own home and the rook's (and b1/b8) empty. Not encoded, so over-approximated:
        the castling right it creates (its king and rook immobile afterwards) and castling out
        of or through an unblockable check."""
        out = []
        for color in chess.COLORS:
            ki = self.king[color]
            if ki is None:
                continue
            back = 0 if color else 56
            for rook_home in (back + 7, back):
                king_home, king_after, rook_after = CASTLINGS[(color, rook_home)]
                if (chess.KING, king_after) not in self.modes[ki] or self.immobile & BB_SQUARES[king_after]:
                    continue
                span = chess.between(king_home, rook_home)
                after = (span | BB_SQUARES[king_home] | BB_SQUARES[rook_home]) & \
                    ~(BB_SQUARES[king_after] | BB_SQUARES[rook_after])
                before = span
                if (after | before) & self.unseen:
                    continue
                need = BB_SQUARES[king_home] | BB_SQUARES[rook_home]
                if rook_home == back:
                    need |= BB_SQUARES[back + 1]
                prev = (chess.KING, king_home) if self.zone & BB_SQUARES[king_home] else GONE
                out.append(Template(ki, (chess.KING, king_after), prev, chess.KING, king_home, False,
                                    after, before, need | BB_SQUARES[rook_after]))
                for w, (c, t, _) in enumerate(self.units):
                    if c == color and t == chess.ROOK and (chess.ROOK, rook_after) in self.modes[w] \
                            and not self.immobile & BB_SQUARES[rook_after]:
                        pprev = (chess.ROOK, rook_home) if self.zone & BB_SQUARES[rook_home] else GONE
                        out.append(Template(ki, (chess.KING, king_after), prev, chess.KING, king_home,
                                            False, after, before, need, w, (chess.ROOK, rook_after), pprev))
        return out

    # --- templates -------------------------------------------------------------------------

    def _moves(self, u: int, color: chess.Color, mode: tuple[int, int]) -> Iterable[Template]:
        ptype, to = mode
        out: list[tuple[int, int, bool]] = []          # (prev type, prev square, capture)
        if ptype == chess.PAWN:
            rel = chess.square_rank(to) if color else 7 - chess.square_rank(to)
            if rel <= 1:
                return []
            back = -8 if color else 8
            out.append((chess.PAWN, to + back, False))
            if rel == 3:
                out.append((chess.PAWN, to + 2 * back, False))
            for df in (-1, 1):
                if 0 <= chess.square_file(to) + df <= 7:
                    out.append((chess.PAWN, to + back + df, True))
        else:
            if ptype == chess.KNIGHT:
                frms = list(chess.scan_forward(chess.BB_KNIGHT_ATTACKS[to]))
            elif ptype == chess.KING:
                frms = list(chess.scan_forward(chess.BB_KING_ATTACKS[to]))
            else:
                frms = [s for ray in _rays(to, LINE_TYPES[ptype]) for s in ray]
            for frm in frms:
                out += [(ptype, frm, False), (ptype, frm, True)]
            last = 7 if color else 0
            if ptype != chess.KING and chess.square_rank(to) == last:
                back = -8 if color else 8
                for df in (0, -1, 1):
                    if 0 <= chess.square_file(to) + df <= 7:
                        out.append((chess.PAWN, to + back + df, df != 0))
        res = []
        for prev_type, frm, capture in out:
            path = _between(frm, to)
            after = path | BB_SQUARES[frm]
            before = path | (0 if capture else BB_SQUARES[to])
            if (after | before) & self.unseen:
                continue                                  # castling-square
            moved_pawn = prev_type == chess.PAWN
            if capture and moved_pawn and any(r.forbids(color, frm, to) for r in self.spec.restrictions):
                continue                                  # restriction
            prev = (prev_type, frm) if self.zone & BB_SQUARES[frm] else GONE
            res.append(Template(u, mode, prev, prev_type, frm, capture, after, before, after))
        return res

    # --- CNF -------------------------------------------------------------------------------

    def unroll(self, k: int, kind: str, lemmas: Iterable[Lemma] = ()
               ) -> tuple[list[list[int]], int, list[list[list[int]]]]:
        """The CNF of one query and its state variables x[t][unit][mode]:

        "base": the start, k steps (stutters allowed), state k fails;
        "step": k+1 states satisfying the lemmas, pairwise distinct, 0..k-1 not failing, k failing;
        "inv":  state 0 satisfies the lemmas, one step, state 1 violates one of them;
        "trans": k steps alone (the engine's incremental invariant search).
        Every state has one mode per unit and at most one unit per square."""
        if kind not in ("base", "step", "inv", "trans"):
            raise ValueError(kind)
        if kind == "inv" and k != 1:
            raise ValueError("an invariant query has one step")
        return _Unroller(self).build(k, kind, list(lemmas))

    def bad_units(self) -> list[list[int]]:
        """Per unit, the indices of its modes that count as 'home or gone' (a failing state has
        every unit in one of them)."""
        out = []
        for i, (color, _, _) in enumerate(self.units):
            out.append([j for j, (t, sq) in enumerate(self.modes[i])
                        if (t, sq) == GONE or HOME[(t, color)] & BB_SQUARES[sq]])
        return out

    def lines_shapes(self, i: int) -> tuple[list[tuple[int, int, int | None]], list[tuple[int, int | None, int]]]:
        """Template i's line-check clauses (lines model), independent of the step:
        after: (unit w, its mode j, own-king mode kj or None when the king itself moves);
        before: (other-king mode kj, unit w or None for the moved unit itself, mode j)."""
        if i in self._shapes:
            return self._shapes[i]
        tpl = self.templates[i]
        color = self.units[tpl.unit][0]
        rk, sk = self.king[color], self.king[not color]
        after: list[tuple[int, int, int | None]] = []
        before: list[tuple[int, int | None, int]] = []
        if rk is not None:
            kmodes = [(None, tpl.cur)] if tpl.unit == rk else \
                [(j, km) for j, km in enumerate(self.modes[rk]) if km != GONE]
            for kj, km in kmodes:
                for w, j, (pt, p) in self.line_modes:
                    if self.units[w][0] == color:
                        continue
                    b = line_between(km[1], p, LINE_TYPES[pt])
                    if b and not b & ~tpl.after:
                        after.append((w, j, kj))
        if sk is not None:
            for kj, km in enumerate(self.modes[sk]):
                if km == GONE:
                    continue
                if tpl.prev_type in LINE_TYPES:
                    b = line_between(km[1], tpl.prev_sq, LINE_TYPES[tpl.prev_type])
                    if b and not b & ~tpl.before:
                        before.append((kj, None, -1))
                for w, j, (pt, p) in self.line_modes:
                    if self.units[w][0] != color or w in (tpl.unit, tpl.partner):
                        continue
                    b = line_between(km[1], p, LINE_TYPES[pt])
                    if b and not b & ~tpl.before:
                        before.append((kj, w, j))
        self._shapes[i] = (after, before)
        return after, before

    @property
    def line_modes(self) -> list[tuple[int, int, tuple[int, int]]]:
        """(unit, mode index, mode) of every mode of a bishop, rook or queen."""
        if self._line_modes is None:
            self._line_modes = [(w, j, m) for w, ms in enumerate(self.modes) for j, m in enumerate(ms)
                                if m != GONE and m[0] in LINE_TYPES]
        return self._line_modes

    # --- naming modes (certificates) ----------------------------------------------------------

    def mode_name(self, u: int, j: int) -> str:
        """'f4=Rf6': the unit that starts on f4 stands as a rook on f6 ('f4=out': left the zone)."""
        t, sq = self.modes[u][j]
        start = chess.square_name(self.units[u][2])
        return f"{start}=out" if (t, sq) == GONE else \
            f"{start}={chess.piece_symbol(t).upper()}{chess.square_name(sq)}"

    def parse_mode(self, text: str) -> tuple[int, int]:
        """(unit, mode index) of a mode name; ValueError if the unit or mode does not exist."""
        if self._names is None:
            self._names = {self.mode_name(u, j): (u, j) for u in range(len(self.units))
                           for j in range(len(self.modes[u]))}
        if not isinstance(text, str) or text not in self._names:
            raise ValueError(f"no such unit mode: {str(text)[:40]!r}")
        return self._names[text]


Lemma = tuple[tuple[int, int], ...]     # a clause: not all of these (unit, mode) at once


class _Unroller:
    """Builds one CNF: variables are allocated in a fixed order so the checker's rebuild gives
    the same numbering."""

    def __init__(self, enc: Encoding) -> None:
        self.e = enc
        self.nv = 0
        self.clauses: list[list[int]] = []

    def var(self) -> int:
        self.nv += 1
        return self.nv

    def build(self, k: int, kind: str, lemmas: list[Lemma]
              ) -> tuple[list[list[int]], int, list[list[list[int]]]]:
        e = self.e
        self.x = x = []
        self.aux: list[dict] = []
        for _ in range(k + 1):
            self.new_state()
        for t in range(k):
            poll()
            self._step(t)
        bad = e.bad_units()
        if kind == "trans":
            return self.clauses, self.nv, x
        if kind == "base":
            self.init()
        elif kind == "inv":
            for lem in lemmas:
                self.clauses.append([-x[0][u][j] for u, j in lem])
            some = []
            for lem in lemmas:
                z = self.var()
                some.append(z)
                self.clauses += [[-z, x[1][u][j]] for u, j in lem]
            self.clauses.append(some)
            return self.clauses, self.nv, x
        else:
            for t in range(k + 1):
                for lem in lemmas:
                    self.clauses.append([-x[t][u][j] for u, j in lem])
            for t in range(k):                 # states 0..k-1 are not failing
                some = []
                for u in range(len(e.units)):
                    nb = self.var()
                    some.append(nb)
                    for j in bad[u]:
                        self.clauses.append([-nb, -x[t][u][j]])
                self.clauses.append(some)
            for a, b in combinations(range(k + 1), 2):
                self._distinct(a, b)
        self.clauses += self.fails(k)           # state k fails
        return self.clauses, self.nv, x

    def new_state(self) -> None:
        """Allocate the next state: one mode per unit, at most one unit per square."""
        e = self.e
        xt = [[self.var() for _ in ms] for ms in e.modes]
        self.x.append(xt)
        self.aux.append({})
        if not hasattr(self, "on_square"):
            self.on_square: dict[int, list[tuple[int, int]]] = {}
            for u, ms in enumerate(e.modes):
                for j, m in enumerate(ms):
                    if m != GONE:
                        self.on_square.setdefault(m[1], []).append((u, j))
        for u in range(len(e.units)):
            self.clauses.append(list(xt[u]))
            for a, b in combinations(xt[u], 2):
                self.clauses.append([-a, -b])
        for sq, ms in sorted(self.on_square.items()):
            for (u, i), (v, j) in combinations(ms, 2):
                if u != v:
                    self.clauses.append([-xt[u][i], -xt[v][j]])

    def init(self) -> None:
        """State 0 is the start."""
        for u, (_, ptype, sq) in enumerate(self.e.units):
            self.clauses.append([self.x[0][u][self.e.index[u][(ptype, sq)]]])

    def fails(self, t: int) -> list[list[int]]:
        """Clauses saying state t fails (every unit home or gone)."""
        return [[self.x[t][u][j] for j in js] for u, js in enumerate(self.e.bad_units())]

    def _distinct(self, a: int, b: int) -> None:
        diff = []
        for u in range(len(self.e.units)):
            for j in range(len(self.e.modes[u])):
                d = self.var()
                diff.append(d)
                xa, xb = self.x[a][u][j], self.x[b][u][j]
                self.clauses += [[-d, xa, xb], [-d, -xa, -xb]]
        self.clauses.append(diff)

    # lazily defined auxiliaries of step t (one-sided: each only forced true by its causes)
    def _occ(self, t: int, sq: int) -> int:
        key = ("occ", sq)
        aux = self.aux[t]
        if key not in aux:
            v = aux[key] = self.var()
            for u, ms in enumerate(self.e.modes):
                for j, m in enumerate(ms):
                    if m[1] == sq:
                        self.clauses.append([-self.x[t][u][j], v])
        return aux[key]

    def _att(self, t: int, u: int, sq: int) -> int | None:
        """Unit u attacks `sq` unblockably at step t (None: in no mode)."""
        key = ("att", u, sq)
        aux = self.aux[t]
        if key not in aux:
            color = self.e.units[u][0]
            js = [j for j, m in enumerate(self.e.modes[u])
                  if m != GONE and contact_attacks(m[0], color, m[1]) & BB_SQUARES[sq]]
            if not js:
                aux[key] = None
            else:
                v = aux[key] = self.var()
                for j in js:
                    self.clauses.append([-self.x[t][u][j], v])
        return aux[key]

    def _check(self, t: int, color: chess.Color) -> int | None:
        """`color`'s king is in the zone and attacked unblockably at step t."""
        key = ("chk", color)
        aux = self.aux[t]
        if key not in aux:
            ki = self.e.king[color]
            v = None
            if ki is not None:
                for j, m in enumerate(self.e.modes[ki]):
                    if m == GONE:
                        continue
                    for w, (c, _, _) in enumerate(self.e.units):
                        if c == color:
                            continue
                        a = self._att(t, w, m[1])
                        if a is None:
                            continue
                        if v is None:
                            v = self.var()
                        self.clauses.append([-self.x[t][ki][j], -a, v])
            aux[key] = v
        return aux[key]

    def _step(self, t: int, allowed: set[tuple[int, int]] | None = None) -> None:
        """Step t -> t+1; with `allowed` (modes possible at step t+1, a superset of those at
        t: bounded model checking only), templates from or to other modes are left out."""
        e, x = self.e, self.x
        moved = [self.var() for _ in e.units]
        stay = self.var()
        self.clauses.append([stay] + moved)
        for a, b in combinations([stay] + moved, 2):
            self.clauses.append([-a, -b])
        mv = [self.var() for _ in e.templates]
        by_unit: list[list[int]] = [[] for _ in e.units]
        carried: list[list[int]] = [[] for _ in e.units]
        for i, tpl in enumerate(e.templates):
            if tpl.partner is not None:
                carried[tpl.partner].append(mv[i])
        for u, ms in enumerate(e.modes):          # frame: a unit that does not move stays
            for j in range(len(ms)):
                self.clauses.append([moved[u]] + carried[u] + [-x[t][u][j], x[t + 1][u][j]])
        for u, (color, _, _) in enumerate(e.units):
            for tt, other in ((t, color), (t + 1, not color)):
                c = self._check(tt, other)
                if c is not None:
                    self.clauses.append([-moved[u], -c])
        cl = self.clauses
        for i, tpl in enumerate(e.templates):
            if i % 64 == 0:
                poll()                         # thousands of templates a step
            m = mv[i]
            u = tpl.unit
            if allowed is not None and ((u, e.index[u][tpl.cur]) not in allowed
                                        or (u, e.index[u][tpl.prev]) not in allowed):
                self.clauses.append([-m])
                continue
            by_unit[u].append(m)
            color = e.units[u][0]
            cl.append([-m, moved[u]])
            cl.append([-m, x[t][u][e.index[u][tpl.cur]]])
            cl.append([-m, x[t + 1][u][e.index[u][tpl.prev]]])
            for sq in chess.scan_forward(tpl.need & e.zone):
                cl.append([-m, -self._occ(t, sq)])
            if tpl.partner is not None:
                w = tpl.partner
                cl.append([-m, x[t][w][e.index[w][tpl.partner_cur]]])
                cl.append([-m, x[t + 1][w][e.index[w][tpl.partner_prev]]])
            sk = e.king[not color]
            if tpl.prev == GONE and sk is not None:   # the unit gone, its check on the other king
                hit = contact_attacks(tpl.prev_type, color, tpl.prev_sq)
                for j, km in enumerate(e.modes[sk]):
                    if km != GONE and hit & BB_SQUARES[km[1]]:
                        cl.append([-m, -x[t][sk][j]])
            if u == e.king[color]:                     # a retracted king is not in two checks
                atts = [a for w, (c, _, _) in enumerate(e.units) if c != color
                        for a in [self._att(t, w, tpl.prev_sq)] if a is not None]
                for a, b in combinations(atts, 2):
                    cl.append([-m, -a, -b])
            if e.spec.model == "lines":
                after, before = e.lines_shapes(i)
                rk = e.king[color]
                for w, j, kj in after:
                    cl.append([-m, -x[t][w][j]] + ([] if kj is None else [-x[t][rk][kj]]))
                for kj, w, j in before:
                    cl.append([-m, -x[t][sk][kj]] + ([] if w is None else [-x[t][w][j]]))
        for u in range(len(e.units)):
            self.clauses.append([-moved[u]] + by_unit[u])


def distances(enc: Encoding) -> list[dict[int, int]]:
    """Per unit, the fewest of its own retractions from its start mode to each mode."""
    out = []
    for u, (_, t, sq) in enumerate(enc.units):
        edges: dict[int, set[int]] = {}
        for tpl in enc.templates:
            if tpl.unit == u:
                edges.setdefault(enc.index[u][tpl.cur], set()).add(enc.index[u][tpl.prev])
            elif tpl.partner == u:
                edges.setdefault(enc.index[u][tpl.partner_cur], set()).add(enc.index[u][tpl.partner_prev])
        dist = {enc.index[u][(t, sq)]: 0}
        frontier = list(dist)
        while frontier:
            nxt = []
            for j in frontier:
                for i in edges.get(j, ()):
                    if i not in dist:
                        dist[i] = dist[j] + 1
                        nxt.append(i)
            frontier = nxt
        out.append(dist)
    return out


def bmc(enc: Encoding, max_k: int, solve: Callable[[list[list[int]], list[int]], set[int] | None],
        excluded: set[tuple[int, int]] = frozenset(), depths: Iterable[int] | None = None
        ) -> tuple[int, list[list[tuple[int, int]]]] | None:
    """Bounded model checking from the start, one step at a time in one incremental solver:
    `solve(new clauses, assumptions)` adds the clauses and returns a model or None (UNSAT).
    (k, states) of the first k <= max_k whose state k fails, or None. Modes a unit cannot
    reach in t of its own steps, or `excluded` ones (an invariant's), are left out at step t
    (a line found is replayed by the explicit rules; none found proves nothing).

    `depths` (default every k <= max_k): the k at which the solver is asked. Steps may stutter,
    so a query at k finds every line of at most k retractions: a schedule that is dense at
    first and then jumps far (e.g. 0..10, 32, 48) skips the UNSAT queries just below a long
    escape, which cost the most (their proofs must cover every interleaving of the units'
    retractions), while the satisfiable query past it is easy (issue #21, Figure 7)."""
    un = _Unroller(enc)
    un.x, un.aux = [], []
    dist = distances(enc)

    def allowed(t: int) -> set[tuple[int, int]]:
        return {(u, j) for u, d in enumerate(dist) for j, n in d.items()
                if n <= t and (u, j) not in excluded}

    def restrict(t: int, ok: set[tuple[int, int]]) -> None:
        un.clauses += [[-un.x[t][u][j]] for u in range(len(enc.units))
                       for j in range(len(enc.modes[u])) if (u, j) not in ok]

    asked = set(range(max_k + 1) if depths is None else depths)
    un.new_state()
    un.init()
    done = 0
    for k in range(max_k + 1):
        if k:
            ok = allowed(k)
            un.new_state()
            restrict(k, ok)
            un._step(k - 1, ok)
        if k not in asked:
            continue
        act = un.var()
        un.clauses += [[-act] + c for c in un.fails(k)]
        model = solve(un.clauses[done:], [act])
        done = len(un.clauses)
        if model is not None:
            return k, decode(enc, un.x, model)
    return None


def decode(enc: Encoding, x: list[list[list[int]]], model: set[int]) -> list[list[tuple[int, int]]]:
    """The states of a satisfying assignment: per step, each unit's mode."""
    out = []
    for xt in x:
        out.append([next(ms[j] for j, v in enumerate(xt[u]) if v in model)
                    for u, ms in enumerate(enc.modes)])
    return out


def board_of(enc: Encoding, state: list[tuple[int, int]]) -> str:
    """The board of a state (units gone are not shown)."""
    b = chess.BaseBoard.empty()
    for (color, _, _), (t, sq) in zip(enc.units, state):
        if (t, sq) != GONE:
            b.set_piece_at(sq, chess.Piece(t, color))
    return b.board_fen()
