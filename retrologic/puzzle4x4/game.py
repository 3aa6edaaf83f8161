"""The 4x4 capture puzzle (Stanley 2018): rules, board strings, a memoised forward solver on
bitboards, and its certificates (checked independently by puzzle4x4.checker).

Rules, as in the puzzle's original solver (jes/chess-puzzle, gosolve/solve.go and
js/chess-puzzle.js): the 16 non-pawn pieces on a 4x4 board; White moves first and the sides
alternate; every move is a capture of an enemy piece, made as in chess (line pieces cannot jump);
there is no check; the white king can never be captured, the black king can; the puzzle is solved
when the white king is the only piece left; the side to move with no capture is stuck (lost).

A position is a *key*: 16 nibbles, square i (a4=0, b4=1, ..., d1=15; ranks top to bottom as in
the board strings) holding 0 (empty) or a piece code (white N B R Q K = 1..5, black = 9..13).
Side to move follows from the counts: White when both sides have lost equally many units.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable, Iterable

from retrologic.errors import InputError, shown
from retrologic.limits import Budget, LimitHit

# --- board geometry and piece codes -------------------------------------------------------------

FILES = "abcd"
SQUARE_NAMES = [f"{FILES[i % 4]}{4 - i // 4}" for i in range(16)]
KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5
BLACK = 8                                   # colour bit of a piece code
WK, BK = KING, BLACK | KING
LETTERS = {KNIGHT: "N", BISHOP: "B", ROOK: "R", QUEEN: "Q", KING: "K"}
CODE_OF = {**{v: k for k, v in LETTERS.items()}, **{v.lower(): k | BLACK for k, v in LETTERS.items()}}
FULL_SET = "KQRRBBNNkqrrbbnn"              # the 16 units of a starting position
MAX_COUNT = {t: FULL_SET.count(LETTERS[t]) for t in LETTERS}   # per colour: K1 Q1 R2 B2 N2


class Outcome(StrEnum):
    """The answer about a start: solvable (a winning line) or unsolvable (a closed set proves
    that none exists). A str: JSON and [expect] tables see its value."""

    SOLVABLE = "solvable"
    UNSOLVABLE = "unsolvable"


def _geometry() -> tuple[list[int], list[list[int]], list[list[int]]]:
    """King neighbourhoods, empty-board move masks per (type, square), squares strictly between."""
    moves = [[0] * 16 for _ in range(6)]
    between = [[0] * 16 for _ in range(16)]
    for a in range(16):
        ar, ac = divmod(a, 4)
        for b in range(16):
            if a == b:
                continue
            br, bc = divmod(b, 4)
            dr, dc = abs(br - ar), abs(bc - ac)
            bit = 1 << b
            if max(dr, dc) == 1:
                moves[KING][a] |= bit
            if {dr, dc} == {1, 2}:
                moves[KNIGHT][a] |= bit
            if dr == dc:
                moves[BISHOP][a] |= bit
                moves[QUEEN][a] |= bit
            if dr == 0 or dc == 0:
                moves[ROOK][a] |= bit
                moves[QUEEN][a] |= bit
            if dr == dc or dr == 0 or dc == 0:
                sr, sc = (br > ar) - (br < ar), (bc > ac) - (bc < ac)
                r, c = ar + sr, ac + sc
                while (r, c) != (br, bc):
                    between[a][b] |= 1 << (r * 4 + c)
                    r, c = r + sr, c + sc
    return moves[KING][:], moves, between


KING_AREA, MOVES, BETWEEN = _geometry()


def _attack_tables() -> tuple[list[int], list[dict[int, int]]]:
    """For each (type, square): the mask of blocker squares that matter, and a table from the
    blockers present to the squares the piece attacks (occupied targets included)."""
    masks = [0] * 224
    tables: list[dict[int, int]] = [{} for _ in range(224)]
    for t in LETTERS:
        for s in range(16):
            relevant = 0
            for b in _bits(MOVES[t][s]):
                relevant |= BETWEEN[s][b]
            masks[t * 16 + s] = relevant
            sub = relevant
            while True:                       # every subset of the relevant squares
                att = 0
                for b in _bits(MOVES[t][s]):
                    if not BETWEEN[s][b] & sub:
                        att |= 1 << b
                tables[t * 16 + s][sub] = att
                if sub == 0:
                    break
                sub = (sub - 1) & relevant
    for t in LETTERS:                         # black pieces share the white tables
        for s in range(16):
            masks[(t | BLACK) * 16 + s] = masks[t * 16 + s]
            tables[(t | BLACK) * 16 + s] = tables[t * 16 + s]
    return masks, tables


def _bits(mask: int) -> list[int]:
    """The squares of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


