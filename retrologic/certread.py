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

from typing import Any, Iterator

METADATA = frozenset({"format", "retrologic", "type", "question", "position", "problem"})


class ReadDict(dict):  # type: ignore[type-arg]
    """A JSON object that records which of its keys were asked for (looked up, tested for,
    iterated). Code that copies it with C-level dict calls reads nothing: such a field is then
    reported unread, a rejection of a genuine certificate that the tests catch, never an
    acceptance of a forged one."""

    __slots__ = ("read", "where")

    def __init__(self, items: Any, where: str) -> None:
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


def tracked(cert: dict[str, Any]) -> tuple[ReadDict, list[ReadDict]]:
    """A copy of `cert` whose objects are ReadDicts (the metadata tables left plain), and
    every ReadDict made, for `unread`. Lists of plain values (a proof's clauses) are shared,
    not copied."""
    made: list[ReadDict] = []

    def convert(value: Any, where: str) -> Any:
        if isinstance(value, dict):
            out = ReadDict(((k, convert(v, f"{where}.{k}" if where else str(k)))
                            for k, v in value.items()), where)
            made.append(out)
            return out
        if isinstance(value, list):
            if all(map(_plain, value)):
                return value
            return [convert(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return value

    top = ReadDict(((k, v if k in METADATA else convert(v, str(k))) for k, v in cert.items()), "")
    top.read.update(METADATA)
    made.append(top)
    return top, made


def unread(made: list[ReadDict], limit: int = 3) -> list[str]:
    """The first `limit` fields (paths such as `lengths[0].lemma`) that no code read."""
    found: list[str] = []
    for obj in made:
        for key in dict.keys(obj):
            if key not in obj.read:
                found.append(f"{obj.where}.{key}" if obj.where else str(key))
                if len(found) >= limit:
                    return found
    return found
