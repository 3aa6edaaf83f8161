"""Queries on the history model: the predicate language (each function's encoder and its
evaluator) and `Query`, a position's model with its assumptions and negated claims.

An encoder turns a call into model literals (a literal for a true/false function, a LinearForm
for a number); the evaluator computes the same value on a witness History in plain Python, so
refutations are re-checked without the encoding. `register_predicate` adds a user function with
both (see docs/deduce.md). An evaluator may return None: "the model cannot decide this".
Solver-free: the deduction (retrologic.history.deduce) solves a Query, the certificate checker
(retrologic.history.checker) rebuilds one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import chess

from retrologic import constraints
from retrologic.constraints import (SIDE_COLORS, BoolAtom, Call, Compare, Expr, Junction, Negation,
                                    Param, parse_expr)
from retrologic.errors import InputError
from retrologic.history.model import LinearForm, Model, rel_rank
from retrologic.history.witness import History
from retrologic.legality.static_cages import frozen_units
from retrologic.position import Position, castling_frozen
from retrologic.vocabulary import Unit

if TYPE_CHECKING:
    from retrologic.limits import Budget

Encoder = Callable[[Model, Call], "int | LinearForm"]
Evaluator = Callable[[History, Call], Any]
Decider = Callable[[Model, Call], "list[int] | None"]


@dataclass(frozen=True)
class PredicateImpl:
    """How the history model encodes a function of the language, and how to evaluate it."""

    encode: Encoder
    evaluate: Evaluator | None = None
    # Literals under which the evaluator decides the call on every witness, so that a
    # refutation can ask for a witness it can read (`readings`); None: for the library's own
    # functions, the evaluator always decides; for a user's, no such literals are known.
    decisive: Decider | None = None


def _file(value: str | None) -> int | None:
    return None if value is None else chess.FILE_NAMES.index(value)


def _square(model_or_hist: Any, call: Call) -> tuple[chess.Square, chess.Piece]:
    name = call.arg("square")
    sq = chess.parse_square(name)
    board = model_or_hist.position.placement
    piece = board.piece_at(sq)
    if piece is None:
        raise InputError(f"{call.name}(): no unit on {name}", value=str(call))
    return sq, piece


_PIECE = {"pawn": chess.PAWN, "knight": chess.KNIGHT, "bishop": chess.BISHOP, "rook": chess.ROOK,
          "queen": chess.QUEEN, "king": chess.KING}


# --- captures(side) --------------------------------------------------------------------------

def _missing_count(m: Model, side: chess.Color) -> int:
    """Units of `side` missing from the board: 16 less those on it, a number the position fixes.

    `captures` and `missing` encode as this constant, not as a count of the fate literals:
    the model's matching implies the same number, but a solver must re-derive it as a pigeonhole
    (`captures(white) == 8` with eight black units on the board: a 9 MB proof, 133 s to check).
    """
    return 16 - sum(1 for piece in m.board.values() if piece.color == side)


def _enc_captures(m: Model, call: Call) -> LinearForm:
    return LinearForm([], sum(_missing_count(m, not s) for s in SIDE_COLORS[call.arg("side")]))


def _ev_captures(h: History, call: Call) -> int:
    return sum(h.captures(s) for s in SIDE_COLORS[call.arg("side")])


# --- missing(side) ---------------------------------------------------------------------------

def _enc_missing(m: Model, call: Call) -> LinearForm:
    return LinearForm([], sum(_missing_count(m, s) for s in SIDE_COLORS[call.arg("side")]))


def _ev_missing(h: History, call: Call) -> int:
    return sum(f.captured for s in SIDE_COLORS[call.arg("side")] for f in h.side(s))


# --- pawn_captures(side, from_file, to_file) -------------------------------------------------

def _pawn_files(call: Call) -> tuple[int | None, int | None]:
    a, b = _file(call.arg("from_file")), _file(call.arg("to_file"))
    if a is not None and b is not None and abs(a - b) != 1:
        raise InputError(f"pawn_captures(): a pawn capture moves to an adjacent file, and "
                         f"{call.arg('from_file')!r} -> {call.arg('to_file')!r} are not adjacent",
                         value=str(call))
    return a, b


def _enc_pawn_captures(m: Model, call: Call) -> LinearForm:
    a, b = _pawn_files(call)
    return LinearForm.count(l for s in SIDE_COLORS[call.arg("side")] for l in m.pawn_capture_lits(s, a, b))


def _ev_pawn_captures(h: History, call: Call) -> int:
    a, b = _pawn_files(call)
    return sum(1 for s in SIDE_COLORS[call.arg("side")] for _, _, x, y in h.pawn_capture_events(s)
               if (a is None or x == a) and (b is None or y == b))


# --- promotions(side) ------------------------------------------------------------------------

def _enc_promotions(m: Model, call: Call) -> LinearForm:
    return LinearForm.count(l for s in SIDE_COLORS[call.arg("side")] for l in m.promotion_lits(s))


def _ev_promotions(h: History, call: Call) -> int:
    return sum(f.promoted_to is not None for s in SIDE_COLORS[call.arg("side")] for f in h.side(s))


# --- promoted(square) ------------------------------------------------------------------------

def _enc_promoted(m: Model, call: Call) -> int:
    sq, _ = _square(m, call)
    return m.promoted_lit(sq)


def _ev_promoted(h: History, call: Call) -> bool:
    sq, _ = _square(h, call)
    f = h.fate_on(sq)
    return f is not None and f.promoted_to is not None


# --- never_moved(square) ---------------------------------------------------------------------

def _home_pawn(sq: chess.Square, piece: chess.Piece) -> bool:
    """A pawn on its second rank never moved."""
    return piece.piece_type == chess.PAWN and rel_rank(sq, piece.color) == 2


def _enc_never_moved(m: Model, call: Call) -> int:
    """One-sided: the literal can be true only if the unit there is the one that started there
    (pawns on their 2nd rank: true). Sound for proofs in both polarities; the model cannot show
    that a piece on its home square left it and came back, so refutations need the evaluator."""
    sq, piece = _square(m, call)
    if _home_pawn(sq, piece):
        return m.TRUE
    unit = _original_at_home(m, sq, piece)
    if unit is None:
        return m.FALSE
    return m.cached(("never_moved", sq), lambda: _never_moved_literal(m, unit, sq))


def _original_at_home(m: Model, sq: chess.Square, piece: chess.Piece) -> Unit | None:
    """The original unit of home square `sq` when the model lets it stand there (else None)."""
    unit = m.home_unit(sq, piece)
    return unit if unit is not None and (unit, sq) in m.on else None


def _never_moved_literal(m: Model, unit: Unit, sq: chess.Square) -> int:
    """The literal of `never_moved` on a square its original unit may hold (one per square)."""
    a = m.new_var(f"never_moved {chess.square_name(sq)}")
    m.add_clause([-a, m.on[(unit, sq)]])
    name = chess.square_name(sq)
    if castling_frozen(m.position.castling) & chess.BB_SQUARES[sq]:
        m.add_clause([-m.groups["castling-rights"], a])
    for group in (f"frozen {name}", f"cage: {name} never moved"):
        if group in m.groups:
            m.add_clause([-m.groups[group], a])
    return a


def _decisive_never_moved(m: Model, call: Call) -> list[int]:
    """The evaluator is undecided only when the original unit stands on its home square unfrozen
    (it may have left and come back): assume it does not stand there."""
    sq, piece = _square(m, call)
    unit = None if _home_pawn(sq, piece) else _original_at_home(m, sq, piece)
    if unit is None or frozen_units(m.position) & chess.BB_SQUARES[sq]:
        return []
    return [-m.on[(unit, sq)]]


def _ev_never_moved(h: History, call: Call) -> bool | None:
    sq, piece = _square(h, call)
    if _home_pawn(sq, piece):
        return True
    f = h.fate_on(sq)
    if f is None or f.unit.home != sq or f.promoted_to is not None:
        return False
    if frozen_units(h.position) & chess.BB_SQUARES[sq]:
        return True
    return None


# --- captured_on_color(side, piece, color) ---------------------------------------------------

def _enc_captured_on_color(m: Model, call: Call) -> LinearForm:
    piece, dark = _PIECE[call.arg("piece")], call.arg("color") == "dark"
    return LinearForm.count(l for s in SIDE_COLORS[call.arg("side")]
                            for l in m.captured_on_color_lits(s, piece, dark))


def _ev_captured_on_color(h: History, call: Call) -> int:
    piece, dark = _PIECE[call.arg("piece")], call.arg("color") == "dark"
    return sum(1 for s in SIDE_COLORS[call.arg("side")] for f in h.side(s)
               if f.captured and f.type_now == piece and f.capture_dark == dark)


# --- captured_unit(square) ----------------------------------------------------------------------

def _enc_captured_unit(m: Model, call: Call) -> int:
    home = chess.parse_square(call.arg("square"))
    for side in chess.COLORS:
        for u in m.units[side]:
            if u.home == home:
                return m.miss[u]
    raise InputError("captured_unit(): no unit starts on that square (use a 1st, 2nd, 7th or "
                     "8th rank square)", value=str(call))


def _ev_captured_unit(h: History, call: Call) -> bool:
    home = chess.parse_square(call.arg("square"))
    for u, f in h.fates.items():
        if u.home == home:
            return f.captured
    raise InputError("captured_unit(): no unit starts on that square", value=str(call))


BUILTIN: dict[str, PredicateImpl] = {
    "captures": PredicateImpl(_enc_captures, _ev_captures),
    "missing": PredicateImpl(_enc_missing, _ev_missing),
    "pawn_captures": PredicateImpl(_enc_pawn_captures, _ev_pawn_captures),
    "promotions": PredicateImpl(_enc_promotions, _ev_promotions),
    "promoted": PredicateImpl(_enc_promoted, _ev_promoted),
    "never_moved": PredicateImpl(_enc_never_moved, _ev_never_moved, _decisive_never_moved),
    "captured_on_color": PredicateImpl(_enc_captured_on_color, _ev_captured_on_color),
    "captured_unit": PredicateImpl(_enc_captured_unit, _ev_captured_unit),
}
USER: dict[str, PredicateImpl] = {}


def register_predicate(name: str, params: Sequence[Param], returns: str, doc: str,
                       encode: Encoder, evaluate: Evaluator | None = None, *,
                       decisive: Decider | None = None, built_in: bool = False) -> None:
    """Add a function to the predicate language together with its history-model encoder.

    `encode(model, call)` returns a literal (returns="bool") or a LinearForm (returns="int")
    built with the Model API; `evaluate(history, call)` computes the same value on a witness
    (or returns None when it cannot), which refutations need; `decisive(model, call)`, the
    literals under which it never returns None (`[]` when it always decides), lets a refutation
    ask for a witness it can read (without it, a witness it cannot read leaves the claim
    unknown). A function of the library's own (`built_in`, e.g. `captures`) cannot be replaced
    (InputError): the certificate checker reads the same registry.
    """
    constraints.register(name, list(params), returns, doc, compile=encode, built_in=built_in)
    USER[name] = PredicateImpl(encode, evaluate, decisive)


def implementation(name: str) -> PredicateImpl:
    """The encoder (and evaluator) of a function; InputError if the model cannot encode it."""
    if name in USER:
        return USER[name]
    if name in BUILTIN:
        return BUILTIN[name]
    pred = constraints.REGISTRY.get(name)
    if pred is not None and pred.compile is not None:
        return PredicateImpl(pred.compile, None)
    raise InputError(f"{name}() cannot be used in the history model (no encoder registered)",
                     value=name)


# --- expressions -----------------------------------------------------------------------------

def _form(m: Model, lin: constraints.Linear) -> LinearForm:
    out = LinearForm([], lin.const)
    for coef, call in lin.terms:
        value = implementation(call.name).encode(m, call)
        if not isinstance(value, LinearForm):
            raise InputError(f"{call.name}() must encode to a number", value=str(call))
        out = out.plus(value.scaled(coef))
    return out


def compile_expr(m: Model, expr: Expr, record: dict[int, int] | None = None) -> int:
    """A literal equivalent (in the model) to the expression; `record` keeps each
    subexpression's literal by its id (what `readings` assumes)."""
    if isinstance(expr, Compare):
        lit = m.reify(_form(m, expr.left).plus(_form(m, expr.right), -1), expr.op, 0)
    elif isinstance(expr, BoolAtom):
        lit = implementation(expr.call.name).encode(m, expr.call)
        if not isinstance(lit, int) or lit == 0:
            raise InputError(f"{expr.call.name}() must encode to a literal", value=str(expr.call))
        lit = lit if expr.value else -lit
    elif isinstance(expr, Junction):
        lits = [compile_expr(m, e, record) for e in expr.items]
        lit = m.and_(lits) if expr.op == "and" else m.or_(lits)
    elif isinstance(expr, Negation):
        lit = -compile_expr(m, expr.item, record)
    else:
        raise TypeError(expr)
    if record is not None:
        record[id(expr)] = lit
    return lit