_MASK, _TABLE = _attack_tables()


def attacks(code: int, square: int, occupied: int) -> int:
    """Squares a piece (code) on `square` attacks on a board with `occupied` units."""
    i = code * 16 + square
    return _TABLE[i][occupied & _MASK[i]]


# --- positions as keys ---------------------------------------------------------------------------

def piece_at(key: int, square: int) -> int:
    return (key >> (4 * square)) & 15


def bitboards(key: int) -> tuple[int, int, int]:
    """(white units, black units, white king square) of a key; the king square is -1 if absent."""
    white = black = 0
    ksq = -1
    for s in range(16):
        p = (key >> (4 * s)) & 15
        if p:
            if p & BLACK:
                black |= 1 << s
            else:
                white |= 1 << s
                if p == WK:
                    ksq = s
    return white, black, ksq


def white_to_move(key: int) -> bool:
    """White moves when both sides have lost equally many units (equal counts)."""
    white, black, _ = bitboards(key)
    return white.bit_count() == black.bit_count()


def is_solved(key: int) -> bool:
    white, black, ksq = bitboards(key)
    return black == 0 and white == 1 << ksq


def from_pieces(pieces: Iterable[str]) -> int:
    """A key from 16 letters (or '.'/'1' for empty), square a4 first."""
    key = 0
    for i, ch in enumerate(pieces):
        if ch not in ".1":
            key |= CODE_OF[ch] << (4 * i)
    return key


def to_string(key: int) -> str:
    """The board string: ranks top to bottom, '/' between, digits for runs of empty squares."""
    ranks = []
    for r in range(4):
        out, run = "", 0
        for c in range(4):
            p = piece_at(key, r * 4 + c)
            if not p:
                run += 1
                continue
            if run:
                out, run = out + str(run), 0
            letter = LETTERS[p & 7]
            out += letter.lower() if p & BLACK else letter
        ranks.append(out + (str(run) if run else ""))
    return "/".join(ranks)


def parse(text: Any, *, field: str = "board", file: str | None = None) -> int:
    """A key from a board string such as 'Bq1K/NR2/1R1Q/rknb'; InputError naming the fault."""
    def bad(message: str) -> InputError:
        return InputError(message, file=file, field=field, value=text)

    if not isinstance(text, str):
        raise bad("a board is a string like 'Bq1K/NR2/1R1Q/rknb'")
    ranks = text.strip().split("/")
    if len(ranks) != 4:
        raise bad(f"a board has 4 ranks separated by '/', not {len(ranks)}")
    key = 0
    for r, rank in enumerate(ranks):
        c = 0
        for ch in rank:
            if ch in "1234":
                c += int(ch)
            elif ch in CODE_OF:
                if c < 4:
                    key |= CODE_OF[ch] << (4 * (r * 4 + c))
                c += 1
            else:
                raise bad(f"bad letter {ch!r} in rank {4 - r} (pieces KQRBN/kqrbn, digits 1-4 for "
                          "empty squares; there are no pawns)")
        if c != 4:
            raise bad(f"rank {4 - r} ({shown(rank)}) covers {c} squares, not 4")
    for colour, bit in (("white", 0), ("black", BLACK)):
        for t, most in MAX_COUNT.items():
            n = sum(1 for s in range(16) if piece_at(key, s) == t | bit)
            if n > most:
                letter = LETTERS[t] if not bit else LETTERS[t].lower()
                raise bad(f"{n} {colour} {letter!r}: a side has at most {most} (K Q R R B B N N)")
    white, black, ksq = bitboards(key)
    if ksq < 0:
        raise bad("no white king 'K' (it can never be captured)")
    if white.bit_count() - black.bit_count() not in (0, 1):
        raise bad(f"{white.bit_count()} white and {black.bit_count()} black units: White moves "
                  "first and the sides alternate, so White has as many units as Black (White to "
                  "move) or one more (Black to move)")
    return key


