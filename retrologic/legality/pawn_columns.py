"""Pawn columns: the proof kernel of a full position (Texel's proof-game tool, doc/proofgame.md,
section "Proof game kernel"; peterosterlund2/texel).

A *pawn column* is the order of the pawns on one file, from the first rank up, as colours
("WB": a White pawn below a Black one). A pawn never passes another pawn on its file: it moves
one or two squares straight ahead, over empty squares only, so the order of a column changes
only when a pawn captures onto it or off it, is captured, or promotes. The *kernel space*
keeps the eight columns and, per side, how many pieces (units other than pawns and the king)
it has and how many promotions it has made; its moves are the captures (and promotions), each
as what it does to the columns:

- a pawn takes a pawn on a neighbouring file: it leaves its column and takes the victim's
  place in the other (e.p. too: nothing stands between the two squares);
- a pawn takes a piece on a neighbouring file: it leaves its column and enters the other at
  any place (ranks are not kept: every place is allowed), or promotes when it is the last
  pawn of its column in its direction (on its seventh rank nothing is ahead of it);
- a piece or the king takes a pawn (any pawn of any column) or a piece;
- a pawn promotes without capturing when it is the last pawn of its column in its direction.

Every legal game maps to a sequence of these moves from the initial array's columns to the
position's, so when a search of the whole space finds none, no game reaches the position:
the rule `pawn-columns`. Example: White's e-pawn on e6 above Black's on e5, with one capture
each: neither pawn can leave the e-file and come back, so they never passed each other. The
counting rules and the proof-game bound see only files, not the order on a file.

Pawns at home all game (Texel's blocked squares, their pawn part): a White pawn the position
has on its second rank is the array's pawn, unmoved (no other White pawn reaches that rank), so
it is the lowest pawn of its column throughout, never captured and never capturing, and nothing
enters its column below it; a Black pawn on its seventh rank likewise at the top. So a White
pawn never gets above a Black pawn at home, and never promotes on that file.

Originals sealed at home (Retractor's static cages, `legality.static_cages.sealed_homes`): a
bishop or queen whose every exit was frozen all game never left its home square. When the
square does not hold it now, it was taken there, by an enemy piece (an enemy pawn takes onto
the side's first rank only from a diagonal neighbour, and those are exits, frozen all game;
nothing else of that kind can have entered the square since). Such a
capture changes no column, so a search may make it first: it starts from the array without
that original, and the pieces of its class on the board need one promotion more (a Black
dark-squared bishop on the board when the bishop of f8 was sealed in by e7 and g7 is promoted).

The search is depth first with transpositions (a state found dead stays dead) and the
pruning of the doc's section: captures left per side (a side makes exactly one capture per
missing enemy unit), columns that some move must still touch (a move touches at most two), the
files each side's pawns must still move (one file per pawn capture), pawns and promotions still
needed. It is capped (`NODES`): a capped search proves nothing and the rule says nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator, NamedTuple

import chess

from retrologic.legality import static_cages
from retrologic.legality.reason import Reason
from retrologic.limits import poll
from retrologic.position import HOME, Position
from retrologic.vocabulary import DIAGONAL_NEIGHBOURS, color_name

RULE = "pawn-columns"
NODES = 3_000  # kernel states one search expands at most (then: unknown, the rule is silent)
WHITE, BLACK = "W", "B"
FAR = 1 << 20  # file steps beyond any count of captures
ORIGINAL = {chess.QUEEN: 1, chess.ROOK: 2, chess.KNIGHT: 2}  # bishops: one per square colour


class State(NamedTuple):
    """A point of the kernel space: the columns a..h (colours from the first rank up), each
    side's pieces (not pawns, not the king) and promotions made."""

    columns: tuple[str, ...]
    white_pieces: int
    black_pieces: int
    white_promotions: int
    black_promotions: int


INITIAL = State((WHITE + BLACK,) * 8, 7, 7, 0, 0)


def columns_of(board: chess.BaseBoard) -> tuple[str, ...]:
    """The pawn columns of a placement (colours by rank, first rank first)."""
    out = []
    for file in range(8):
        column = ""
        for rank in range(8):
            piece = board.piece_at(chess.square(file, rank))
            if piece is not None and piece.piece_type == chess.PAWN:
                column += WHITE if piece.color == chess.WHITE else BLACK
        out.append(column)
    return tuple(out)


