"""Question kind `trajectory`: a unit's distance map, its shortest or admissible trajectory bundle
(Maliković §5-7, 9, 11), the bundle's size, docks and obstacles, and an SVG of its squares."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import chess

from retrologic.spg import trajectory as T
from retrologic.errors import InputError, shown
from retrologic.result import Result, Verdict
from retrologic.schema import Field, parse_color, parse_square, parse_squares

KIND = "trajectory"
POSITION = "none"     # obstacles come from the question's own optional `board` and `frozen`

PIECE_NAMES = {"k": chess.KING, "king": chess.KING, "q": chess.QUEEN, "queen": chess.QUEEN,
               "r": chess.ROOK, "rook": chess.ROOK, "b": chess.BISHOP, "bishop": chess.BISHOP,
               "n": chess.KNIGHT, "knight": chess.KNIGHT, "s": chess.KNIGHT,
               "p": chess.PAWN, "pawn": chess.PAWN}
DEFAULT_LIMIT = 200
# Upper bounds of the numbers a question may give (checked before anything runs): the map work
# grows with length x degree (measured: a king's degree-8 bundle of length 64 takes 3 s, degree
# 16 takes 10 s, length 10^8 took 47 s), and a list of more than MAX_LIMIT routes is unreadable.
MAX_LENGTH = 64
MAX_DEGREE = 8
MAX_LIMIT = 100_000


def parse_piece(text: Any) -> int:
    """A piece type from 'K', 'king', 'N', 'knight' … (case-insensitive)."""
    key = text.strip().lower() if isinstance(text, str) else ""
    if key not in PIECE_NAMES:
        raise ValueError(f"not a piece: {shown(text, 40)} (expected K, Q, R, B, N or P)")
    return PIECE_NAMES[key]


def _promotion(text: Any) -> int:
    piece = parse_piece(text)
    if piece not in T.PROMOTION_PIECES:
        raise ValueError(f"a pawn promotes to Q, R, B or N, not {shown(text, 40)}")
    return piece


def _at_least(n: int, most: int | None = None):
    """A Field check: a whole number of at least `n` (and at most `most`)."""
    def check(v: int) -> int:
        if v < n:
            raise ValueError(f"must be at least {n}")
        if most is not None and v > most:
            raise ValueError(f"must be at most {most:,}")
        return v
    return check


QUESTION = {
    "piece": Field(str, check=parse_piece, doc="K, Q, R, B, N or P (from the position if omitted)"),
    "color": Field(str, check=parse_color, doc="white or black (from the position if omitted)"),
    "from": Field(str, required=True, check=parse_square, doc="start square"),
    "to": Field(str, check=parse_square, doc="target square (without it: the distance map only)"),
    "length": Field(int, check=_at_least(0, MAX_LENGTH),
                    doc=f"trajectory length (default: the shortest; at most {MAX_LENGTH})"),
    "degree": Field(int, check=_at_least(1, MAX_DEGREE), doc="admissible degree (default 2 when "
                    f"length > shortest, else 1; at most {MAX_DEGREE})"),
    "block": Field((list, str), default=[], check=parse_squares,
                   doc="unmovable obstacles: squares neither entered nor crossed"),
    "no_entry": Field((list, str), default=[], check=parse_squares, doc="squares not entered"),
    "no_cross": Field((list, str), default=[], check=parse_squares, doc="squares not crossed"),
    "captures": Field(int, check=_at_least(0), doc="pawns: exactly this many captures"),
    "promote": Field(str, check=_promotion, doc="pawns: continue as this promoted piece"),
    "limit": Field(int, default=DEFAULT_LIMIT, check=_at_least(0, MAX_LIMIT),
                   doc="list the trajectories only when there are at most this many"),
    "board": Field(str, doc="a placement (or FEN) whose units are obstacles; the unit on "
                            "'from' is the one that moves"),
    "frozen": Field((list, str), doc="units of 'board' that never move: unmovable obstacles"),
}
EXPECT = {"distance", "reachable", "count", "first_moves", "docks", "squares", "map", "sum_map",
          "min_captures", "obstacles", "clear_count", "length", "degree"}
UNORDERED = frozenset({"answer", "first_moves", "docks", "squares", "obstacles"})


def obstacle_position(q: dict[str, Any], *, where: str = "question", file: str | None = None):
    """The Position given by the question's `board` (placement or FEN) and `frozen`, or None."""
    if q.get("board") is None:
        if q.get("frozen"):
            raise InputError("needs a 'board' to freeze units of", file=file,
                             field=f"{where}.frozen" if where else "frozen", value=q["frozen"])
        return None
    from retrologic.position import parse
    text = q["board"].strip()
    try:
        return parse(fen=text, frozen=q.get("frozen")) if " " in text else \
            parse(board=text, frozen=q.get("frozen"))
    except ValueError as e:
        field = "frozen" if "frozen" in str(e) else "board"
        raise InputError(str(e), file=file, field=f"{where}.{field}" if where else field,
                         value=q.get(field)) from None


