"""Certificates (proofs and counterexamples) as JSON: dispatch to their independent checkers.

Every certificate is a JSON object with a "type"; each type has a checker that re-derives the
claim without trusting the search that produced it, and compares every fact the claim relies on
with the position it is about. An accepted verdict's reason states WHAT was proved (board,
assumptions), so a certificate for another position cannot pass for the one a user has in mind.

Files: `format` (FORMAT), `retrologic` (the version that wrote it), and, where known, `question`
and `position` (the problem's tables) and `problem` (its file and title). The metadata is
informational, but each checker compares it with the certificate's own data where it can;
every other field must be read by the checker (retrologic.certread), or the certificate is
rejected.
`check_file` reads at most `certsize.read_bytes()` (40 MiB unless `--certificate-mib` says
more) of UTF-8 JSON nested at most MAX_DEPTH deep; every
fault of a malformed certificate is a rejection with a reason, never an exception.

The format itself (Verdict, Rejected, stamping and writing) is retrologic.certformat, which the
checkers import; this module imports the checkers (through CHECKERS), never the other way round.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any, Callable

# The format, re-exported: callers outside the engines and checkers keep importing it from here.
from retrologic.certformat import (FORMAT, MAX_CLAIM, MAX_REASON, Destination,  # noqa: F401
                                   Rejected, Verdict, as_destination, destination, digest,
                                   frozen_mask, short, shown, stamp, verdict_of,
                                   with_destination, write)
from retrologic.certformat import checking, format_fault, same_stated_position, tick
from retrologic.certread import TooManyObjects, tracked, unread
from retrologic.certsize import DEFAULT_MIB, mib, read_bytes
from retrologic.errors import InputError
from retrologic.limits import Budget, LimitHit, active

MAX_DEPTH = 64             # JSON nesting accepted by `check_file`
MAX_CERT_BYTES = DEFAULT_MIB << 20  # bytes the writers of lastmove, cage and puzzle certificates
# write at most: what `check_file` reads by default (`certsize.read_bytes()`, scaled by
# `--certificate-mib`; a hinted 18-ply spg-listing: about 18 MiB)


# certificate type -> "module:function"; the function takes the decoded JSON and returns Verdict.
CHECKERS: dict[str, str] = {
    "retraction-line": "retrologic.certificate:check_retraction_line",
    "lastmove-proof": "retrologic.lastmove.checker:check_proof",
    "cage-proof": "retrologic.cages.checker:check_proof",
    "cage-counterexample": "retrologic.cages.checker:check_counterexample",
    "cage-sat-proof": "retrologic.cages.sat_checker:check_certificate",
    "deduce-drup": "retrologic.history.checker:check_certificate",
    "spg-game": "retrologic.spg.checker:check_certificate",
    "spg-listing": "retrologic.spg.proof_checker:check_certificate",
    "legal-game": "retrologic.legalgame.checker:check_certificate",
    "puzzle4x4-line": "retrologic.puzzle4x4.checker:check_certificate",
    "puzzle4x4-unsolvable": "retrologic.puzzle4x4.checker:check_unsolvable",
}

# certificate type -> the question kind whose answer it certifies (a stated question must be it)
KIND_OF: dict[str, str] = {
    "retraction-line": "retractions", "lastmove-proof": "last-move", "cage-proof": "cage",
    "cage-counterexample": "cage", "cage-sat-proof": "cage", "deduce-drup": "deduce", "spg-game": "spg",
    "spg-listing": "spg", "legal-game": "legal",
    "puzzle4x4-line": "puzzle4x4", "puzzle4x4-unsolvable": "puzzle4x4",
}


# --- checking ---------------------------------------------------------------------------------

def _metadata_fault(cert: dict[str, Any]) -> str | None:
    """Why the certificate's format and metadata fields are not acceptable (None: they are)."""
    fault = format_fault(cert)
    if fault:
        return fault
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