def promotions_needed(board: chess.BaseBoard, color: chess.Color, lost: int = 0) -> int:
    """The fewest promotions `color`'s pieces on the board show: every queen, rook or knight
    beyond the array's, every bishop beyond one per square colour; the originals whose home
    squares are in `lost` (`sealed_losses`) are gone and count for none."""
    need = 0
    for piece_type, original in ORIGINAL.items():
        gone = chess.popcount(lost & HOME[(piece_type, color)])
        need += max(0, chess.popcount(board.pieces_mask(piece_type, color)) - original + gone)
    bishops = board.pieces_mask(chess.BISHOP, color)
    homes = HOME[(chess.BISHOP, color)]
    for shade in (chess.BB_LIGHT_SQUARES, chess.BB_DARK_SQUARES):
        original = 1 - chess.popcount(lost & homes & shade)
        need += max(0, chess.popcount(bishops & shade) - original)
    return need


ARRAY = chess.BaseBoard()  # the initial array: which original stands on a home square
SEALABLE = (chess.BISHOP, chess.QUEEN)  # originals no enemy pawn can take at home when sealed


def sealed_losses(pos: Position) -> int:
    """The home squares of the bishops and queens sealed in all game (`static_cages`) that do
    not hold their original now: each was taken there by an enemy piece (module docstring)."""
    placement, gone = pos.placement, 0
    for (piece_type, color), squares in HOME.items():
        if piece_type in SEALABLE:
            pawns = placement.pieces(chess.PAWN, color)
            for square in chess.scan_forward(squares & ~placement.pieces(piece_type, color)):
                # a quick look first: the diagonal exits can be frozen by own pawns alone
                if not DIAGONAL_NEIGHBOURS[square] & ~pawns:
                    gone |= chess.BB_SQUARES[square]
    if not gone:
        return 0
    return gone & static_cages.sealed_homes(pos, static_cages.frozen_units(pos))


def start_without(lost: int) -> State:
    """The array's kernel state with the originals of `lost` already taken by pieces."""
    white = chess.popcount(lost & chess.BB_RANK_1)
    return State(INITIAL.columns, INITIAL.white_pieces - white,
                 INITIAL.black_pieces - (chess.popcount(lost) - white), 0, 0)


def state_of(board: chess.BaseBoard, white_promotions: int = 0,
             black_promotions: int = 0) -> State:
    """The kernel state of a placement, given the promotions each side has made so far."""
    pieces = [chess.popcount(board.occupied_co[c] & ~board.pawns & ~board.kings)
              for c in (chess.WHITE, chess.BLACK)]
    return State(columns_of(board), pieces[0], pieces[1], white_promotions, black_promotions)


def home_files(board: chess.BaseBoard) -> tuple[int, int]:
    """The files (bit f) where the position has a White pawn on the second rank, and those with
    a Black pawn on the seventh: no other pawn of its colour reaches that square, so it is the
    array's pawn, unmoved all game (Texel's blocked squares): the lowest (highest) pawn of its
    column throughout, never captured, never capturing, nothing ever below (above) it."""
    white = black = 0
    for f in range(8):
        if board.piece_at(chess.square(f, 1)) == chess.Piece(chess.PAWN, chess.WHITE):
            white |= 1 << f
        if board.piece_at(chess.square(f, 6)) == chess.Piece(chess.PAWN, chess.BLACK):
            black |= 1 << f
    return white, black


def kernel_goal(board: chess.BaseBoard, lost: int = 0) -> tuple[State, tuple[int, int],
                                                                  tuple[int, int]]:
    """What a search towards `board`'s placement needs of it: its state, the promotions its
    pieces show (White, Black; `lost`: originals taken at home, `sealed_losses`) and its pawns
    at home (`home_files`)."""
    needed = (promotions_needed(board, chess.WHITE, lost),
              promotions_needed(board, chess.BLACK, lost))
    return state_of(board), needed, home_files(board)


@functools.lru_cache(maxsize=1 << 16)
def _files(columns: tuple[str, ...], colour: str) -> tuple[int, ...]:
    """The files of `colour`'s pawns in `columns`, one entry per pawn, in file order (memoised:
    a kernel search meets the same columns under many piece and promotion counts)."""
    return tuple(f for f, column in enumerate(columns) for _ in range(column.count(colour)))


