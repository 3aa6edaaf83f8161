"""SVG diagrams of positions and answers, drawn by python-chess's `chess.svg.board` (issue #20,
item 3): we only choose what it shades, marks and arrows, and compose several of its boards
side by side (a nested <svg> each) under a caption; no board drawing of our own.

Conventions: a cage's zone is shaded (ZONE), its frozen units are marked with chess.svg's
square marks (an X); a last move is an arrow (ANSWER green when possible or proved, OPEN amber
when unresolved) on the diagram, next to the diagram before it (its predecessor); a retraction
is an arrow of the forward move; a proof game is the diagram, or one frame per ply with the
move played highlighted (see retrologic.pictures.frames).
"""

from __future__ import annotations

import html
import io
import re
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import chess
import chess.pgn
import chess.svg

if TYPE_CHECKING:
    from retrologic.position import Position

SIZE = 320                      # pixels of one board
CAPTION = 22                    # pixels of the caption line above a board
GAP = 16                        # pixels between boards
ZONE = "#5fa8d3aa"              # a cage's zone
FROZEN = "#e76f51cc"            # frozen units (filled, and marked with an X)
ANSWER = "green"                # a move that is the answer (possible, or proved)
OPEN = "#e9c46a"                # a candidate not decided (unresolved)
RETRACTION = "blue"             # a retraction's forward move

_SQ = re.compile(r"([a-h][1-8])\s*[-x]\s*[QRBNP]?([a-h][1-8])")


def board_of(position: Any) -> chess.BaseBoard:
    """A python-chess board of a retrologic Position, a chess board, a FEN or a board string."""
    if isinstance(position, chess.BaseBoard):
        return position
    if hasattr(position, "placement"):         # a retrologic Position (full or partial)
        return position.to_board() if not position.partial else position.placement.to_board()
    text = str(position).strip()
    return chess.Board(text) if " " in text else chess.BaseBoard(text)


def _check_square(board: chess.BaseBoard) -> chess.Square | None:
    """The king in check on a full board (python-chess draws it red), else None."""
    if isinstance(board, chess.Board) and board.is_valid() and board.is_check():
        return board.king(board.turn)
    return None


def diagram(position: Any, *, arrows: Iterable[Any] = (), fill: dict[int, str] | None = None,
            squares: Iterable[int] | None = None, lastmove: chess.Move | None = None,
            size: int = SIZE) -> str:
    """One board by chess.svg.board: frozen units of a Position filled and marked."""
    board = board_of(position)
    fill = dict(fill or {})
    marks = set(squares or ())
    if getattr(position, "frozen", 0) and hasattr(position, "placement"):
        for sq in chess.scan_forward(position.frozen):
            fill.setdefault(sq, FROZEN)
            marks.add(sq)
    return chess.svg.board(board, arrows=list(arrows), fill=fill,
                           squares=chess.SquareSet(marks) if marks else None,
                           lastmove=lastmove, check=_check_square(board), size=size)


def compose(panels: Sequence[tuple[str, str]], size: int = SIZE) -> str:
    """Boards side by side, each under its caption: one outer <svg> nesting chess.svg's boards
    (their own <svg> elements, placed with x/y). Captions are escaped text."""
    if len(panels) == 1 and not panels[0][0]:
        return panels[0][1]
    width = len(panels) * size + (len(panels) - 1) * GAP
    height = size + CAPTION
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
             f'version="1.2" width="{width}" height="{height}" viewBox="0 0 {width} {height}">']
    for i, (caption, svg) in enumerate(panels):
        x = i * (size + GAP)
        parts.append(f'<text x="{x + 4}" y="{CAPTION - 6}" font-family="sans-serif" '
                     f'font-size="14">{html.escape(caption)}</text>')
        inner = re.sub(r"^<svg ", f'<svg x="{x}" y="{CAPTION}" ', svg.strip(), count=1)
        parts.append(inner)
    parts.append("</svg>")
    return "\n".join(parts)


def move_squares(notation: str) -> tuple[int, int] | None:
    """The from and to squares of a move or retraction written `Ka2-a1`, `a2xRb3`, `e7-e8=Q`,
    `O-O` is not drawn (None)."""
    m = _SQ.search(notation)
    if not m:
        return None
    return chess.parse_square(m.group(1)), chess.parse_square(m.group(2))


