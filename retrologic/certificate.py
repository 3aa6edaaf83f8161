"""Certificates (proofs and counterexamples) as JSON, and dispatch to their independent checkers.

Every certificate is a JSON object with a "type"; each type has a checker that re-derives the
claim without trusting the search that produced it.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from retrologic.errors import InputError

# certificate type -> "module:function"; the function takes the decoded JSON and returns Verdict.
CHECKERS: dict[str, str] = {
    "retraction-line": "retrologic.certificate:check_retraction_line",
    "lastmove-proof": "retrologic.lastmove:check_proof",
    "cage-proof": "retrologic.cage:check_proof",
    "cage-counterexample": "retrologic.cage:check_counterexample",
    "deduce-drup": "retrologic.captures:check_certificate",
    "spg-game": "retrologic.spg:check_certificate",
    "puzzle4x4-line": "retrologic.puzzle4x4:check_certificate",
    "puzzle4x4-unsolvable": "retrologic.puzzle4x4:check_unsolvable",
}


@dataclass
class Verdict:
    """A checker's answer: accepted or rejected, with the reason for a rejection."""

    type: str
    ok: bool
    reason: str = ""


def write(cert: dict[str, Any], path: str | Path) -> Path:
    """Write a certificate as JSON (creating the directory)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cert, indent=1) + "\n")
    return path


def check(cert: Any) -> Verdict:
    """Check a decoded certificate with the checker of its type."""
    if not isinstance(cert, dict) or not isinstance(cert.get("type"), str):
        raise InputError("a certificate is a JSON object with a string field 'type'", field="type")
    ctype = cert["type"]
    if ctype not in CHECKERS:
        raise InputError(f"unknown certificate type (known: {', '.join(sorted(CHECKERS))})",
                         field="type", value=ctype)
    module, func = CHECKERS[ctype].split(":")
    checker: Callable[[dict[str, Any]], Verdict] = getattr(importlib.import_module(module), func)
    try:
        return checker(cert)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        return Verdict(ctype, False, f"malformed certificate: {type(e).__name__}: {e}")


def check_file(path: str | Path) -> Verdict:
    """Read and check a certificate file."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=str(path)) from None
    try:
        cert = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e}", file=str(path)) from None
    try:
        return check(cert)
    except InputError as e:
        raise e.located(str(path)) from None


def check_retraction_line(cert: dict[str, Any]) -> Verdict:
    """A retraction line: from `start` FEN, each retraction's predecessor FEN must, replayed
    forward with python-chess, give back the position before it; the last FEN is the claimed end."""
    import chess
    fens: list[str] = cert["positions"]      # start first, then each predecessor in turn
    moves: list[str] = cert["moves"]         # UCI of the forward move from positions[i+1] to [i]
    if len(fens) != len(moves) + 1:
        return Verdict("retraction-line", False, "positions must be one more than moves")
    for i, uci in enumerate(moves):
        board = chess.Board(fens[i + 1])
        move = chess.Move.from_uci(uci)
        if not board.is_legal(move):
            return Verdict("retraction-line", False, f"step {i + 1}: {uci} is not legal in {fens[i + 1]}")
        board.push(move)
        after = chess.Board(fens[i])
        if board.board_fen() != after.board_fen() or board.turn != after.turn:
            return Verdict("retraction-line", False, f"step {i + 1}: {uci} does not give back {fens[i]}")
        if board.castling_rights != after.castling_rights:
            return Verdict("retraction-line", False, f"step {i + 1}: castling rights differ")
    return Verdict("retraction-line", True)