def _pawns(state: State, colour: str) -> int:
    return len(_files(state.columns, colour))


def _units(state: State, colour: str) -> int:
    pieces = state.white_pieces if colour == WHITE else state.black_pieces
    return _pawns(state, colour) + pieces + 1


@functools.lru_cache(maxsize=1 << 16)
def _file_shift(have: tuple[int, ...], want: tuple[int, ...]) -> int:
    """The fewest file steps that bring some of the pawns on files `have` onto the files
    `want` (one each; both sorted): an order-keeping matching is optimal on a line. Memoised:
    the kernel search asks it of every state it meets (the legal-game finder's kernel checks
    took a seventh of its CPU on hard seeds, half of it here: bench/README-legal.md,
    2026-12-04 19:49 UTC)."""
    n, m = len(have), len(want)
    if m > n:
        return FAR
    row = [0] * (n + 1)                     # row[i]: want[:j] matched within have[:i]
    for j in range(1, m + 1):
        new = [FAR] * (n + 1)
        for i in range(j, n + 1):
            new[i] = min(new[i - 1], row[i - 1] + abs(have[i - 1] - want[j - 1]))
        row = new
    return row[n]


@functools.lru_cache(maxsize=1 << 12)
def _complete(column: str, goal: str) -> bool:
    """Whether promotions alone (White's last pawns, Black's first) turn `column` into `goal`
    (memoised: few columns occur)."""
    extra = len(column) - len(goal)
    if extra < 0:
        return False
    for k in range(extra + 1):
        if column[k:k + len(goal)] == goal and column[:k] == BLACK * k \
                and column[k + len(goal):] == WHITE * (extra - k):
            return True
    return False


