"""The proof-game CNF: a formula over (diagram, plies) whose models include every legal game of
exactly that many plies from the initial array to the diagram (issue 22, item 3).

It is the trusted part of an `spg-listing` certificate: the writer (spg/certify.py) and the
checker (spg/proof_checker.py) both call `encode(target, plies)`, a deterministic function of the
diagram's placement and the length alone (no search, no analysis, no strategy), so the checker
regenerates it and never reads it from the certificate. It is a *relaxation*: it may admit
move sequences python-chess rejects (it ignores check, castling history and the 50-move rule),
never exclude a legal game; tests/test_spg_certificates.py holds it to that with an admission
oracle (random legal games satisfy the CNF with their own moves' literals).

Variables:
- x(t, s, piece): after ply t, square s holds that piece (t = 0 is the initial array, fixed by
  unit clauses; t = plies is the diagram). Only states an over-approximating reachability
  allows are variables, the others are false: forward, the squares a piece reaches by its
  geometric moves (blockers ignored) in its side's moves so far; backward, for a side none of
  whose units is ever captured (16 units in the diagram), the states from which some diagram
  unit of that side is reachable in its moves left.
- occ(t, s) and own(t, s, colour): the square is occupied (by that colour): one literal for
  "empty", "not own" and the lines of attacks.
- doomed units: per ply and colour, at most as many of its units as it loses in the game stand
  where no diagram unit of that colour is reachable in its moves left (such a unit must be
  captured later; a sequential counter).
- m(t, move): the move of ply t, one per geometric move (piece, from, to, promotion, kind:
  plain, e.p. or castling) between allowed states; exactly one per ply (a sequential
  at-most-one, Sinz 2005, and an at-least-one clause).
- implied counts (`retrologic-spg-cnf/2`, 2026-12-04), true of every legal game and there to
  shorten the proofs: cap(t), "ply t captures", with exactly as many captures of each colour
  as the other colour lacks in the diagram (`_captures`); and the tempo bound (`_tempo`): per
  ply and colour, the sum over the colour's diagram units of the distance from the nearest of
  its units standing then is at most the moves it has left (plus one while it may castle).

Clauses per move: the piece stands on `from` before, `from` is empty after, the piece (or the
promoted piece) stands on `to` after; the squares between are empty before; a pawn push lands on
an empty square, a pawn capture on an enemy one, a piece move on a square without an own unit;
e.p. needs the enemy pawn's double step on the ply before and removes it; castling needs king
and rook on their squares and the squares between empty, and puts both on their castled squares.
Frame: an own unit leaves a square only by a move from it, an enemy unit only by a move to it
(or e.p.), a unit appears only by a move landing there with that piece; at most one piece per
square. A model is therefore a pseudo-legal move sequence, and every legal game is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import chess

PLAIN, EP, CASTLE = 0, 1, 2
Piece = tuple[bool, int]                 # (colour, piece type)
State = tuple[int, bool, int]            # (square, colour, piece type)
MoveKey = tuple[int, int, int, int, int]  # (piece type, from, to, promotion or 0, kind)
PIECES: list[Piece] = [(c, p) for c in (chess.WHITE, chess.BLACK) for p in chess.PIECE_TYPES]
# castling of a colour: (king from, king to, rook from, rook to)
CASTLINGS = {chess.WHITE: [(chess.E1, chess.G1, chess.H1, chess.F1),
                           (chess.E1, chess.C1, chess.A1, chess.D1)],
             chess.BLACK: [(chess.E8, chess.G8, chess.H8, chess.F8),
                           (chess.E8, chess.C8, chess.A8, chess.D8)]}
ENCODING = "retrologic-spg-cnf/2"        # named in certificates: the encoding they rely on


def mover(ply: int) -> bool:
    """The side that makes ply `ply` (1-based): White on odd plies."""
    return ply % 2 == 1


def _geometric(color: bool, ptype: int, frm: int) -> list[tuple[int, int, int, int]]:
    """(to, piece type after, kind, squares between) of the moves of a piece on an empty board
    (pawn pushes, double steps, captures (also as e.p. where the rank allows) and
    promotions); castling is added separately."""
    out: list[tuple[int, int, int, int]] = []
    if ptype == chess.PAWN:
        rank, file = chess.square_rank(frm), chess.square_file(frm)
        step = 1 if color == chess.WHITE else -1
        r2 = rank + step
        if not 0 <= r2 <= 7:
            return out
        last = r2 == (7 if color == chess.WHITE else 0)
        after = [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT] if last else [chess.PAWN]
        ep_rank = 5 if color == chess.WHITE else 2
        for df in (0, -1, 1):
            if not 0 <= file + df <= 7:
                continue
            to = chess.square(file + df, r2)
            for a in after:
                out.append((to, a, PLAIN, 0))
            if df and r2 == ep_rank:
                out.append((to, chess.PAWN, EP, 0))
        if rank == (1 if color == chess.WHITE else 6):
            out.append((chess.square(file, rank + 2 * step), chess.PAWN, PLAIN,
                        chess.BB_SQUARES[chess.square(file, r2)]))
        return out
    if ptype == chess.KNIGHT:
        targets = chess.BB_KNIGHT_ATTACKS[frm]
    elif ptype == chess.KING:
        targets = chess.BB_KING_ATTACKS[frm]
    else:
        targets = 0
        if ptype in (chess.BISHOP, chess.QUEEN):
            targets |= chess.BB_DIAG_ATTACKS[frm][0]
        if ptype in (chess.ROOK, chess.QUEEN):
            targets |= chess.BB_RANK_ATTACKS[frm][0] | chess.BB_FILE_ATTACKS[frm][0]
    return [(to, ptype, PLAIN, chess.between(frm, to)) for to in chess.scan_forward(targets)]


GEOMETRY: dict[tuple[bool, int, int], list[tuple[int, int, int, int]]] = {
    (c, p, s): _geometric(c, p, s) for c, p in PIECES for s in chess.SQUARES}


def _castle_moves(color: bool, ptype: int, frm: int) -> list[tuple[int, int, int, int]]:
    """The king's castling moves from its home square (as (to, KING, CASTLE, between))."""
    if ptype != chess.KING:
        return []
    return [(kto, chess.KING, CASTLE, chess.between(kfrom, rfrom))
            for kfrom, kto, rfrom, _ in CASTLINGS[color] if kfrom == frm]


