"""What a cage certificate's stated question assumes: its `restrict` texts (restrictions and
`never_moved` squares), read with the constraint language, so that both cage checkers
(cages.checker, cages.sat_checker) hold a proof to no more than its question assumes.

Rule: this module imports python-chess, retrologic.constraints (the parser) and
retrologic.errors only: it is part of both checkers, never of the engine.
"""

from __future__ import annotations

from typing import Any

import chess

from retrologic.constraints import BoolAtom, Compare, Junction, parse_expr
from retrologic.errors import InputError

# a restriction: (side, from_file, to_file), files as letters or None for any file
Restriction = tuple[str, str | None, str | None]


def stated(texts: Any) -> tuple[list[Restriction], int]:
    """The restrictions and the never-moved squares the `restrict` texts state; ValueError when
    they are not a list of texts, each a conjunction of `pawn_captures(...) == 0` (`<= 0`,
    `< 1`, either side of the comparison) and `never_moved(...)`."""
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError("the question's restrictions are malformed")
    asked: list[Restriction] = []
    frozen = 0
    for text in texts:
        try:
            atoms = _conjuncts(parse_expr(text))
        except InputError:
            atoms = None
        if atoms is None:
            raise ValueError(f"the question's restriction {text[:60]!r} is not one the checker "
                             "reads")
        for atom in atoms:
            if isinstance(atom, int):
                frozen |= chess.BB_SQUARES[atom]
            else:
                asked.append(atom)
    return asked, frozen


def implied(need: Restriction, have: list[Restriction]) -> bool:
    """Is restriction `need` implied by one of `have`: the same side or "either", the same file
    or any file (None)?"""
    side, frm, to = need
    return any(h[0] in (side, "either") and h[1] in (None, frm) and h[2] in (None, to)
               for h in have)


def unstated(frozen: int, assumed: list[Restriction], stated_frozen: int,
             stated: list[Restriction]) -> tuple[str, str] | None:
    """The first assumption of (`frozen` units, `assumed` restrictions) that (`stated_frozen`,
    `stated`) does not make: ("frozen", square name) or ("restriction", its text); None when
    every one is made. A proof's assumptions against its question's, or the question's against
    a counterexample's."""
    extra = frozen & ~stated_frozen
    if extra:
        return "frozen", chess.square_name(chess.lsb(extra))
    return next((("restriction", text(r)) for r in assumed if not implied(r, stated)), None)


def proof_fault(frozen: int, assumed: list[Restriction], stated_frozen: int,
                stated: list[Restriction]) -> str | None:
    """Why a proof assuming (`frozen`, `assumed`) answers an easier question than the one that
    states (`stated_frozen`, `stated`), or None: the words of both cage checkers."""
    missing = unstated(frozen, assumed, stated_frozen, stated)
    if missing is None:
        return None
    if missing[0] == "frozen":
        return f"the certificate freezes {missing[1]}, which the question does not"
    return f"the certificate assumes {missing[1]}, which the question's restrictions do not"


def text(r: Restriction) -> str:
    """A restriction in the predicate language, as the certificates write it."""
    files = [f'{k}="{v}"' for k, v in zip(("from_file", "to_file"), r[1:]) if v is not None]
    return f"pawn_captures({', '.join([r[0], *files])}) == 0"


def _conjuncts(expr: Any) -> list[Restriction | int] | None:
    """The atoms of a conjunction: restrictions, and never-moved squares as square numbers."""
    if isinstance(expr, Junction) and expr.op == "and":
        parts = [_conjuncts(item) for item in expr.items]
        return None if any(p is None for p in parts) else [a for p in parts for a in p or []]
    if isinstance(expr, BoolAtom):
        if expr.call.name != "never_moved" or not expr.value:
            return None
        return [chess.parse_square(expr.call.arg("square"))]
    if not isinstance(expr, Compare):
        return None
    left, right, op = expr.left, expr.right, expr.op
    if not left.terms and right.terms:
        left, right = right, left
        op = {"<=": ">=", ">=": "<=", "<": ">", ">": "<"}.get(op, op)
    if len(left.terms) != 1 or right.terms or left.terms[0][0] != 1:
        return None
    call, bound = left.terms[0][1], right.const - left.const
    if call.name != "pawn_captures" or (op, bound) not in (("==", 0), ("<=", 0), ("<", 1)):
        return None
    return [(call.arg("side"), call.arg("from_file"), call.arg("to_file"))]