@dataclass
class Kernel:
    """The kernel search towards one position's state (`goal`) with its promotions needed."""

    goal: State
    white_needed: int
    black_needed: int
    nodes: int = NODES
    home: tuple[int, int] = (0, 0)
    expanded: int = 0

    def __post_init__(self) -> None:
        self.dead: set[State] = set()
        self.goal_units = {c: _units(self.goal, c) for c in (WHITE, BLACK)}
        self.goal_pawns = {c: _pawns(self.goal, c) for c in (WHITE, BLACK)}
        self.goal_files = {c: _files(self.goal.columns, c) for c in (WHITE, BLACK)}
        self.goal_pieces = {WHITE: self.goal.white_pieces, BLACK: self.goal.black_pieces}
        self.needed = {WHITE: self.white_needed, BLACK: self.black_needed}

    @classmethod
    def towards(cls, board: chess.BaseBoard, nodes: int = NODES) -> "Kernel":
        """The search towards `board`'s placement from the full array (a board carries no
        frozen units: `reasons` adds the originals sealed in at home, `sealed_losses`)."""
        goal, needed, home = kernel_goal(board)
        return cls(goal, needed[0], needed[1], nodes, home)

    def captures_left(self, state: State, colour: str) -> int:
        """The captures `colour` still makes: one per unit the other side has beyond the goal."""
        other = BLACK if colour == WHITE else WHITE
        return _units(state, other) - self.goal_units[other]

    def distance(self, state: State) -> int | None:
        """A lower bound on the kernel moves left, None when the goal is out of reach."""
        captures = 0
        for colour in (WHITE, BLACK):
            left = self.captures_left(state, colour)
            pawns = _pawns(state, colour)
            surplus = pawns - self.goal_pawns[colour]
            pieces = state.white_pieces if colour == WHITE else state.black_pieces
            made = state.white_promotions if colour == WHITE else state.black_promotions
            if left < 0 or surplus < 0 or pieces + surplus < self.goal_pieces[colour] \
                    or made + surplus < self.needed[colour]:
                return None
            if _file_shift(_files(state.columns, colour), self.goal_files[colour]) > left:
                return None
            captures += left
        open_columns = sum(not _complete(col, goal)
                           for col, goal in zip(state.columns, self.goal.columns))
        if open_columns > 2 * captures:
            return None
        return max(captures, (open_columns + 1) // 2)

    def moves(self, state: State) -> Iterator[tuple[State, int, int]]:
        """The states one kernel move away (each once), with the files whose columns the move
        changed (-1: none)."""
        seen: set[State] = set()
        for colour in (WHITE, BLACK):
            for after, f, g in self._side_moves(state, colour):
                if after not in seen:
                    seen.add(after)
                    yield after, f, g

    def _side_moves(self, state: State, colour: str) -> Iterator[tuple[State, int, int]]:
        white = colour == WHITE
        other = BLACK if white else WHITE
        columns = state.columns
        capture = self.captures_left(state, colour) > 0
        enemy_pieces = state.black_pieces if white else state.white_pieces

        def make(cols: list[str], own_piece: int = 0, enemy_piece: int = 0,
                 promoted: int = 0) -> State:
            wp, bp = state.white_pieces, state.black_pieces
            wm, bm = state.white_promotions, state.black_promotions
            if white:
                wp, bp, wm = wp + own_piece, bp + enemy_piece, wm + promoted
            else:
                bp, wp, bm = bp + own_piece, wp + enemy_piece, bm + promoted
            return State(tuple(cols), wp, bp, wm, bm)

        low = self.home[0]     # files whose lowest pawn is White's, at home all game
        high = self.home[1]    # files whose highest pawn is Black's, at home all game

        def fixed(f: int, column: str, j: int) -> bool:
            """Whether the pawn at index `j` of column `f` is a pawn at home all game."""
            return (j == 0 and low >> f & 1 and column[0] == WHITE) or \
                (j == len(column) - 1 and high >> f & 1 and column[-1] == BLACK)

        for f, column in enumerate(columns):
            # the last pawn in the side's direction may promote (its seventh rank: nothing ahead)
            last = len(column) - 1 if white else 0
            if column and column[last] == colour and not fixed(f, column, last):
                rest = column[:-1] if white else column[1:]
                cols = list(columns)
                cols[f] = rest
                yield make(cols, own_piece=1, promoted=1), f, -1
                if capture and enemy_pieces:      # ... or capture-promote onto a neighbour file
                    yield make(cols, own_piece=1, enemy_piece=-1, promoted=1), f, -1
            if not capture:
                continue
            for i, unit in enumerate(column):
                # one pawn per run of the side's pawns: White's highest, Black's lowest (a
                # pawn at home all game is the other end of its run)
                if unit != colour or fixed(f, column, i):
                    continue
                if white and i + 1 < len(column) and column[i + 1] == colour:
                    continue
                if not white and i and column[i - 1] == colour:
                    continue
                left = column[:i] + column[i + 1:]
                for g in (f - 1, f + 1):
                    if not 0 <= g < 8:
                        continue
                    target = columns[g]
                    for j, victim in enumerate(target):
                        if victim == other and not fixed(g, target, j):   # pawn takes pawn
                            cols = list(columns)
                            cols[f], cols[g] = left, target[:j] + colour + target[j + 1:]
                            yield make(cols), f, g
                    if enemy_pieces:              # pawn takes a piece: any place on the file
                        # ... above a White pawn at home, below a Black one
                        first = 1 if low >> g & 1 and target[:1] == WHITE else 0
                        end = len(target) - (1 if high >> g & 1 and target[-1:] == BLACK else 0)
                        for k in range(first, end + 1):
                            cols = list(columns)
                            cols[f], cols[g] = left, target[:k] + colour + target[k:]
                            yield make(cols, enemy_piece=-1), f, g
        if not capture:
            return
        for f, column in enumerate(columns):      # a piece (or the king) takes a pawn
            for j, victim in enumerate(column):
                if victim == other and not fixed(f, column, j):
                    cols = list(columns)
                    cols[f] = column[:j] + column[j + 1:]
                    yield make(cols), f, -1
        if enemy_pieces:                          # a piece takes a piece
            yield make(list(columns), enemy_piece=-1), -1, -1

    def reachable(self, start: State = INITIAL) -> bool | None:
        """Whether some kernel leads from `start` to the goal (None: the node cap ran out).
        Each call has the whole cap; the dead states found are kept for the next call."""
        self.expanded = 0
        try:
            return self._search(start)
        except _Capped:
            return None

    def is_goal(self, state: State) -> bool:
        """The goal's columns and pieces, with at least the promotions its pieces show."""
        goal = self.goal
        return state.columns == goal.columns and state.white_pieces == goal.white_pieces \
            and state.black_pieces == goal.black_pieces \
            and state.white_promotions >= self.white_needed \
            and state.black_promotions >= self.black_needed

    def _open(self, state: State) -> list[bool]:
        """Per file, whether promotions alone cannot finish its column (a capture must touch it)."""
        return [not _complete(col, goal) for col, goal in zip(state.columns, self.goal.columns)]

    def _search(self, state: State) -> bool:
        """Depth first; the children that leave fewest open columns first (counted from the
        parent's by the one or two files a move changes), each pruned when visited."""
        if self.is_goal(state):
            return True
        if state in self.dead:
            return False
        if self.distance(state) is None:
            self.dead.add(state)
            return False
        self.expanded += 1
        if self.expanded > self.nodes:
            raise _Capped
        if self.expanded % 32 == 0:
            poll()              # a search may take seconds: the caller's limit and Ctrl-C
        goal = self.goal.columns
        is_open = self._open(state)
        base = sum(is_open)
        scored = []
        for order, (after, f, g) in enumerate(self.moves(state)):
            if after in self.dead:
                continue
            count = base
            for file in (f, g):
                if file >= 0:
                    count += (not _complete(after.columns[file], goal[file])) - is_open[file]
            scored.append((count, order, after))
        scored.sort()
        for _, _, after in scored:
            if self._search(after):
                return True
        self.dead.add(state)
        return False


class _Capped(Exception):
    """The kernel search's node cap is spent."""


@functools.lru_cache(maxsize=4096)
def has_no_kernel(goal: State, needed: tuple[int, int], home: tuple[int, int],
                  nodes: int = NODES, start: State = INITIAL) -> bool:
    """Whether the search proves that no kernel leads from `start` (the initial array, or it
    without the originals taken at home: `start_without`) to `goal` (with `needed` promotions
    of White and Black, the pawns at home all game on the files of `home`). Memoised: all it
    depends on is its arguments, and a last-move proof tree asks it of many positions that
    differ by quiet piece moves only."""
    return Kernel(goal, needed[0], needed[1], nodes, home).reachable(start) is False


def reasons(pos: Position, nodes: int = NODES) -> list[Reason]:
    """[the pawn-columns rule] when no sequence of captures and promotions turns the initial
    array's pawn columns into `pos`'s (a full position only), else []."""
    if pos.partial:
        return []
    board = pos.to_board()
    if any(chess.popcount(board.pieces_mask(chess.KING, c)) != 1 for c in chess.COLORS) or \
            any(chess.popcount(board.occupied_co[c]) > 16 for c in chess.COLORS) or \
            board.pawns & (chess.BB_RANK_1 | chess.BB_RANK_8):
        return []                          # the counting rules speak for these
    lost = sealed_losses(pos)
    goal, needed, home = kernel_goal(board, lost)
    if not has_no_kernel(goal, needed, home, nodes, start_without(lost)):
        return []
    missing = {c: 16 - chess.popcount(board.occupied_co[c]) for c in chess.COLORS}
    changed = ", ".join(f"{chess.FILE_NAMES[f]}: {column or '-'}"
                        for f, column in enumerate(goal.columns) if column != WHITE + BLACK)
    return [Reason(RULE, f"no game reaches this position: no sequence of captures and "
                         f"promotions turns the pawns of the initial array into these pawn "
                         f"columns (a pawn never passes another on its file; from the first "
                         f"rank up: {changed}), with {missing[chess.BLACK]} capture(s) by "
                         f"{color_name(chess.WHITE)} and {missing[chess.WHITE]} by "
                         f"{color_name(chess.BLACK)}{_sealed_words(lost)}")]


def _sealed_words(lost: int) -> str:
    """The reason's words for the originals taken at home (`sealed_losses`), if any."""
    if not lost:
        return ""
    names = []
    for square in chess.scan_forward(lost):
        original = ARRAY.piece_at(square)
        assert original is not None, "a sealed home square holds a unit of the array"
        names.append(f"{color_name(original.color)}'s original "
                     f"{chess.piece_name(original.piece_type)} of {chess.square_name(square)}")
    return (f"; {', '.join(names)}: sealed in at home all game and gone, so taken there by a piece "
            f"(a piece of its class on the board is a promoted one)")


__all__ = ["INITIAL", "Kernel", "RULE", "State", "columns_of", "has_no_kernel", "home_files",
           "kernel_goal", "promotions_needed", "reasons", "sealed_losses", "start_without",
           "state_of"]