def _attacks(color: bool, ptype: int, frm: int) -> int:
    """Squares a piece attacks on an empty board (a pawn: its capture squares)."""
    if ptype == chess.PAWN:
        return chess.BB_PAWN_ATTACKS[color][frm]
    if ptype == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[frm]
    if ptype == chess.KING:
        return chess.BB_KING_ATTACKS[frm]
    out = 0
    if ptype in (chess.BISHOP, chess.QUEEN):
        out |= chess.BB_DIAG_ATTACKS[frm][0]
    if ptype in (chess.ROOK, chess.QUEEN):
        out |= chess.BB_RANK_ATTACKS[frm][0] | chess.BB_FILE_ATTACKS[frm][0]
    return out


ATTACKS = {(c, p, s): _attacks(c, p, s) for c, p in PIECES for s in chess.SQUARES}


def _moves_of(color: bool, ptype: int, frm: int) -> list[tuple[int, int, int, int]]:
    return GEOMETRY[(color, ptype, frm)] + _castle_moves(color, ptype, frm)


def reachable(target: chess.BaseBoard, plies: int) -> list[set[State]]:
    """Per ply t (0..plies) the states a legal game of `plies` plies ending on `target` may have
    after ply t (an over-approximation: forward by geometric moves, backward for a side that
    loses no unit); castling adds the rook's step as a rook move already does."""
    return _reach(target, plies)[0]