MAX_READINGS = 64  # ways of reading an expression tried at most (then: no exact answer)


def _decisive(m: Model, call: Call) -> list[int] | None:
    """Literals under which the evaluator decides the call (None: none known)."""
    impl = implementation(call.name)
    if impl.evaluate is None:
        return None
    if impl.decisive is not None:
        return impl.decisive(m, call)
    return [] if BUILTIN.get(call.name) is impl else None   # the library's own always decide


class Readings(NamedTuple):
    """Ways a history can make `evaluate` read an expression one way (each a list of literals to
    assume), and whether they are all the ways (not when a function offers no decisive literals
    or the ways exceed `MAX_READINGS`)."""

    ways: list[list[int]]
    complete: bool


def readings(m: Model, expr: Expr, lits: dict[int, int], value: bool) -> Readings:
    """The ways a history can make `evaluate` read the expression as `value` (`lits`: the
    subexpressions' literals, `compile_expr`'s record).

    Three-valued, as `evaluate`: an `and` reads false when one part does, true when all do; an
    `or` the other way round; `not` swaps. With complete readings a refutation asks for a
    witness it can read exactly when one exists, whichever witness a solver returned first."""
    if isinstance(expr, (Compare, BoolAtom)):
        decided: list[int] = []
        for call in constraints.calls(expr):
            more = _decisive(m, call)
            if more is None:
                return Readings([], False)
            decided += more
        lit = lits[id(expr)]
        return Readings([[lit if value else -lit] + decided], True)
    if isinstance(expr, Negation):
        return readings(m, expr.item, lits, not value)
    if isinstance(expr, Junction):
        parts = [readings(m, e, lits, value) for e in expr.items]
        complete = all(part.complete for part in parts)
        if (expr.op == "and") != value:          # one part read so decides the whole
            ways = [way for part in parts for way in part.ways]
        else:                                    # every part must be read so
            ways = [[]]
            for part in parts:
                ways = [way + more for way in ways for more in part.ways][:MAX_READINGS + 1]
        if len(ways) > MAX_READINGS:
            return Readings(ways[:MAX_READINGS], False)
        return Readings(ways, complete)
    raise TypeError(expr)