def answer(q: dict[str, Any], *, where: str = "question", file: str | None = None) -> Result:
    """Answer a validated question table (squares and pieces already parsed)."""
    def bad(field: str, message: str, value: Any = None) -> InputError:
        return InputError(message, file=file, field=f"{where}.{field}" if where else field,
                          value=value)

    position = obstacle_position(q, where=where, file=file)
    start = q["from"]
    piece, color = q.get("piece"), q.get("color")
    movable = capturable = 0
    unmovable = T.mask_of(q.get("block") or [])
    if position is not None:
        unit = position.placement.piece_at(start)
        if unit is None and (piece is None or color is None):
            raise bad("from", "no unit stands there on the board; give piece and color",
                      chess.square_name(start))
        if unit is not None:
            if piece is not None and piece != unit.piece_type:
                raise bad("piece", f"the position has a {chess.piece_name(unit.piece_type)} on "
                          f"{chess.square_name(start)}", chess.piece_symbol(piece).upper())
            if color is not None and color != unit.color:
                raise bad("color", f"the unit on {chess.square_name(start)} is "
                          f"{chess.COLOR_NAMES[unit.color]}", chess.COLOR_NAMES[color])
            piece, color = unit.piece_type, unit.color
        others = position.placement.occupied & ~chess.BB_SQUARES[start]
        unmovable |= position.immobile & others
        movable = others & ~unmovable
        capturable = movable & position.placement.color_mask(not color)
    if piece is None:
        raise bad("piece", "missing required field (or give a board with a unit on 'from')")
    if color is None:
        raise bad("color", "missing required field (or give a board with a unit on 'from')")
    kw = dict(no_entry=T.mask_of(q.get("no_entry") or []),
              no_cross=T.mask_of(q.get("no_cross") or []),
              captures=q.get("captures"), promote=q.get("promote"))
    if piece != chess.PAWN:
        for name in ("captures", "promote"):
            if kw[name] is not None:
                raise bad(name, "applies to pawns only", q[name])
    elif kw["captures"] is not None and kw["captures"] > T.MAX_PAWN_CAPTURES:
        raise bad("captures", f"a pawn makes at most {T.MAX_PAWN_CAPTURES} captures",
                  kw["captures"])
    if piece == chess.PAWN and chess.square_rank(start) in (0, 7):
        raise bad("from", "a pawn cannot stand on rank 1 or rank 8", chess.square_name(start))

    name = f"{chess.COLOR_NAMES[color]} {chess.piece_name(piece)}"
    if kw["promote"]:
        name += f" (promoting to {chess.piece_name(kw['promote'])})"
    dmap = T.distance_map(piece, color, start, unmovable, **kw)
    facts: dict[str, Any] = {"map": T.grid(dmap)}
    details: dict[str, Any] = {"unit": name, "from": chess.square_name(start), "piece": piece,
                               "color": color, "unmovable_mask": unmovable}
    if piece == chess.PAWN:
        facts["min_captures"] = T.grid(T.min_captures_map(color, start, unmovable,
                                                          no_entry=kw["no_entry"],
                                                          no_cross=kw["no_cross"],
                                                          promote=kw["promote"]))
    target = q.get("to")
    if target is None:
        for key in ("length", "degree"):
            if q.get(key) is not None:
                raise bad(key, "needs a target square ('to')", q[key])
        lines = [f"{name} on {chess.square_name(start)}: distance map "
                 f"('-' unreachable, '#' unmovable obstacle)"]
        lines += _map_lines(dmap, 0, unmovable)
        return Result(KIND, Verdict.PROVED, None, facts=facts, details=details, lines=lines,
                      unordered=UNORDERED)

    shortest = dmap[target]
    reachable = shortest < T.UNREACHABLE
    length = q.get("length")
    if length is None:
        length = shortest if reachable else 0
    degree = q.get("degree") or (2 if reachable and length > shortest else 1)
    facts.update(reachable=reachable, length=length, degree=degree,
                 sum_map=T.grid(T.sum_map(piece, color, start, target, unmovable, **kw)))
    if reachable:
        facts["distance"] = shortest
    args = (piece, color, start, target)
    if degree == 1:
        count = T.count_shortest(*args, unmovable, **kw) if length == shortest else 0
    else:
        count = T.count_admissible(*args, length, degree, unmovable, **kw)
        facts["docks"] = [chess.square_name(s) for s in T.docks(*args, length, unmovable, **kw)]
    facts["count"] = count
    trajectories: list[tuple[int, ...]] | None = None
    if count <= q.get("limit", DEFAULT_LIMIT):
        trajectories = T.admissible_bundle(*args, length, degree, unmovable, **kw) if count else []
        trajectories.sort(key=T.trajectory_text)
    squares = _bundle_mask(piece, color, start, target, length, degree, unmovable, kw, count,
                           trajectories)
    facts["squares"] = [chess.square_name(s) for s in chess.scan_forward(squares)]
    firsts = ({t[1] for t in trajectories if len(t) > 1} if trajectories is not None
              else set(T.first_moves(*args, unmovable, **kw)) if degree == 1 else None)
    if firsts is not None:
        facts["first_moves"] = sorted(chess.square_name(s) for s in firsts)

    kind_text = "shortest" if degree == 1 else f"admissible (degree {degree})"
    head = (f"{name} {chess.square_name(start)} -> {chess.square_name(target)}: "
            + (f"distance {shortest}; {count} {kind_text} trajectories of length {length}"
               if reachable else "unreachable: no trajectory"))
    lines = [head, "distance map ('*' on the bundle, '#' unmovable obstacle, '-' unreachable):"]
    lines += _map_lines(dmap, squares, unmovable)
    if "docks" in facts:
        lines.append("docks: " + (" ".join(facts["docks"]) or "none"))
    answer_list = None
    if trajectories is not None:
        answer_list = [T.trajectory_text(t) for t in trajectories]
        per: dict[str, list[str]] = {}
        if position is not None:
            for t, text in zip(trajectories, answer_list):
                per[text] = [chess.square_name(s) for s in
                             T.movable_obstacles(piece, color, t, movable, capturable,
                                                 promote=kw["promote"])]
            facts["obstacles"] = sorted({s for v in per.values() for s in v})
            facts["clear_count"] = sum(1 for v in per.values() if not v)
            details["movable_obstacles"] = per
        lines.append(f"bundle ({count}):")
        for text in answer_list:
            extra = ""
            if per.get(text):
                extra = "   (first move away: " + ", ".join(per[text]) + ")"
            caps = T.capture_squares(piece, color, [parse_square(s) for s in text.split("-")])
            if caps:
                extra += "   captures on " + ", ".join(chess.square_name(s) for s in caps)
            lines.append(f"  {text}{extra}")
    else:
        lines.append(f"bundle: {count} trajectories, more than the limit "
                     f"{q.get('limit', DEFAULT_LIMIT)}: not listed (raise 'limit' to list them)")
    details["squares_mask"] = squares
    return Result(KIND, Verdict.PROVED, answer_list, facts=facts, details=details, lines=lines,
                  unordered=UNORDERED)


