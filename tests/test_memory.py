"""The memory guard (retrologic/memory.py): what is left of the machine's, the cgroup's and the
address-space limit's memory, and the spg listing writer stopping before it runs out with the
proved verdict kept (the OOM killer's SIGKILL would lose it)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from retrologic.cli import main
from retrologic.limits import Budget, LimitHit
from retrologic.memory import MemoryGuard, headroom

GIB = 1 << 30
MIB = 1 << 20
LINUX = pytest.mark.skipif(not Path("/proc/meminfo").exists(), reason="reads Linux's /proc")


@LINUX
def test_the_address_space_limit_is_read_against_an_allocation() -> None:
    """Under `ulimit -v` (set in a child process to 1 GiB over what it uses) the headroom is
    that GiB, and a 300 MiB allocation takes 300 MiB of it: the oracle is the allocation."""
    code = textwrap.dedent("""
        import json, resource
        from retrologic import memory
        def vm():
            return int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) << 10
        resource.setrlimit(resource.RLIMIT_AS, (vm() + (1 << 30), resource.RLIM_INFINITY))
        before = memory._address_space("/proc")
        block = bytearray(300 << 20)
        after = memory._address_space("/proc")
        print(json.dumps([before, after, memory.headroom()]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    before, after, least = json.loads(out)
    assert before[1] == after[1] == "the address-space limit (ulimit -v)"
    assert GIB - 8 * MIB <= before[0] <= GIB
    assert 300 * MIB <= before[0] - after[0] <= 308 * MIB
    assert least[0] <= after[0]


@LINUX
def test_the_machines_available_memory_is_read() -> None:
    least, what = headroom()
    total = int(open("/proc/meminfo").read().split("MemTotal:")[1].split()[0]) << 10
    assert 0 < least <= total and what


def _tree(tmp_path, cgroup_line: str, files: dict[str, str]) -> tuple[str, str]:
    proc, sys_root = tmp_path / "proc", tmp_path / "cgroup"
    (proc / "self").mkdir(parents=True)
    (proc / "meminfo").write_text("MemTotal:  33554432 kB\nMemAvailable:  16777216 kB\n")
    (proc / "self" / "cgroup").write_text(cgroup_line + "\n")
    (proc / "self" / "status").write_text("VmSize:  1024 kB\n")
    for name, text in files.items():
        (sys_root / name).parent.mkdir(parents=True, exist_ok=True)
        (sys_root / name).write_text(text)
    return str(proc), str(sys_root)


@pytest.mark.parametrize("line, files, expected", [
    # cgroup v2: 2 GiB limit, anon 1 GiB + shmem 256 MiB charged (file pages are reclaimable)
    ("0::/job", {"job/memory.max": "2147483648\n",
                 "job/memory.stat": "anon 1073741824\nfile 900000000\nshmem 268435456\n"},
     (2 * GIB - GIB - 256 * MIB, "its memory cgroup's limit")),
    # v2 without a limit: the machine's 16 GiB
    ("0::/job", {"job/memory.max": "max\n", "job/memory.stat": "anon 1\n"},
     (16 * GIB, "this machine's memory")),
    # v1, the container's own cgroup mounted at the root (its path is not there)
    ("4:memory:/docker/abc", {"memory/memory.limit_in_bytes": "4294967296\n",
                              "memory/memory.stat": "cache 5\ntotal_rss 1073741824\n"
                                                    "total_shmem 0\n"},
     (3 * GIB, "its memory cgroup's limit")),
    # v1 without a limit (the kernel's largest page-aligned figure)
    ("4:memory:/x", {"memory/x/memory.limit_in_bytes": "9223372036854771712\n",
                     "memory/x/memory.stat": "total_rss 1\n"}, (16 * GIB, "this machine's memory")),
])
def test_cgroup_limits_are_read(tmp_path, monkeypatch, line: str, files: dict[str, str],
                                expected: tuple[int, str]) -> None:
    import resource
    monkeypatch.setattr(resource, "getrlimit",       # whatever `ulimit -v` the tests run under
                        lambda _: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    proc, cgroups = _tree(tmp_path, line, files)
    assert headroom(proc, cgroups) == expected


def test_nothing_known_is_no_limit(tmp_path) -> None:
    """Off Linux (no /proc, no cgroup files) nothing is known and the guard never stops."""
    assert headroom(str(tmp_path / "none"), str(tmp_path / "none")) is None
    assert MemoryGuard(read=lambda: None, every=0)() is None


def test_the_guard_stops_below_its_margin_and_shares_inherit_it() -> None:
    left = [(GIB, "this machine's memory")]
    guard = MemoryGuard(margin=512 * MIB, every=0, read=lambda: left[0])
    budget = Budget(timeout=100, guard=guard)
    child = budget.share(0.5)
    budget.check_now()
    child.check(every=1)
    left[0] = (100 * MIB, "this machine's memory")
    for run in (budget.check_now, child.check_now, lambda: child.check(every=1)):
        with pytest.raises(LimitHit, match=r"memory: 100 MiB left of this machine's memory "
                                           r"\(stops below 512 MiB\)"):
            run()


def test_the_guard_reads_at_most_every_so_often() -> None:
    reads = []
    guard = MemoryGuard(every=3600, read=lambda: reads.append(1) or (0, "x"))
    assert guard() is not None and guard() is None and len(reads) == 1


def test_the_writer_stops_for_memory_and_the_verdict_stays(tmp_path, capsys,
                                                           monkeypatch) -> None:
    """The listing writer's budget carries the guard: when the memory left falls under the
    margin while it writes, the proved verdict is printed (exit 0) and the listing is
    "not written" with the reason; with memory enough the same command writes it."""
    from retrologic.spg import certify as writer
    fen = "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R"
    reads: list[int] = []

    def shrinking() -> tuple[int, str]:
        reads.append(1)
        return (8 * GIB if len(reads) < 3 else 100 * MIB), "this machine's memory"
    monkeypatch.setattr(writer, "MemoryGuard", lambda: MemoryGuard(every=0, read=shrinking))
    assert main(["spg", fen, "--moves", "1.5", "--certificate-dir", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "unique" in out and "listing certificate: not written" in out, out
    assert "memory: 100 MiB left of this machine's memory" in out, out
    assert len(reads) >= 3 and not list((tmp_path / "a").glob("*.spg-listing.json"))
    monkeypatch.setattr(writer, "MemoryGuard",
                        lambda: MemoryGuard(every=0, read=lambda: (8 * GIB, "x")))
    assert main(["spg", fen, "--moves", "1.5", "--certificate-dir", str(tmp_path / "b")]) == 0
    assert len(list((tmp_path / "b").glob("*.spg-listing.json"))) == 1