# --- moves ---------------------------------------------------------------------------------------

def moves(key: int) -> list[tuple[int, int]]:
    """The legal moves (from, to) of the side to move: captures of enemy units, never of the
    white king."""
    white, black, ksq = bitboards(key)
    occ = white | black
    if white.bit_count() == black.bit_count():
        movers, targets = white, black
    else:
        movers, targets = black, white & ~(1 << ksq)
    out = []
    for f in _bits(movers):
        for t in _bits(attacks(piece_at(key, f), f, occ) & targets):
            out.append((f, t))
    return out


def unmoves(key: int) -> list[int]:
    """Every position one move before `key` (retractions): the side that moved last takes a unit
    back from an empty square it could have captured from, and the captured unit (any type the
    material allows; never the white king) reappears on the capture square."""
    white, black, ksq = bitboards(key)
    if ksq < 0:
        return []
    occ = white | black
    black_moved = white.bit_count() == black.bit_count()
    movers = black if black_moved else white
    victim_colour = 0 if black_moved else BLACK
    room = []                                  # unit codes the material has room to bring back
    for t in LETTERS:
        code = t | victim_colour
        if code == WK:
            continue
        if sum(1 for s in range(16) if piece_at(key, s) == code) < MAX_COUNT[t]:
            room.append(code)
    out = []
    empty = ~occ & 0xFFFF
    for t in _bits(movers):
        p = piece_at(key, t)
        for f in _bits(MOVES[p & 7][t] & empty):
            if BETWEEN[f][t] & occ:
                continue
            before = key ^ (p << (4 * t)) ^ (p << (4 * f))
            for code in room:
                out.append(before | (code << (4 * t)))
    return out


def play(key: int, move: tuple[int, int]) -> int:
    """The key after a move (no legality check)."""
    f, t = move
    pf, pt = piece_at(key, f), piece_at(key, t)
    return key ^ (pf << (4 * f)) ^ ((pt ^ pf) << (4 * t))


def move_name(key: int, move: tuple[int, int]) -> str:
    """A move as 'Qc3xb4' (piece letter in its colour's case)."""
    f, t = move
    p = piece_at(key, f)
    letter = LETTERS[p & 7]
    return f"{letter.lower() if p & BLACK else letter}{SQUARE_NAMES[f]}x{SQUARE_NAMES[t]}"


def parse_move(text: str) -> tuple[int, int]:
    """'c3b4', 'c3-b4', 'c3xb4' or 'Qc3xb4' to (from, to); ValueError otherwise."""
    s = text.strip().lower().replace("-", "").replace("x", "")
    if len(s) == 5 and s[0] in "kqrbn":
        s = s[1:]
    if len(s) != 4 or s[:2] not in SQUARE_NAMES or s[2:] not in SQUARE_NAMES:
        raise ValueError(f"not a 4x4 move: {shown(text)} (expected e.g. 'c3b4')")
    return SQUARE_NAMES.index(s[:2]), SQUARE_NAMES.index(s[2:])


def random_start(rng: random.Random) -> int:
    """A uniformly random starting position (the 16 units shuffled)."""
    pieces = list(FULL_SET)
    rng.shuffle(pieces)
    return from_pieces(pieces)


# --- forward solver ------------------------------------------------------------------------------

# A node, time or memory limit, or Ctrl-C, stopped an engine; the answer is unknown. The shared
# limits' exception (retrologic.limits), so the puzzle's engines and the Budget raise the same.
LimitReached = LimitHit


