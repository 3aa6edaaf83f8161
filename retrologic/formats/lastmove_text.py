"""A published "Last move?" solution (YACPDB `solution: 1...Ka7*a8`) read as the last-move
question's [expect] (issue #20).

Why a module of its own: published texts (Popeye's `Ka2*a1`, `1.Ka2-a1`, SAN `Kxa1`) do not
name the unit a capture removed, while our candidates do (`Ka2xQa1` and `Ka2xNa1` are
different answers). Guessing the unit would turn a published fact into a claim of ours, so the
text is matched against the candidates the last-move engine itself lists for the diagram
(retrologic.lastmove.search.candidates: every single retraction), on what the text says: the
moving unit, from and to squares, capture or not, the captured unit when named, promotion,
castling and e.p. One candidate fitting is the expected answer; several fitting (the text
leaves the captured unit open) give an [expect] on the move as played on the board, the one
they share (`on_board`, lastmove.checker.on_board: whichever units it may have taken, since
the text claims none), with every non-fitting candidate `excludes`d; several fitting that are
not one move on the board (a text that leaves the moving unit's square open, `Rxa8` of Ra1
and Rh8) accept any one of them and no other (`finding = "unique"`: an answer of two units
taken by one of those moves misses it, the text being ambiguous as published); none fitting
is bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import chess

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "S": chess.KNIGHT, "P": chess.PAWN}
_MOVE = re.compile(r"^(?P<piece>[KQRBSNP])?(?P<ff>[a-h])?(?P<fr>[1-8])?(?P<sep>[-*x:])?"
                   r"(?P<cap>[QRBSNP])?(?P<to>[a-h][1-8])(?:=?(?P<promo>[QRBSN]))?$")
_CASTLE = re.compile(r"^(?:0-0(?:-0)?|O-O(?:-O)?)$")
_NUMBER = re.compile(r"^\d+\.(?:\.\.|…)?")
_EP = {"ep", "ep.", "e.p.", "e.p"}


class TextError(ValueError):
    """A published move that names a unit we refuse (N: the nightrider in YACPDB)."""


@dataclass(frozen=True)
class Published:
    """What a published last move says (None: the text leaves it open)."""

    text: str
    castle: str | None = None           # "short" / "long"
    piece: int | None = None            # the moving unit (a pawn when no letter is written)
    from_file: int | None = None
    from_rank: int | None = None
    capture: bool = False
    captured: int | None = None
    to: int | None = None
    promotion: int | None = None
    en_passant: bool = False


def read(text: str) -> Published | None:
    """The one move a solution text states (`1...Ka7*a8`, `Ka2-a1`, `Qe1xSd1`, `h4-h5+`,
    `b4*c3 ep.`, `0-0-0`), or None when the text is not exactly one move (a `?`, prose,
    several moves): such a text is kept as a note, never guessed at."""
    words = re.sub(r"\{[^}]*\}", " ", text).split()
    ep = bool(words) and words[-1].lower() in _EP
    if ep:
        words = words[:-1]
    if len(words) == 2 and _NUMBER.fullmatch(words[0]):
        words = words[1:]
    if len(words) != 1:
        return None
    word = re.sub(r"[+#!?]+$", "", _NUMBER.sub("", words[0]))
    if word.lower().endswith(("e.p.", "ep.")):
        ep, word = True, re.sub(r"(?i)e\.?p\.$", "", word)
    if _CASTLE.match(word):
        return Published(text.strip(), castle="long" if word.count("-") == 2 else "short")
    m = _MOVE.match(word)
    if not m:
        return None
    if "N" in (m["piece"], m["cap"], m["promo"]):
        raise TextError(f"{words[0]!r}: write S for the knight (N is the nightrider in YACPDB)")
    capture = m["sep"] in ("*", "x", ":") or m["cap"] is not None or ep
    return Published(
        text.strip(), piece=PIECES[m["piece"] or "P"],
        from_file=None if m["ff"] is None else "abcdefgh".index(m["ff"]),
        from_rank=None if m["fr"] is None else int(m["fr"]) - 1, capture=capture,
        captured=PIECES[m["cap"]] if m["cap"] else None, to=chess.parse_square(m["to"]),
        promotion=PIECES[m["promo"]] if m["promo"] else None, en_passant=ep)


def fits(p: Published, r: Any) -> bool:
    """Whether a retraction (retrologic.retract.Retraction) is the move `p` states."""
    if p.castle is not None or r.castling:
        return p.castle is not None and bool(r.castling) and \
            (chess.square_file(r.to_square) == 6) == (p.castle == "short")
    if r.moved_type != p.piece or r.to_square != p.to:
        return False
    if p.from_file is not None and chess.square_file(r.from_square) != p.from_file:
        return False
    if p.from_rank is not None and chess.square_rank(r.from_square) != p.from_rank:
        return False
    if (r.uncapture is not None) != p.capture:
        return False
    if p.en_passant and not r.en_passant:
        return False
    if p.captured is not None and r.uncapture not in (p.captured, 0):    # 0: OPEN, any unit
        return False
    promoted = r.piece_type if r.unpromotion else None
    return promoted == p.promotion


def expect(fen: str, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The [expect] table a published single last move gives for the diagram `fen`, and the
    candidates it fits: (None, []) when the text is not one move; ValueError (with the
    candidates) when it fits none, TextError for a refused letter."""
    p = read(text)
    if p is None:
        return None, []
    from retrologic.lastmove.search import candidates     # the engine's own list (issue #22:
    from retrologic.position import parse                 # loaded only for last-move entries)
    listed = [c for c in candidates(parse(fen=fen), 1) if len(c.line) == 1]
    fitting = [c.notation for c in listed if fits(p, c.line[0])]
    boards = {c.board for c in listed if c.notation in fitting}
    if not fitting:
        raise ValueError(f"the published last move {p.text!r} is none of the diagram's "
                         f"{len(listed)} candidate last moves "
                         f"({', '.join(c.notation for c in listed[:12])}"
                         f"{', ...' if len(listed) > 12 else ''})")
    table: dict[str, Any] = {"verdict": "proved", "finding": "unique"}
    others = sorted(c.notation for c in listed if c.notation not in fitting)
    if len(fitting) == 1:
        table["answer"] = fitting
    else:
        if len(boards) == 1:            # one move on the board: the units it took stay open
            del table["finding"]
            table["on_board"] = [text for _, text in boards]
        if others:                      # an empty excludes would check nothing (bad input)
            table["excludes"] = others
    return table, fitting
