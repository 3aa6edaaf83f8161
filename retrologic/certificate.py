"""Certificates (proofs and counterexamples) as JSON, and dispatch to their independent checkers.

Every certificate is a JSON object with a "type"; each type has a checker that re-derives the
claim without trusting the search that produced it, and compares every fact the claim relies on
with the position it is about. An accepted verdict's reason states WHAT was proved (board,
assumptions), so a certificate for another position cannot pass for the one a user has in mind.

Files: `format` (FORMAT), `retrologic` (the version that wrote it), and, where known, `question`
and `position` (the problem's tables) and `problem` (its file and title). The metadata is
informational, but each checker compares it with the certificate's own data where it can.
`check_file` reads at most MAX_TEXT_BYTES of UTF-8 JSON nested at most MAX_DEPTH deep; every
fault of a malformed certificate is a rejection with a reason, never an exception.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from retrologic.errors import InputError

FORMAT = 2                 # certificate format version (1: before issue 17, no metadata)
MAX_DEPTH = 64             # JSON nesting accepted by `check_file`
MAX_REASON = 200           # characters of a reason (the claim of an accepted certificate: 300)
MAX_CLAIM = 300

# certificate type -> "module:function"; the function takes the decoded JSON and returns Verdict.
CHECKERS: dict[str, str] = {
    "retraction-line": "retrologic.certificate:check_retraction_line",
    "lastmove-proof": "retrologic.lastmove.search:check_proof",
    "cage-proof": "retrologic.cages.checker:check_proof",
    "cage-counterexample": "retrologic.cages.checker:check_counterexample",
    "deduce-drup": "retrologic.history.deduce:check_certificate",
    "spg-game": "retrologic.spg.solver:check_certificate",
    "puzzle4x4-line": "retrologic.puzzle4x4.game:check_certificate",
    "puzzle4x4-unsolvable": "retrologic.puzzle4x4.game:check_unsolvable",
}

# certificate type -> the question kind whose answer it certifies (a stated question must be it)
KIND_OF: dict[str, str] = {
    "retraction-line": "retractions", "lastmove-proof": "last-move", "cage-proof": "cage",
    "cage-counterexample": "cage", "deduce-drup": "deduce", "spg-game": "spg",
    "puzzle4x4-line": "puzzle4x4", "puzzle4x4-unsolvable": "puzzle4x4",
}


@dataclass
class Verdict:
    """A checker's answer: accepted (the reason states the claim proved) or rejected (why)."""

    type: str
    ok: bool
    reason: str = ""


class Rejected(ValueError):
    """A malformed or false part of a certificate; the message is the reason it is rejected."""


def verdict_of(kind: str, body: Callable[[dict[str, Any]], str], cert: dict[str, Any]) -> Verdict:
    """Run a checker body that returns the claim it accepted or raises Rejected."""
    try:
        return Verdict(kind, True, body(cert))
    except Rejected as e:
        return Verdict(kind, False, str(e))


def short(text: Any, limit: int = MAX_REASON) -> str:
    """`text` on one line of printable characters (others escaped, so a hostile certificate
    cannot put terminal controls or lone surrogates in a reason), cut to `limit` characters."""
    s = " ".join(str(text).split())
    s = "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)
    return s if len(s) <= limit else s[: limit - 1] + "…"


def shown(value: Any, limit: int = 40) -> str:
    """A value quoted in a reason, cut short (a certificate may hold megabytes in one field)."""
    return short(repr(value), limit)


def frozen_mask(names: Any, occupied: int) -> int:
    """The frozen units a certificate states (a list of square names), as a mask; ValueError
    when it is not such a list or names an empty square (a frozen unit must stand there)."""
    import chess
    if not isinstance(names, list) or not all(n in chess.SQUARE_NAMES for n in names):
        raise ValueError("'frozen' must be a list of square names")
    mask = 0
    for name in names:
        mask |= chess.BB_SQUARES[chess.parse_square(name)]
    if mask & ~occupied:
        raise ValueError("a frozen square is empty")
    return mask


# --- writing ----------------------------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    """A JSON-safe copy (paths, tuples and other objects of a question table as text)."""
    return json.loads(json.dumps(value, default=str))


def digest(question: Any, position: Any) -> str:
    """A short digest naming the certificates of a problem given on the command line."""
    text = json.dumps({"question": _jsonable(question), "position": _jsonable(position)},
                      sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_+=-]+", "-", text).strip("-.") or "problem"


@dataclass
class Destination:
    """Where and under which name a problem's certificates go: `DIR/STEM.KIND.json`, never
    overwriting a file (a `-2`, `-3`... suffix instead), with the problem's metadata."""

    directory: Path
    stem: str
    meta: dict[str, Any] = field(default_factory=dict)

    def write(self, cert: dict[str, Any], kind: str) -> Path:
        """Stamp `cert` with the metadata and write it; returns the path written."""
        return write(stamp(cert, **self.meta), self.directory / f"{self.stem}.{_stem(kind)}.json")


