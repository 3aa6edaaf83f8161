"""YACPDB entries (issue #20; the entry format of github.com/dturevski/olive-gui,
yacpdb/schemas/yacpdb-entry.md): YAML documents, one or many per file (`---` separated, or a
top-level list), with `authors`, `source`, `algebraic: {white: [...], black: [...]}` (S for
the knight), `stipulation` ("PG 8.0", "PG7.5", or "~1" with `non-standard-stipulation:
Last move?`), `twins` (Popeye syntax) and `solution`, which becomes the [expect] answer.

Read with PyYAML's safe loader (no object construction), keeping each node's line so an error
names file, line and field. Fields that would change the problem and that we do not
implement (`options`, `neutral` units, fairy pieces, other stipulations) are errors.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess

if TYPE_CHECKING:
    import yaml  # imported where YAML is read (issue #22: not on every problem's load)

from retrologic import problemfile
from retrologic.files import read_text
from retrologic.schema import MAX_TOML_BYTES
from retrologic.formats import twins
from retrologic.formats.entry import (Entry, check_diagram, fail, games_by_twin, plies_of,
                                      spg_table)
from retrologic.formats.notation import NotationError, place_spec, split_solutions
from retrologic.spg.checker import moves_text

SUFFIXES = (".yaml", ".yml")
# fields that describe the problem but change nothing of what is solved
INFORMATIVE = {"authors", "source", "award", "keywords", "comments", "reprints", "foreignids",
               "glyphs", "version-of", "versionists", "after", "correctors", "correction-of",
               "anticipated-by", "intended-solutions", "id", "ash", "date", "source-id",
               "distinction", "solution", "stipulation", "non-standard-stipulation",
               "algebraic", "twins", "options"}


def _lines(node: yaml.Node) -> dict[str, int]:
    """The 1-based line of each key of a mapping node."""
    import yaml
    out = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode):
                out[str(key.value)] = key.start_mark.line + 1
    return out


def _documents(file: str, text: str) -> list[tuple[Any, int, dict[str, int]]]:
    """(entry, line, key lines) of every entry: each YAML document, or each item of a
    document that is a list."""
    import yaml
    loader = None
    out = []
    try:
        loader = yaml.SafeLoader(text)  # ReaderError here: a character YAML does not allow
        while loader.check_node():
            node = loader.get_node()
            _no_key_twice(node, file)
            data = loader.construct_document(node)
            if isinstance(node, yaml.SequenceNode):
                for item, sub in zip(data, node.value):
                    out.append((item, sub.start_mark.line + 1, _lines(sub)))
            elif data is not None:
                out.append((data, node.start_mark.line + 1, _lines(node)))
    except yaml.reader.ReaderError as e:      # at a character index, not a mark
        line = text.count("\n", 0, max(e.position, 0)) + 1
        code = e.character if isinstance(e.character, int) else ord(e.character)
        raise fail(f"malformed YAML: character U+{code:04X} is not allowed", file, line,
                   "yaml") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise fail(f"malformed YAML: {getattr(e, 'problem', None) or e}", file, line,
                   "yaml") from None
    except RecursionError:
        raise fail("YAML nested too deeply", file, 1, "yaml") from None
    finally:
        if loader is not None:
            loader.dispose()
    return out


def _no_key_twice(root: yaml.Node, file: str) -> None:
    """A fault for a mapping that states a key twice (PyYAML keeps the last: a second
    `stipulation` silently replaced the first, review of 2026-11-30), and for an alias
    (`*name`: a node reached twice; nine levels of nine aliases made a "billion laughs" file
    that hung `solve` past its --timeout, review of 2026-11-30: YACPDB entries use none);
    walked without recursion."""
    import yaml
    stack = [root]
    visited: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in visited:
            raise fail("a YAML alias (*name): problem files use none", file,
                       node.start_mark.line + 1, "yaml")
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        raise fail("a key given twice", file, key.start_mark.line + 1,
                                   str(key.value)[:40])
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def _source(value: Any) -> str | None:
    """A YACPDB `source` (a mapping: name, issue, problemid, date.year) as one line."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return None
    parts = [str(value[k]) for k in ("name", "issue", "problemid") if value.get(k) is not None]
    date = value.get("date")
    if isinstance(date, dict) and date.get("year") is not None:
        parts.append(str(date["year"]))
    return ", ".join(parts) or None


