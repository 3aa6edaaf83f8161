"""Popeye input files (issue #20; the language of Popeye's py-engl.txt): BeginProblem ...
EndProblem, several problems joined by NextProblem, Author/Origin/Title, Forsyth or Pieces
(S for the knight), Stipulation dia8 / dia 7.5 (proof games), Option MaxTime N (the problem's
time limit) and Twin / ZeroPosition with the board changes of retrologic.formats.twins.

Keywords are case-insensitive and may be abbreviated to any unique prefix, as Popeye reads
them. Anything whose meaning we do not implement (fairy conditions and pieces, other
stipulations, options that change the play) is an error naming file, line and keyword, never
ignored: a problem read differently from how Popeye reads it would be solved wrongly.
Published solutions travel in `Remark Solution: 1.e4 ...` lines (twins labelled `a)`, `b)`),
our own convention: Popeye has no solution keyword; they become the [expect] table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import chess

from retrologic.files import read_text
from retrologic.schema import MAX_TOML_BYTES
from retrologic.formats import twins
from retrologic.formats.entry import (Entry, check_diagram, fail, games_by_twin, plies_of,
                                      spg_table)
from retrologic.formats.notation import NotationError, normalize_fen, place_spec, split_solutions
from retrologic.spg.checker import moves_text

SUFFIXES = (".pop", ".inp")
_SPEC = re.compile(r"^[a-z][a-z0-9]?(?:[a-h][1-8])+$", re.IGNORECASE)
COMMANDS = ("beginproblem", "endproblem", "nextproblem", "remark", "author", "origin", "title",
            "protocol", "condition", "option", "stipulation", "sstipulation", "forsyth",
            "pieces", "twin", "zeroposition")
TEXT_COMMANDS = ("remark", "author", "origin", "title", "protocol")
# Popeye's options (py-engl.txt): the ones that only change what is printed are ignored,
# MaxTime sets the time limit, every other one changes the problem and is refused.
OPTIONS = ("try", "defence", "setplay", "threat", "whitetoplay", "variation", "movenumbers",
           "startmovenumber", "nowk", "nobk", "duplex", "nothreat", "maxsolutions",
           "maxflightsquares", "enpassant", "castlingmutuallyexclusive", "noboard",
           "noshortvariations", "halfduplex", "postkeyplay", "nontrivial", "intelligent",
           "maxtime", "nocastling", "quodlibet", "stoponshortsolutions", "beep",
           "suppressgrid", "writegrid", "keepmatingpiece", "lastcapture", "goalisend")
IGNORED_OPTIONS = ("noboard", "movenumbers", "noshortvariations", "beep", "suppressgrid",
                   "writegrid")


@dataclass
class Token:
    text: str
    line: int
    source: str             # its whole line
    end: int                # where it ends in its line

    @property
    def rest(self) -> str:
        """The rest of its line (for Author, Title, Remark ...), made when asked: made for
        every token, a line of 200,000 pieces took minutes (review of 2026-11-30)."""
        return self.source[self.end:].strip()


@dataclass
class _Problem:
    line: int
    meta: dict[str, list[str]] = field(default_factory=lambda: {"author": [], "origin": [],
                                                                "title": []})
    board: chess.Board | None = None
    stipulation: tuple[str, int] | None = None      # (text, line)
    time_limit: float | None = None
    remarks: list[str] = field(default_factory=list)
    twins: list[tuple[bool, list[tuple[str, list[str], int]]]] = field(default_factory=list)
    zero: bool = False


def _tokens(text: str) -> list[Token]:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"\S+", line):
            out.append(Token(m.group(), n, line, m.end()))
    return out


class _Reader:
    """A cursor over the tokens of one file."""

    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.toks = _tokens(text)
        self.i = 0

    def error(self, message: str, tok: Token | None, field: str, value: object = None):
        line = tok.line if tok else (self.toks[-1].line if self.toks else 1)
        return fail(message, self.file, line, field, value)

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, what: str, field: str) -> Token:
        tok = self.peek()
        if tok is None:
            raise self.error(f"{what} expected, the file ends", None, field)
        self.i += 1
        return tok

    def command(self, tok: Token, words: tuple[str, ...] = COMMANDS) -> str | None:
        try:
            return twins.word(tok.text, words)
        except NotationError as e:
            raise self.error(str(e), tok, "keyword", tok.text) from None

    def skip_line(self, tok: Token) -> None:
        while self.peek() is not None and self.peek().line == tok.line:  # type: ignore[union-attr]
            self.i += 1


def _pieces(r: _Reader, prob: _Problem, first: Token) -> None:
    board = prob.board if prob.board is not None else chess.Board(None)
    colour: str | None = None
    while (tok := r.peek()) is not None:
        try:
            c = twins.word(tok.text, twins.COLOURS) if not re.search(r"\d", tok.text) else None
        except NotationError:
            c = None
        if c is not None:
            if c == "neutral":
                raise r.error("neutral pieces are not supported", tok, "Pieces", tok.text)
            colour = c
            r.i += 1
            continue
        if not _SPEC.match(tok.text):
            if colour is None or r.command(tok) is None:
                raise r.error("a colour (White, Black) or a piece like Ke1 expected", tok,
                              "Pieces", tok.text)
            break
        if colour is None:
            raise r.error("a colour (White or Black) must come first", tok, "Pieces", tok.text)
        try:
            place_spec(board, colour == "white", tok.text)
        except NotationError as e:
            raise r.error(str(e), tok, "Pieces", tok.text) from None
        r.i += 1
    prob.board = board


def _forsyth(r: _Reader, prob: _Problem, first: Token) -> None:
    tok = r.take("a Forsyth board", "Forsyth")
    text = tok.text
    if re.search(r"[nN]", text):
        raise r.error("N is the nightrider in Popeye: write S for the knight", tok, "Forsyth",
                      text)
    try:
        board = chess.Board(None)
        board.set_board_fen(normalize_fen(text))
    except (ValueError, NotationError) as e:
        raise r.error(f"not a Forsyth board: {e}", tok, "Forsyth", text) from None
    prob.board = board


def _stipulation(r: _Reader, field: str) -> tuple[str, int]:
    tok = r.take("a stipulation", field)
    text = tok.text
    nxt = r.peek()
    if nxt is not None and re.match(r"^[a-z-]*dia$", text, re.IGNORECASE) \
            and re.match(r"^\d+(\.\d)?$", nxt.text):
        text += nxt.text                                   # `dia 7.5`
        r.i += 1
    return text, tok.line


def _safe(token: str, words: tuple[str, ...]) -> str | None:
    """The keyword a token abbreviates, None if none or several."""
    try:
        return twins.word(token, words)
    except NotationError:
        return None


def _option(r: _Reader, prob: _Problem, first: Token) -> None:
    while (tok := r.peek()) is not None:
        top = _safe(tok.text, COMMANDS)
        if top is not None and (tok.text.lower() == top or _safe(tok.text, OPTIONS) is None):
            return
        try:
            name = twins.word(tok.text, OPTIONS)
        except NotationError as e:
            raise r.error(str(e), tok, "Option", tok.text) from None
        if name is None:
            raise r.error("unknown option", tok, "Option", tok.text)
        r.i += 1
        if name == "maxtime":
            arg = r.take("a number of seconds", "Option MaxTime")
            if not re.match(r"^\d{1,9}$", arg.text) or int(arg.text) == 0:
                raise r.error("must be a whole number of seconds, at least 1", arg,
                              "Option MaxTime", arg.text)
            prob.time_limit = float(arg.text)
        elif name in IGNORED_OPTIONS:
            nxt = r.peek()
            if name == "beep" and nxt is not None and nxt.text.isdigit():
                r.i += 1
        else:
            raise r.error("option not supported (it changes the problem)", tok, "Option",
                          tok.text)


def _twin(r: _Reader, prob: _Problem, first: Token, zero: bool) -> None:
    if zero:
        if prob.twins:
            raise r.error("ZeroPosition must come before any Twin", first, "ZeroPosition")
        prob.zero = True
    continued = False
    changes: list[tuple[str, list[str], int]] = []
    while (tok := r.peek()) is not None:
        top = _safe(tok.text, COMMANDS) if not re.search(r"\d", tok.text) else None
        if top in ("twin", "zeroposition", "endproblem", "nextproblem") or (
                top is not None and _safe(tok.text, tuple(twins.ARITY)) is None):
            break
        try:
            name = twins.word(tok.text, tuple(twins.ARITY))
        except NotationError as e:
            raise r.error(str(e), tok, "Twin", tok.text) from None
        if name is None:
            raise r.error("unknown twinning command", tok, "Twin", tok.text)
        r.i += 1
        if name == "continued":
            continued = True
            continue
        if name == "condition":
            raise r.error("fairy conditions are not supported", tok, "Twin", tok.text)
        if name == "stipulation":
            text, line = _stipulation(r, "Twin Stipulation")
            changes.append((name, [text], line))
            continue
        args: list[str] = []
        if name == "add":
            while (a := r.peek()) is not None and (not args or _SPEC.match(a.text)):
                args.append(a.text)
                r.i += 1
        else:
            for _ in range(twins.ARITY[name]):
                args.append(r.take(f"an argument of {name}", f"Twin {name}").text)
        changes.append((name, args, tok.line))
    prob.twins.append((continued, changes))


def _finish(r: _Reader, prob: _Problem, end: Token) -> list[Entry]:
    """The entries of one problem: the diagram (unless ZeroPosition) and each twin."""
    file = r.file
    if prob.board is None:
        raise fail("no position (Pieces or Forsyth)", file, prob.line, "Pieces")
    if prob.stipulation is None:
        raise fail("no stipulation", file, prob.line, "Stipulation")
    solutions: dict[str, list[str]] = {}
    text = " ".join(prob.remarks)
    if text:
        solutions = split_solutions(text)
    meta: dict[str, object] = {}
    if prob.meta["author"]:
        meta["authors"] = prob.meta["author"]
    if prob.meta["origin"]:
        meta["source"] = "; ".join(prob.meta["origin"])
    stem = Path(file).stem
    variants: list[tuple[chess.Board, tuple[str, int], str, int]] = []
    if not prob.zero:
        variants.append((prob.board, prob.stipulation, "", prob.line))
    last_board, last_stip = prob.board, prob.stipulation
    for continued, changes in prob.twins:
        board = (last_board if continued else prob.board).copy()
        stip = last_stip if continued else prob.stipulation
        line = changes[0][2] if changes else prob.line
        for name, args, at in changes:
            if name == "stipulation":
                stip = (args[0], at)
                continue
            try:
                twins.apply(board, name, args)
            except NotationError as e:
                raise fail(str(e), file, at, f"Twin {name}", " ".join(args)) from None
        label = " ".join(f"{n} {' '.join(a)}".strip() for n, a, _ in changes)
        variants.append((board, stip, label, line))
        last_board, last_stip = board, stip
    out = []
    published = games_by_twin(solutions, len(variants), file, prob.line, "Remark Solution")
    for k, (board, (stip, sline), label, line) in enumerate(variants):
        letter = twins.twin_label(k)
        m = re.match(r"^dia(\d+(?:\.\d)?)$", stip, re.IGNORECASE)
        if not m:
            what = "series proof games are" if stip.lower().startswith("ser") else \
                "this stipulation is"
            raise fail(f"{what} not supported (only proof games: dia8, dia 7.5)", file,
                       sline, "Stipulation", stip)
        plies = plies_of(stip, file, sline, "Stipulation")
        check_diagram(board, file, line, "Pieces")
        twin_text = f" (twin {letter}: {label})" if label else ""
        title = "; ".join(prob.meta["title"]) or \
            f"{meta.get('authors', [stem])[0]}: proof game in {moves_text(plies)}"  # type: ignore[index]
        m_meta = {**meta, "title": title + twin_text}
        table = spg_table(board, plies, m_meta, published[k], file, line, "Remark Solution")
        out.append(Entry(table, file, line, prob.time_limit))
    return out


def read(path: str | Path, text: str | None = None) -> list[Entry]:
    """Every problem (and twin) of a Popeye input file, in file order."""
    file = str(path)
    r = _Reader(file, read_text(path, limit=MAX_TOML_BYTES, what="Popeye file")
                if text is None else text)
    out: list[Entry] = []
    prob: _Problem | None = None
    while (tok := r.peek()) is not None:
        cmd = r.command(tok)
        if cmd is None:
            raise r.error("unknown keyword", tok, "keyword", tok.text)
        r.i += 1
        if prob is None:
            if cmd == "remark":                 # a comment before the first problem
                r.skip_line(tok)
                continue
            if cmd != "beginproblem":
                raise r.error("the file must start with BeginProblem", tok, "keyword", tok.text)
            prob = _Problem(tok.line)
            continue
        if cmd == "beginproblem":
            raise r.error("BeginProblem inside a problem (end it with NextProblem)", tok,
                          "keyword", tok.text)
        if cmd in TEXT_COMMANDS:
            if cmd == "remark":
                low = tok.rest.lower()
                if low.startswith("solution"):
                    prob.remarks.append(re.sub(r"^solution\s*:?", "", tok.rest, flags=re.I))
                elif prob.remarks and re.match(r"^(\d+\.|\+?[a-z]\))", tok.rest):
                    prob.remarks.append(tok.rest)
            elif cmd != "protocol":
                prob.meta[cmd].append(tok.rest)
            r.skip_line(tok)
        elif prob.twins and cmd in ("forsyth", "pieces", "stipulation", "option"):
            # Popeye takes only Remark after the twins; read here, it changed the diagram a)
            # (a twin's Forsyth replaced it: review of 2026-11-30)
            raise r.error(f"{tok.text} after a Twin (a twin's changes are Twin commands; "
                          "Forsyth is no twinning command here)", tok, "keyword", tok.text)
        elif cmd == "forsyth":
            _forsyth(r, prob, tok)
        elif cmd == "pieces":
            _pieces(r, prob, tok)
        elif cmd == "stipulation":
            if prob.stipulation is not None:     # Popeye's error too; never the last one
                raise r.error("a second Stipulation", tok, "Stipulation", tok.rest)
            prob.stipulation = _stipulation(r, "Stipulation")
        elif cmd == "option":
            _option(r, prob, tok)
        elif cmd in ("twin", "zeroposition"):
            _twin(r, prob, tok, cmd == "zeroposition")
        elif cmd in ("condition", "sstipulation"):
            what = "fairy conditions are" if cmd == "condition" else \
                "structured stipulations are"
            raise r.error(f"{what} not supported", tok, tok.text, tok.rest)
        else:                                   # endproblem, nextproblem
            out.extend(_finish(r, prob, tok))
            prob = None
            if cmd == "endproblem":
                break
            nxt = r.peek()                      # NextProblem: the next problem begins here
            if nxt is None:
                raise r.error("NextProblem at the end of the file (end with EndProblem)", tok,
                              "keyword", tok.text)
            prob = _Problem(nxt.line)
    if prob is not None:
        raise r.error("the problem is not ended (EndProblem or NextProblem)", None, "keyword")
    if not out:
        raise fail("no problem (BeginProblem ... EndProblem)", file, 1, "BeginProblem")
    return out


def looks_like(text: str) -> bool:
    """True when a text starts (after blank lines) with an abbreviation of BeginProblem."""
    m = re.match(r"\s*(\S+)", text)
    return bool(m) and len(m.group(1)) >= 3 and "beginproblem".startswith(m.group(1).lower())
