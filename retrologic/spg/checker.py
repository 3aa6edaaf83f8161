"""The spg-game certificate checker: replays a claimed proof game with python-chess alone.

Rule: this module imports python-chess and the flat core (retrologic.certformat, .errors) only,
nothing of retrologic.spg, so a certificate is checked independently of the engine that made it
(tests/test_spg.py holds it to that). The notation a certificate is written in (Popeye lengths
N.0 / N.5, SAN move text) is defined here for the same reason; the solver imports it from here.
"""

from __future__ import annotations

import math
import re
from typing import Any

import chess

from retrologic.certformat import Verdict, shown
from retrologic.errors import InputError

MAX_PLIES = 200  # the longest length a question may stipulate, in plies
# N.0 / N.5, also N (= N.0) and the stipulation forms `dia8`, `dia 7.5`, `PG 8.0` (issue #20)
_MOVES_RE = re.compile(r"^\s*(?:(?:dia|pg)\s*)?([0-9]{1,4})(?:\.(0|5))?\s*$", re.IGNORECASE)


def parse_moves(value: Any, field: str = "moves") -> int:
    """Plies of a Popeye-style length: N.0 (2N plies, White to move) or N.5 (2N+1 plies)."""
    if isinstance(value, bool):
        raise InputError("must be a number N.0 or N.5", field=field, value=value)
    if isinstance(value, (int, float)):
        if abs(value) > 10 * MAX_PLIES or not math.isfinite(value):   # abs first: huge ints
            raise InputError("must be N.0 or N.5 with N >= 0 (Popeye: N.5 ends with White's move)",
                             field=field, value=value)
        doubled = value * 2
        if value < 0 or doubled != int(doubled):
            raise InputError("must be N.0 or N.5 with N >= 0 (Popeye: N.5 ends with White's move)",
                             field=field, value=value)
        plies = int(doubled)
    elif isinstance(value, str):
        m = _MOVES_RE.match(value)
        if not m:
            raise InputError("must be N.0 or N.5 (e.g. 8.0, 3.5, 8, dia8, PG 7.5)", field=field,
                             value=value)
        plies = 2 * int(m.group(1)) + (1 if m.group(2) == "5" else 0)
    else:
        raise InputError("must be a number N.0 or N.5", field=field, value=value)
    if plies > MAX_PLIES:
        raise InputError(f"longer than {MAX_PLIES // 2} moves is not supported", field=field,
                         value=value)
    return plies


def moves_text(plies: int) -> str:
    """Popeye-style length of a ply count: 16 -> '8.0', 7 -> '3.5'."""
    return f"{plies // 2}.{5 if plies % 2 else 0}"