def check(cert: Any, budget: Budget | None = None) -> Verdict:
    """Check a decoded certificate with the checker of its type, under `budget` (time limit
    and Ctrl-C: the checkers' long loops look at it, `certformat.tick`).

    Not an object, no type or an unknown type: InputError (exit 3). Anything else wrong with a
    certificate is a rejection naming the fault (a checker's unexpected exception included:
    a malformed certificate must never crash `check`), and so is a field the checker accepted
    without reading it (retrologic.certread). A check that the limit, Ctrl-C or the machine's
    memory ends first, or that rejects after the limit (a re-verification cut short), is
    neither: `stopped` (a MemoryError was a rejection, "malformed certificate", before
    2026-12-05: a valid certificate checked under a large `--certificate-mib` on a small
    machine would have read as false)."""
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
    budget = budget if budget is not None else Budget()
    try:
        with checking(budget), active(budget):   # active: shared code that polls (encodings)
            cert, made = tracked(cert, tick)    # every field the checker reads (certread)
            verdict = checker(cert)
    except LimitHit as e:
        return _stopped(ctype, e.reason)
    except MemoryError:     # a limit of this machine, not a fault of the certificate: unknown
        return _stopped(ctype, f"out of memory (--certificate-mib {mib()})")
    except TooManyObjects as e:
        return Verdict(ctype, False, f"not a certificate: {e}")
    except InputError as e:
        return Verdict(ctype, False, short(f"malformed certificate: {e}"))
    except RecursionError:
        return Verdict(ctype, False, "malformed certificate: nested too deeply")
    except Exception as e:  # noqa: BLE001 - a malformed certificate is rejected, never a crash
        return Verdict(ctype, False, short(f"malformed certificate: {type(e).__name__}: {e}"))
    if not isinstance(verdict, Verdict):
        return Verdict(ctype, False, "internal: the checker gave no verdict")
    expired = budget.expired() if not verdict.ok else None
    if expired is not None:                     # a rejection after the limit: a part cut short
        return _stopped(ctype, expired)
    fields = unread(made) if verdict.ok else None
    if fields:
        return Verdict(ctype, False, short(
            f"field(s) {', '.join(fields)} not part of a {ctype} certificate (its checker reads "
            f"every field it accepts)"))
    limit = MAX_CLAIM if verdict.ok else MAX_REASON
    return Verdict(verdict.type, verdict.ok, short(verdict.reason, limit))


def _stopped(ctype: str, reason: str) -> Verdict:
    return Verdict(ctype, False, short(reason), stopped=short(reason))


# a string, or an unterminated one to the end of the text: every match succeeds, so the scan is
# linear (closed strings only made a text of many escaped quotes cost its square: a 80 KB file
# took minutes past `check --timeout`, audit of 2026-12-05)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)', re.S)


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


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: with a key twice, `json.loads` would keep
    the last value and hide the first, which no checker would then see."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key {shown(twice)} appears twice in one object")
    return out


def check_file(path: str | Path, budget: Budget | None = None) -> Verdict:
    """Read and check a certificate file: InputError (exit 3) if it cannot be read as a JSON
    object (too large, binary, not UTF-8, malformed, nested deeper than MAX_DEPTH)."""
    from retrologic.files import read_text
    file = str(path)
    try:
        text = read_text(path, limit=read_bytes(), what="certificate")
    except InputError as e:
        if e.message.startswith("too large"):     # the knob that lets it be read, named
            raise InputError(f"{e.message}; --certificate-mib {mib()} reads at most "
                             f"{mib()} MiB", file=file) from None
        raise
    except MemoryError:     # a large knob on a file this machine cannot hold (/dev/zero)
        raise InputError(f"not enough memory to read it (--certificate-mib {mib()})",
                         file=file) from None
    if nesting_depth(text) > MAX_DEPTH:
        raise InputError(f"JSON nested deeper than {MAX_DEPTH} levels: not a certificate", file=file)
    try:
        cert = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except MemoryError:
        raise InputError(f"not enough memory to parse it (--certificate-mib {mib()})",
                         file=file) from None
    except RecursionError:
        raise InputError(f"JSON nested deeper than {MAX_DEPTH} levels", file=file) from None
    except ValueError as e:
        raise InputError(f"malformed JSON: {short(e, 120)}", file=file) from None
    try:
        return check(cert, budget)
    except InputError as e:
        raise e.located(file) from None


def check_retraction_line(cert: dict[str, Any]) -> Verdict:
    """A retraction line: `positions` (FENs, the start first, then each predecessor in turn) and
    `moves` (UCI of the forward move from positions[i+1] to positions[i]). Every FEN must be a
    valid position for python-chess with clean castling rights (a right needs its king and rook
    at home); each move, replayed with python-chess, must be legal and give back the position
    before it: placement, side to move, castling rights, and the e.p. square when one is stated
    (a stated e.p. square says the last move was that double step; '-' assumes nothing). The
    problem's stated position, when given, must be the line's start (`same_stated_position`)."""
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
    try:
        same_stated_position(cert.get("position"), boards[0])
    except Rejected as e:
        return Verdict(t, False, str(e))
    # the move counters are no part of what the line shows: the claim leaves them out
    return Verdict(t, True, f"retraction line: {len(moves)} legal move(s) lead from "
                            f"{boards[-1].epd()} to {boards[0].epd()}")