def destination(directory: Any, problem: Any = None) -> Destination | None:
    """The destination of a problem file's certificates (named after the file's stem), or
    None when no directory is given."""
    if not directory:
        return None
    if isinstance(directory, Destination):
        return directory
    meta: dict[str, Any] = {}
    stem = None
    if problem is not None:
        meta["question"] = {"kind": problem.kind, **_jsonable(problem.question)}
        if problem.position_table is not None:
            meta["position"] = _jsonable(problem.position_table)
        path = str(getattr(problem, "path", "") or "")
        if path and not path.startswith("<"):
            stem = _stem(Path(path).stem)
            meta["problem"] = {"file": Path(path).name, "title": str(problem.title)}
    if stem is None:
        stem = f"{meta.get('question', {}).get('kind', 'problem')}-" + \
            digest(meta.get("question"), meta.get("position"))
    return Destination(Path(directory), stem, meta)


def with_destination(options: Any, problem: Any) -> Any:
    """A shallow copy of solve options whose `certificate_dir` is the problem's Destination
    (certificates named after the problem file), for engines that take the options along."""
    import copy
    out = copy.copy(options)
    out.certificate_dir = destination(getattr(options, "certificate_dir", None), problem)
    return out


def as_destination(directory: Any, *, question: dict[str, Any], position: Any) -> Destination | None:
    """`directory` as a Destination: a problem file's as it is, a plain directory (a command-line
    question) named by the question's kind and a digest of the question and position."""
    if not directory:
        return None
    if isinstance(directory, Destination):
        return directory
    kind = _stem(str(question.get("kind", "problem")))
    return Destination(Path(directory), f"{kind}-{digest(question, position)}",
                       {"question": _jsonable(question), "position": _jsonable(position)})


def stamp(cert: dict[str, Any], *, question: Any = None, position: Any = None,
          problem: Any = None) -> dict[str, Any]:
    """A copy of `cert` with the format version, the retrologic version and the metadata."""
    from retrologic import __version__
    out = dict(cert)
    out["format"] = FORMAT
    out["retrologic"] = __version__
    for key, value in (("question", question), ("position", position), ("problem", problem)):
        if value is not None:
            out[key] = _jsonable(value)
    return out


def write(cert: dict[str, Any], path: str | Path) -> Path:
    """Write a certificate as JSON, atomically (temporary file + rename), creating the
    directory; an existing file is never overwritten (the name gets a `-2`, `-3`... suffix).
    Returns the path written."""
    from retrologic.files import atomic_write_text, exclusive_path
    cert = stamp(cert)
    path = exclusive_path(Path(path))
    return atomic_write_text(path, json.dumps(cert, indent=1) + "\n")


# --- checking ---------------------------------------------------------------------------------

def _metadata_fault(cert: dict[str, Any]) -> str | None:
    """Why the certificate's format and metadata fields are not acceptable (None: they are)."""
    fmt = cert.get("format")
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        return (f"no integer 'format' field (got {shown(fmt)}): a certificate of format "
                f"{FORMAT} is expected (re-create it with this retrologic)")
    if fmt != FORMAT:
        return f"unsupported certificate format {fmt} (this retrologic reads format {FORMAT})"
    if not isinstance(cert.get("retrologic"), str):
        return f"'retrologic' (the version that wrote it) must be a string, not {shown(cert.get('retrologic'))}"
    for key in ("question", "position", "problem"):
        if key in cert and not isinstance(cert[key], dict):
            return f"'{key}' must be an object, not {shown(cert[key])}"
    kind = cert.get("question", {}).get("kind")
    want = KIND_OF.get(str(cert.get("type")))
    if kind is not None and want is not None and kind != want:
        return f"the question's kind {shown(kind)} is not {want!r}, the kind a {cert['type']} answers"
    for key in ("fen", "board"):
        value = cert.get("position", {}).get(key)
        if value is not None and not isinstance(value, str):
            return f"position.{key} must be a string, not {shown(value)}"
    return None


