"""The certificate format: what a checker answers and how certificates are written.

Shared by the engines that write certificates (stamp, write, Destination) and the checkers that
read them (Verdict, Rejected, verdict_of, short, shown, frozen_mask). The dispatch from a
certificate's type to its checker is retrologic.certificate, which imports the checkers; this
module imports none of them, so a checker (and any engine module it relies on) can import it
without an import cycle.
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    import chess

    from retrologic.position import Placement, Position

FORMAT = 2                 # certificate format version (1: before issue 17, no metadata)
MAX_REASON = 200           # characters of a reason (an accepted claim: MAX_CLAIM)
MAX_CLAIM = 700            # characters of the claim of an accepted certificate (the checkers
                           # state long lists by count: `whole_or_counted`)


@dataclass
class Verdict:
    """A checker's answer: accepted (the reason states the claim proved) or rejected (why);
    `stopped`: neither, the check's time limit or Ctrl-C ended it first (the limit's reason;
    `ok` is then False, but the certificate was not found wrong)."""

    type: str
    ok: bool
    reason: str = ""
    stopped: str | None = None


_budget: Any = None     # the limits of the check in progress (`checking`), a limits.Budget


@contextmanager
def checking(budget: Any) -> Iterator[None]:
    """Run a certificate check under `budget` (a limits.Budget: the check's time limit and
    Ctrl-C), which the checkers' long loops look at through `tick`."""
    global _budget
    saved, _budget = _budget, budget
    try:
        yield
    finally:
        _budget = saved


def tick() -> None:
    """Called by a checker's long loops: LimitHit when the check in progress is out of time or
    interrupted (nothing outside `checking`). Each call is charged as one step to the check's
    budget, the count `check --progress` shows (the check has no node limit)."""
    if _budget is not None:
        _budget.check(1, every=1)           # callers tick every few dozen steps: read the clock


def check_budget() -> Any:
    """The limits.Budget of the check in progress (None outside `checking`): for a checker that
    re-runs an engine under it (the last-move checker's cage re-verification)."""
    return _budget


class Rejected(ValueError):
    """A malformed or false part of a certificate; the message is the reason it is rejected."""


def format_fault(cert: dict[str, Any]) -> str | None:
    """Why a certificate's `format` and `retrologic` fields are not acceptable (None: they are);
    asked of every certificate, the embedded ones included (a cage proof's lemmas, the facts of
    a SAT cage proof)."""
    fmt = cert.get("format")
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        return (f"no integer 'format' field (got {shown(fmt)}): a certificate of format "
                f"{FORMAT} is expected (re-create it with this retrologic)")
    if fmt != FORMAT:
        return f"unsupported certificate format {fmt} (this retrologic reads format {FORMAT})"
    if not isinstance(cert.get("retrologic"), str):
        return ("'retrologic' (the version that wrote it) must be a string, not "
                f"{shown(cert.get('retrologic'))}")
    return None


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


def whole_or_counted(items: list[str], limit: int, what: str, sep: str = "; ") -> str:
    """The items of an accepted claim (its assumptions, its restrictions) joined by `sep`, or,
    when that is longer than `limit`, their count and where to read them: an accepted
    certificate's line is cut at MAX_CLAIM characters, and a claim cut in the middle of an
    expression reads as another claim (found in review, 2026-11-30: a long assumption left
    `claim 'c' (captures(white) >= 5 -…` of `>= 5 - 4`)."""
    text = sep.join(items)
    if len(text) <= limit:
        return text
    if len(items) == 1:
        return f"one {what} too long for this line (the certificate states it)"
    return f"{len(items)} {what}s (too long for this line: the certificate states them)"


def shown(value: Any, limit: int = 40) -> str:
    """A value quoted in a reason, cut short (a certificate may hold megabytes in one field)."""
    return short(repr(value), limit)


def frozen_mask(names: Any, placement: Placement) -> int:
    """The frozen units a certificate states (a list of square names), as a mask; ValueError
    when it is not such a list, names an empty square (a frozen unit must stand there) or a
    unit where none of its type and colour starts the game (frozen: it never moved)."""
    import chess
    from retrologic.position import away_from_home
    if not isinstance(names, list) or not all(n in chess.SQUARE_NAMES for n in names):
        raise ValueError("'frozen' must be a list of square names")
    mask = 0
    for name in names:
        mask |= chess.BB_SQUARES[chess.parse_square(name)]
    if mask & ~placement.occupied:
        raise ValueError("a frozen square is empty")
    if away_from_home(placement, mask):
        raise ValueError("a frozen unit stands where no unit of its type and colour starts")
    return mask