@dataclass
class Solver:
    """Depth-first search for a winning line, memoising the positions proved unsolvable.

    Prunes soundly: a white king with no occupied neighbour square can never move again (vacated
    squares stay empty), so it cannot make the last capture. `failed` may be shared between calls.
    Limits: `budget` (the question's shared Budget: time, nodes, Ctrl-C), else `nodes_limit`
    over the solver's life and `timeout` per `solve` call; Ctrl-C stops it either way.
    """

    nodes_limit: int | None = None
    timeout: float | None = None
    progress: Callable[[int], None] | None = None
    failed: set[int] = field(default_factory=set)
    nodes: int = 0
    budget: Budget | None = None
    _budget: Budget | None = None
    _charged: int = 0
    _next: int = 0

    def solve(self, key: int) -> list[tuple[int, int]] | None:
        """A winning line from `key`, or None if there is none; LimitReached on a limit."""
        white, black, ksq = bitboards(key)
        if ksq < 0:
            return None
        line: list[tuple[int, int]] = []
        self._budget = self.budget if self.budget is not None else self._own_budget()
        self._charged = self.nodes
        self._next = self.nodes + 1               # look at the limits on the first node
        if self._search(key, white, black, ksq, white.bit_count() == black.bit_count(), line):
            line.reverse()
            return line
        return None

    def _own_budget(self) -> Budget:
        """A budget of this solver's own `nodes_limit` (counted from its first node) and
        `timeout` (from now; any figure, 0 included, as before the shared limits)."""
        budget = Budget(None, None)
        budget.nodes, budget.spent = self.nodes_limit, self.nodes
        if self.timeout is not None:
            budget.timeout, budget.deadline = self.timeout, budget.started + self.timeout
        return budget

    def _step(self) -> int:
        """Nodes until the next look at the limits and the clock."""
        budget = self._budget
        left = None if budget is None else budget.nodes_left()
        return 4096 if left is None else max(1, min(4096, left + 1))

    def _search(self, key: int, white: int, black: int, ksq: int, wtm: bool,
                line: list[tuple[int, int]]) -> bool:
        occ = white | black
        if occ == 1 << ksq:
            return True
        if not KING_AREA[ksq] & occ or key in self.failed:
            return False
        self.nodes += 1
        if self.nodes >= self._next:
            self._check()
        if wtm:
            movers, targets = white, black
        else:
            movers, targets = black, white & ~(1 << ksq)
        table, masks = _TABLE, _MASK
        m = movers
        while m:
            fb = m & -m
            m ^= fb
            f = fb.bit_length() - 1
            pf = (key >> (4 * f)) & 15
            i = pf * 16 + f
            att = table[i][occ & masks[i]] & targets
            while att:
                tb = att & -att
                att ^= tb
                t = tb.bit_length() - 1
                pt = (key >> (4 * t)) & 15
                nkey = key ^ (pf << (4 * f)) ^ ((pt ^ pf) << (4 * t))
                if wtm:
                    ok = self._search(nkey, white ^ fb ^ tb, black ^ tb, t if pf == WK else ksq,
                                      False, line)
                else:
                    ok = self._search(nkey, white ^ tb, black ^ fb ^ tb, ksq, True, line)
                if ok:
                    line.append((f, t))
                    return True
        self.failed.add(key)
        return False

    def _check(self) -> None:
        """Charge the nodes since the last look; LimitReached at a limit or on Ctrl-C."""
        delta, self._charged = self.nodes - self._charged, self.nodes
        self._budget.check(delta, every=1)
        if self.progress is not None:
            self.progress(self.nodes)
        self._next = self.nodes + self._step()


def solve(key: int, **limits: Any) -> list[tuple[int, int]] | None:
    """A winning line, or None if the position is unsolvable (see Solver for the limits)."""
    return Solver(**limits).solve(key)


def solvable(key: int, failed: set[int] | None = None) -> bool:
    """Whether the position can be solved (no limits)."""
    return Solver(failed=failed if failed is not None else set()).solve(key) is not None


def unsolvability_proof(key: int, failed: set[int]) -> list[int]:
    """The positions of a failed search reachable from `key` through failed positions: a set
    closed under moves up to children whose white king is isolated (see
    puzzle4x4.checker.check_unsolvable)."""
    out = [key]
    seen = {key}
    i = 0
    while i < len(out):
        parent = out[i]
        i += 1
        for m in moves(parent):
            child = play(parent, m)
            if child in failed and child not in seen:
                seen.add(child)
                out.append(child)
    return out


def certificate(key: int, line: list[tuple[int, int]] | None,
                proof: list[int] | None = None) -> dict[str, Any]:
    """The JSON certificate of an answer: a winning line, or the closed set proving none exists."""
    from retrologic.certformat import stamp
    if line is not None:
        return stamp({"type": "puzzle4x4-line", "board": to_string(key),
                      "moves": [SQUARE_NAMES[f] + SQUARE_NAMES[t] for f, t in line]})
    return stamp({"type": "puzzle4x4-unsolvable", "board": to_string(key),
                  "positions": [to_string(k) for k in (proof or [key])]})
