"""Every field of an accepted certificate was read by its checker: the fields it never looked at
are rejected, so a certificate holds no data that passes unchecked.

A checker runs on a copy of the certificate whose objects record the keys asked for
(`ReadDict`); after it accepts, `unread` lists the keys no code of the checker read. The
metadata (`format`, `retrologic`, `type`, and the informational `question`, `position` and
`problem` tables: retrologic.certificate) is exempt. Keys a checker reads and then ignores
still count as read: the guarantee is that the checker saw every field, and each checker's
docstring says what it does with them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from retrologic.certformat import short

METADATA = frozenset({"format", "retrologic", "type", "question", "position", "problem"})
MAX_OBJECTS = 2_000_000     # JSON objects a certificate may hold (copied at about 4.5 µs each;
                            # the largest measured: 10,494, hoeg-1915's last-move proof)


class TooManyObjects(ValueError):
    """A certificate with more than MAX_OBJECTS objects: refused before its check."""


class ReadDict(dict):  # type: ignore[type-arg]
    """A JSON object that records which of its keys were asked for: looked up, tested for, or
    iterated. Iterating counts as reading every key, and so do copies and serialisations that
    iterate (`dict(d)`, `{**d}`, `json.dumps`): the checkers iterate an object only to compare
    its key set with the fields they allow, or to check each value, never to copy it unread.
    `where` is its place in the certificate, a chain of (parent, key or index) kept as links
    and spelled out only for a report (a long key is not copied into every path below it)."""

    __slots__ = ("read", "where")

    def __init__(self, items: Any, where: tuple[Any, Any] | None) -> None:
        super().__init__(items)
        self.read: set[Any] = set()
        self.where = where

    def __getitem__(self, key: Any) -> Any:
        self.read.add(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.read.add(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self.read.add(key)
        return dict.__contains__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        self.read.add(key)
        return dict.pop(self, key, *default)

    def _all(self) -> None:
        self.read.update(dict.keys(self))

    def __iter__(self) -> Iterator[Any]:
        self._all()
        return dict.__iter__(self)

    def keys(self) -> Any:
        self._all()
        return dict.keys(self)

    def values(self) -> Any:
        self._all()
        return dict.values(self)

    def items(self) -> Any:
        self._all()
        return dict.items(self)


def _plain(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def tracked(cert: dict[str, Any], tick: Callable[[], None] | None = None
            ) -> tuple[ReadDict, list[ReadDict]]:
    """A copy of `cert` whose objects are ReadDicts (the metadata tables left plain), and
    every ReadDict made, for `unread`. Lists of plain values (a proof's clauses) are shared,
    not copied. TooManyObjects past MAX_OBJECTS; `tick` is called every 4,096 objects (the
    check's time limit and Ctrl-C hold while the copy is made)."""
    made: list[ReadDict] = []

    def convert(value: Any, where: tuple[Any, Any]) -> Any:
        if isinstance(value, dict):
            if len(made) % 4096 == 4095:
                if len(made) >= MAX_OBJECTS:
                    raise TooManyObjects(f"more than {MAX_OBJECTS:,} JSON objects")
                if tick is not None:
                    tick()
            out = ReadDict((), where)
            made.append(out)
            for k, v in value.items():
                dict.__setitem__(out, k, convert(v, (out, k)))
            return out
        if isinstance(value, list):
            if all(map(_plain, value)):
                return value
            return [convert(v, (where, i)) for i, v in enumerate(value)]
        return value

    top = ReadDict((), None)
    made.append(top)
    for k, v in cert.items():
        dict.__setitem__(top, k, v if k in METADATA else convert(v, (top, k)))
    top.read.update(METADATA)
    return top, made


def path(obj: ReadDict, key: Any) -> str:
    """The field `key` of `obj` spelled as a path: `lengths[0].lemma`."""
    steps: list[str] = []
    link: Any = (obj, key)
    while link is not None:
        parent, step = link
        steps.append(f"[{step}]" if isinstance(step, int) and not isinstance(parent, ReadDict)
                     else f".{short(str(step), 40)}")
        link = parent.where if isinstance(parent, ReadDict) else parent
    return "".join(reversed(steps)).lstrip(".")


def unread(made: list[ReadDict], limit: int = 3) -> list[str]:
    """The first `limit` fields (paths such as `lengths[0].lemma`) that no code read."""
    found: list[str] = []
    for obj in made:
        for key in dict.keys(obj):
            if key not in obj.read:
                found.append(path(obj, key))
                if len(found) >= limit:
                    return found
    return found