def _board(data: dict[str, Any], file: str, line: int) -> chess.Board:
    algebraic = data.get("algebraic")
    if not isinstance(algebraic, dict):
        raise fail("missing or not a mapping {white: [...], black: [...]}", file, line,
                   "algebraic", algebraic)
    board = chess.Board(None)
    for key, units in algebraic.items():
        if key not in ("white", "black"):
            raise fail("only white and black units are supported", file, line,
                       f"algebraic.{key}", units)
        if not isinstance(units, list):
            raise fail("must be a list like [Ke1, Sb1]", file, line, f"algebraic.{key}", units)
        for unit in units:
            try:
                if not isinstance(unit, str) or " " in unit.strip():
                    raise NotationError("piece attributes are not supported")
                place_spec(board, key == "white", unit.strip())
            except NotationError as e:
                raise fail(str(e), file, line, f"algebraic.{key}", unit) from None
    return board


def _entries(data: Any, file: str, line: int, lines: dict[str, int]) -> list[Entry]:
    """The problem (and its twins) of one YACPDB entry."""
    if not isinstance(data, dict):
        raise fail("a YACPDB entry must be a mapping", file, line, "entry", data)
    at = lambda key: lines.get(key, line)                          # noqa: E731
    for key, value in data.items():
        if key not in INFORMATIVE:
            raise fail("unknown or unsupported field", file, at(key), str(key), value)
    if data.get("options"):
        raise fail("options and fairy conditions are not supported", file, at("options"),
                   "options", data["options"])
    board = _board(data, file, at("algebraic"))
    check_diagram(board, file, at("algebraic"), "algebraic")
    meta: dict[str, Any] = {}
    authors = data.get("authors")
    if authors is not None:
        if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
            raise fail("must be a list of names", file, at("authors"), "authors", authors)
        meta["authors"] = authors
    source = _source(data.get("source"))
    if source:
        meta["source"] = source
    stip = data.get("stipulation")
    special = data.get("non-standard-stipulation")
    solution = data.get("solution")
    if solution is not None and not isinstance(solution, str):
        raise fail("must be text", file, at("solution"), "solution", solution)
    if not isinstance(stip, str):
        raise fail("missing or not text", file, at("stipulation"), "stipulation", stip)
    who = (meta.get("authors") or [Path(file).stem])[0]
    if special is not None:
        return [_last_move(data, board, meta, who, file, line, at)]
    m = re.match(r"^\s*(?:pg|dia)\s*(\d+(?:\.\d)?)\s*$", stip, re.IGNORECASE)
    if not m:
        raise fail("not supported (proof games 'PG 8.0', or '~1' with 'Last move?')", file,
                   at("stipulation"), "stipulation", stip)
    plies = plies_of(stip, file, at("stipulation"), "stipulation")
    variants = [(board, plies, "")]
    tw = data.get("twins")
    if tw is not None:
        if not isinstance(tw, dict):
            raise fail("must be a mapping b: ..., c: ...", file, at("twins"), "twins", tw)
        variants.extend(_twins(board, plies, tw, file, at("twins")))
    published = games_by_twin(split_solutions(solution or ""), len(variants), file,
                              at("solution"), "solution")
    out = []
    for k, (b, p, label) in enumerate(variants):
        letter = twins.twin_label(k)
        games = published[k]
        check_diagram(b, file, at("twins") if label else at("algebraic"), "twins")
        title = f"{who}: proof game in {moves_text(p)}" + (f" (twin {letter}: {label})"
                                                             if label else "")
        table = spg_table(b, p, {**meta, "title": title}, games, file, at("solution"),
                          "solution")
        out.append(Entry(table, file, line))
    return out


# Popeye's reading of the stipulation a "Last move?" entry carries: who is to move now
LAST_MOVE_TURN = {"~1": "w", "h~1": "b"}
_LAST_MOVE = re.compile(r"^(?:what was (?:the )?)?(?:(white|black)'?s )?last move\??$",
                        re.IGNORECASE)


