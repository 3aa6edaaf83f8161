"""Pasted text -> a problem file for `retrologic solve` (the web page, issue #20 item 4).

What was pasted decides the reader, as `solve` would by a file's extension: a TOML problem file
(it has `question`/`format` keys) is kept as it is; a Popeye entry (BeginProblem, Stipulation,
Forsyth/Pieces) or a YACPDB entry (YAML with `algebraic:`) is written with the extension
retrologic.formats.detect reads it by; a single FEN or board string becomes one of our TOML
problems with the question picked on the page. Errors are InputError lines naming the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from retrologic.errors import InputError
from retrologic.formats.notation import NotationError, normalize_fen

MAX_TEXT = 1_000_000            # characters, the cap of a problem file
MAX_FEN = 256                   # characters of a FEN or board string

# page question -> (our question kind, the position field it takes for a board-only string)
QUESTIONS: dict[str, str] = {"spg": "spg", "lastmove": "last-move", "legal": "legal",
                             "cage": "cage", "retract": "retractions"}
POPEYE_SUFFIXES = (".pop", ".inp", ".popeye")
YACPDB_SUFFIXES = (".yaml", ".yml", ".yacpdb")


@dataclass
class Pasted:
    """A problem file's text and the extension it is read by; `source` says what was pasted."""

    text: str
    suffix: str
    source: str            # "toml", "popeye", "yacpdb", "fen"


def _suffix(choices: tuple[str, ...]) -> str:
    """The first of `choices` the format readers know (they may not be written yet: then the
    first one, and `solve` says it cannot read it)."""
    try:
        from retrologic.formats.detect import SUFFIXES
    except ImportError:             # the readers are another module's work (issue #20 item 1)
        return choices[0]
    return next((s for s in choices if s in SUFFIXES), choices[0])


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these characters)."""
    return json.dumps(value, ensure_ascii=True)


def _moves(text: str) -> str:
    """The length of a proof game as typed (8, 8.0, 8.5, dia8, PG 8.0): checked by `solve`."""
    text = (text or "").strip()
    if not text:
        raise InputError("a proof game needs its length", field="moves", value=text)
    if len(text) > 20 or not re.fullmatch(r"[A-Za-z ]*\d+(\.[05])?", text):
        raise InputError("a length is N.0 or N.5 (or N, dia N, PG N.0)", field="moves",
                         value=text)
    return text


def from_page(text: str, question: str, moves: str = "", plies: int = 1) -> Pasted:
    """The problem file for what was pasted and picked on the page."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("paste a FEN, a Popeye or YACPDB entry, or a TOML problem",
                         field="problem", value="")
    if len(text) > MAX_TEXT:
        raise InputError(f"more than {MAX_TEXT} characters", field="problem", value=len(text))
    body = text.strip()
    lower = body.lower()
    if re.search(r"^\s*algebraic\s*:", lower, re.M):
        return Pasted(body + "\n", _suffix(YACPDB_SUFFIXES), "yacpdb")
    if re.search(r"^\s*(beginproblem|stipulation|stip|forsyth|pieces)\b(?!\s*:)", lower, re.M):
        return Pasted(body + "\n", _suffix(POPEYE_SUFFIXES), "popeye")
    if re.search(r"^\s*(question|format|position|\[)", body, re.M) and "=" in body:
        return Pasted(body + "\n", ".toml", "toml")
    if "\n" in body or len(body) > MAX_FEN:
        raise InputError("not a FEN, Popeye, YACPDB or TOML problem", field="problem",
                         value=body[:60])
    kind = QUESTIONS.get(question)
    if kind is None:
        raise InputError(f"one of {', '.join(QUESTIONS)}", field="question", value=question)
    try:                                # S for the knight, as the command line reads it
        body = normalize_fen(body)
    except NotationError as e:
        raise InputError(str(e), field="problem", value=body[:60]) from None
    full = " " in body
    if kind == "cage" and full:
        body = body.split()[0]          # a cage is a partial position: the placement
        full = False
    if kind in ("spg", "last-move") and not full and kind == "last-move":
        raise InputError("the last move needs a full FEN (side to move)", field="problem",
                         value=body)
    field = "fen" if full or kind == "spg" else "board"
    lines = ['format = "retrologic/1"', f'meta = {{ title = {_toml_string("pasted " + question)} }}',
             f"position = {{ {field} = {_toml_string(body)} }}"]
    if kind == "spg":
        lines.append(f'question = {{ kind = "spg", moves = {_toml_string(_moves(moves))} }}')
    elif kind == "last-move":
        if not 1 <= plies <= 8:
            raise InputError("must be from 1 to 8", field="plies", value=plies)
        lines.append(f'question = {{ kind = "last-move", plies = {plies} }}')
    else:
        lines.append(f"question = {{ kind = {_toml_string(kind)} }}")
    return Pasted("\n".join(lines) + "\n", ".toml", "fen")


def write(pasted: Pasted, directory: Path) -> Path:
    """The problem file in the job's directory (a new directory per job: no name clash)."""
    path = directory / f"problem{pasted.suffix}"
    path.write_text(pasted.text, encoding="utf-8")
    return path