def check(cert: Any) -> Verdict:
    """Check a decoded certificate with the checker of its type.

    Not an object, no type or an unknown type: InputError (exit 3). Anything else wrong with a
    certificate is a rejection naming the fault (a checker's unexpected exception included:
    a malformed certificate must never crash `check`)."""
    if not isinstance(cert, dict) or not isinstance(cert.get("type"), str):
        raise InputError("a certificate is a JSON object with a string field 'type'", field="type")
    ctype = cert["type"]
    if ctype not in CHECKERS:
        raise InputError(f"unknown certificate type (known: {', '.join(sorted(CHECKERS))})",
                         field="type", value=short(ctype, 40))
    why = _metadata_fault(cert)
    if why:
        return Verdict(ctype, False, short(why))
    module, func = CHECKERS[ctype].split(":")
    checker: Callable[[dict[str, Any]], Verdict] = getattr(importlib.import_module(module), func)
    try:
        verdict = checker(cert)
    except InputError as e:
        return Verdict(ctype, False, short(f"malformed certificate: {e}"))
    except RecursionError:
        return Verdict(ctype, False, "malformed certificate: nested too deeply")
    except Exception as e:  # noqa: BLE001 - a malformed certificate is rejected, never a crash
        return Verdict(ctype, False, short(f"malformed certificate: {type(e).__name__}: {e}"))
    if not isinstance(verdict, Verdict):
        return Verdict(ctype, False, "internal: the checker gave no verdict")
    limit = MAX_CLAIM if verdict.ok else MAX_REASON
    return Verdict(verdict.type, verdict.ok, short(verdict.reason, limit))


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped), counted
    without recursion; stops counting past `limit`."""
    import numpy as np
    brackets = re.sub(r"[^\[\]{}]+", "", _STRING.sub("", text))
    if not brackets:
        return 0
    a = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((a == 91) | (a == 123), 1, -1).astype(np.int64)
    return int(min(np.cumsum(steps).max(), limit + 1))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def check_file(path: str | Path) -> Verdict:
    """Read and check a certificate file: InputError (exit 3) if it cannot be read as a JSON
    object (too large, binary, not UTF-8, malformed, nested deeper than MAX_DEPTH)."""
    from retrologic.files import read_text
    file = str(path)
    text = read_text(path, what="certificate")
    if nesting_depth(text) > MAX_DEPTH:
        raise InputError(f"JSON nested deeper than {MAX_DEPTH} levels: not a certificate", file=file)
    try:
        cert = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise InputError(f"JSON nested deeper than {MAX_DEPTH} levels", file=file) from None
    except ValueError as e:
        raise InputError(f"malformed JSON: {short(e, 120)}", file=file) from None
    try:
        return check(cert)
    except InputError as e:
        raise e.located(file) from None


def check_retraction_line(cert: dict[str, Any]) -> Verdict:
    """A retraction line: `positions` (FENs, the start first, then each predecessor in turn) and
    `moves` (UCI of the forward move from positions[i+1] to positions[i]). Every FEN must be a
    valid position for python-chess with clean castling rights (a right needs its king and rook
    at home); each move, replayed with python-chess, must be legal and give back the position
    before it: placement, side to move, castling rights, and the e.p. square when one is stated
    (a stated e.p. square says the last move was that double step; '-' assumes nothing)."""
    import chess
    t = "retraction-line"
    fens, moves = cert.get("positions"), cert.get("moves")
    if not isinstance(fens, list) or not fens or not all(isinstance(f, str) for f in fens):
        return Verdict(t, False, "'positions' must be a non-empty list of FEN strings")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        return Verdict(t, False, "'moves' must be a list of UCI strings")
    if len(fens) != len(moves) + 1:
        return Verdict(t, False, "positions must be one more than moves")
    boards = []
    for i, fen in enumerate(fens):
        try:
            board = chess.Board(fen)
        except ValueError as e:
            return Verdict(t, False, f"positions[{i}]: bad FEN {shown(fen)}: {e}")
        if board.castling_rights != board.clean_castling_rights():
            return Verdict(t, False, f"positions[{i}]: a castling right without its king and rook "
                                     f"at home: {shown(fen, 90)}")
        if not board.is_valid():
            return Verdict(t, False, f"positions[{i}]: not a valid position ({board.status()!r}): "
                                     f"{shown(fen, 90)}")
        boards.append(board)
    for i, uci in enumerate(moves):
        board = boards[i + 1].copy(stack=False)
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            return Verdict(t, False, f"step {i + 1}: not a UCI move: {shown(uci)}")
        if not board.is_legal(move):
            return Verdict(t, False, f"step {i + 1}: {uci} is not legal in {fens[i + 1]}")
        board.push(move)
        after = boards[i]
        if board.board_fen() != after.board_fen() or board.turn != after.turn:
            return Verdict(t, False, f"step {i + 1}: {uci} does not give back {fens[i]}")
        if board.clean_castling_rights() != after.castling_rights:
            return Verdict(t, False, f"step {i + 1}: castling rights differ")
        if after.ep_square is not None and board.ep_square != after.ep_square:
            return Verdict(t, False, f"step {i + 1}: {uci} is not the double step the e.p. "
                                     f"square of {fens[i]} says")
    return Verdict(t, True, f"retraction line: {len(moves)} legal move(s) lead from {fens[-1]} "
                            f"to {fens[0]}")