def _reach(target: chess.BaseBoard, plies: int
           ) -> tuple[list[set[State]], list[dict[bool, set[State]]]]:
    """reachable(), and per ply t and colour the states from which some diagram unit of that
    colour is reachable in the colour's moves after ply t (a unit elsewhere must be captured)."""
    start = chess.BaseBoard()
    fwd = [{(s, p.color, p.piece_type) for s, p in start.piece_map().items()}]
    for t in range(1, plies + 1):
        c = mover(t)
        cur = set(fwd[-1])
        for (s, col, p) in fwd[-1]:
            if col == c:
                cur.update((to, c, a) for to, a, _, _ in _moves_of(c, p, s))
        fwd.append(cur)
    final = {(s, p.color, p.piece_type) for s, p in target.piece_map().items()}
    lost = {c: 16 - chess.popcount(target.occupied_co[c]) for c in chess.COLORS}
    back: list[set[State] | None] = [None] * (plies + 1)
    back[plies] = final
    need = {c: {st for st in final if st[1] == c} for c in chess.COLORS}
    needs: list[dict[bool, set[State]]] = [dict(need) for _ in range(plies + 1)]
    for t in range(plies, 0, -1):
        c = mover(t)
        pre = set(need[c])
        for s in chess.SQUARES:
            for p in chess.PIECE_TYPES:
                if (s, c, p) in pre:
                    continue
                if any((to, c, a) in need[c] for to, a, _, _ in _moves_of(c, p, s)):
                    pre.add((s, c, p))
        need[c] = pre
        needs[t - 1] = dict(need)
        allowed: set[State] = set()
        for col in chess.COLORS:
            # a unit of a side that loses units may yet be captured: no backward restriction
            # while the other side still has a ply to make
            if lost[col] > 0 and any(mover(u) != col for u in range(t, plies + 1)):
                allowed |= {st for st in fwd[t - 1] if st[1] == col}
            else:
                allowed |= {st for st in fwd[t - 1] if st[1] == col and st in need[col]}
        back[t - 1] = allowed
    return [fwd[t] & back[t] for t in range(plies + 1)], needs  # type: ignore[operator]


@dataclass
class Encoding:
    """The CNF of (target, plies) and the maps between its move variables and moves."""

    target: str
    plies: int
    nv: int = 0
    clauses: list[list[int]] = field(default_factory=list)
    x: dict[tuple[int, int, bool, int], int] = field(default_factory=dict)
    moves: list[dict[MoveKey, int]] = field(default_factory=list)   # per ply (index 0 unused)
    decode: dict[int, tuple[int, MoveKey]] = field(default_factory=dict)

    def new(self) -> int:
        self.nv += 1
        return self.nv

    def move_var(self, ply: int, board: chess.Board, move: chess.Move) -> int | None:
        """The variable of `move` played at ply `ply` on `board` (None: the CNF has none; a
        legal move of a legal game always has one). The key is read off the board: the piece
        on the from-square, e.p. and castling as python-chess sees them."""
        piece = board.piece_at(move.from_square)
        if piece is None or not 1 <= ply <= self.plies:
            return None
        kind = CASTLE if board.is_castling(move) else EP if board.is_en_passant(move) else PLAIN
        to = move.to_square
        if kind == CASTLE:   # python-chess may write castling king-takes-rook (chess960 style)
            to = chess.square(6 if chess.square_file(to) > chess.square_file(move.from_square)
                              else 2, chess.square_rank(move.from_square))
        key = (piece.piece_type, move.from_square, to, move.promotion or 0, kind)
        return self.moves[ply].get(key)

    def move_of(self, var: int) -> tuple[int, chess.Move]:
        """(ply, move) of a move variable; KeyError if `var` is not one."""
        ply, (_, frm, to, promo, _) = self.decode[var]
        return ply, chess.Move(frm, to, promo or None)