def check_compilable(expr: Expr) -> None:
    """InputError if a function of the expression has no history-model encoder."""
    for call in constraints.calls(expr):
        implementation(call.name)


def _value(h: History, lin: constraints.Linear) -> int | None:
    total = lin.const
    for coef, call in lin.terms:
        impl = implementation(call.name)
        v = impl.evaluate(h, call) if impl.evaluate else None
        if v is None:
            return None
        total += coef * int(v)
    return total


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, ">": lambda a, b: a > b}


def evaluate(h: History, expr: Expr) -> bool | None:
    """The expression's truth on a witness history (None: the model cannot decide it)."""
    if isinstance(expr, Compare):
        a, b = _value(h, expr.left), _value(h, expr.right)
        return None if a is None or b is None else _CMP[expr.op](a, b)
    if isinstance(expr, BoolAtom):
        impl = implementation(expr.call.name)
        v = impl.evaluate(h, expr.call) if impl.evaluate else None
        return None if v is None else bool(v) == expr.value
    if isinstance(expr, Junction):
        vals = [evaluate(h, e) for e in expr.items]
        if expr.op == "and":
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    if isinstance(expr, Negation):
        v = evaluate(h, expr.item)
        return None if v is None else not v
    raise TypeError(expr)


# --- the query: assumptions and claims over one position's model ------------------------------