def san_text(moves: list[chess.Move], start: chess.Board | None = None) -> str:
    """A game as compact move text: '1.b3 d6 2.Bb2 Nd7 ...'."""
    board = (start or chess.Board()).copy(stack=False)
    out = []
    for move in moves:
        san = board.san(move)
        if board.turn == chess.WHITE:
            out.append(f"{board.fullmove_number}.{san}")
        elif not out:
            out.append(f"{board.fullmove_number}...{san}")
        else:
            out.append(san)
        board.push(move)
    return " ".join(out)


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Replay an spg-game certificate from the initial array with python-chess and compare the
    final placement and the number of plies, which fixes the side to move (White after an even
    number). The claim accepted: "this game of N plies reaches the target placement with X to
    move" (one game: uniqueness and shortness are the solver's answer, not certified here).
    Stated facts are compared too: `to_move`, `san`, and the problem's position (when given):
    its board, side to move, castling rights (unless '-') and e.p. square (the last move must be
    that double step)."""
    kind = "spg-game"
    moves, plies = cert.get("moves"), cert.get("plies")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves) or \
            not isinstance(plies, int) or isinstance(plies, bool):
        return Verdict(kind, False, "'moves' must be a list of UCI strings and 'plies' an integer")
    if len(moves) != plies:
        return Verdict(kind, False, f"the game has {len(moves)} plies, not {shown(plies)}")
    if plies > MAX_PLIES:
        return Verdict(kind, False, f"longer than {MAX_PLIES} plies")
    side = "white" if plies % 2 == 0 else "black"
    if cert.get("to_move", side) != side:
        return Verdict(kind, False, f"after {plies} plies {side.capitalize()} is to move, "
                                    f"not {str(cert.get('to_move'))[:20]}")
    if not isinstance(cert.get("target"), str):
        return Verdict(kind, False, "'target' must be a board placement")
    try:
        target = chess.BaseBoard(cert["target"])
    except ValueError as e:
        return Verdict(kind, False, f"bad target placement: {str(e)[:80]}")
    board = chess.Board()
    for i, uci in enumerate(moves):
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            return Verdict(kind, False, f"ply {i + 1}: not a UCI move: {uci[:20]!r}")
        if not board.is_legal(move):
            return Verdict(kind, False, f"ply {i + 1}: {uci} is illegal in {board.fen()}")
        board.push(move)
    if board.board_fen() != target.board_fen():
        return Verdict(kind, False, f"the game ends on {board.board_fen()}, not the target")
    if "san" in cert and cert["san"] != san_text([chess.Move.from_uci(m) for m in moves]):
        return Verdict(kind, False, "'san' is not the game's moves")
    why = _stated_position_fault(cert.get("position"), board)
    if why:
        return Verdict(kind, False, why)
    q = cert.get("question")
    if isinstance(q, dict) and "moves" in q:
        try:
            asked = parse_moves(q["moves"])
        except InputError:
            return Verdict(kind, False, "the question's length is malformed")
        if asked < plies or (asked - plies) % 2:     # the stipulated length, or a shorter cook
            return Verdict(kind, False, f"the question asks for {moves_text(asked)}, the game has "
                                        f"{plies} plies")
    return Verdict(kind, True, f"a game of {plies} plies ({moves_text(plies)}) reaches "
                               f"{target.board_fen()} with {side.capitalize()} to move")


def stated_diagram_fault(stated: Any, placement: str, white: bool) -> str | None:
    """Why the problem's position (when given: a FEN, possibly board-only; a board; a side to
    move) is not the diagram `placement` with White (`white`) or Black to move. Frozen units
    are no part of a proof-game problem (its files refuse them), so a stated one is a fault:
    every field stated is compared (review, 2026-11-30: a stated board or side was not). Shared
    with the spg-listing checker."""
    if not isinstance(stated, dict):
        return None
    if stated.get("frozen"):
        return "a proof game's position states no frozen units"
    if "board" in stated:
        try:
            same = chess.BaseBoard(str(stated["board"]).strip()).board_fen() == placement
        except ValueError:
            return "the stated board is malformed"
        if not same:
            return "the stated board is not the certificate's diagram"
    if "to_move" in stated and stated["to_move"] not in ("?", "white" if white else "black"):
        return "the stated side to move is not the game's"
    fen = stated.get("fen")
    parts = fen.split() if isinstance(fen, str) else [placement]
    if not parts or parts[0] != placement:
        return "the stated position is not the certificate's diagram"
    if len(parts) > 1 and parts[1] != ("w" if white else "b"):
        return "the stated side to move is not the game's"
    return None


def _stated_position_fault(stated: Any, board: chess.Board) -> str | None:
    """Why the problem's position is not the game's final one: the diagram and side
    (`stated_diagram_fault`), then castling rights (unless '-') and the e.p. square (the last
    move must be that double step)."""
    why = stated_diagram_fault(stated, board.board_fen(), board.turn)
    if why or not isinstance(stated, dict) or not isinstance(stated.get("fen"), str):
        return why
    parts = stated["fen"].split()
    if len(parts) > 2 and parts[2] != "-":
        final = board.fen().split()[2]
        if parts[2] != final:
            return f"the stated castling rights {parts[2][:8]!r} are not the game's ({final})"
    if len(parts) > 3 and parts[3] != "-":
        if parts[3] not in chess.SQUARE_NAMES or board.ep_square != chess.parse_square(parts[3]):
            return f"the stated e.p. square {parts[3][:8]!r} is not the game's last double step"
    return None