def encode(target: chess.BaseBoard, plies: int, tick: Callable[[], None] | None = None
           ) -> Encoding:
    """The CNF of every pseudo-legal game of `plies` plies from the initial array to `target`'s
    placement (see the module docstring); deterministic in (placement, plies). `tick` is called
    once per ply of each pass (a caller's time limit: a 24-ply CNF takes a second or more)."""
    tick = tick or (lambda: None)
    enc = Encoding(target.board_fen(), plies)
    allowed, needs = _reach(target, plies)
    x, cl = enc.x, enc.clauses
    occ: dict[tuple[int, int], int] = {}
    own: dict[tuple[int, int, bool], int] = {}
    for t in range(plies + 1):
        tick()
        by_square: dict[int, list[int]] = {}
        for (s, c, p) in sorted(allowed[t]):
            v = x[(t, s, c, p)] = enc.new()
            by_square.setdefault(s, []).append(v)
        for s in chess.SQUARES:
            occ[(t, s)] = enc.new()
            own[(t, s, True)], own[(t, s, False)] = enc.new(), enc.new()
        mine: dict[tuple[int, bool], list[int]] = {}
        for (s, c, p) in sorted(allowed[t]):
            v = x[(t, s, c, p)]
            cl.append([-v, occ[(t, s)]])
            cl.append([-v, own[(t, s, c)]])
            mine.setdefault((s, c), []).append(v)
        for s in chess.SQUARES:     # and back: occ and own are exactly the occupancy
            cl.append([-occ[(t, s)]] + by_square.get(s, []))
            for c in chess.COLORS:
                cl.append([-own[(t, s, c)]] + mine.get((s, c), []))
        for s, vs in sorted(by_square.items()):
            for i in range(len(vs)):
                for j in range(i + 1, len(vs)):
                    cl.append([-vs[i], -vs[j]])
    # doomed units: a unit that can no longer reach a diagram unit of its colour must be
    # captured later, so at most as many stand anywhere as the colour loses in the game
    for c in chess.COLORS:
        lost = 16 - chess.popcount(target.occupied_co[c])
        for t in range(plies + 1):
            doomed = [x[(t, s, col, p)] for (s, col, p) in sorted(allowed[t])
                      if col == c and (s, col, p) not in needs[t][c]]
            _at_most(enc, doomed, lost)
    start = chess.BaseBoard()
    for s, p in sorted(start.piece_map().items()):
        key = (0, s, p.color, p.piece_type)
        cl.append([x[key]] if key in x else [])
    for s, p in sorted(target.piece_map().items()):
        key = (plies, s, p.color, p.piece_type)
        cl.append([x[key]] if key in x else [])
    enc.moves.append({})
    for t in range(1, plies + 1):
        tick()
        _ply(enc, t, allowed, occ, own)
    _captures(enc, target, own, tick)
    _tempo(enc, target, allowed, tick)
    return enc


