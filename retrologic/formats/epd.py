"""EPD and FEN lines (issue #20): one problem per line, the position read with python-chess
(`Board.from_epd`), the question named by an opcode:

    rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - spg 2.0; id "1.e4 e5";
    8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - lastmove; id "Brandis";

Opcodes: `spg N.0|N.5` (or `pg`, also `dia8`), `lastmove`, `legal`, `retractions`; `id`
is the title, `c0`..`c9` comments; any other opcode is an error (EPD's `bm`/`pv` answer other
questions). A FEN line (six fields, the knight written N or S) followed by the same opcodes is
read the same way; blank lines and lines starting with `#` are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import chess

from retrologic import problemfile
from retrologic.files import read_text
from retrologic.schema import MAX_TOML_BYTES
from retrologic.formats.entry import Entry, check_diagram, fail, plies_of, spg_table
from retrologic.formats.notation import NotationError, normalize_fen

SUFFIXES = (".epd", ".fen")
QUESTIONS = {"spg": "spg", "pg": "spg", "lastmove": "last-move", "legal": "legal",
             "retractions": "retractions"}
META = {"id", *(f"c{i}" for i in range(10))}


def _line_entry(text: str, file: str, n: int) -> Entry:
    fields = text.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        fields = fields[:4] + fields[6:]                  # a FEN's move counters
    try:
        fields[0] = normalize_fen(fields[0])
        board, ops = chess.Board.from_epd(" ".join(fields))
    except (ValueError, NotationError) as e:
        raise fail(f"not an EPD/FEN line: {e}", file, n, "position", text) from None
    dangling = _unterminated(" ".join(fields[4:]))
    if dangling is not None:             # python-chess reads it to the end of the line
        raise fail("a quoted operand without its closing quote", file, n, dangling, None)
    named = _opcodes(" ".join(fields[4:]))
    twice = sorted({op for op in named if named.count(op) > 1})
    if twice:                            # python-chess keeps the last one: say it, never pick
        raise fail("an opcode given twice", file, n, twice[0], None)
    asked = [op for op in ops if op in QUESTIONS]
    for op in ops:
        if op not in QUESTIONS and op not in META:
            raise fail(f"unsupported opcode (questions: {', '.join(QUESTIONS)}; also id, "
                       "c0..c9)", file, n, op, ops[op])
    if len(asked) != 1:
        raise fail(f"exactly one question opcode needed ({', '.join(QUESTIONS)})", file, n,
                   "opcode", " ".join(asked) or None)
    op = asked[0]
    kind = QUESTIONS[op]
    meta: dict[str, Any] = {}
    if isinstance(ops.get("id"), str):
        meta["title"] = ops["id"]
    comments = [str(ops[c]) for c in sorted(META - {"id"}) if c in ops]
    if comments:
        meta["comment"] = "; ".join(comments)
    check_diagram(board, file, n, "position")
    if kind == "spg":
        value = ops[op]
        if fields[3] != "-":
            raise fail("a proof game's diagram is its placement: an e.p. square is no part of "
                       "it", file, n, "e.p.", fields[3])
        if isinstance(value, (int, float)):
            if (2 * value) % 1:          # 3.45 is no length (it was rounded to 3.5)
                raise fail("must be a length N.0 or N.5", file, n, op, value)
            value = f"{float(value):.1f}"
        if not isinstance(value, str):
            raise fail("must be a length N.0 or N.5", file, n, op, value)
        plies = plies_of(value, file, n, op)
        if (board.turn == chess.WHITE) != (plies % 2 == 0):
            raise fail(f"side to move {'w' if board.turn else 'b'} disagrees with the length",
                       file, n, op, value)
        meta.setdefault("title", f"{Path(file).stem} line {n}: proof game")
        return Entry(spg_table(board, plies, meta, [], file, n, op), file, n)
    if ops[op] is not None:
        raise fail("takes no operand", file, n, op, ops[op])
    meta.setdefault("title", f"{Path(file).stem} line {n}: {kind}")
    # the castling and e.p. fields as stated: python-chess's fen() drops a right or an e.p.
    # square the position cannot have, and turned an illegal diagram into a legal one
    fen = " ".join(fields[:4] + ["0", "1"])
    table = {"format": problemfile.FORMAT, "meta": meta,
             "position": {"fen": fen}, "question": {"kind": kind}}
    return Entry(table, file, n)


QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')   # a quoted operand (a backslash escapes inside)
OPCODE = re.compile(r"(?:^|;)\s*([A-Za-z][A-Za-z0-9_]*)")


def _opcodes(text: str) -> list[str]:
    """The opcodes of an EPD operation list, in order (quoted operands blanked first: an `id`
    may hold a ';')."""
    return OPCODE.findall(QUOTED.sub('""', text))


def _unterminated(text: str) -> str | None:
    """The opcode whose quoted operand has no closing quote (a quote left once the closed
    operands, `QUOTED`, are taken out), else None."""
    plain = QUOTED.sub("", text)
    at = plain.find('"')
    if at < 0:
        return None
    before = OPCODE.findall(plain[:at])
    return before[-1] if before else "operand"


def read(path: str | Path, text: str | None = None) -> list[Entry]:
    """Every problem of an EPD or FEN file, one per line."""
    file = str(path)
    text = read_text(path, limit=MAX_TOML_BYTES, what="EPD file") if text is None else text
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(_line_entry(line, file, n))
    if not out:
        raise fail("no EPD or FEN line", file, 1, "position")
    return out


def looks_like(text: str) -> bool:
    """True when the first non-comment line starts with a FEN board."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return bool(re.match(r"^[1-8KQRBNSPkqrbnsp]+(/[1-8KQRBNSPkqrbnsp]+){7}\s", line))
    return False