@dataclass(frozen=True)
class Constraint:
    """A named expression of the predicate language (an assumption or a claim)."""

    name: str
    text: str
    expr: Expr
    where: str | None = None       # the field it came from, for error messages

    @classmethod
    def parse(cls, name: str, text: str, where: str | None = None) -> "Constraint":
        try:
            return cls(name, text, parse_expr(text), where)
        except InputError as e:
            raise e.located(None, where) from None


class Query:
    """A position's model with assumptions (named groups) and negated claims (selectors)."""

    def __init__(self, position: Position, assumptions: list[Constraint],
                 claims: list[Constraint], budget: Budget | None = None) -> None:
        self.position = position
        self.assumptions = assumptions
        self.claims = claims
        self.model = m = Model(position)
        names = set()
        for c in assumptions + claims:
            if c.name in names or c.name in m.groups:
                raise InputError("constraint names must be unique and differ from the model's "
                                 "fact names", field=c.where or "name", value=c.name)
            names.add(c.name)
        lits = {}
        self.sublits: dict[int, int] = {}     # every subexpression's literal (`readings`)
        for c in assumptions + claims:
            if budget is not None:
                budget.check(every=4)       # LimitHit: a long list of claims takes seconds
            try:
                check_compilable(c.expr)
                lits[c.name] = compile_expr(m, c.expr, self.sublits)
            except InputError as e:
                raise e.located(None, c.where or f"constraint {c.name!r}") from None
        for c in assumptions:
            m.add_clause([-m.group(c.name, f"assumption: {c.text}"), lits[c.name]])
        self.negated: dict[str, int] = {}
        self.literal = {c.name: lits[c.name] for c in claims}    # the claim itself (no clause)
        for c in claims:
            sel = self.negated[c.name] = m.new_var(f"not {c.name}")
            m.add_clause([-sel, -lits[c.name]])

    @property
    def selectors(self) -> list[int]:
        return list(self.model.groups.values())

    SUBTLE = ("frozen-units-block-pawns", "capture-colours", "en-passant", "castling-rights",
              "kings-never-captured", "bishops-keep-colour")
    BASIC = ("file-changes-are-captures", "captures-remove-units")

    def _subtle(self, name: str) -> bool:
        return name in self.SUBTLE or name.startswith(("cage: ", "frozen "))

    def mus_orders(self) -> list[list[int]]:
        """Orders in which a MUS tries to drop the selectors (the earlier, the likelier left
        out): the subtler facts first (cages, colours, castling), then assumptions, then the
        units of one side, then the other's, the basic counting rules last."""
        g = self.model.groups
        subtle = [n for n in g if n.startswith(("cage: ", "frozen "))] + \
                 [n for n in self.SUBTLE if n in g]
        assumed = [a.name for a in self.assumptions]
        units = [n for n in g if n not in subtle and n not in self.BASIC and n not in assumed]
        white = [n for n in units if n.startswith("white ")]
        black = [n for n in units if n not in white]
        basic = [n for n in self.BASIC if n in g]
        return [[g[n] for n in subtle + assumed + a + b + basic] for a, b in ((white, black), (black, white))]

    def core_weight(self, core: list[int]) -> tuple[int, int]:
        """Readability of a core: subtle facts weigh 2, the others 1."""
        names = self.names_of(core)
        return sum(2 if self._subtle(n) else 1 for n in names), len(names)

    def names_of(self, sels: list[int]) -> list[str]:
        back = {v: k for k, v in self.model.groups.items()}
        return [back[s] for s in sels]