def arrow(notation: str, color: str) -> list[chess.svg.Arrow]:
    found = move_squares(notation)
    return [] if found is None else [chess.svg.Arrow(found[0], found[1], color=color)]


def games_of(details: dict[str, Any]) -> list[list[chess.Move]]:
    """The games of a result's details: `pgn` texts (spg), read back by python-chess."""
    games = []
    for text in details.get("pgn") or []:
        game = chess.pgn.read_game(io.StringIO(text))
        if game is not None:
            games.append(list(game.mainline_moves()))
    return games


# -- per question kind ------------------------------------------------------------------------

def cage(position: Position, zone: Iterable[str], frozen: Iterable[str] = ()) -> str:
    """A cage: the zone shaded, frozen units filled and marked (an X)."""
    fill = {chess.parse_square(s): ZONE for s in zone}
    marks = {chess.parse_square(s) for s in frozen}
    for sq in marks:
        fill[sq] = FROZEN
    return diagram(position, fill=fill, squares=marks)


def predecessor(position: Position, notation: str) -> Position | None:
    """The diagram before a single last move given by its notation (None when no retraction of
    the position has it, or its uncaptured unit's type is open)."""
    from retrologic.retract import apply, notations, retractions
    rs = retractions(position, uncaptures="typed")
    want = notation.rstrip("+")
    for r, name in zip(rs, notations(position, rs)):
        if name.rstrip("+") == want:
            try:
                return apply(position, r)
            except ValueError:
                return None
    return None


def last_move(position: Position, details: dict[str, Any]) -> str:
    """The diagram with every candidate not proved impossible as an arrow (green: possible,
    amber: unresolved), and the predecessor diagram of each (when there are at most two). A
    duplex answer (`details["duplex"]`) draws both sides' candidates, each from its side's diagram."""
    sided = [(position.with_turn(name != "white"), side) for name, side in
             details["duplex"].items()] if details.get("duplex") else [(position, details)]
    live = [(pos, c) for pos, side in sided for c in side.get("candidates", [])
            if c.get("status") != "impossible"]
    arrows = []
    for _, c in live:
        arrows += arrow(c["notation"], ANSWER if c["status"] == "possible" else OPEN)
    panels = [("diagram", diagram(position, arrows=arrows))]
    for pos, c in live[:2]:
        before = predecessor(pos, c["notation"]) if " " not in c["notation"].strip() else None
        if before is not None:
            panels.append((f"before {c['notation']} ({c['status']})",
                           diagram(before, arrows=arrow(c["notation"], ANSWER
                                                        if c["status"] == "possible" else OPEN))))
    return compose(panels)


def retractions(position: Position, details: dict[str, Any]) -> str:
    """The diagram with each retraction as the arrow of its forward move."""
    arrows = []
    for row in details.get("retractions", []):
        move = chess.Move.from_uci(row["uci"])
        arrows.append(chess.svg.Arrow(move.from_square, move.to_square, color=RETRACTION))
    return diagram(position, arrows=arrows)


def spg(target: chess.Board, games: Sequence[Sequence[chess.Move]] = ()) -> str:
    """A proof game's diagram, with the last move of its first game (when found) highlighted."""
    last = games[0][-1] if games and games[0] else None
    return diagram(target, lastmove=last)


def for_result(result: Any, position: Any = None) -> str | None:
    """The picture of a Result (`position`: the diagram asked about, else `result.position`);
    None when the result carries no position."""
    position = position if position is not None else getattr(result, "position", None)
    if position is None:
        return None
    details = result.details or {}
    kind = result.kind
    if kind == "cage":
        frozen = [chess.square_name(s) for s in chess.scan_forward(getattr(position, "frozen", 0))]
        return cage(position, result.facts.get("zone") or [], frozen)
    if kind == "last-move" and hasattr(position, "placement"):
        return last_move(position, details)
    if kind == "retractions":
        return retractions(position, details)
    if kind == "spg":
        return spg(board_of(position), games_of(details))
    return diagram(position)
