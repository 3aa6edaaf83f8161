"""Popeye's twinning commands (py-engl.txt, "Twin"; YACPDB `twins:` uses the same syntax) as
changes of a python-chess board: Move, Exchange, Remove, Substitute, Add, Rotate, Mirror,
Shift, PolishType; Stipulation and Continued are read by the callers.

Each change is checked (a move from an empty square, a shift off the board are errors), so a
twin is never a silently different diagram.
"""

from __future__ import annotations

from typing import Callable

import chess

from retrologic.formats.notation import WALKS, NotationError, place_spec

# twin command -> number of fixed arguments ("add" takes a colour and piece specs)
ARITY = {"move": 2, "exchange": 2, "remove": 1, "substitute": 2, "add": -1, "rotate": 1,
         "mirror": 1, "shift": 2, "polishtype": 0, "stipulation": -1, "continued": 0,
         "condition": -1}
COLOURS = ("white", "black", "neutral")

_MIRRORS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "a1<-->h1": lambda f, r: (7 - f, r),
    "a1<-->a8": lambda f, r: (f, 7 - r),
    "a1<-->h8": lambda f, r: (7 - r, 7 - f),
    "a8<-->h1": lambda f, r: (r, f),
}
_ROTATIONS: dict[str, Callable[[int, int], tuple[int, int]]] = {
    "90": lambda f, r: (7 - r, f),          # to the left: a1 -> h1, a8 -> a1
    "180": lambda f, r: (7 - f, 7 - r),
    "270": lambda f, r: (r, 7 - f),
}


def twin_label(k: int) -> str:
    """The label of the k-th diagram (0: a, 25: z, then aa, ab, ...: past z the letters went on
    through {, |, } and DEL to lone surrogates; audit of 2026-12-05)."""
    label = ""
    k += 1
    while k:
        k, rest = divmod(k - 1, 26)
        label = chr(ord("a") + rest) + label
    return label


def word(token: str, words: tuple[str, ...] | list[str]) -> str | None:
    """The keyword a (case-insensitive, possibly abbreviated) token stands for, as Popeye
    reads it: an exact match, else the one keyword it is a prefix of; None if none,
    NotationError if several."""
    low = token.lower()
    if low in words:
        return low
    hits = [w for w in words if w.startswith(low)]
    if len(hits) > 1:
        raise NotationError(f"{token!r} is ambiguous ({', '.join(hits)})")
    return hits[0] if hits else None


def _square(token: str) -> chess.Square:
    try:
        return chess.parse_square(token.lower())
    except ValueError:
        raise NotationError(f"not a square: {token!r}") from None


def _remap(board: chess.Board, to: Callable[[int, int], tuple[int, int]]) -> None:
    pieces = board.piece_map()
    board.clear_board()
    for sq, piece in pieces.items():
        f, r = to(chess.square_file(sq), chess.square_rank(sq))
        if not (0 <= f < 8 and 0 <= r < 8):
            raise NotationError(f"the {piece.symbol()} on {chess.square_name(sq)} leaves "
                                "the board")
        board.set_piece_at(chess.square(f, r), piece)


def apply(board: chess.Board, command: str, args: list[str]) -> None:
    """Apply one twinning command (already resolved to its full name) to the board."""
    if command == "move":
        a, b = _square(args[0]), _square(args[1])
        piece = board.remove_piece_at(a)
        if piece is None:
            raise NotationError(f"Move {args[0]} {args[1]}: {args[0]} is empty")
        board.set_piece_at(b, piece)
    elif command == "exchange":
        a, b = _square(args[0]), _square(args[1])
        pa, pb = board.piece_at(a), board.piece_at(b)
        if pa is None or pb is None:
            raise NotationError(f"Exchange {args[0]} {args[1]}: a square is empty")
        board.set_piece_at(a, pb)
        board.set_piece_at(b, pa)
    elif command == "remove":
        if board.remove_piece_at(_square(args[0])) is None:
            raise NotationError(f"Remove {args[0]}: the square is empty")
    elif command == "substitute":
        old, new = args[0].lower(), args[1].lower()
        for code in (old, new):
            if code not in WALKS:
                raise NotationError(f"Substitute: fairy piece {code!r} is not supported")
        for sq, piece in board.piece_map().items():
            if piece.piece_type == WALKS[old]:
                board.set_piece_at(sq, chess.Piece(WALKS[new], piece.color))
    elif command == "add":
        colour = word(args[0], COLOURS) if args else None
        if colour not in ("white", "black"):
            raise NotationError(f"Add: a colour (white or black) first, not {args[:1]!r}")
        for spec in args[1:]:
            place_spec(board, colour == "white", spec)
    elif command == "rotate":
        if args[0] not in _ROTATIONS:
            raise NotationError(f"Rotate: 90, 180 or 270, not {args[0]!r}")
        _remap(board, _ROTATIONS[args[0]])
    elif command == "mirror":
        key = args[0].lower()
        if key not in _MIRRORS:
            raise NotationError(f"Mirror: one of {', '.join(_MIRRORS)}, not {args[0]!r}")
        _remap(board, _MIRRORS[key])
    elif command == "shift":
        a, b = _square(args[0]), _square(args[1])
        df = chess.square_file(b) - chess.square_file(a)
        dr = chess.square_rank(b) - chess.square_rank(a)
        _remap(board, lambda f, r: (f + df, r + dr))
    elif command == "polishtype":
        for sq, piece in board.piece_map().items():
            board.set_piece_at(sq, chess.Piece(piece.piece_type, not piece.color))
    else:
        raise NotationError(f"twinning by {command!r} is not supported")
