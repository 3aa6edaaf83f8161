"""The memory this process may still take before the machine, its container (a memory cgroup)
or its address-space limit (`ulimit -v`) runs out, and a guard that stops a long computation
before it does.

The kernel's OOM killer ends a process with SIGKILL, so nothing it finished gets printed, and a
C++ solver that cannot allocate aborts the process. The spg listing writer runs after the
verdict is proved and peaks at 2-5 GB at the default `--certificate-mib`, 9-19 GB raised
(issue 22): its budget carries a `MemoryGuard`, so on a smaller machine the writer stops with a
"memory" reason and the verdict is printed. Linux only (/proc, /sys); elsewhere nothing is known
and the guard never stops anything.
"""

from __future__ import annotations

import os
import time
from typing import Callable

MARGIN = 512 << 20       # bytes: the guard stops when less than this is left
EVERY = 0.25             # seconds between two readings (each reads a few small files)
UNLIMITED = 1 << 60      # a cgroup v1 limit at least this large means none

Headroom = tuple[int, str]   # (bytes still available, what limits them)


def headroom(proc: str = "/proc", cgroups: str = "/sys/fs/cgroup") -> Headroom | None:
    """The bytes this process may still take and what bounds them: the least of the machine's
    available memory (MemAvailable: free and reclaimable), its memory cgroup's limit less the
    cgroup's anonymous and shared memory (v1 or v2), and the soft address-space limit less the
    address space in use; None where none of them is known."""
    figures = [f for f in (_machine(proc), _cgroup(proc, cgroups), _address_space(proc))
               if f is not None]
    return min(figures) if figures else None


def _fields(path: str) -> dict[str, int]:
    """`name value` lines of a /proc or /sys file (values in the file's unit); {} if unread."""
    out: dict[str, int] = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.replace(":", " ").split()
                if len(parts) >= 2 and parts[1].isdigit():
                    out[parts[0]] = int(parts[1])
    except OSError:
        pass
    return out


def _machine(proc: str) -> Headroom | None:
    kib = _fields(f"{proc}/meminfo").get("MemAvailable")
    return None if kib is None else (kib << 10, "this machine's memory")


def _cgroup(proc: str, cgroups: str) -> Headroom | None:
    """The memory cgroup's limit less its anonymous and shared memory (page cache is left out:
    the kernel reclaims it before it kills); None without a limit."""
    try:
        with open(f"{proc}/self/cgroup") as f:
            lines = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:
        return None
    for parts in lines:
        if len(parts) != 3:
            continue
        number, controllers, path = parts
        if number == "0" and controllers == "":                      # cgroup v2
            where = _cgroup_dir(cgroups, path)
            limit = _read_int(f"{where}/memory.max")
            stat = _fields(f"{where}/memory.stat")
            used = stat.get("anon", 0) + stat.get("shmem", 0)
        elif "memory" in controllers.split(","):                    # cgroup v1
            where = _cgroup_dir(f"{cgroups}/memory", path)
            limit = _read_int(f"{where}/memory.limit_in_bytes")
            stat = _fields(f"{where}/memory.stat")
            used = stat.get("total_rss", 0) + stat.get("total_shmem", 0)
        else:
            continue
        if limit is not None and limit < UNLIMITED:
            return max(limit - used, 0), "its memory cgroup's limit"
    return None


def _cgroup_dir(root: str, path: str) -> str:
    """The cgroup's directory: under `root` at its path, or `root` itself when the path is not
    there (a container sees its own cgroup mounted at the root)."""
    where = os.path.join(root, path.lstrip("/"))
    return where if os.path.isdir(where) else root


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None         # "max": no limit (v2)


def _address_space(proc: str) -> Headroom | None:
    try:
        import resource
    except ImportError:                 # not a Unix system: no address-space limit known
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    kib = _fields(f"{proc}/self/status").get("VmSize")
    return None if kib is None else (max(soft - (kib << 10), 0), "the address-space limit "
                                                                 "(ulimit -v)")


class MemoryGuard:
    """A `Budget` guard (limits.Budget.guard): the reason to stop when less than `margin` bytes
    are left (`headroom`), read at most every `every` seconds; None otherwise."""

    def __init__(self, margin: int = MARGIN, every: float = EVERY,
                 read: Callable[[], Headroom | None] = headroom) -> None:
        self.margin, self.every, self.read = margin, every, read
        self.last = float("-inf")

    def __call__(self) -> str | None:
        now = time.monotonic()
        if now - self.last < self.every:
            return None
        self.last = now
        left = self.read()
        if left is None or left[0] >= self.margin:
            return None
        return (f"memory: {left[0] >> 20} MiB left of {left[1]} (stops below {self.margin >> 20} "
                f"MiB)")
