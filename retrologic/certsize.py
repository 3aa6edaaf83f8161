"""How large a certificate may be: the caps `check` reads under and the spg-listing writer
writes under, one knob (`--certificate-mib`, issue 22 item 3).

The defaults bound what a hostile file can cost `check`: 40 MiB read, and a packed proof or core
unpacking to at most 512 MiB (about 4.6 GB of memory at the 9x peak measured on
buchanan-motley-c's check). Listings of 25-30-ply proof games are larger (yanami-1997: 65.8 MiB,
docs/spg-certificates.md), so a user who trusts a file's origin, or writes one, may opt into
larger caps: every cap scales with the knob, the writer's LRAT log limit too (1 GiB at 40 MiB),
since a larger proof comes from a longer log. The knob is a context variable, set around a
check (`retrologic check`) or a listing's writing (`SolveOptions.certificate_mib`).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

from retrologic.errors import InputError

DEFAULT_MIB = 40                  # `check` reads at most this many MiB by default
MAX_MIB = 4096                    # the knob's ceiling: 4 GiB read, 51 GiB unpacked at most
UNPACKED_AT_DEFAULT = 512 << 20  # a packed field unpacks to 12.8x the file cap
LOG_AT_DEFAULT = 1 << 30         # CaDiCaL's LRAT log: 25.6x the file cap
RULE = f"a whole number of MiB from 1 to {MAX_MIB}"

_MIB: ContextVar[int] = ContextVar("certificate_mib", default=DEFAULT_MIB)


def check_mib(value: Any, field: str = "--certificate-mib") -> int:
    """`value` as the knob (a whole number of MiB, 1 to MAX_MIB), or an InputError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_MIB:
        raise InputError(f"must be {RULE}", field=field, value=value)
    return value


def mib() -> int:
    """The knob in force here (DEFAULT_MIB unless `allowing` set it)."""
    return _MIB.get()


def read_bytes() -> int:
    """The bytes `check` reads of a certificate file."""
    return _MIB.get() << 20


def write_bytes() -> int:
    """The bytes the spg-listing writer writes at most: 39/40 of what `check` reads, leaving
    room for the metadata stamped on at writing (39 MiB by default)."""
    return read_bytes() * 39 // 40


def unpacked_bytes() -> int:
    """The bytes a packed (xz) proof or core may unpack to, in `check` and in the writer."""
    return _MIB.get() * UNPACKED_AT_DEFAULT // DEFAULT_MIB


def log_bytes() -> int:
    """The bytes of CaDiCaL's LRAT log past which the writer stops (a longer log makes a proof
    over the file cap: irsigler-2004, yanami-1997)."""
    return _MIB.get() * LOG_AT_DEFAULT // DEFAULT_MIB


@contextmanager
def allowing(value: int | None) -> Iterator[None]:
    """Run the block under the knob `value` (None: leave it as it is)."""
    if value is None:
        yield
        return
    token = _MIB.set(check_mib(value))
    try:
        yield
    finally:
        _MIB.reset(token)
