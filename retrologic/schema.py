"""Validation of problem-file tables: every field typed, unknown fields are errors."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import chess

from retrologic.errors import InputError, shown

MAX_TOML_BYTES = 1024 * 1024    # a problem file or library entry (the largest shipped: 1.4 KB);
                                # tomllib takes about 2.5 s on a 1 MB file of one long array

_MISSING = object()


@dataclass(frozen=True)
class Field:
    """One allowed field of a table: its type(s), whether required, its default, an extra check."""

    types: type | tuple[type, ...]
    required: bool = False
    default: Any = None
    check: Callable[[Any], Any] | None = None  # returns the converted value or raises ValueError
    doc: str = ""


def _type_name(types: type | tuple[type, ...]) -> str:
    if not isinstance(types, tuple):
        types = (types,)
    names = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array",
             dict: "table"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def validate(table: Any, spec: Mapping[str, Field], *, file: str | None, where: str) -> dict[str, Any]:
    """Check `table` against `spec`; return a dict with defaults filled and checks applied."""
    if not isinstance(table, dict):
        raise InputError(f"must be a table, not {_type_name(type(table))}", file=file, field=where)
    out: dict[str, Any] = {}
    for key in table:
        if key not in spec:
            allowed = ", ".join(sorted(spec)) or "none"
            raise InputError(f"unknown field (allowed: {allowed})", file=file,
                             field=f"{where}.{key}" if where else key, value=table[key])
    for key, f in spec.items():
        name = f"{where}.{key}" if where else key
        value = table.get(key, _MISSING)
        if value is _MISSING:
            if f.required:
                raise InputError("missing required field", file=file, field=name)
            out[key] = f.default
            continue
        types = f.types if isinstance(f.types, tuple) else (f.types,)
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok and float in types and isinstance(value, int) and not isinstance(value, bool):
            try:
                value, ok = float(value), True
            except OverflowError:
                raise InputError("number too large", file=file, field=name, value=value) from None
        if not ok:
            raise InputError(f"must be {_type_name(f.types)}", file=file, field=name, value=value)
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError("must be a finite number", file=file, field=name, value=value)
        if f.check is not None:
            try:
                value = f.check(value)
            except InputError as e:
                raise e.located(file, None if e.field else name)
            except (ValueError, TypeError) as e:
                raise InputError(str(e), file=file, field=name, value=value) from None
        out[key] = value
    return out


def one_of(*choices: str) -> Callable[[Any], Any]:
    """A Field check accepting only the given values."""
    def check(value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(map(repr, choices))}")
        return value
    return check


def parse_square(name: Any) -> chess.Square:
    """A square from its name ('e4'); ValueError with a clear message otherwise."""
    if not isinstance(name, str) or name.strip().lower() not in chess.SQUARE_NAMES:
        raise ValueError(f"not a square name: {shown(name, 40)} (expected a1..h8)")
    return chess.parse_square(name.strip().lower())


def parse_squares(value: Any) -> list[chess.Square]:
    """Squares from a list of names or a comma/space separated string."""
    if isinstance(value, str):
        items = [s for s in value.replace(",", " ").split() if s]
    elif isinstance(value, list):
        items = value
    else:
        raise ValueError("expected a list of square names")
    if len(items) > 64:
        raise ValueError(f"{len(items):,} squares: a board has 64")
    return [parse_square(s) for s in items]


def parse_color(name: Any) -> chess.Color:
    """'white'/'black' (or 'w'/'b') to a python-chess colour."""
    text = name.strip().lower() if isinstance(name, str) else ""
    if text in ("white", "w"):
        return chess.WHITE
    if text in ("black", "b"):
        return chess.BLACK
    raise ValueError(f"not a colour: {shown(name, 40)} (expected 'white' or 'black')")


def read_toml(path: Any, *, limit: int = MAX_TOML_BYTES) -> dict[str, Any]:
    """Decode a TOML file; InputError naming the file for a missing, unreadable, oversized
    (more than `limit` bytes: a device such as /dev/zero is not read to the end), binary,
    non-UTF-8, malformed or too deeply nested one."""
    import tomllib

    from retrologic.files import read_text
    file = str(path)
    text = read_text(path, limit=limit, what="TOML file").removeprefix("\ufeff")  # a BOM
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"malformed TOML: {e}", file=file) from None
    except RecursionError:
        raise InputError("malformed TOML: arrays or tables nested too deeply", file=file) from None
    except ValueError as e:         # e.g. an integer of more than 4,300 digits
        raise InputError(f"malformed TOML: {e}", file=file) from None