def _ply(enc: Encoding, t: int, allowed: list[set[State]],
         occ: dict[tuple[int, int], int], own: dict[tuple[int, int, bool], int]) -> None:
    """The move variables of ply t, their clauses, the frame and exactly-one."""
    x, cl, c = enc.x, enc.clauses, mover(t)
    keys: dict[MoveKey, int] = {}
    leaving: dict[int, list[int]] = {}      # square -> moves after which an own unit left it
    hit: dict[int, list[int]] = {}          # square -> moves that may remove an enemy unit there
    landing: dict[tuple[int, int], list[int]] = {}   # (square, piece type) -> moves landing
    for (s, col, p) in sorted(allowed[t - 1]):
        if col != c:
            continue
        for to, after, kind, between in _moves_of(c, p, s):
            if (to, c, after) not in allowed[t]:
                continue
            before = x[(t - 1, s, c, p)]
            lits: list[list[int]] = []       # the move's clauses, without -m
            if kind == EP:
                victim = chess.square(chess.square_file(to), chess.square_rank(s))
                origin = chess.square(chess.square_file(to),
                                      chess.square_rank(to) + (1 if c == chess.WHITE else -1))
                vx = x.get((t - 1, victim, not c, chess.PAWN))
                dbl = enc.moves[t - 1].get((chess.PAWN, origin, victim, 0, PLAIN)) if t > 1 else None
                if vx is None or dbl is None:
                    continue
                lits += [[vx], [dbl], [-occ[(t - 1, to)]], [-occ[(t, victim)]]]
            elif kind == CASTLE:
                kfrom, kto, rfrom, rto = next(q for q in CASTLINGS[c] if q[1] == to)
                rb, ra = x.get((t - 1, rfrom, c, chess.ROOK)), x.get((t, rto, c, chess.ROOK))
                if rb is None or ra is None:
                    continue
                lits += [[rb], [ra], [-occ[(t, rfrom)]]]
                # king and rook never moved: they stood on their squares after every ply
                for u in range(t - 1):
                    lits += [[x.get((u, kfrom, c, chess.KING), 0)],
                             [x.get((u, rfrom, c, chess.ROOK), 0)]]
                # not out of, through or into check (the position before the ply)
                for q in (kfrom, (kfrom + kto) // 2, kto):
                    lits += _attackers(enc, allowed, occ, t - 1, c, q)
            elif p == chess.PAWN and chess.square_file(to) != chess.square_file(s):
                enemies = [x[(t - 1, to, not c, q)] for q in chess.PIECE_TYPES
                           if (t - 1, to, not c, q) in x]
                if not enemies:
                    continue
                lits.append(enemies)
            elif p == chess.PAWN:
                lits.append([-occ[(t - 1, to)]])
            else:
                lits.append([-own[(t - 1, to, c)]])
            lits += [[-occ[(t - 1, b)]] for b in chess.scan_forward(between)]
            lits += [[before], [-occ[(t, s)]], [x[(t, to, c, after)]]]
            if any(lit == [0] for lit in lits):
                continue                     # a castling whose king or rook could not stay
            m = keys[(p, s, to, after if after != p else 0, kind)] = enc.new()
            enc.decode[m] = (t, (p, s, to, after if after != p else 0, kind))
            for lit in lits:
                cl.append([-m] + lit)
            leaving.setdefault(s, []).append(m)
            landing.setdefault((to, after), []).append(m)
            if kind == EP:
                hit.setdefault(victim, []).append(m)
            elif kind == CASTLE:
                leaving.setdefault(rfrom, []).append(m)
                landing.setdefault((rto, chess.ROOK), []).append(m)
            else:
                hit.setdefault(to, []).append(m)
    enc.moves.append(keys)
    # frame: disappearing and appearing units
    for (s, col, p) in sorted(allowed[t - 1]):
        was, now = x[(t - 1, s, col, p)], x.get((t, s, col, p))
        why = leaving.get(s, []) if col == c else hit.get(s, [])
        cl.append([-was] + ([now] if now is not None else []) + why)
    for (s, col, p) in sorted(allowed[t]):
        was, now = x.get((t - 1, s, col, p)), x[(t, s, col, p)]
        why = landing.get((s, p), []) if col == c else []
        cl.append([-now] + ([was] if was is not None else []) + why)
    # the mover's king is not attacked after its move
    for (k, col, p) in sorted(allowed[t]):
        if col == c and p == chess.KING:
            for lit in _attackers(enc, allowed, occ, t, c, k):
                cl.append([-x[(t, k, c, chess.KING)]] + lit)
    # exactly one move
    ms = list(keys.values())
    cl.append(list(ms))
    if len(ms) > 1:
        aux = [enc.new() for _ in ms[:-1]]
        cl.append([-ms[0], aux[0]])
        for i in range(1, len(ms) - 1):
            cl.append([-ms[i], aux[i]])
            cl.append([-aux[i - 1], aux[i]])
            cl.append([-ms[i], -aux[i - 1]])
        cl.append([-ms[-1], -aux[-1]])


def _attackers(enc: Encoding, allowed: list[set[State]], occ: dict[tuple[int, int], int],
               t: int, color: bool, q: int) -> list[list[int]]:
    """Clauses (without their condition) saying no enemy of `color` attacks square `q` after
    ply t: per enemy state attacking q on an empty board, that unit is absent or a square
    between is occupied."""
    out = []
    bb = chess.BB_SQUARES[q]
    for (a, col, p) in sorted(allowed[t]):
        if col == color or not ATTACKS[(col, p, a)] & bb:
            continue
        between = chess.between(a, q) if p in (chess.BISHOP, chess.ROOK, chess.QUEEN) else 0
        out.append([-enc.x[(t, a, col, p)]] + [occ[(t, b)] for b in chess.scan_forward(between)])
    return out


def _captures(enc: Encoding, target: chess.BaseBoard, own: dict[tuple[int, int, bool], int],
              tick: Callable[[], None]) -> None:
    """Implied: a colour captures exactly as many units as the other lacks in the diagram (no
    unit appears but by promotion, which replaces a pawn). cap(t) holds when ply t captures
    (a pawn's diagonal step or e.p.; a piece landing on an enemy unit), and only when some
    enemy unit is gone from a square after the ply (gone(t, s)); then at most and at least
    that many cap(t) of the colour's plies (Sinz's counter, on the negations for at least)."""
    cl = enc.clauses
    caps: dict[bool, list[int]] = {chess.WHITE: [], chess.BLACK: []}
    for t in range(1, enc.plies + 1):
        tick()
        c = mover(t)
        cap = enc.new()
        caps[c].append(cap)
        for (p, frm, to, _, kind), m in sorted(enc.moves[t].items()):
            if kind == EP or (p == chess.PAWN and chess.square_file(to) != chess.square_file(frm)):
                cl.append([-m, cap])
            elif kind == PLAIN and p != chess.PAWN:
                cl.append([-m, -own[(t - 1, to, not c)], cap])
        gone = []
        for s in chess.SQUARES:
            g = enc.new()
            cl += [[-g, own[(t - 1, s, not c)]], [-g, -own[(t, s, not c)]]]
            gone.append(g)
        cl.append([-cap] + gone)
    for c in chess.COLORS:
        lost = 16 - chess.popcount(target.occupied_co[not c])
        _at_most(enc, caps[c], lost)
        _at_most(enc, [-v for v in caps[c]], len(caps[c]) - lost)


_PREDECESSORS: dict[State, list[State]] = {}


def _distances(unit: State) -> dict[State, int]:
    """The fewest moves of its own (geometric moves, promotion and castling included, blockers
    ignored) from each state to `unit`'s state: a breadth-first search backwards."""
    if not _PREDECESSORS:
        for c, p in PIECES:
            for s in chess.SQUARES:
                for to, after, _, _ in _moves_of(c, p, s):
                    _PREDECESSORS.setdefault((to, c, after), []).append((s, c, p))
    dist, frontier = {unit: 0}, [unit]
    while frontier:
        nxt = []
        for st in frontier:
            for pre in _PREDECESSORS.get(st, []):
                if pre not in dist:
                    dist[pre] = dist[st] + 1
                    nxt.append(pre)
        frontier = nxt
    return dist


def _tempo(enc: Encoding, target: chess.BaseBoard, allowed: list[set[State]],
           tick: Callable[[], None]) -> None:
    """Implied: after ply t, each diagram unit of colour c is still as far as the nearest unit
    of c from it, the units that end on distinct diagram squares are distinct and each of c's
    plies left moves one unit (castling two: one more while c may still castle), so the sum
    over c's diagram units of those distances is at most c's plies left (+1). far(t, u, k),
    "no unit of c within k-1 moves of u", for k up to that bound, and an at-most counter."""
    castles = {c: [t for t in range(1, enc.plies + 1) if mover(t) == c
                   and any(kind == CASTLE for (_, _, _, _, kind) in enc.moves[t])]
               for c in chess.COLORS}
    for c in chess.COLORS:
        units = [(s, c, p.piece_type) for s, p in sorted(target.piece_map().items())
                 if p.color == c]
        dists = [_distances(u) for u in units]
        for t in range(enc.plies + 1):
            tick()
            left = sum(1 for u in range(t + 1, enc.plies + 1) if mover(u) == c)
            bound = left + any(u > t for u in castles[c])
            far = []
            for dist in dists:
                near = sorted((dist[st], enc.x[(t,) + st]) for st in allowed[t]
                              if st[1] == c and st in dist)
                farthest = near[-1][0] if near else bound + 1
                closer = 0                   # near[:closer]: the units within k-1 moves
                for k in range(1, min(bound + 1, farthest) + 1):
                    while closer < len(near) and near[closer][0] < k:
                        closer += 1
                    f = enc.new()
                    enc.clauses.append([f] + [v for _, v in near[:closer]])
                    far.append(f)
            _at_most(enc, far, bound)


def _at_most(enc: Encoding, lits: list[int], k: int) -> None:
    """At most k of `lits` hold (k < 0: the empty clause): Sinz's sequential counter (s[i][j]:
    at least j+1 of the first i+1 literals hold)."""
    n = len(lits)
    if n <= k:
        return
    cl = enc.clauses
    if k < 0:
        cl.append([])                # at least more than there are: no model
        return
    if k == 0:
        cl.extend([-v] for v in lits)
        return
    reg = [[enc.new() for _ in range(k)] for _ in range(n - 1)]
    cl.append([-lits[0], reg[0][0]])
    cl.extend([-reg[0][j]] for j in range(1, k))
    for i in range(1, n - 1):
        cl.append([-lits[i], reg[i][0]])
        cl.append([-reg[i - 1][0], reg[i][0]])
        for j in range(1, k):
            cl.append([-lits[i], -reg[i - 1][j - 1], reg[i][j]])
            cl.append([-reg[i - 1][j], reg[i][j]])
        cl.append([-lits[i], -reg[i - 1][k - 1]])
    cl.append([-lits[n - 1], -reg[n - 2][k - 1]])