def _bundle_mask(piece, color, start, target, length, degree, unmovable, kw, count,
                 trajectories) -> int:
    """Squares on the bundle: from the list when we have it, from the SUM map for shortest."""
    if not count:
        return 0
    if trajectories is not None:
        out = 0
        for t in trajectories:
            for s in t:
                out |= chess.BB_SQUARES[s]
        return out
    if degree == 1:
        return T.bundle_squares(piece, color, start, target, unmovable, **kw)
    # admissible and too many to list: a square is on the bundle iff it is on a shortest route
    # start -> dock or dock -> target for some dock joining a nonempty admissible bundle
    out = 0
    for d in T.docks(piece, color, start, target, length, unmovable, **kw):
        out |= T.bundle_squares(piece, color, start, d, unmovable, **kw)
        out |= T.bundle_squares(piece, color, d, target, unmovable, **kw)
    return out


def _map_lines(dmap, marks: int, unmovable: int) -> list[str]:
    lines = T.render_map(dmap, marks)
    out = []
    for r, line in zip(range(7, -1, -1), lines):
        cells = [line[2 + 4 * f: 6 + 4 * f] for f in range(8)]
        for f in range(8):
            if unmovable & chess.BB_SQUARES[chess.square(f, r)]:
                cells[f] = f"{'#':>4}"
        out.append(line[:2] + "".join(cells))
    out.append(lines[-1])
    return out