def stated_position(cert: dict[str, Any]) -> Position:
    """The position a certificate states in its 'fen' field; Rejected when it is not a FEN."""
    from retrologic.position import Position
    fen = cert.get("fen")
    if not isinstance(fen, str):
        raise Rejected("'fen' must be a FEN string")
    try:
        return Position.from_fen(fen)
    except ValueError as e:
        raise Rejected(f"bad fen: {str(e)[:80]}") from None


def same_stated_position(stated: Any, pos: Position | chess.Board, *,
                         side_to_move: bool = True, frozen: int = 0) -> None:
    """The problem's position a certificate repeats (its `position` table: fen or board,
    frozen, to_move), when given, must be the position the certificate proves something about
    (`pos`; a python-chess board: the units on `frozen`): placement, side to move (unless
    `side_to_move` is False: a claim that does not depend on it, as deduce's), castling rights,
    e.p. square and frozen units; Rejected otherwise. One comparison for the checkers of
    lastmove, deduce and legal-game certificates."""
    import chess
    from retrologic.position import Position, parse
    if not isinstance(stated, dict) or not stated:
        return
    if isinstance(pos, chess.Board):
        pos = Position.from_board(pos, frozen=frozen)
    try:
        other = parse(fen=stated.get("fen"), board=stated.get("board"),
                      frozen=stated.get("frozen"), to_move=stated.get("to_move"))
    except (ValueError, TypeError) as e:
        raise Rejected(f"the stated position is malformed: {str(e)[:80]}") from None
    if not side_to_move:
        other = other.with_turn(pos.turn)
    differ = [name for name, mine, theirs in (
        ("placement", other.placement, pos.placement), ("side to move", other.turn, pos.turn),
        ("castling rights", other.castling, pos.castling),
        ("e.p. square", other.ep_square, pos.ep_square),
        ("full or partial", other.partial, pos.partial)) if mine != theirs]
    if differ:
        # the differing fields named: a side to move left open ("?") prints as "w" in a FEN
        # (found in review, 2026-11-30: "... w ... is not the certificate's ... w ...")
        raise Rejected(f"the stated position {other.fen()} is not the certificate's {pos.fen()}"
                       f" ({', '.join(differ)}"
                       + (f": {_side(other.turn)} against {_side(pos.turn)}"
                          if "side to move" in differ else "") + ")")
    if other.frozen != pos.frozen:
        raise Rejected(f"the stated position's frozen units {square_names(other.frozen)} are not "
                       f"the certificate's {square_names(pos.frozen)}")


def _side(turn: bool | None) -> str:
    """A side to move in a reason: white, black or "?" (open)."""
    import chess
    return "?" if turn is None else chess.COLOR_NAMES[turn]


def square_names(mask: int) -> str:
    """Square names of `mask`, comma-separated ("none" when empty)."""
    import chess
    return ",".join(chess.square_name(s) for s in chess.scan_forward(mask)) or "none"


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

    def write(self, cert: dict[str, Any], kind: str, limit: int | None = None) -> Path | None:
        """Stamp `cert` with the metadata and write it; returns the path written (None: over
        `limit` bytes, not written)."""
        return write(stamp(cert, **self.meta), self.directory / f"{self.stem}.{_stem(kind)}.json",
                     limit)

    def stating(self, **meta: Any) -> "Destination":
        """The same destination with some metadata stated anew (the question as the engine
        read it, one side's position of a duplex problem)."""
        return replace(self, meta={**self.meta, **meta})


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
    from retrologic.version import __version__
    out = dict(cert)
    out["format"] = FORMAT
    out["retrologic"] = __version__
    for key, value in (("question", question), ("position", position), ("problem", problem)):
        if value is not None:
            out[key] = _jsonable(value)
    return out


def write(cert: dict[str, Any], path: str | Path, limit: int | None = None) -> Path | None:
    """Write a certificate as JSON, atomically (temporary file + rename), creating the
    directory; an existing file is never overwritten (the name gets a `-2`, `-3`... suffix).
    Returns the path written, or None when the text passes `limit` bytes (a file `check` would
    refuse to read is not written); InputError naming --certificate-dir when the system refuses
    (a file where the directory should be, no permission, a full disk)."""
    from retrologic.files import atomic_write_text, exclusive_path, refused_writes
    text = json.dumps(stamp(cert), indent=1) + "\n"        # ASCII (ensure_ascii): a char a byte
    if limit is not None and len(text) > limit:
        return None
    with refused_writes("a certificate", field="--certificate-dir", value=str(Path(path).parent)):
        return atomic_write_text(exclusive_path(Path(path)), text)