def _last_move(data: dict[str, Any], board: chess.Board, meta: dict[str, Any], who: str,
               file: str, line: int, at: Any) -> Entry:
    """A `Last move?` entry: the last-move question, its side to move from the stipulation
    (`~1`: White to move, as Popeye plays ~1; `h~1`: Black to move, help play beginning with
    Black), and the published solution as [expect] when it states one move (read against the
    engine's candidates: retrologic.formats.lastmove_text)."""
    from retrologic.formats import lastmove_text
    special, stip, solution = (data.get("non-standard-stipulation"), data["stipulation"],
                               data.get("solution"))
    m = _LAST_MOVE.match(special.strip()) if isinstance(special, str) else None
    if m is None:
        raise fail("not supported (only 'Last move?', 'White's last move?', 'Black's last "
                   "move?')", file, at("non-standard-stipulation"), "non-standard-stipulation",
                   special)
    turn = LAST_MOVE_TURN.get(stip.strip().replace(" ", ""))
    if turn is None:
        raise fail("a last-move entry needs '~1' (White to move) or 'h~1' (Black to move)",
                   file, at("stipulation"), "stipulation", stip)
    if m.group(1) and (m.group(1).lower() == "white") != (turn == "b"):
        raise fail(f"asks for {m.group(1)}'s last move but {stip.strip()!r} puts "
                   f"{m.group(1)} to move", file, at("stipulation"), "stipulation", stip)
    if data.get("twins"):
        raise fail("twins of a last-move problem are not supported", file, at("twins"),
                   "twins", data["twins"])
    fen = f"{board.board_fen()} {turn} - - 0 1"
    table: dict[str, Any] = {
        "format": problemfile.FORMAT,
        "meta": {**meta, "title": f"{who}: last move?", "stipulation": "Last move?"},
        "position": {"fen": fen}, "question": {"kind": "last-move"}}
    if solution and solution.strip():
        try:
            want, fitting = lastmove_text.expect(fen, solution)
        except (ValueError, lastmove_text.TextError) as e:
            raise fail(str(e), file, at("solution"), "solution", solution) from None
        if want is None:
            table["meta"]["notes"] = (f"published solution (not one move, not compared): "
                                      f"{solution.strip()}")
        else:
            table["expect"] = want
            table["meta"]["notes"] = f"published solution: {solution.strip()}" + (
                f" (fits {', '.join(fitting)}: " + (
                    "one move on the board, the unit taken left open)" if "on_board" in want
                    else "any one of them)") if len(fitting) > 1 else "")
    return Entry(table, file, line)


def _twins(board: chess.Board, plies: int, tw: dict[Any, Any], file: str,
           line: int) -> list[tuple[chess.Board, int, str]]:
    """The twins b), c), ... of an entry, Popeye's twinning syntax (`Move a1 a2`,
    `Continued Exchange a2 h7`, `Stipulation PG 7.5`)."""
    out = []
    last_board, last_plies = board, plies
    if "a" in tw:
        raise fail("zero-position twins (labelled a, b, ...) are not supported", file, line,
                   "twins", ", ".join(sorted(map(str, tw)))[:40])
    wanted = [chr(ord("b") + k) for k in range(len(tw))]
    if not all(isinstance(label, str) for label in tw) or sorted(map(str, tw)) != wanted:
        raise fail(f"twin labels: {', '.join(wanted)[:30]} in order", file,
                   line, "twins", ", ".join(sorted(map(str, tw)))[:40])
    for label in wanted:
        text = str(tw[label])
        toks = text.split()
        continued = bool(toks) and twins.word(toks[0], ("continued",)) == "continued"
        b = (last_board if continued else board).copy()
        p = last_plies if continued else plies
        i = 1 if continued else 0
        try:
            while i < len(toks):
                name = twins.word(toks[i], tuple(twins.ARITY))
                if name is None:
                    raise NotationError(f"unknown twinning command {toks[i]!r}")
                i += 1
                if name == "stipulation":
                    rest = " ".join(toks[i:])
                    m = re.match(r"^(?:pg|dia)\s*(\d+(?:\.\d)?)$", rest, re.IGNORECASE)
                    if not m:
                        raise NotationError(f"stipulation {rest!r} is not a proof game")
                    p = plies_of(rest, file, line, f"twins.{label}")
                    break
                if name == "add":
                    args = [toks[i]] if i < len(toks) else []
                    i += 1
                    while i < len(toks) and re.match(r"^[a-z][a-z0-9]?(?:[a-h][1-8])+$",
                                                     toks[i], re.IGNORECASE):
                        args.append(toks[i])
                        i += 1
                else:
                    n = twins.ARITY[name]
                    args = toks[i:i + n]
                    if len(args) < n:
                        raise NotationError(f"{name} needs {n} argument(s)")
                    i += n
                twins.apply(b, name, args)
        except NotationError as e:
            raise fail(str(e), file, line, f"twins.{label}", text) from None
        out.append((b, p, text))
        last_board, last_plies = b, p
    return out


def read(path: str | Path, text: str | None = None) -> list[Entry]:
    """Every problem (and twin) of a YACPDB YAML file, in file order."""
    file = str(path)
    text = read_text(path, limit=MAX_TOML_BYTES, what="YACPDB file") if text is None else text
    out: list[Entry] = []
    for data, line, lines in _documents(file, text):
        out.extend(_entries(data, file, line, lines))
    if not out:
        raise fail("no YACPDB entry", file, 1, "entry")
    return out


def looks_like(text: str) -> bool:
    """True when a text looks like YACPDB YAML (an `algebraic:` key)."""
    return bool(re.search(r"^\s*-?\s*algebraic\s*:", text, re.MULTILINE))