def svg(result: Result, q: dict[str, Any], size: int = 400) -> str:
    """A python-chess SVG diagram: the unit (and the position's units), the bundle's squares in
    green, the target darker, unmovable obstacles in red, an arrow from start to target."""
    import chess.svg
    position = obstacle_position(q, where="")
    board = chess.BaseBoard(None) if position is None else position.placement.to_board()
    board.set_piece_at(q["from"], chess.Piece(result.details["piece"], result.details["color"]))
    fill = {s: "#7fbf7f" for s in chess.scan_forward(result.details.get("squares_mask", 0))}
    for s in chess.scan_forward(result.details.get("unmovable_mask", 0)):
        fill[s] = "#d46a6a"
    arrows = []
    if q.get("to") is not None:
        fill[q["to"]] = "#3f8f3f"
        arrows.append(chess.svg.Arrow(q["from"], q["to"], color="#0000cc80"))
    return chess.svg.board(board, fill=fill, arrows=arrows, size=size)


def solve(problem, options) -> Result:
    return answer(problem.question, file=problem.path)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from retrologic.console import add_limit_arguments
    p.add_argument("--piece", help="K, Q, R, B, N or P (or the --board unit on --from)")
    p.add_argument("--color", help="white or black")
    p.add_argument("--from", dest="start", required=True, metavar="SQ", help="start square")
    p.add_argument("--to", metavar="SQ", help="target square (omit for the distance map only)")
    p.add_argument("--length", type=int, metavar="N", help="trajectory length (default: shortest)")
    p.add_argument("--degree", type=int, metavar="K", help="admissible degree (default 2 when "
                                                           "--length exceeds the shortest)")
    p.add_argument("--block", default="", metavar="SQ,...", help="unmovable obstacles")
    p.add_argument("--no-entry", default="", metavar="SQ,...", help="squares not entered")
    p.add_argument("--no-cross", default="", metavar="SQ,...", help="squares not crossed")
    p.add_argument("--captures", type=int, metavar="C", help="pawns: exactly C captures")
    p.add_argument("--promote", metavar="P", help="pawns: continue as the promoted piece P")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                   help=f"list at most N trajectories (default {DEFAULT_LIMIT})")
    p.add_argument("--board", metavar="FEN|BOARD", help="a position whose units are obstacles "
                   "(--frozen ones unmovable, the others reported as movable)")
    p.add_argument("--frozen", metavar="SQ,...", help="units of --board that never move")
    p.add_argument("--svg", metavar="FILE", help="write a diagram of the bundle's squares")
    add_limit_arguments(p, certificates=False)  # it writes no certificate


def run(args: argparse.Namespace) -> int:
    from retrologic.console import emit
    from retrologic.schema import validate
    table: dict[str, Any] = {"from": args.start}
    for key, value in (("piece", args.piece), ("color", args.color), ("to", args.to),
                       ("length", args.length), ("degree", args.degree),
                       ("captures", args.captures), ("promote", args.promote),
                       ("limit", args.limit), ("block", args.block),
                       ("no_entry", args.no_entry), ("no_cross", args.no_cross),
                       ("board", args.board), ("frozen", args.frozen)):
        if value is not None:
            table[key] = value
    q = validate(table, QUESTION, file=None, where="")
    result = answer(q, where="")
    if args.svg:
        from retrologic.files import atomic_write_text, refused_writes
        path = Path(args.svg)
        with refused_writes(field="--svg", value=args.svg):
            atomic_write_text(path, svg(result, q))       # never a half-written file
        result.lines.append(f"diagram written to {path}")
    return emit(result, args)
