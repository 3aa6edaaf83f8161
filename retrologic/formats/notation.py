"""Chess notation as composers write it (issue #20): S for the knight, Popeye's long algebraic
(`Sg1-f3`, `e4*d5`, `0-0`), SAN and PGN move text, each replayed with python-chess from the
initial array; and diagrams given as piece lists (`Ke1 Sb1 Pa2b2`, YACPDB's `Sa2`).

Why: Popeye (py-engl.txt: "pieces", walk "s" = knight, "n" = nightrider) and YACPDB (entry
format: "Note S for the knights as N is reserved for the Nightriders") both use S; reading N as
a knight there would silently solve another problem, so N is refused in those notations.
"""

from __future__ import annotations

import io
import re
from typing import Any

import chess

from retrologic.errors import InputError

# Popeye piece walks we solve: orthodox units only (any fairy walk is refused by the readers)
WALKS = {"k": chess.KING, "q": chess.QUEEN, "r": chess.ROOK, "b": chess.BISHOP,
         "s": chess.KNIGHT, "p": chess.PAWN}
# the piece letters in either case, the squares in lower case only (Popeye refuses "QD1"; read
# case-blind, the D1 was matched and then dropped: the queen vanished, review of 2026-11-30)
_SPEC = re.compile(r"^([A-Za-z][A-Za-z0-9]?)((?:[a-h][1-8])+)$")
_LONG = re.compile(r"^([KQRBSN])?([a-h][1-8])([-*x:])([a-h][1-8])(?:=?([QRBSN]))?"
                   r"(?:e\.?p\.?)?$")
_RESULTS = {"1-0", "0-1", "1/2-1/2", "½-½", "*"}
_NUMBER = re.compile(r"^(\d+)\.(?:\.\.)?(.*)$")
_ANNOTATION = re.compile(r"[!?+#]+$")


class NotationError(ValueError):
    """A piece list or a move text that cannot be read; the message names the token."""


def normalize_fen(fen: str) -> str:
    """A FEN whose board field may write the knight as S/s (German and problemist usage)
    turned into python-chess's N/n; a board with both S and N is ambiguous and refused."""
    parts = fen.strip().split()
    if not parts:
        return fen
    board = parts[0]
    if re.search(r"[sS]", board):
        if re.search(r"[nN]", board):
            raise NotationError(f"the board {board!r} writes knights both as S and as N")
        parts[0] = board.replace("S", "N").replace("s", "n")
    return " ".join(parts)


# command-line arguments holding a FEN or a board-only placement, by command (the puzzle4x4
# command's BOARD is a 4x4 board of its own notation: never rewritten)
FEN_ARGUMENTS = {"spg": ("fen",), "lastmove": ("fen",), "deduce": ("fen",),
                 "tablebase": ("fen",), "legal": ("position",), "retract": ("position",),
                 "cage": ("board",)}


def fen_arguments(args: Any) -> None:
    """Rewrite the FEN / board arguments of a parsed command line in place with the knight as
    N (normalize_fen), so every command reads `S`/`s` as the files and `check --spg` do; a
    board writing knights both as S and as N is bad input (exit 3) naming the argument."""
    for name in FEN_ARGUMENTS.get(getattr(args, "command", None) or "", ()):
        value = getattr(args, name, None)
        if isinstance(value, str) and re.search(r"[sS]", (value.split() or [""])[0]):
            try:
                setattr(args, name, normalize_fen(value))
            except NotationError as e:
                raise InputError(str(e), field=name.upper() if name == "fen" else name,
                                 value=value) from None


def place_spec(board: chess.Board, color: chess.Color, spec: str) -> None:
    """Put a Popeye/YACPDB piece spec (`Ke1`, `Sb1g1`, `pa7b7c7`) of one colour on the board."""
    m = _SPEC.match(spec)
    if not m:
        raise NotationError(f"not a piece and square(s) like Ke1 or Sb1g1: {spec!r}")
    walk = m.group(1).lower()
    if walk not in WALKS:
        extra = " (N is the nightrider in Popeye and YACPDB: write S for the knight)" \
            if walk == "n" else ""
        raise NotationError(f"fairy piece {m.group(1)!r} is not supported{extra}: {spec!r}")
    for sq in re.findall(r"[a-h][1-8]", m.group(2)):
        if board.piece_at(chess.parse_square(sq)) is not None:   # Popeye warns and overwrites
            raise NotationError(f"two units on {sq}: {spec!r}")
        board.set_piece_at(chess.parse_square(sq), chess.Piece(WALKS[walk], color))


def _long_move(board: chess.Board, m: re.Match[str], token: str) -> chess.Move:
    """The legal move a Popeye long-algebraic token (`Sg1-f3`, `e7-e8=Q`, `d5*e6 ep.`) names."""
    letter, start, _, end, promo = m.groups()
    if letter == "N" or promo == "N":
        raise NotationError(f"{token!r}: write S for the knight (N is the nightrider)")
    frm, to = chess.parse_square(start), chess.parse_square(end)
    piece = board.piece_at(frm)
    want = WALKS[(letter or "p").lower()]
    if piece is None or piece.color != board.turn or piece.piece_type != want:
        raise NotationError(f"{token!r}: no {chess.piece_name(want)} of the side to move "
                            f"on {start}")
    move = chess.Move(frm, to, WALKS[promo.lower()] if promo else None)
    if move not in board.legal_moves:
        raise NotationError(f"{token!r} is not legal here")
    return move


