"""The predicate language of custom deductions: parsed with `ast`, never evaluated.

An expression is a comparison of linear terms over whitelisted functions, combined with
`and`, `or`, `not`:

    pawn_captures(either, from_file="d", to_file="e") == 0
    captures(white) + captures(black) <= 9
    promoted("c1") == true        never_moved("e1")        not promoted("c8")

The parse is a small tree of dataclasses that the deduction model (retrologic.history.deduce) compiles
into clauses and the cage search (retrologic.cages.search) into retraction filters. New functions are
added with `register`; a name that is not registered is an error, never a guess.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Union

import chess

from retrologic.errors import InputError, cut, printable, shown

# Bounds on an expression, checked before anything recursive or costly runs on it:
MAX_CHARS = 4000        # characters of one expression (the library's longest is under 100)
MAX_DEPTH = 64          # nesting of its syntax tree (not/and/or, brackets, sums, calls)
MAX_NUMBER = 10**6      # size of a whole number written in it, and of a comparison's constant
MAX_WEIGHT = 4          # sum of the coefficients' sizes in one comparison: the history model
                        # repeats a term's literals once per unit of its coefficient, so its
                        # cardinality encoding grows with the square of this. Measured on K v K,
                        # "W*pawn_captures(either) <= 96*W": W=4 encodes to 0.6 M clauses (190 MB,
                        # 4 s), W=8 to 2.4 M (650 MB, 14 s); solving W=4 took over 300 s

SIDES = ("white", "black", "either")
# The colours a side argument names (the cage rules and the history model read sides so).
SIDE_COLORS: dict[str, tuple[chess.Color, ...]] = {
    "white": (chess.WHITE,), "black": (chess.BLACK,), "either": (chess.WHITE, chess.BLACK)}
PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
SQUARE_COLORS = ("light", "dark")
FILES = "abcdefgh"


@dataclass(frozen=True)
class Param:
    """A parameter of a predicate: its name, kind (side|file|square|piece|color|int) and default."""

    name: str
    kind: str
    default: Any = None
    required: bool = True


@dataclass(frozen=True)
class Predicate:
    """A registered function of the language: parameters, result type ('int' or 'bool')."""

    name: str
    params: tuple[Param, ...]
    returns: str
    doc: str
    compile: Callable[..., Any] | None = None   # set by a model that knows how to encode it


REGISTRY: dict[str, Predicate] = {}
BUILT_IN: set[str] = set()      # the library's own functions: never replaced (see `register`)


def register(name: str, params: list[Param] | tuple[Param, ...], returns: str, doc: str,
             compile: Callable[..., Any] | None = None, *, built_in: bool = False) -> Predicate:
    """Add (or replace) a function of the language; `compile` is the model-side encoder. A
    function of the library's own (`built_in`) is never replaced: a user's `captures` that
    counted nothing made `deduce` prove a false claim, which the in-process checker, reading the
    same registry, accepted (API review of 2026-11-30)."""
    if returns not in ("int", "bool"):
        raise ValueError("returns must be 'int' or 'bool'")
    if name in BUILT_IN:
        raise InputError("a built-in function of the language cannot be replaced",
                         field="name", value=name)
    pred = Predicate(name, tuple(params), returns, doc, compile)
    REGISTRY[name] = pred
    if built_in:
        BUILT_IN.add(name)
    return pred


register("captures", [Param("side", "side")], "int",
         "number of captures made by side (either: both sides together)", built_in=True)
register("pawn_captures", [Param("side", "side"), Param("from_file", "file", None, False),
                           Param("to_file", "file", None, False)], "int",
         "captures made by side's pawns, optionally only from one file to another",
         built_in=True)
register("promotions", [Param("side", "side")], "int", "number of promotions by side",
         built_in=True)
register("promoted", [Param("square", "square")], "bool", "the unit on square is a promoted piece",
         built_in=True)
register("never_moved", [Param("square", "square")], "bool",
         "the unit on square has never moved (it stands on its game-array square)", built_in=True)
register("captured_on_color", [Param("side", "side"), Param("piece", "piece"),
                               Param("color", "color")], "int",
         "units of side of this type (as captured) captured on light or dark squares",
         built_in=True)
register("missing", [Param("side", "side")], "int", "units of side missing from the board",
         built_in=True)
# here with the others, so that a problem file's [[constraint]] tables, parsed when the file is
# read, know it too (found in review, 2026-11-30: only `--claim` and question.claim did)
register("captured_unit", [Param("square", "square")], "bool",
         "the unit that started on square left the board (a pawn: as a pawn or promoted)",
         built_in=True)


# --- the parsed tree -------------------------------------------------------------------------

@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[tuple[str, Any], ...]   # (parameter name, normalised value), in signature order

    def arg(self, name: str) -> Any:
        return dict(self.args)[name]

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={_show(v)}" for k, v in self.args if v is not None)
        return f"{self.name}({inner})"


@dataclass(frozen=True)
class Linear:
    """sum(coef * call) + const."""

    terms: tuple[tuple[int, Call], ...]
    const: int = 0

    def __str__(self) -> str:
        parts = [(f"{c}*" if c not in (1, -1) else "-" if c == -1 else "") + str(call)
                 for c, call in self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


@dataclass(frozen=True)
class Compare:
    op: str            # == != <= >= < >
    left: Linear
    right: Linear

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class BoolAtom:
    """A bool-valued call, possibly negated by the comparison it came from."""

    call: Call
    value: bool = True

    def __str__(self) -> str:
        return str(self.call) if self.value else f"not {self.call}"


@dataclass(frozen=True)
class Junction:
    op: str            # and | or
    items: tuple["Expr", ...]

    def __str__(self) -> str:
        return f" {self.op} ".join(f"({i})" for i in self.items)


@dataclass(frozen=True)
class Negation:
    item: "Expr"

    def __str__(self) -> str:
        return f"not ({self.item})"


Expr = Union[Compare, BoolAtom, Junction, Negation]

_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.LtE: "<=", ast.GtE: ">=", ast.Lt: "<", ast.Gt: ">"}


def _show(v: Any) -> str:
    return f'"{v}"' if isinstance(v, str) and v not in SIDES else str(v)


def _err(msg: str, text: str) -> InputError:
    return InputError(msg, value=text)


def parse_expr(text: str) -> Expr:
    """Parse an expression of the language; InputError (with the value) on anything else.

    Bounded before any recursion: at most MAX_CHARS characters and MAX_DEPTH levels of
    nesting; whole numbers at most MAX_NUMBER, coefficients at most MAX_WEIGHT in all."""
    if not isinstance(text, str):
        raise _err("an expression must be a string", text)
    if len(text) > MAX_CHARS:
        raise _err(f"expression too long ({len(text):,} characters; at most {MAX_CHARS:,})", text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # e.g. "3and": a SyntaxError, not a stderr line
            tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        where = f" at column {e.offset}" if e.offset else ""
        raise _err(f"syntax error{where}: {e.msg}", text) from None
    except (RecursionError, MemoryError, ValueError):
        # CPython's parser gives up on very deep nesting with one of these (ValueError: NUL)
        raise _err(f"nested too deeply (at most {MAX_DEPTH} levels)", text) from None
    if _depth(tree.body) > MAX_DEPTH:
        raise _err(f"nested too deeply (at most {MAX_DEPTH} levels)", text)
    if _has_comment(text):
        raise _err("a comment ('#') is not allowed in an expression", text)
    return _expr(tree.body, text)


def _has_comment(text: str) -> bool:
    """Whether the (already parsed) text holds a Python comment: the text is what every
    verdict and certificate check prints, one line with its line breaks made spaces, where a
    comment would hide the rest of what was proved ("captures(white) >= 0 # and promoted(..)"
    reads as a trivial assumption; a review of 2026-12-06)."""
    if "#" not in text:
        return False
    tokens = tokenize.generate_tokens(io.StringIO(text.strip()).readline)
    try:
        return any(token.type == tokenize.COMMENT for token in tokens)
    except (tokenize.TokenError, SyntaxError):      # parsed already: not expected
        return True


def _depth(root: ast.AST) -> int:
    """Nesting depth of a syntax tree, computed without recursion (stops past MAX_DEPTH)."""
    deepest, stack = 0, [(root, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _code(node: ast.AST) -> str:
    """The source of a node for a message, cut short (the tree is already depth-bounded)."""
    return cut(printable(ast.unparse(node)[:240]), 60)


def _number(node: ast.AST, text: str) -> int:
    """A whole-number literal within MAX_NUMBER."""
    value = node.value  # type: ignore[attr-defined]
    if abs(value) > MAX_NUMBER:
        raise _err(f"number too large: {shown(value, 24)} (at most {MAX_NUMBER:,} in size)", text)
    return value


def _compare(op: str, left: Linear, right: Linear, text: str) -> Compare:
    """A comparison, checked against MAX_WEIGHT and MAX_NUMBER (after products and sums)."""
    weight = sum(abs(c) for c, _ in left.terms + right.terms)
    if weight > MAX_WEIGHT:
        raise _err(f"coefficients too large: their sizes add up to {shown(weight, 24)} "
                   f"(at most {MAX_WEIGHT} in one comparison)", text)
    if abs(right.const - left.const) > MAX_NUMBER:
        raise _err(f"constant too large (at most {MAX_NUMBER:,} in size)", text)
    return Compare(op, left, right)


def _expr(node: ast.AST, text: str) -> Expr:
    if isinstance(node, ast.BoolOp):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Junction(op, tuple(_expr(v, text) for v in node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _expr(node.operand, text)
        if isinstance(inner, BoolAtom):
            return BoolAtom(inner.call, not inner.value)
        return Negation(inner)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            raise _err("chained comparisons are not allowed", text)
        op = _OPS.get(type(node.ops[0]))
        if op is None:
            raise _err(f"operator not allowed: {type(node.ops[0]).__name__}", text)
        left, right = node.left, node.comparators[0]
        lbool, rbool = _bool_const(left), _bool_const(right)
        if lbool is not None or rbool is not None:
            const, other = (lbool, right) if lbool is not None else (rbool, left)
            call = _call(other, text)
            if REGISTRY[call.name].returns != "bool" or op not in ("==", "!="):
                raise _err("true/false compare only with == or != to a true/false function", text)
            return BoolAtom(call, const if op == "==" else not const)
        return _compare(op, _linear(left, text), _linear(right, text), text)
    if isinstance(node, ast.Call):
        call = _call(node, text)
        if REGISTRY[call.name].returns != "bool":
            raise _err(f"{call.name}() is a number: compare it (e.g. {call.name}(...) == 0)", text)
        return BoolAtom(call)
    raise _err(f"not a condition: {_code(node)}", text)


def _bool_const(node: ast.AST) -> bool | None:
    if isinstance(node, ast.Name) and node.id in ("true", "false", "True", "False"):
        return node.id.lower() == "true"
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def _linear(node: ast.AST, text: str) -> Linear:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Linear((), _number(node, text))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _linear(node.operand, text)
        return Linear(tuple((-c, t) for c, t in inner.terms), -inner.const)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        a, b = _linear(node.left, text), _linear(node.right, text)
        sign = 1 if isinstance(node.op, ast.Add) else -1
        return Linear(a.terms + tuple((sign * c, t) for c, t in b.terms), a.const + sign * b.const)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for k, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(k, ast.Constant) and type(k.value) is int:
                factor = _number(k, text)
                inner = _linear(other, text)
                if any(abs(factor * c) > MAX_WEIGHT for c, _ in inner.terms):
                    raise _err(f"coefficient too large (at most {MAX_WEIGHT} in size)", text)
                if abs(factor * inner.const) > MAX_NUMBER:
                    raise _err(f"number too large (at most {MAX_NUMBER:,} in size)", text)
                return Linear(tuple((factor * c, t) for c, t in inner.terms), factor * inner.const)
        raise _err("multiply only by a whole number", text)
    if isinstance(node, ast.Call):
        call = _call(node, text)
        if REGISTRY[call.name].returns != "int":
            raise _err(f"{call.name}() is true/false, not a number", text)
        return Linear(((1, call),), 0)
    raise _err(f"not a number term: {_code(node)}", text)


def _call(node: ast.AST, text: str) -> Call:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise _err(f"expected a function call, got {_code(node)}", text)
    name = node.func.id
    pred = REGISTRY.get(name)
    if pred is None:
        raise _err(f"unknown function {shown(name, 40)}() (known: {', '.join(sorted(REGISTRY))})",
                   text)
    values: dict[str, Any] = {}
    if len(node.args) > len(pred.params):
        raise _err(f"{name}() takes at most {len(pred.params)} arguments", text)
    for param, arg in zip(pred.params, node.args):
        values[param.name] = _value(param, arg, name, text)
    names = {p.name: p for p in pred.params}
    for kw in node.keywords:
        if kw.arg is None or kw.arg not in names:
            raise _err(f"{name}() has no parameter {shown(kw.arg, 40)}", text)
        if kw.arg in values:
            raise _err(f"{name}() got {shown(kw.arg, 40)} twice", text)
        values[kw.arg] = _value(names[kw.arg], kw.value, name, text)
    args = []
    for p in pred.params:
        if p.name not in values:
            if p.required:
                raise _err(f"{name}() needs {p.name!r}", text)
            values[p.name] = p.default
        args.append((p.name, values[p.name]))
    return Call(name, tuple(args))


def _value(param: Param, node: ast.AST, fname: str, text: str) -> Any:
    if isinstance(node, ast.Name):
        raw: Any = node.id
    elif isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        raw = node.value
    else:
        raise _err(f"{fname}(): bad value for {param.name}: {_code(node)}", text)
    kind = param.kind
    if kind == "int":
        if type(raw) is not int:
            raise _err(f"{fname}(): {param.name} must be a whole number", text)
        return _number(node, text)
    if not isinstance(raw, str):
        raise _err(f"{fname}(): {param.name} must be a name or a string", text)
    val = raw.strip().lower()
    allowed = {"side": SIDES, "piece": PIECES, "color": SQUARE_COLORS, "file": tuple(FILES),
               "square": tuple(chess.SQUARE_NAMES)}[kind]
    if val not in allowed:
        raise _err(f"{fname}(): {param.name} must be one of {', '.join(allowed)}; got {shown(raw, 40)}",
                   text)
    return val


def calls(expr: Expr) -> list[Call]:
    """Every function call in an expression (for models to check they can compile it)."""
    if isinstance(expr, BoolAtom):
        return [expr.call]
    if isinstance(expr, Compare):
        return [c for _, c in expr.left.terms + expr.right.terms]
    if isinstance(expr, Junction):
        return [c for item in expr.items for c in calls(item)]
    if isinstance(expr, Negation):
        return calls(expr.item)
    raise TypeError(expr)
