"""Retro positions: a placement of units (full or partial), side to move, castling rights,
a pending double step, and frozen units; home squares and the default zone.

A *full* position comes from a FEN: kings and side to move are known and every check counts.
A *partial* position (a cage) comes from a board-only field: units may be added on any empty
square (Hwa's extension principle), either side may have moved last, only unblockable checks count.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator, NamedTuple

import chess

from retrologic.errors import InputError
from retrologic.schema import parse_squares
from retrologic.vocabulary import CASTLINGS, color_name

MAX_FEN = 256       # characters of a FEN or board string (a FEN needs at most about 90)

PIECE_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


class Placement(NamedTuple):
    """Units on the board as bitboards: one mask per piece type (index type-1) and the white mask.

    Immutable and hashable, so searches can keep visited sets of placements.
    """

    pawns: int
    knights: int
    bishops: int
    rooks: int
    queens: int
    kings: int
    white: int

    @property
    def occupied(self) -> int:
        return self.pawns | self.knights | self.bishops | self.rooks | self.queens | self.kings

    def color_mask(self, color: chess.Color) -> int:
        return self.white if color else self.occupied & ~self.white

    def piece_type_at(self, square: chess.Square) -> int | None:
        bb = chess.BB_SQUARES[square]
        for t in PIECE_TYPES:
            if self[t - 1] & bb:
                return t
        return None

    def piece_at(self, square: chess.Square) -> chess.Piece | None:
        t = self.piece_type_at(square)
        if t is None:
            return None
        return chess.Piece(t, bool(self.white & chess.BB_SQUARES[square]))

    def pieces(self, piece_type: int, color: chess.Color) -> int:
        return self[piece_type - 1] & self.color_mask(color)

    def units(self) -> Iterator[tuple[chess.Square, chess.Piece]]:
        for sq in chess.scan_forward(self.occupied):
            yield sq, self.piece_at(sq)  # type: ignore[misc]

    def king(self, color: chess.Color) -> chess.Square | None:
        bb = self.kings & self.color_mask(color)
        return chess.lsb(bb) if bb else None

    @classmethod
    def from_board(cls, board: chess.BaseBoard) -> "Placement":
        return cls(board.pawns, board.knights, board.bishops, board.rooks, board.queens,
                   board.kings, board.occupied_co[chess.WHITE])

    @classmethod
    def from_board_fen(cls, board_fen: str) -> "Placement":
        return cls.from_board(chess.BaseBoard(board_fen))

    def to_board(self) -> chess.BaseBoard:
        board = chess.BaseBoard(None)
        for sq, piece in self.units():
            board.set_piece_at(sq, piece)
        return board

    def board_fen(self) -> str:
        return self.to_board().board_fen()

    def without(self, mask: int) -> "Placement":
        """The placement with the units on `mask` removed."""
        keep = ~mask
        return Placement(*(m & keep for m in self))

    def __repr__(self) -> str:
        """Square names, White's units then Black's, kings first: Placement('Ke1 Ra1 / ke8')."""
        return f"Placement({str(self)!r})"

    def __str__(self) -> str:
        sides = []
        for color in (chess.WHITE, chess.BLACK):
            units = [f"{chess.piece_symbol(t).upper() if color else chess.piece_symbol(t)}"
                     f"{chess.square_name(sq)}"
                     for t in reversed(PIECE_TYPES)
                     for sq in chess.scan_forward(self.pieces(t, color))]
            sides.append(" ".join(units) if units else "-")
        return " / ".join(sides)

    def colour_swapped(self) -> "Placement":
        """White and Black exchanged, the board flipped top to bottom (a cage stays a cage)."""
        flipped = [chess.flip_vertical(m) for m in self]
        occ = 0
        for m in flipped[:6]:
            occ |= m
        return Placement(*flipped[:6], occ & ~flipped[6])


# Home squares: where a unit of that type and colour may have started the game.
HOME: dict[tuple[int, chess.Color], int] = {
    (chess.PAWN, chess.WHITE): chess.BB_RANK_2,
    (chess.KNIGHT, chess.WHITE): chess.BB_B1 | chess.BB_G1,
    (chess.BISHOP, chess.WHITE): chess.BB_C1 | chess.BB_F1,
    (chess.ROOK, chess.WHITE): chess.BB_A1 | chess.BB_H1,
    (chess.QUEEN, chess.WHITE): chess.BB_D1,
    (chess.KING, chess.WHITE): chess.BB_E1,
}
for (_t, _c), _bb in list(HOME.items()):
    HOME[(_t, chess.BLACK)] = chess.flip_vertical(_bb)


def home_mask(placement: Placement) -> int:
    """The units of `placement` that stand on a home square of their type and colour."""
    out = 0
    for t in PIECE_TYPES:
        mask = placement[t - 1]
        out |= mask & placement.white & HOME[(t, chess.WHITE)]
        out |= mask & ~placement.white & HOME[(t, chess.BLACK)]
    return out


def all_home(placement: Placement) -> bool:
    """True when every unit stands on a home square (vacuously true for an empty board)."""
    return home_mask(placement) == placement.occupied


def default_zone(placement: Placement) -> int:
    """Occupied squares plus their king-move neighbours (Hwa's practical default)."""
    zone = placement.occupied
    for sq in chess.scan_forward(placement.occupied):
        zone |= chess.BB_KING_ATTACKS[sq]
    return zone


def castling_fault(placement: Placement | chess.BaseBoard, castling: int,
                   unseen: bool = False) -> str | None:
    """Why a castling right of `castling` (rook squares) cannot stand on `placement`, or None:
    each must be a rook corner whose king's and rook's home squares hold that side's king and
    rook (`unseen`: or nothing, units a partial board leaves out). A right elsewhere or over
    another unit is one no position has, and a cage claimed under it holds vacuously (review
    of 2026-12-06: the SAT cage checker took such a certificate)."""
    for rook in chess.scan_forward(castling):
        owners = [(color, king) for (color, corner), (king, _, _) in CASTLINGS.items()
                  if corner == rook]
        if not owners:
            return f"castling square {chess.square_name(rook)} is not a rook corner"
        color, king = owners[0]
        for square, kind in ((rook, chess.ROOK), (king, chess.KING)):
            unit, needed = placement.piece_at(square), chess.Piece(kind, color)
            if unit != needed and not (unseen and unit is None):
                return (f"castling right {chess.square_name(rook)} needs {needed.symbol()} on "
                        f"{chess.square_name(square)}"
                        + ("" if unit is None else f", not {unit.symbol()}"))
    return None


def castling_frozen(castling: int) -> int:
    """Units that have never moved because a castling right still stands: king and rook."""
    out = 0
    for (color, rook), (king, _, _) in CASTLINGS.items():
        if castling & chess.BB_SQUARES[rook]:
            out |= chess.BB_SQUARES[rook] | chess.BB_SQUARES[king]
    return out


def castling_field(castling: int) -> str:
    """The FEN castling field of the rook squares `castling` (python-chess's mask) as stated:
    KQkq for the corners, a file letter (X-FEN) for any other square, White's first."""
    corners = {chess.H1: "K", chess.A1: "Q", chess.H8: "k", chess.A8: "q"}
    letters = []
    for rank, order in ((chess.BB_RANK_1, (chess.H1, chess.A1)),
                        (chess.BB_RANK_8, (chess.H8, chess.A8))):
        letters += [corners[sq] for sq in order if castling & chess.BB_SQUARES[sq]]
        for sq in chess.scan_forward(castling & rank & ~chess.BB_CORNERS):
            letter = chess.FILE_NAMES[chess.square_file(sq)]
            letters.append(letter.upper() if rank == chess.BB_RANK_1 else letter)
    return "".join(letters) or "-"


INITIAL_PLACEMENT = Placement.from_board(chess.Board())
GAME_START = "(initial array)"   # the notation of the empty history: no move played yet


@dataclass(frozen=True)
class Position:
    """A retro position.

    `turn` is the side to move (None: open, either side may have made the last move);
    `castling` holds the rook squares whose castling right stands (python-chess convention);
    `ep_square` is set when the last move is known to be a double step over that square;
    `frozen` marks units that never moved; `partial` selects the extension-principle rules.
    """

    placement: Placement
    turn: chess.Color | None
    castling: int = 0
    ep_square: chess.Square | None = None
    frozen: int = 0
    partial: bool = False

    @property
    def immobile(self) -> int:
        """Units that cannot have moved: frozen ones and those a castling right pins home."""
        return self.frozen | castling_frozen(self.castling)

    @classmethod
    def from_board(cls, board: chess.Board, *, frozen: int = 0) -> "Position":
        return cls(Placement.from_board(board), board.turn, board.castling_rights,
                   board.ep_square, frozen, False)

    @classmethod
    def from_fen(cls, fen: str, *, frozen: int = 0) -> "Position":
        """A full position from a FEN; ValueError if it is malformed (or not a short string)."""
        _check_length(fen, "FEN")
        return cls.from_board(chess.Board(fen), frozen=frozen)

    @classmethod
    def partial_from(cls, board_fen: str, *, frozen: int = 0) -> "Position":
        """A partial position from a placement; ValueError if it is malformed."""
        _check_length(board_fen, "board")
        return cls(Placement.from_board_fen(board_fen), None, 0, None, frozen, True)

    def at_initial_array(self) -> bool:
        """The initial array's placement with White to move (or open): a position that may be
        the game's start, so no rule or proof may call it impossible for want of a last move
        (its frozen units fit: none of them moved). Castling rights are not compared: in a
        retraction a missing right is no claim."""
        return self.placement == INITIAL_PLACEMENT and self.turn in (chess.WHITE, None)

    def is_game_start(self) -> bool:
        """The game's start as a diagram states it (`at_initial_array`, every castling right
        of a full position, no e.p. square): the empty game reaches it, a history with no
        last move (audit of 2026-12-05: the lastmove checker called it illegal when the side
        to move was open and the knights frozen)."""
        return self.at_initial_array() and self.ep_square is None and \
            (self.partial or self.castling == chess.BB_CORNERS)

    def to_board(self) -> chess.Board:
        """A python-chess board of a full position (side to move White when open)."""
        board = chess.Board(None)
        for sq, piece in self.placement.units():
            board.set_piece_at(sq, piece)
        board.turn = chess.WHITE if self.turn is None else self.turn
        board.castling_rights = self.castling
        board.ep_square = self.ep_square
        return board

    def fen(self) -> str:
        """FEN of a full position; the e.p. field shows a known double step even when no
        e.p. capture is possible (retro convention), the move counters are 0 1."""
        if self.partial:
            return self.placement.board_fen()
        board = self.to_board()
        fen = board.fen(en_passant="fen")
        if self.castling != board.clean_castling_rights():
            # python-chess prints only the rights whose king and rook are at home; a right
            # stated without them (an illegal diagram, which the rules refute) is shown as
            # stated, or a verdict on it would quote another diagram
            fields = fen.split(" ")
            fields[2] = castling_field(self.castling)
            fen = " ".join(fields)
        return fen.rsplit(" ", 2)[0] + " 0 1"

    def with_turn(self, turn: chess.Color | None) -> "Position":
        return replace(self, turn=turn)

    def _repr_svg_(self) -> str:
        """The diagram for notebooks, drawn by chess.svg, frozen units filled and marked (as
        retrologic.pictures.svg.diagram does; issue #20)."""
        import chess.svg
        board = self.placement.to_board() if self.partial else self.to_board()
        frozen = chess.SquareSet(self.frozen)
        return chess.svg.board(board, fill={sq: "#e76f51cc" for sq in frozen},
                               squares=frozen or None, size=320)

    def __repr__(self) -> str:
        """FEN-like: the placement, then side to move (? when open), castling and e.p. fields
        of a full position; a partial one shows 'partial'; frozen units are named."""
        if self.partial:
            text = f"{self.placement.board_fen()} partial"
        else:
            turn = "?" if self.turn is None else "w" if self.turn else "b"
            castling = "".join(letter for (_, rook), letter in zip(CASTLINGS, "KQkq")
                               if self.castling & chess.BB_SQUARES[rook]) or "-"
            ep = "-" if self.ep_square is None else chess.square_name(self.ep_square)
            text = f"{self.placement.board_fen()} {turn} {castling} {ep}"
        if self.frozen:
            text += " frozen " + ",".join(chess.square_name(s) for s in chess.scan_forward(self.frozen))
        return f"Position({text!r})"


def _check_length(text: str, what: str) -> None:
    """ValueError for a non-string or one too long to be a FEN/board (checked before parsing)."""
    if not isinstance(text, str):
        raise ValueError(f"a {what} must be a string")
    if len(text) > MAX_FEN:
        raise ValueError(f"too long for a {what} ({len(text):,} characters; at most {MAX_FEN})")


def _check_fen(fen: str) -> chess.Board:
    _check_length(fen, "FEN")
    try:
        return chess.Board(fen)
    except ValueError as e:
        raise ValueError(f"malformed FEN: {e}") from None


def _check_board(text: str) -> chess.BaseBoard:
    _check_length(text, "board")
    if " " in text.strip():
        raise ValueError("a board field holds the placement only (no side to move); "
                         "use 'fen' for a full position")
    try:
        board = chess.BaseBoard(text.strip())
    except ValueError as e:
        raise ValueError(f"malformed board: {e}") from None
    for color in chess.COLORS:
        if chess.popcount(board.kings & board.occupied_co[color]) > 1:
            raise ValueError(f"more than one {color_name(color)} king")
    return board


def _base(fen: str | None, board: str | None) -> Position:
    if (fen is None) == (board is None):
        raise ValueError("give exactly one of 'fen' (full position) or 'board' (partial position)")
    if fen is not None:
        return Position.from_board(_check_fen(fen))
    return Position(Placement.from_board(_check_board(board)), None, 0, None, 0, True)  # type: ignore[arg-type]


def away_from_home(board: Placement | chess.BaseBoard, mask: int) -> int:
    """The units of `mask` standing where no unit of their type and colour starts the game: a
    frozen unit (one that never moved) cannot stand there."""
    start = chess.BaseBoard()
    return sum(chess.BB_SQUARES[sq] for sq in chess.scan_forward(mask & board.occupied)
               if start.piece_at(sq) != board.piece_at(sq))


def _with_frozen(pos: Position, frozen: Any) -> Position:
    mask = 0
    for sq in parse_squares(frozen):
        if not pos.placement.occupied & chess.BB_SQUARES[sq]:
            raise ValueError(f"frozen square {chess.square_name(sq)} is empty")
        mask |= chess.BB_SQUARES[sq]
    for sq in chess.scan_forward(away_from_home(pos.placement, mask)):
        raise ValueError(f"frozen {chess.square_name(sq)}: no {_unit_name(pos, sq)} starts the "
                         "game there (frozen: never moved)")
    return replace(pos, frozen=mask)


def given_frozen(pos: Position) -> str:
    """The assumption a verdict about `pos` rests on when the problem states frozen units
    (", given that ... never moved"; empty when none): every "illegal" or "impossible" drawn
    under it must say so (review, 2026-11-30: a legal position with a frozen knight that had
    moved was called illegal without a word of the assumption)."""
    if not pos.frozen:
        return ""
    names = ", ".join(chess.square_name(sq) for sq in chess.scan_forward(pos.frozen))
    return f", given that the unit(s) on {names} never moved (stated frozen)"


def _unit_name(pos: Position, sq: int) -> str:
    piece = pos.placement.piece_at(sq)
    assert piece is not None
    return f"{'white' if piece.color else 'black'} {chess.piece_name(piece.piece_type)}"


def _with_to_move(pos: Position, to_move: str) -> Position:
    if to_move == "?":
        return pos.with_turn(None)
    if to_move in ("white", "black"):
        if pos.partial:
            raise ValueError("to_move applies to a full position (fen) only")
        if (to_move == "white") != pos.turn:
            # the FEN states the side to move already; only "?" opens it
            raise ValueError(f"to_move {to_move!r} contradicts the FEN's side to move "
                             f"({'w' if pos.turn else 'b'}); '?' leaves it open")
        return pos
    raise ValueError("to_move must be 'white', 'black' or '?'")


def parse(fen: str | None = None, board: str | None = None, frozen: Any = None,
          to_move: str | None = None) -> Position:
    """A position from a FEN (full) or a board-only string (partial); ValueError on bad input."""
    pos = _base(fen, board)
    if frozen is not None:
        pos = _with_frozen(pos, frozen)
    if to_move is not None:
        pos = _with_to_move(pos, to_move)
    return pos


POSITION_FIELDS = ("fen", "board", "frozen", "to_move")


def from_table(table: Any, *, file: str | None, accept: str = "either") -> Position:
    """A position from a problem file's `position` table (fields: fen | board, frozen, to_move)."""
    if not isinstance(table, dict):
        raise InputError("must be a table", file=file, field="position")
    for key in table:
        if key not in POSITION_FIELDS:
            raise InputError(f"unknown field (allowed: {', '.join(POSITION_FIELDS)})", file=file,
                             field=f"position.{key}", value=table[key])
    for key in ("fen", "board", "to_move"):
        if key in table and not isinstance(table[key], str):
            raise InputError("must be a string", file=file, field=f"position.{key}", value=table[key])
    if accept == "full" and "board" in table:
        raise InputError("this question needs a full position: give 'fen'", file=file,
                         field="position.board", value=table["board"])
    if accept == "partial" and "fen" in table:
        raise InputError("this question needs a partial position: give 'board'", file=file,
                         field="position.fen", value=table["fen"])
    key = "fen" if "fen" in table else "board" if "board" in table else None
    try:
        pos = _base(table.get("fen"), table.get("board"))
    except ValueError as e:
        raise InputError(str(e), file=file, field=f"position.{key}" if key else "position",
                         value=table.get(key) if key else None) from None
    for key, step in (("frozen", _with_frozen), ("to_move", _with_to_move)):
        if key in table:
            try:
                pos = step(pos, table[key])
            except ValueError as e:
                raise InputError(str(e), file=file, field=f"position.{key}", value=table[key]) from None
    return pos