def _castling(board: chess.Board, token: str) -> chess.Move:
    long = token.count("-") == 2
    for move in board.legal_moves:
        if board.is_castling(move) and board.is_queenside_castling(move) == long:
            return move
    raise NotationError(f"{token!r}: castling is not legal here")


def read_move(board: chess.Board, token: str) -> chess.Move:
    """One move of a move text: Popeye long algebraic, castling (0-0, O-O) or SAN (S or N for
    the knight); NotationError if it is not legal on `board`."""
    core = _ANNOTATION.sub("", token)
    if core in ("0-0", "O-O", "0-0-0", "O-O-O"):
        return _castling(board, core)
    m = _LONG.match(core)
    if m:
        return _long_move(board, m, token)
    san = core
    if san[:1] == "S":
        san = "N" + san[1:]
    san = re.sub(r"=S$", "=N", san)
    try:
        move = board.parse_san(san)
    except ValueError as e:
        raise NotationError(f"{token!r}: {e}") from None
    if not move:            # python-chess reads "--", "Z0", "0000" and "@@@@" as a null move
        raise NotationError(f"{token!r}: a null move is no move of a game")
    return move


def tokens(text: str) -> list[str]:
    """The move tokens of a text: comments {...}, move numbers, results and stand-alone
    annotations (`+`, `#`, `ep.`, `!`) dropped."""
    text = re.sub(r"\{[^}]*\}", " ", text)
    out = []
    for raw in text.split():
        token = raw
        m = _NUMBER.match(token)
        if m:
            token = m.group(2)
        if not token or token in _RESULTS or token.lower() in ("ep.", "e.p.", "ep") \
                or not _ANNOTATION.sub("", token):
            continue
        out.append(token)
    return out


def replay(text: str) -> list[chess.Move]:
    """The moves of a game given as SAN or Popeye move text, from the initial array."""
    board = chess.Board()
    moves = []
    for i, token in enumerate(tokens(text)):
        try:
            move = read_move(board, token)
        except NotationError as e:
            raise NotationError(f"ply {i + 1}: {e}") from None
        board.push(move)
        moves.append(move)
    return moves


def read_pgn(text: str) -> list[chess.Move]:
    """The main line of a PGN game, which must start from the initial array (a proof game)."""
    import chess.pgn  # here only: it loads chess.engine and asyncio (issue #22, latency)

    class Quiet(chess.pgn.GameBuilder):
        """Keeps an error in `game.errors` without logging it (it becomes our one-line error)."""

        def handle_error(self, error: Exception) -> None:
            self.game.errors.append(error)

    game = chess.pgn.read_game(io.StringIO(text), Visitor=Quiet)
    if game is None:
        raise NotationError("no game in the PGN text")
    if game.errors:
        raise NotationError(f"PGN: {game.errors[0]}")
    fen = game.headers.get("FEN")
    if fen and fen.split()[:4] != chess.STARTING_FEN.split()[:4]:
        raise NotationError(f"the game starts from FEN {fen!r}, not the initial array")
    start = game.board()
    if type(start) is not chess.Board or start.chess960:
        # python-chess plays a [Variant] tag's rules (a Crazyhouse drop, Antichess moves into
        # check: audit of 2026-12-05, `check --spg` accepted such games)
        raise NotationError(f"the game's variant {game.headers.get('Variant', '?')!r} is not "
                            "orthodox chess")
    moves = list(game.mainline_moves())
    legal_line(moves)
    return moves


def legal_line(moves: list[chess.Move]) -> chess.Board:
    """The board the moves reach, each legal in orthodox chess from the initial array
    (NotationError naming the first that is not, a null move included)."""
    board = chess.Board()
    for i, move in enumerate(moves):
        if not move or not board.is_legal(move):
            raise NotationError(f"ply {i + 1}: {move.uci()} is not a legal move")
        board.push(move)
    return board


def read_game(text: str) -> list[chess.Move]:
    """A claimed game as PGN (it has tag pairs) or as bare SAN/Popeye move text."""
    if re.search(r"^\s*\[\w+\s+\"", text, re.MULTILINE):
        return read_pgn(text)
    return replay(text)


def split_solutions(text: str) -> dict[str, list[str]]:
    """A published solution text split into games by twin label: `a) 1.e4 ... b) 1.d4 ...`
    (label "a" when there is none; `+c)`, Popeye's label of a continued twin, is `c`); a game
    starts at each move number 1."""
    text = re.sub(r"\{[^}]*\}", " ", text)
    out: dict[str, list[str]] = {}
    label = "a"
    current: list[str] | None = None
    for raw in text.split():
        twin = re.match(r"^\+?([a-z])\)$", raw)
        if twin:
            label, current = twin.group(1), None
            continue
        if re.match(r"^1\.(?!\.)", raw) or current is None:
            current = []
            out.setdefault(label, []).append("")
        current.append(raw)
        out[label][-1] = " ".join(current)
    return out
