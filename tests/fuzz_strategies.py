"""Fuzzing the `retrologic` command: a runner that classifies one invocation, and hypothesis
strategies for command lines, problem files and certificates (shared by tests/test_fuzz.py and
bench/fuzz.py).

The runner forks a child per case (the parent has imported every engine once, so a case costs
milliseconds, not an interpreter start): the child runs `retrologic.cli.main(argv)` in a fresh
temporary directory with its output in files, under a memory cap, and the parent kills its
process group when it runs past the hang cap (HANG_SECONDS of wall clock with half as much CPU,
or three times as long in any case: a busy machine is not a hang). A crash of the tool can
therefore neither take the fuzzer down nor eat the machine's memory, and no state leaks from
one case to the next.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import string
import sys
import tempfile
import time
import tomllib
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"

MAX_LINE = 300                   # a bad-input (exit 3) message: one line of at most this many chars
HANG_SECONDS = 10.0              # a case running longer (see _wait) is a hang
MEMORY_CAP = 3 * 1024 ** 3       # address space of a case's process (bytes): a runaway read fails
READ_CAP = 1 << 20               # bytes of a case's stdout/stderr kept for classification
SEARCH_LIMITS = ["--timeout", "2", "--nodes", "20000"]   # the cap added to searching commands

# --------------------------------------------------------------------------- the runner


@dataclass
class Outcome:
    """One invocation of the CLI, classified.

    status: the exit status (None after a hang or when the child died by a signal); escaped: an
    exception that escaped main() (its traceback), which a real run would print."""

    argv: list[str]
    status: int | None
    stdout: str
    stderr: str
    stderr_bytes: int
    seconds: float                       # wall clock
    hang: bool = False
    signal: int | None = None
    escaped: str = ""
    cpu: float = 0.0

    @property
    def crash(self) -> bool:
        """An internal error: exit 5, a traceback or "internal error" on stderr, an exception
        escaping main(), or death by a signal (segfault, out of memory)."""
        return (self.status == 5 or self.signal is not None or bool(self.escaped)
                or "Traceback (most recent call last)" in self.stderr
                or "internal error" in self.stderr)

    @property
    def long_error(self) -> bool:
        """A bad-input exit whose stderr is not one line of at most MAX_LINE characters (per
        file operand of `solve`/`check`, whose batch summary line does not count)."""
        if self.status != 3:
            return False
        if self.stderr_bytes > READ_CAP:
            return True
        lines = [ln for ln in self.stderr.rstrip("\n").split("\n")
                 if not SUMMARY.match(ln) and not (self.progress and ln.strip() and
                                                    not ln.startswith("retrologic:"))]
        return len(lines) > max(1, file_operands(self.argv)) or \
            any(len(ln) > MAX_LINE for ln in lines)

    @property
    def long_usage(self) -> bool:
        """A usage error (exit 2, argparse) with a line over MAX_LINE characters: a value echoed
        whole (reported by the bench; the suite asserts only on bad input, exit 3)."""
        return self.status == 2 and (self.stderr_bytes > READ_CAP or
                                     any(len(ln) > MAX_LINE for ln in self.stderr.splitlines()))

    @property
    def progress(self) -> bool:
        return "--progress" in self.argv

    @property
    def overrun(self) -> bool:
        """Ran past its own --timeout by more than max(1 s, 10 %) plus a second of slack (the
        limit the issue asks for; reported by the bench, asserted by the limits' own tests), in
        wall clock and in CPU time (or in three times as much wall clock: a busy machine)."""
        limit = requested_timeout(self.argv)
        if limit is None:
            return False
        allowed = timeout_allowance(limit)
        if self.seconds > allowed and not self.hang:      # `solve`: the limit is per problem
            allowed *= problems_named(self.argv)
        return self.hang or (self.seconds > allowed and
                             (self.cpu > allowed or self.seconds > 3 * allowed))

    def faults(self) -> list[str]:
        """What is wrong with this outcome (empty: nothing)."""
        out = []
        if self.hang:
            out.append(f"hang ({self.seconds:.0f} s, {self.cpu:.0f} s of CPU)")
        if self.crash:
            out.append("crash: " + self.crash_line())
        if self.long_error:
            out.append(f"bad-input message of {len(self.stderr.splitlines())} lines, "
                       f"{self.stderr_bytes} bytes")
        return out

    def crash_line(self) -> str:
        """The line that names the crash: the exception, the signal or the internal error."""
        if self.signal is not None:
            return f"killed by signal {signal.Signals(self.signal).name}"
        text = self.escaped or self.stderr
        lines = [ln for ln in text.splitlines() if ln.strip()]
        for ln in reversed(lines):
            if "internal error" in ln:
                return ln.strip()[:400]
        for ln in reversed(lines):
            if re.match(r"^[A-Za-z_.]*(Error|Exception|Exit|Interrupt|Iteration)\b", ln):
                return ln.strip()[:400]
        return (lines[-1].strip() if lines else f"exit {self.status}")[:400]

    def crash_key(self) -> str:
        """A short key grouping crashes of one cause: the exception type and the innermost
        retrologic frame when a traceback shows one."""
        line = self.crash_line()
        m = re.search(r"internal error: (\w+)", line) or re.match(r"(\w+(?:\.\w+)*)", line)
        key = m.group(1) if m else line[:60]
        frames = re.findall(r'File "[^"]*/(retrologic/[^"]+)", line (\d+), in (\w+)',
                            self.escaped or self.stderr)
        if frames:
            f, ln, fn = frames[-1]
            key += f" at {f}:{fn}"
        return key

    def describe(self, limit: int = 240) -> str:
        """The command line, shortened for a report."""
        return " ".join(shorten(a, limit) for a in ["retrologic", *self.argv])


SUMMARY = re.compile(r"^(retrologic: )?\d+ files?: ")      # a batch's summary line on stderr
_VALUED = {"--timeout", "--nodes", "--certificate-dir", "--certificate-mib"}


def operands(argv: list[str]) -> list[str]:
    """The file operands of a `solve` or `check` command line (none for other commands)."""
    args = [a for a in argv if a != "--debug"]
    if not args or args[0] not in ("solve", "check"):
        return []
    out, skip, rest = [], False, False
    for a in args[1:]:
        if skip:
            skip = False
        elif rest or a == "-" or not a.startswith("-"):
            out.append(a)
        elif a == "--":
            rest = True
        elif a in _VALUED:
            skip = True
    return out


def timeout_allowance(limit: float) -> float:
    """Seconds a case with `--timeout limit` may run: max(1 s, 10 %) past it plus a second of
    slack (seed 2921: `puzzle4x4 generate --timeout 10` ended in 10.3 s, past the 10 s hang
    cap, and was called a hang)."""
    return limit + max(1.0, limit / 10) + 1.0


def file_operands(argv: list[str]) -> int:
    """How many file operands a `solve` or `check` command line has (0 for other commands)."""
    return len(operands(argv))


def requested_timeout(argv: list[str]) -> float | None:
    """The --timeout a command line asks for (its last one), when it is a valid limit."""
    value = None
    for i, a in enumerate(argv[:-1]):
        if a == "--timeout":
            value = argv[i + 1]
    try:
        t = float(value) if value is not None else None
    except ValueError:
        return None
    return t if t is not None and math.isfinite(t) and 0 < t <= 1e9 else None


def problems_named(argv: list[str]) -> int:
    """How many problems a `solve` command line names (each has the whole --timeout, docs/
    batch.md), at least 1; 1 for every other command (its operands that exist are read)."""
    if "solve" not in argv[:2]:
        return 1
    from retrologic.collection import walk
    paths = [a for a in operands(argv) if os.path.exists(a)]
    return max(len(walk.load(paths)), 1) if paths else 1


def shorten(text: str, limit: int = 240) -> str:
    """A printable, quoted, bounded form of an argument for reports."""
    r = shlex.quote(text) if text.isprintable() else "$" + repr(text)
    return r if len(r) <= limit else r[:limit] + f"…[{len(r)} chars]"


_preloaded = False


def preload() -> None:
    """Import every engine once in this (parent) process, so forked cases start warm."""
    global _preloaded
    if _preloaded:
        return
    import importlib
    names = ["chess", "ortools.sat.python.cp_model", "pysat.solvers", "retrologic.cli",
             "retrologic.problem", "retrologic.certificate"]
    names += [module for module, _ in __import__("retrologic.questions").questions.KINDS.values()]
    for name in names:
        try:      # a module that fails to import here fails in the case, where it is reported
            importlib.import_module(name)
        except Exception:  # noqa: BLE001
            pass
    try:
        from retrologic.certificate import CHECKERS
        for name in CHECKERS.values():
            try:
                importlib.import_module(name.split(":")[0])
            except Exception:  # noqa: BLE001
                pass
    except Exception:  # noqa: BLE001
        pass
    _preloaded = True


def _child(argv: list[str], workdir: str, out: str, err: str, result: str,
           entry: Callable[[list[str]], int] | None) -> None:
    """Run main(argv) (or `entry`) in this forked child and leave; never returns."""
    status = 70
    try:
        os.setpgid(0, 0)
        import faulthandler
        faulthandler.disable()      # pytest's, writing to the parent's stderr
        os.chdir(workdir)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, out), (2, err)):
            h = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(h, fd)
            os.close(h)
        # what a terminal gives a fresh interpreter: strict UTF-8 stdout, backslashreplace stderr
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                      errors="strict", line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                      errors="backslashreplace", line_buffering=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        escaped = ""
        if entry is None:
            from retrologic.cli import main
        else:
            main = entry
        try:
            status = main(list(argv))
        except SystemExit as e:          # argparse's usage errors, --help, --version
            code = e.code
            if code is None:
                status = 0
            elif isinstance(code, int):
                status = code
            else:
                print(code, file=sys.stderr)
                status = 1
        except BaseException as e:       # noqa: BLE001 - escaped main(): what a user would see
            escaped = "".join(traceback.format_exception(e))
            sys.stderr.write(escaped)
            status = 1
        if not isinstance(status, int) or isinstance(status, bool):
            escaped = escaped or f"main() returned {status!r}, not an exit status"
            status = 1
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except BaseException:  # noqa: BLE001 - e.g. strict stdout on a surrogate
                pass
        with open(result, "w") as fh:
            json.dump({"status": status, "escaped": escaped}, fh)
    except BaseException:  # noqa: BLE001
        try:
            with open(result, "w") as fh:
                json.dump({"status": 70, "escaped": traceback.format_exc()}, fh)
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(status & 0xFF if isinstance(status, int) else 70)


def _cpu(pid: int) -> float:
    """CPU seconds a live (or zombie) child has used so far, its threads included."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) \
            / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _wait(pid: int, cap: float) -> tuple[bool, float]:
    """Wait for a child to exit, without reaping it (so its process group cannot be reused
    before we kill what is left of it): (exited, seconds). It is a hang once it has run `cap`
    seconds of wall clock having used cap/2 seconds of CPU, or 3 * cap seconds of wall clock
    in any case: a busy machine slows a case down without making it a hang."""
    start = time.monotonic()
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    try:
        while True:
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is not None and info.si_pid == pid:
                return True, time.monotonic() - start
            elapsed = time.monotonic() - start
            if elapsed >= 3 * cap or (elapsed >= cap and _cpu(pid) >= cap / 2):
                return False, elapsed
            left = (cap - elapsed) if elapsed < cap else 0.25
            if fd is not None:
                select.select([fd], [], [], left)
            else:
                time.sleep(min(0.01, left))
    finally:
        if fd is not None:
            os.close(fd)


def _read(path: str) -> tuple[str, int]:
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            data = fh.read(READ_CAP)
    except OSError:
        return "", 0
    return data.decode("utf-8", "backslashreplace"), size


def run_cli(argv: list[str], files: dict[str, bytes | str] | None = None,
            cap: float | None = None, keep: str | None = None,
            entry: Callable[[list[str]], int] | None = None) -> Outcome:
    """Run `retrologic ARGV` in a forked child whose cwd is a fresh temporary directory holding
    `files` (name -> content; a name ending in '/' makes a directory), and classify it.

    `cap`: the hang cap in seconds (default HANG_SECONDS per file operand); `keep`: a directory
    to copy the case's working directory to (e.g. to collect certificates); `entry`: a function to run
    instead of retrologic.cli.main (the runner's own tests)."""
    if cap is None:     # a batch gets the cap once per file (each file has its own limits)
        limit = requested_timeout(argv)     # ... and a short --timeout its allowance
        own = 0.0 if limit is None else min(timeout_allowance(limit), 2 * HANG_SECONDS)
        cap = max(HANG_SECONDS, own) * max(1, file_operands(argv))
    preload()
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        work = os.path.join(tmp, "cwd")
        os.mkdir(work)
        for name, content in (files or {}).items():
            path = os.path.join(work, name)
            if name.endswith("/"):
                os.makedirs(path, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(content.encode("utf-8", "surrogatepass") if isinstance(content, str)
                         else content)
        out, err, res = (os.path.join(tmp, n) for n in ("out", "err", "res"))
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(argv, work, out, err, res, entry)
        exited, seconds = _wait(pid, cap)
        hang = not exited
        cpu = _cpu(pid)
        for target in (-pid, pid):   # the case and any stray workers of it (census pools)
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _, ws = os.waitpid(pid, 0)
        stdout, _ = _read(out)
        stderr, nerr = _read(err)
        status: int | None = None
        sig: int | None = None
        escaped = ""
        if not hang:
            if os.WIFSIGNALED(ws):
                sig = os.WTERMSIG(ws)
            else:
                try:
                    with open(res) as fh:
                        r = json.load(fh)
                    status, escaped = r["status"], r["escaped"]
                except (OSError, ValueError, KeyError):
                    status, escaped = os.WEXITSTATUS(ws), "the case left no result"
        if keep:
            shutil.copytree(work, keep, dirs_exist_ok=True)
        return Outcome(list(argv), status, stdout, stderr, nerr, seconds, hang, sig, escaped, cpu)


def explain(outcome: Outcome, files: dict[str, bytes | str] | None = None) -> str:
    """Where a crash happens: rerun the case with --debug and name the innermost retrologic
    frame of the traceback ("" when the rerun shows none)."""
    if not outcome.crash or outcome.hang:
        return ""
    again = run_cli(["--debug", *outcome.argv], files)
    frames = re.findall(r'File "[^"]*/(retrologic/[^"]+)", line (\d+), in (\S+)',
                        again.escaped or again.stderr)
    if not frames:
        return ""
    f, ln, fn = frames[-1]
    return f"{f}:{ln} in {fn}"


# --------------------------------------------------------------------------- seeds


def _problem_files() -> list[Path]:
    return sorted(PROBLEMS.rglob("*.toml"))


def _load_seeds() -> dict[str, Any]:
    """Valid values harvested from problems/: FENs, boards, claims, squares, SPG lengths, 4x4
    boards, trajectory questions, and each problem file's text."""
    seeds: dict[str, Any] = {"fen": [], "board": [], "claim": [], "spg": [], "puzzle": [],
                             "trajectory": [], "cage": [], "lastmove": [], "texts": {},
                             "tablebase_fen": []}
    for path in _problem_files():
        try:      # a file being edited by someone else is skipped, not fatal
            text = path.read_text()
            data = tomllib.loads(text)
        except (OSError, ValueError):
            continue
        seeds["texts"][str(path.relative_to(ROOT))] = text
        pos = data.get("position", {})
        q = data.get("question", {})
        kind = q.get("kind")
        if "fen" in pos:
            seeds["fen"].append(pos["fen"])
        if "board" in pos:
            seeds["board"].append(pos["board"])
        for c in data.get("constraint", []):
            seeds["claim"].append(c["expr"])
        for key in ("claim", "assume"):
            seeds["claim"].extend(x for x in q.get(key, []) if isinstance(x, str))
        if kind == "spg":
            seeds["spg"].append((pos.get("fen") or pos.get("board"), q["moves"]))
        elif kind == "puzzle4x4" and "board" in q:
            seeds["puzzle"].append(q["board"])
        elif kind == "trajectory":
            seeds["trajectory"].append(q)
        elif kind == "cage" and "board" in pos:
            seeds["cage"].append((pos["board"], q.get("zone"), pos.get("frozen")))
        elif kind == "last-move" and "fen" in pos:
            seeds["lastmove"].append(pos["fen"])
        elif kind == "tablebase" and "fen" in q:
            seeds["tablebase_fen"].append(q["fen"])
    seeds["fen"] = sorted(set(seeds["fen"]))
    seeds["board"] = sorted(set(seeds["board"]))
    seeds["claim"] = sorted(set(seeds["claim"]))
    return seeds


SEEDS = _load_seeds()
SQUARES = [f + r for f in "abcdefgh" for r in "12345678"]
# a few tablebase positions of three men (KPK/KRK/KQK build in well under a second)
if not SEEDS["tablebase_fen"]:
    SEEDS["tablebase_fen"] = ["8/8/8/8/8/2k5/8/K1Q5 w - - 0 1"]
CHEAP_SPG = [("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", "0.5"),
             ("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR", "1.0"),
             ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "1.0")]

# --------------------------------------------------------------------------- hostile values

HOSTILE_TEXT = [
    "", " ", "-", "--", "-x", "\t", "\n", "\r\n", "\x01\x02", "\x1b[31mred\x1b[0m", "\x7f",
    "\u200b", "\ufeff", "\u202eevil", "e\u0301", "♔♕♖", "ｅ４", "🐴", "\udcff\udcfe", "é",
    "null", "None", "true", "[]", "{}", "'", '"', "\\", "%s%n", "{0}", "$(echo hi)",
    "a" * 1000, "x" * 100_000, "8/" * 20_000, "é" * 30_000,
]
HOSTILE_NUMBERS = [
    "nan", "NaN", "inf", "-inf", "Infinity", "-1", "0", "-0", "0.0", "1e300", "1e309", "-1e309",
    "99999999999999999999", "-99999999999999999999", "9" * 5000, "0x10", "1_000", "٣", "1e-300",
    "5e-324", "2**64", "1.5", "3.", ".5", "+7", " 4 ", "1e9", "1000000001", "4294967296",
    "18446744073709551617", "x" * 5000,
]
HOSTILE_FENS = [
    "KKKKKKKK/K7/8/8/8/8/8/k7 w - - 0 1",            # 9 white kings
    "kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1", "8/8/8/8/8/8/8/8",   # no kings
    "PPPPPPPP/PPPPPPPP/8/8/8/8/pppppppp/pppppppp w - - 0 1",
    "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQ1QQQQ/qqqqqqqq/qqqqqqqq/qqqqqqqq/K6k w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 0",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w ABCDEFGH - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra fields here",
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1",
    "rnbqkbnr/ppppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "k7/8/8/8/8/8/8/7K w - - 0 1", "k7/8/8/8/8/8/8/7K b - - 0 1", "K6k/8/8/8/8/8/8/8 w - - 0 1",
    "kK6/8/8/8/8/8/8/8 w - - 0 1", "k7/1Q6/8/8/8/8/8/K7 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w  KQkq  -  0  1",
    "r1bqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ",
    "8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8/8 w - - 0 1",
    "♜♞♝♛♚♝♞♜/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\x00 w",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "1k6/8/8/8/8/8/P7/K7 w - a3 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1" + " 0" * 1000,
]
HOSTILE_CLAIMS = [
    "", "captures(white)", "captures(white) <= ", "captures(purple) == 0", "frobnicate() == 1",
    "captures(white) * 99999999999999999999 <= 3", "captures(white) <= 99999999999999999999",
    "captures(white) <= -99999999999999999999", "captures(white) <= 10**100",
    "captures(white) ** 2 <= 4",
    "captures(white) / 2 <= 1", "captures(white) // 0 <= 1", "captures(white) % 2 == 0",
    "captures(white) <= 3.5", "captures(white) <= nan", "captures(white) <= inf",
    "captures(white) <= True", "captures(white) == 'a'", "promoted(\"z9\")", "promoted(\"\")",
    "promoted(c1)", "promoted(\"c1\", \"c2\")", "never_moved()", "never_moved(\"e1\") == 2",
    "pawn_captures(white, from_file=\"z\", to_file=\"e\") == 0",
    "pawn_captures(white, from_file=\"d\", from_file=\"d\") == 0",
    "pawn_captures(white, bogus=\"d\") == 0", "captured_on_color(white, \"king\", \"mauve\") == 0",
    "__import__('os').system('echo pwned') == 0", "(lambda: 1)() == 1", "[x for x in ()] == []",
    "captures.__class__ == 1", "captures(white)[0] == 1", "f'{1}' == 1", "(x := 1) == 1",
    "captures(white) < captures(black) < captures(either) < 3", "1 <= 2", "True", "not 1",
    "captures(white) <= 3 and", "name: ", ": captures(white) <= 3", "a: b: captures(white) <= 3",
    "no-such-library-entry", "../../../etc/passwd", "captures(white)\x00 <= 3",
    "not " * 2000 + "never_moved(\"e1\")", "(" * 500 + "captures(white) <= 3" + ")" * 500,
    " and ".join(["never_moved(\"e1\")"] * 3000), "+".join(["captures(white)"] * 5000) + " <= 3",
    "-" * 3000 + "captures(white) <= 3", "captures(white) <= " + "9" * 5000,
    "captures(white) <= 3 # comment", "captures(white) <= 3;", "captures(white) <= 3\nimport os",
    "\tcaptures(white) <= 3", "captures(white)\u2264 3", "ｃaptures(white) <= 3",
]
MISSING = "no-such-file.toml"


def mutate_text(rng: random.Random, text: str, alphabet: str = "") -> str:
    """A text with a few random character edits: replace, insert, delete, duplicate a slice."""
    chars = list(text)
    pool = alphabet or (string.printable + "é♔\u200b\udcff")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            chars[min(i, len(chars) - 1)] = rng.choice(pool)
        elif op == 1:
            chars.insert(i, rng.choice(pool))
        elif op == 2 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 3 and chars:
            j = rng.randrange(len(chars) + 1)
            lo, hi = min(i, j), max(i, j)
            chars[lo:lo] = chars[lo:hi]
        else:
            chars = chars[:i]
    return "".join(chars)


FEN_ALPHABET = "pnbrqkPNBRQK123456789/ -wbKQkqe3e6x0"


def _mutated(values: list[str], alphabet: str = "") -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(values), st.randoms(use_true_random=False)).map(
        lambda t: mutate_text(t[1], t[0], alphabet))


def _text(valid: list[str], hostile: list[str], alphabet: str = "") -> st.SearchStrategy[str]:
    """Valid values, random edits of them, hostile ones and random text, mixed."""
    return st.one_of(st.sampled_from(valid), _mutated(valid, alphabet), st.sampled_from(hostile),
                     st.text(max_size=40))


def fens() -> st.SearchStrategy[str]:
    return _text(SEEDS["fen"] + SEEDS["lastmove"], HOSTILE_FENS + HOSTILE_TEXT, FEN_ALPHABET)


def boards() -> st.SearchStrategy[str]:
    valid = SEEDS["board"] + [f.split()[0] for f in SEEDS["fen"]]
    return _text(valid, HOSTILE_FENS + HOSTILE_TEXT, FEN_ALPHABET)


def fen_or_board() -> st.SearchStrategy[str]:
    return st.one_of(fens(), boards())


def squares() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(SQUARES), st.sampled_from(
        ["z9", "A1", "e", "e10", "i1", "a0", "", "e1e2", "11", "ee"] + HOSTILE_TEXT[:26]))


def square_lists(sep: str = ",") -> st.SearchStrategy[str]:
    return st.one_of(st.lists(st.sampled_from(SQUARES), max_size=10).map(sep.join),
                     st.lists(squares(), max_size=6).map(sep.join),
                     st.sampled_from([",", ",,", "e1,,e2", "e1 e1", ",".join(SQUARES * 50), "e1;e2"]))


def numbers(valid: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(valid), st.sampled_from(HOSTILE_NUMBERS),
                     st.integers(-10, 10).map(str))


def claims() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(SEEDS["claim"]), _mutated(SEEDS["claim"]),
                     st.sampled_from(HOSTILE_CLAIMS), st.sampled_from(HOSTILE_TEXT),
                     st.text(max_size=30))


GAMES = ["1.e4", "1.e4 e5 2.Nf3 Nc6", "1.d4 d5 2.c4 dxc4 3.e4", "1. Nf3 {a comment} Nf6 *",
         "e2-e4 e7-e5 Sg1-f3", '[Event "x"]\n\n1. e4 e5 *', "1.e4 e5 2.Ke2 Ke7 3.Ke1 Ke8",
         "1.Nf3 Nf6 2.Ng1 Ng8", "1.e4 d5 2.exd5 Qxd5 3.Nc3"]
HOSTILE_GAMES = ["1.e4 --", "0000", "1.Ke2", "O-O", "", "1.e4 e5 " * 3000, "1.e9",
                 '[Variant "Crazyhouse"]\n\n1. e4 *', '[FEN "8/8/8/8/8/8/8/K6k w - - 0 1"]\n\n*']


def game_texts() -> st.SearchStrategy[str]:
    """--game values: move texts (SAN, Popeye, PGN), edits of them, hostile ones, files."""
    return st.one_of(_text(GAMES, HOSTILE_GAMES + HOSTILE_TEXT[:10]), paths())


def paths() -> st.SearchStrategy[str]:
    """File arguments: missing files, devices, directories, and files the case creates
    (see FILE_FIXTURES)."""
    return st.sampled_from([MISSING, "/dev/zero", "/dev/null", ".", "/", "dir/", "empty.bin",
                            "junk.bin", "utf16.txt", "nul.txt", "big.txt", "", "-",
                            "x" * 5000, "\udcff.toml"])


def file_fixtures() -> dict[str, bytes]:
    """The files every CLI case finds in its working directory (named by paths())."""
    return {"dir/": b"", "empty.bin": b"", "junk.bin": bytes(range(256)) * 4,
            "utf16.txt": 'format = "retrologic/1"\n'.encode("utf-16"),
            "nul.txt": b"a\x00b\n", "big.txt": b"a = 1\n" * 40_000}


def limits() -> st.SearchStrategy[list[str]]:
    """--timeout/--nodes: at least one sane cap stays in force unless the other value is
    rejected, so a case that runs long is a real hang."""
    sane = st.just(SEARCH_LIMITS)
    bad_timeout = numbers(["0.001", "0.5", "1"]).map(lambda v: ["--timeout", v, "--nodes", "20000"])
    bad_nodes = numbers(["1", "100", "5000"]).map(lambda v: ["--nodes", v, "--timeout", "2"])
    return st.one_of(sane, sane, bad_timeout, bad_nodes)


def flags(*names: str) -> st.SearchStrategy[list[str]]:
    """Any subset of boolean flags, in any order."""
    return st.lists(st.sampled_from(list(names)), unique=True, max_size=len(names))


def _opt(name: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    """An optional option with a value: [] or [name, value]."""
    return st.one_of(st.just([]), values.map(lambda v: [name, v]))


def _repeat(name: str, values: st.SearchStrategy[str], most: int) -> st.SearchStrategy[list[str]]:
    """A repeatable option given 0..most times."""
    return st.lists(values, max_size=most).map(lambda vs: [a for v in vs for a in (name, v)])


def _join(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda ps: [a for p in ps for a in p])


COMMON = ("--json", "--progress")


def argv_legal() -> st.SearchStrategy[list[str]]:
    # `legal` searches for a game since issue #19: it gets the searching commands' caps
    return _join(st.just(["legal"]), fen_or_board().map(lambda v: [v]),
                 _opt("--frozen", square_lists()), _repeat("--game", game_texts(), 2),
                 flags("--json"), limits())


def argv_retract() -> st.SearchStrategy[list[str]]:
    return _join(st.just(["retract"]), fen_or_board().map(lambda v: [v]),
                 _opt("--uncaptures", st.sampled_from(["typed", "open", "none", "bogus", ""])),
                 flags("--json", "--no-counts"))


def argv_cage() -> st.SearchStrategy[list[str]]:
    boards_ = st.one_of(st.sampled_from([c[0] for c in SEEDS["cage"]]), boards())
    return _join(st.just(["cage"]), boards_.map(lambda v: [v]), _opt("--zone", square_lists()),
                 _opt("--frozen", square_lists()),
                 _repeat("--restrict", claims(), 2), _opt("--library", paths()),
                 flags("--plain", *COMMON),
                 _opt("--certificate-dir", st.sampled_from(["certs", "dir", "empty.bin",
                                                            "/dev/null"])),
                 limits())


def argv_deduce() -> st.SearchStrategy[list[str]]:
    return _join(st.just(["deduce"]), fens().map(lambda v: [v]),
                 _repeat("--claim", claims(), 3), _repeat("--assume", claims(), 2),
                 _opt("--frozen", square_lists(" ")),
                 _opt("--engine", st.sampled_from(["sat", "cp-sat", "both", "z3"])),
                 flags("--no-explain", *COMMON),
                 _opt("--certificate-dir", st.sampled_from(["certs", "empty.bin"])), limits())


def argv_lastmove() -> st.SearchStrategy[list[str]]:
    return _join(st.just(["lastmove"]),
                 st.one_of(st.sampled_from(SEEDS["lastmove"]), fens()).map(lambda v: [v]),
                 _opt("--plies", numbers(["1", "2", "3"])), _opt("--depth", numbers(["1", "2", "6"])),
                 _opt("--to-move", st.sampled_from(["white", "black", "?", "both"])),
                 _repeat("--lemma", paths(), 2), _opt("--frozen", square_lists()),
                 _repeat("--game", game_texts(), 2),
                 flags("--no-discover", "--no-library", "--pgn", *COMMON),
                 _opt("--certificate-dir", st.just("certs")), limits())


def argv_trajectory() -> st.SearchStrategy[list[str]]:
    pieces = st.sampled_from(["K", "Q", "R", "B", "N", "P", "k", "X", "", "KK", "♔"])
    colors = st.sampled_from(["white", "black", "purple", "", "WHITE"])
    return _join(st.just(["trajectory"]), _opt("--piece", pieces), _opt("--color", colors),
                 squares().map(lambda s: ["--from", s]), _opt("--to", squares()),
                 _opt("--length", numbers(["1", "3", "5", "8"])),
                 _opt("--degree", numbers(["1", "2", "3"])),
                 _opt("--block", square_lists()), _opt("--no-entry", square_lists()),
                 _opt("--no-cross", square_lists()), _opt("--captures", numbers(["0", "1", "2"])),
                 _opt("--promote", pieces), _opt("--limit", numbers(["1", "10"])),
                 _opt("--board", fen_or_board()), _opt("--frozen", square_lists()),
                 _opt("--svg", st.sampled_from(["out.svg", "dir", "/dev/null", "no/such/dir/x.svg"])),
                 flags(*COMMON), limits())


def argv_spg() -> st.SearchStrategy[list[str]]:
    valid = [(f, str(m)) for f, m in SEEDS["spg"]] + CHEAP_SPG
    pairs = st.one_of(st.sampled_from(CHEAP_SPG), st.sampled_from(valid),
                      st.tuples(fen_or_board(), numbers(["0.5", "1.0", "2.0", "3.5", "1.7", "x"])))
    return _join(st.just(["spg"]), pairs.map(lambda p: [p[0], "--moves", p[1]]),
                 _opt("--list-strategies", numbers(["0", "1", "3"])),
                 _opt("--engine", st.sampled_from(["auto", "search", "schedule", "bogus"])),
                 flags("--all", "--no-strategies", *COMMON),
                 _opt("--certificate-dir", st.just("certs")), _certificate_mib(), limits())


def argv_tablebase() -> st.SearchStrategy[list[str]]:
    fens_ = st.one_of(st.sampled_from(SEEDS["tablebase_fen"]), fens())
    return _join(st.just(["tablebase", "probe"]), fens_.map(lambda v: [v]),
                 _opt("--dir", st.sampled_from(["tables", "dir", "empty.bin", "/dev/null", MISSING])),
                 flags("--json"), limits())


def puzzle_boards() -> st.SearchStrategy[str]:
    return _text(SEEDS["puzzle"], HOSTILE_TEXT + ["4/4/4/4", "KKKK/KKKK/KKKK/KKKK", "4/4/4",
                                                  "4/4/4/4/4", "5/4/4/4", "Nbrn/kqQB/nNRR/rbBKX"],
                 "KQRBNPkqrbnp1234/")


def argv_puzzle4x4() -> st.SearchStrategy[list[str]]:
    solve = _join(st.just(["puzzle4x4", "solve"]), puzzle_boards().map(lambda v: [v]),
                  flags("--retrograde", *COMMON), _opt("--certificate-dir", st.just("certs")),
                  limits())
    rate = _join(st.just(["puzzle4x4", "rate"]), puzzle_boards().map(lambda v: [v]),
                 _opt("--playouts", numbers(["1", "100", "500"])), _opt("--seed", numbers(["0", "7"])),
                 flags("--exact", "--json"), limits())
    generate = _join(st.just(["puzzle4x4", "generate"]),
                     numbers(["2", "5", "6.5"]).map(lambda v: ["--difficulty", v]),
                     _opt("--tolerance", numbers(["0.25", "1"])), _opt("--seed", numbers(["0", "1"])),
                     _opt("--playouts", numbers(["50", "100"])),
                     _opt("--attempts", numbers(["1", "5"])),
                     flags("--json"), limits())
    census = _join(st.just(["puzzle4x4", "census"]),
                   st.one_of(numbers(["1", "10", "50"]).map(lambda v: ["--sample", v]),
                             st.sampled_from(["0:10", "5:5", "10:0", "0:", ":", "a:b", "-5:3",
                                              "0:99999999999999999999"])
                             .map(lambda v: ["--range", v])),
                   _opt("--shard-size", numbers(["5", "100"])), _opt("--seed", numbers(["0"])),
                   st.sampled_from([["--workers", "1"], ["--workers", "0"], ["--workers", "-1"],
                                    ["--engine", "python", "--workers", "1"]]),
                   st.sampled_from(["out", "dir", "empty.bin", "/dev/null"])
                   .map(lambda v: ["--out", v]),
                   flags("--json"), limits())
    return st.one_of(solve, rate, generate, census)


def argv_solve() -> st.SearchStrategy[list[str]]:
    real = st.sampled_from(sorted(SEEDS["texts"])).map(lambda p: str(ROOT / p))
    files = st.lists(st.one_of(real, paths()), min_size=1, max_size=3)
    return _join(st.just(["solve"]), files, flags(*COMMON),
                 _opt("--certificate-dir", st.just("certs")), _certificate_mib(), limits())


def argv_check() -> st.SearchStrategy[list[str]]:
    return _join(st.just(["check"]), st.lists(paths(), min_size=1, max_size=3), flags("--json"),
                 _certificate_mib())


def _certificate_mib() -> st.SearchStrategy[list[str]]:
    """--certificate-mib: the size knob's values, sane and not (retrologic.certsize)."""
    return _opt("--certificate-mib", numbers(["1", "2", "40", "120", "4096", "4097"]))


def argv_toplevel() -> st.SearchStrategy[list[str]]:
    """Malformed command lines: unknown commands, missing arguments, options alone."""
    words = st.sampled_from(["solve", "check", "legal", "retract", "cage", "deduce", "lastmove",
                             "trajectory", "spg", "tablebase", "puzzle4x4", "--debug", "--json",
                             "--timeout", "--help", "--version", "-h", "bogus", "--", "-"])
    return st.lists(st.one_of(words, st.sampled_from(HOSTILE_TEXT[:26])), max_size=4)


ARGV_STRATEGIES: dict[str, Callable[[], st.SearchStrategy[list[str]]]] = {
    "legal": argv_legal, "retract": argv_retract, "cage": argv_cage, "deduce": argv_deduce,
    "lastmove": argv_lastmove, "trajectory": argv_trajectory, "spg": argv_spg,
    "tablebase": argv_tablebase, "puzzle4x4": argv_puzzle4x4, "solve": argv_solve,
    "check": argv_check, "toplevel": argv_toplevel,
}

# --------------------------------------------------------------------------- structured mutation

KINDS = ["legal", "retractions", "cage", "deduce", "last-move", "trajectory", "spg", "tablebase",
         "puzzle4x4", "mate-in-2", ""]


def _deep_list(depth: int) -> list:
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


def _deep_dict(depth: int) -> dict:
    out: dict = {}
    for _ in range(depth):
        out = {"a": out}
    return out


@functools.cache
def hostile_values(json_like: bool) -> st.SearchStrategy[Any]:
    """Values to put anywhere in a problem file (TOML: no null) or a certificate (JSON); built
    once (hypothesis validates a strategy when it is first drawn from)."""
    import datetime
    base = [
        "", "x", "\x00", "\x1b[2J", "é♔🐴", "\u202e", "a" * 100_000, -1, 0, 1, 2 ** 31, 2 ** 63,
        2 ** 64 + 1, 10 ** 30, -(10 ** 30), 0.5, -0.0, 1e308, float("nan"), float("inf"),
        float("-inf"), True, False, "/dev/zero", "/", "encodings/cages",
        "problems/deduce/no-dxe-for-a-cage.toml", "e1", "z9", "white", "?", "proved", "refuted",
        "unknown", "KQkq", "8/8/8/8/8/8/8/8", "KKKKKKKK/K7/8/8/8/8/8/k7", "a2a3", "e2e4", "0000",
    ]
    # containers are made afresh for each draw: a mutant edited in place must not change them
    fresh: list[Callable[[], Any]] = [
        list, dict, lambda: [1, "a", 2.5], lambda: [0] * 100_000, lambda: ["e1"] * 10_000,
        lambda: _deep_list(60), lambda: _deep_dict(60), lambda: _deep_list(3000),
        lambda: _deep_dict(3000), lambda: {"board": "8/8/8/8/8/8/8/8"},
        lambda: {"type": "cage-proof"}, lambda: ["a2a3"],
    ]
    if json_like:
        base += [None]
        fresh += [lambda: [None], lambda: {"": None}]
    else:
        base += [datetime.datetime(1979, 5, 27, 7, 32), datetime.date(2000, 1, 1),
                 datetime.time(23, 59, 59)]
    return st.one_of(st.sampled_from(base), st.sampled_from(fresh).map(lambda make: make()),
                     st.sampled_from(HOSTILE_TEXT), st.sampled_from(KINDS),
                     st.sampled_from(HOSTILE_CLAIMS), st.integers(), st.floats(),
                     st.text(max_size=20))


def _paths(node: Any, prefix: tuple = (), limit: int = 4000) -> list[tuple]:
    """Every path (keys and indices) to a node of a JSON/TOML tree, breadth-limited."""
    out = [prefix]
    stack = [(node, prefix)]
    while stack and len(out) < limit:
        cur, pre = stack.pop()
        items = (cur.items() if isinstance(cur, dict) else
                 enumerate(cur) if isinstance(cur, list) else ())
        for k, v in items:
            out.append(pre + (k,))
            stack.append((v, pre + (k,)))
    return out


def _get(node: Any, path: tuple) -> Any:
    for k in path:
        node = node[k]
    return node


def _retype(value: Any, json_like: bool) -> Any:
    """The same content in another type: a string in a list, a number as a string, a list's
    first member, a table's values."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return [value]
    if isinstance(value, list):
        return value[0] if value else {}
    if isinstance(value, dict):
        return list(value.values()) if value else []
    return "null" if json_like else 0


def _numeric_nudge(value: Any, delta: int) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + delta
    if isinstance(value, float):
        return value + delta * 0.5
    return value


@st.composite
def mutate_tree(draw, tree: Any, json_like: bool, donors: list[Any] = (),
                skip: frozenset = frozenset()) -> tuple[Any, list[str]]:
    """A deep copy of a JSON/TOML tree with 1-3 mutations, and their descriptions: delete,
    replace with a hostile value, retype, nudge a number, duplicate/swap/drop list members,
    graft a subtree of another document (e.g. another problem's question table), add a key,
    edit a string (a FEN, a square, a move). Top-level keys in `skip` are left alone."""
    tree = json.loads(json.dumps(tree, default=str)) if json_like else _copy(tree)
    notes: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(tree) if not p or p[0] not in skip]
        paths = paths[1:] if len(paths) > 1 else paths
        path = paths[draw(st.integers(0, len(paths) - 1))]     # (a large sampled_from is slow)
        if not path:
            break
        parent = _get(tree, path[:-1])
        key = path[-1]
        old = parent[key]
        op = draw(st.sampled_from(["delete", "hostile", "hostile", "retype", "nudge", "list",
                                   "graft", "add-key", "edit", "edit"]))
        where = "/".join(map(str, path))
        if op == "delete":
            if isinstance(parent, list):
                parent.pop(key)
            else:
                del parent[key]
            notes.append(f"delete {where}")
            continue
        if op == "hostile":
            new = draw(hostile_values(json_like))
        elif op == "retype":
            new = _retype(old, json_like)
        elif op == "nudge" and isinstance(old, (int, float)):
            new = _numeric_nudge(old, draw(st.sampled_from([-1, 1, 2, -2, 7, 1000])))
        elif op == "list" and isinstance(old, list) and old:
            new = list(old)
            how = draw(st.sampled_from(["dup", "swap", "drop", "reverse", "truncate", "repeat"]))
            i, j = draw(st.integers(0, len(new) - 1)), draw(st.integers(0, len(new) - 1))
            if how == "dup":
                new.insert(i, new[i])
            elif how == "swap":
                new[i], new[j] = new[j], new[i]
            elif how == "drop":
                new.pop(i)
            elif how == "reverse":
                new.reverse()
            elif how == "truncate":
                new = new[:i]
            else:
                new = new * 50
            where += f" ({how})"
        elif op == "graft" and donors:
            donor = donors[draw(st.integers(0, len(donors) - 1))]
            dpaths = _paths(donor, limit=400)
            new = _copy(_get(donor, dpaths[draw(st.integers(0, len(dpaths) - 1))]))
        elif op == "add-key" and isinstance(old, dict):
            name = draw(st.sampled_from(["extra", "type", "format", "proof", "lemma", "fen",
                                         "board", "kind", "zone", "\u00e9", ""]))
            old = dict(old)
            old[name] = draw(hostile_values(json_like))
            new = old
            where += f" (+{name!r})"
        elif isinstance(old, str) and old:
            op = "edit"
            new = mutate_text(draw(st.randoms(use_true_random=False)), old,
                              draw(st.sampled_from([FEN_ALPHABET, "abcdefgh12345678 -", ""])))
        else:
            op = "hostile"
            new = draw(hostile_values(json_like))
        parent[key] = new
        notes.append(f"{op} {where}: {_brief(old)} -> {_brief(new)}")
    return tree, notes


def _copy(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _copy(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_copy(v) for v in tree]
    return tree


def _brief(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, default=str, ensure_ascii=False)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"…[{len(text)}]"


# --------------------------------------------------------------------------- TOML writer


def _toml_key(key: str) -> str:
    return key if key and re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_str(key)


def _toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o == 0x7F or 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04X}" if not 0xD800 <= o <= 0xDFFF else "\\uFFFD")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v: Any) -> str:
    import datetime
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    return _toml_str(str(v))


def dump_toml(data: dict[str, Any]) -> str:
    """A TOML document of a tree, every table inline (so any tree round-trips through tomllib,
    deep ones too: the writer is iterative only in breadth, so depth is bounded by the caller)."""
    import sys as _sys
    old = _sys.getrecursionlimit()
    _sys.setrecursionlimit(max(old, 20_000))
    try:
        return "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in data.items())
    finally:
        _sys.setrecursionlimit(old)


# --------------------------------------------------------------------------- problem files

PROBLEM_TREES = {p: tomllib.loads(t) for p, t in SEEDS["texts"].items()}


RAW_VARIANTS = ["utf-16", "utf-16-be", "utf-8-sig", "truncate", "junk", "nul", "crlf", "cr",
                "empty"]


def raw_variant(draw: Callable[[st.SearchStrategy[Any]], Any], text: str, how: str) -> bytes:
    """A text file's bytes gone wrong in a way any format must refuse or survive (`how` one of
    RAW_VARIANTS): another encoding, truncated, binary junk inside, a NUL, other line ends,
    nothing at all; `draw` is the composite strategy's."""
    raw = text.encode("utf-8")
    if how in ("utf-16", "utf-16-be", "utf-8-sig"):
        return text.encode(how)
    if how == "truncate":
        return raw[:draw(st.integers(0, max(0, len(raw) - 1)))]
    if how == "junk":
        at = draw(st.integers(0, len(raw)))
        return raw[:at] + draw(st.binary(min_size=1, max_size=64)) + raw[at:]
    if how == "nul":
        return raw + b"\x00"
    if how == "crlf":
        return raw.replace(b"\n", b"\r\n")
    if how == "cr":
        return raw.replace(b"\n", b"\r")
    return b""


@st.composite
def problem_files(draw) -> tuple[bytes, str]:
    """A problem file mutated from a real one, and how: structural edits of its TOML tree
    (grafts from other problems make wrong-kind combinations), edits of its text, or its text
    in another encoding, truncated or with binary junk."""
    names = sorted(PROBLEM_TREES)
    name = names[draw(st.integers(0, len(names) - 1))]
    text = SEEDS["texts"][name]
    mode = draw(st.sampled_from(["tree", "tree", "tree", "text", "bytes"]))
    if mode == "tree":
        donors = [PROBLEM_TREES[names[draw(st.integers(0, len(names) - 1))]] for _ in range(2)]
        tree, notes = draw(mutate_tree(PROBLEM_TREES[name], False, donors))
        if not isinstance(tree, dict):
            tree = {"value": tree}
        return dump_toml(tree).encode("utf-8"), f"{name}: " + "; ".join(notes)
    if mode == "text":
        rng = draw(st.randoms(use_true_random=False))
        new = mutate_text(rng, text, draw(st.sampled_from(["", "[]{}=\"'.,\n#", FEN_ALPHABET])))
        return new.encode("utf-8", "surrogatepass"), f"{name}: text edits"
    how = draw(st.sampled_from([*RAW_VARIANTS, "latin-1", "huge-line", "dup-table",
                                "deep-array", "deep-table", "huge-array"]))
    raw = text.encode("utf-8")
    if how in RAW_VARIANTS:
        data = raw_variant(draw, text, how)
    elif how == "latin-1":
        data = text.replace("title = \"", "title = \"\u00e9").encode("latin-1", "replace")
    elif how == "huge-line":
        data = raw + b'comment = "' + b"x" * 2_000_000 + b'"\n'
    elif how == "dup-table":
        data = raw + b'\nquestion = { kind = "legal" }\n'
    elif how == "deep-array":
        data = raw + b"deep = " + b"[" * 5000 + b"]" * 5000 + b"\n"
    elif how == "deep-table":
        data = raw + b"deep = " + b"{a = " * 3000 + b"1" + b"}" * 3000 + b"\n"
    else:
        data = raw + b"huge = [" + b"0, " * 500_000 + b"]\n"
    return data, f"{name}: {how}"


def solve_argv() -> st.SearchStrategy[list[str]]:
    """`solve case.toml` with the search cap and, sometimes, --json, --certificate-dir, a
    second real file."""
    extra = st.sampled_from([[], [], ["--json"], ["--certificate-dir", "certs"],
                             ["--json", "--certificate-dir", "certs"],
                             [str(ROOT / "problems/retractions/a2-a3-check.toml")]])
    return extra.map(lambda e: ["solve", "case.toml", *e, *SEARCH_LIMITS])


# --------------------------------------------------------------------------- convert inputs

def _convert_sources() -> dict[str, str]:
    """The Popeye and YACPDB files of problems/, and an EPD and a FEN file made of the seeds'
    FENs: the texts `convert` reads (by file name suffix)."""
    out = {}
    for rel in ("problems/popeye", "problems/yacpdb"):
        for path in sorted((ROOT / rel).glob("*")):
            if path.suffix in (".pop", ".inp", ".yaml"):
                out[str(path.relative_to(ROOT))] = path.read_text()
    fens = [f for f in SEEDS["fen"] if len(f.split()) >= 4][:40]
    ops = ["legal", "retractions", "lastmove"]
    out["seeds.epd"] = "".join(f"{' '.join(f.split()[:4])} {ops[i % 3]}; id \"seed {i}\";\n"
                               for i, f in enumerate(fens))
    out["seeds.fen"] = "".join(f"{' '.join(f.split()[:4])} 0 1 legal;\n" for f in fens)
    return out


CONVERT_SOURCES = _convert_sources()
CONVERT_ALPHABETS = ["", "[]{}:-,'\"\n#&*!|>", "KQRBSPkqrbsp12345678/ -.*=x~+#", FEN_ALPHABET]


@st.composite
def convert_inputs(draw) -> tuple[bytes, str, str]:
    """A file for `convert` mutated from a real one (its suffix kept, so the same reader takes
    it): edits of its text, or its text in another encoding, truncated, with binary junk, a huge
    line, deep nesting; and the case's description."""
    names = sorted(CONVERT_SOURCES)
    name = names[draw(st.integers(0, len(names) - 1))]
    text = CONVERT_SOURCES[name]
    file = "case" + Path(name).suffix
    how = draw(st.sampled_from(["text", "text", "text", *RAW_VARIANTS, "huge-line", "deep"]))
    raw = text.encode("utf-8")
    if how == "text":
        rng = draw(st.randoms(use_true_random=False))
        data = mutate_text(rng, text, draw(st.sampled_from(CONVERT_ALPHABETS))).encode(
            "utf-8", "surrogatepass")
    elif how in RAW_VARIANTS:
        data = raw_variant(draw, text, how)
    elif how == "huge-line":
        data = raw + b"Remark " + b"x" * 2_000_000 + b"\n"
    else:
        data = raw + b"\ndeep: " + b"[" * 5000 + b"]" * 5000 + b"\n"
    return data, file, f"{name}: {how}"


def convert_argv(file: str) -> st.SearchStrategy[list[str]]:
    """`convert FILE --to toml` into a fresh directory, sometimes twice the file or --force."""
    extra = st.sampled_from([[], ["--force"], [file]])
    return extra.map(lambda e: ["convert", "--to", "toml", "--out", "out", file, *e])


def convert_cases() -> st.SearchStrategy[tuple[tuple[bytes, str, str], list[str]]]:
    """A `convert_inputs` file and a `convert_argv` command line naming it."""
    return convert_inputs().flatmap(lambda made: convert_argv(made[1]).map(
        lambda argv: (made, argv)))


# --------------------------------------------------------------------------- certificates

META_KEYS = frozenset({"problem", "retrologic", "question", "position", "format"})
CERT_SOURCES = [           # problem files whose certificates are cheap to make
    "problems/cages/fig2-brandis-corner.toml", "problems/cages/fig4-not-a-cage.toml",
    "problems/cages/fig3-bishop-one-step-out-with-lemma.toml",
    "problems/lastmove/a2-a3-check.toml", "problems/lastmove/knight-uncapture.toml",
    "problems/lastmove/three-plies-en-passant.toml",  # (brandis-lemma: 25 s since its games)
    "problems/spg/f4-f5-nf3.toml", "problems/puzzle4x4/article-solvable-start.toml",
    "problems/puzzle4x4/article-forced-capture.toml",
]
CERT_COMMANDS = [          # commands whose certificates are cheap to make (besides CERT_SOURCES)
    ["deduce", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     "--claim", "captures(white) == 0"],
    ["cage", "8/8/8/8/8/8/4PPPP/5K2"],
    ["spg", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR", "--moves", "1.0"],
]


def retraction_line() -> dict[str, Any]:
    """A retraction-line certificate (no command writes one): a short real game, retracted."""
    import chess
    board = chess.Board()
    fens = [board.fen()]
    moves = []
    for san in ["e4", "d5", "exd5", "Qxd5", "Nc3"]:
        move = board.parse_san(san)
        board.push(move)
        fens.append(board.fen())
        moves.append(move.uci())
    from retrologic import __version__, certificate
    return {"type": "retraction-line", "format": getattr(certificate, "FORMAT", 1),
            "retrologic": __version__, "positions": fens[::-1], "moves": moves[::-1]}


def make_certificates(outdir: str | Path) -> tuple[dict[str, dict[str, Any]], list[Outcome]]:
    """Make real certificates of every type into outdir (by running the CLI), and return them
    (file name -> decoded JSON) with the outcomes of the runs that made them."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    runs = []
    for i, argv in enumerate([["solve", str(ROOT / p)] for p in CERT_SOURCES] + CERT_COMMANDS):
        runs.append(run_cli([*argv, "--certificate-dir", "certs"], cap=60,
                            keep=str(outdir / f"run{i}")))
    certs: dict[str, dict[str, Any]] = {}
    for path in sorted(outdir.glob("run*/certs/**/*.json")):
        try:
            certs[f"{path.parent.parent.name}-{path.name}"] = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    certs["retraction-line.json"] = retraction_line()
    return certs, runs


@st.composite
def certificate_mutants(draw, certs: dict[str, dict[str, Any]]) -> tuple[bytes, str, str, bool]:
    """A certificate mutated from a real one: (file bytes, the original's name, how, whether
    the decoded document differs from the original). Structural edits mostly, with grafts from
    the other certificates; sometimes text edits, truncation, another encoding or deep nesting."""
    names = sorted(certs)
    name = names[draw(st.integers(0, len(names) - 1))]
    cert = certs[name]
    mode = draw(st.sampled_from(["tree"] * 6 + ["text", "bytes"]))
    if mode == "tree":
        donors = [certs[names[draw(st.integers(0, len(names) - 1))]] for _ in range(2)]
        skip = META_KEYS if draw(st.integers(0, 3)) else frozenset()
        tree, notes = draw(mutate_tree(cert, True, donors, skip))
        try:
            text = json.dumps(tree, indent=None if draw(st.booleans()) else 1)
        except (ValueError, RecursionError):
            return json.dumps(cert).encode(), name, "(unserializable mutant: the original)", False
        return text.encode("utf-8", "surrogatepass"), name, "; ".join(notes), tree != cert
    raw = json.dumps(cert).encode("utf-8")
    if mode == "text":
        rng = draw(st.randoms(use_true_random=False))
        alphabet = draw(st.sampled_from(["", '{}[]",:0123456789', FEN_ALPHABET]))
        text = mutate_text(rng, raw.decode(), alphabet)
        data = text.encode("utf-8", "surrogatepass")
        return data, name, "text edits", _decoded_differs(data, cert)
    how = draw(st.sampled_from(["utf-16", "bom", "truncate", "junk", "nul", "empty", "deep",
                                "deep-object", "nan", "huge-number", "dup-key", "array-top",
                                "huge-string"]))
    if how == "utf-16":
        data = raw.decode().encode("utf-16")
    elif how == "bom":
        data = b"\xef\xbb\xbf" + raw
    elif how == "truncate":
        data = raw[:draw(st.integers(0, len(raw) - 1))]
    elif how == "junk":
        at = draw(st.integers(0, len(raw)))
        data = raw[:at] + draw(st.binary(min_size=1, max_size=32)) + raw[at:]
    elif how == "nul":
        data = raw + b"\x00"
    elif how == "empty":
        data = b""
    elif how == "deep":
        data = raw[:-1] + b', "extra": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    elif how == "deep-object":
        data = b'{"a": ' * 50_000 + b"1" + b"}" * 50_000
    elif how == "nan":
        data = raw[:-1] + b', "format": NaN}'
    elif how == "huge-number":
        data = raw[:-1] + b', "plies": 1' + b"0" * 5000 + b"}"
    elif how == "dup-key":
        data = raw[:-1] + b', "type": "spg-game"}'
    elif how == "array-top":
        data = b"[" + raw + b"]"
    else:
        data = raw[:-1] + b', "note": "' + b"x" * 20_000_000 + b'"}'
    return data, name, how, _decoded_differs(data, cert)


def metadata_only(how: str) -> bool:
    """Whether a tree mutation's notes touch only a certificate's informational metadata."""
    notes = [n for n in how.split("; ") if n]
    return bool(notes) and all(len(n.split(" ", 2)) > 1 and n.split(" ", 2)[1].split("/")[0]
                               .rstrip(":") in META_KEYS for n in notes)


def _decoded_differs(data: bytes, cert: dict[str, Any]) -> bool:
    try:
        return json.loads(data) != cert
    except (ValueError, RecursionError):
        return True


def check_argv() -> st.SearchStrategy[list[str]]:
    return st.sampled_from([["check", "cert.json"], ["check", "cert.json", "--json"]])


# --------------------------------------------------------------------------- re-deciding a claim


def _verdict_of(outcome: Outcome) -> dict[str, Any] | None:
    """The JSON result a `--json` run printed (the first document), or None."""
    text = outcome.stdout.strip()
    if not text:
        return None
    try:
        return json.loads(text.splitlines()[0]) if text.startswith("{\"") and "\n" not in text \
            else json.loads(text)
    except ValueError:
        try:
            return json.loads(text.splitlines()[0])
        except ValueError:
            return None


def reverify(cert: Any, seconds: float = 20) -> tuple[str, str]:
    """Re-decide the claim of an accepted certificate independently of its checker: "true",
    "FALSE", "undecided" (the re-solve hit its limit, or a fact the command line cannot state)
    or "n/a", with a detail. SPG games are replayed with python-chess; cages, 4x4 boards,
    deductions and last moves are re-solved from scratch by the CLI (re-solving as the oracle)."""
    if not isinstance(cert, dict):
        return "n/a", "not an object"
    ctype = cert.get("type")
    limit = ["--timeout", f"{seconds:g}", "--json"]
    try:
        if ctype == "spg-game":
            import chess
            board = chess.Board()
            for uci in cert["moves"]:
                move = chess.Move.from_uci(uci)
                if move not in board.legal_moves:
                    return "FALSE", f"{uci} is illegal after {board.fen()}"
                board.push(move)
            if len(cert["moves"]) != cert["plies"]:
                return "FALSE", f"{len(cert['moves'])} moves, {cert['plies']} plies claimed"
            if board.board_fen() != str(cert["target"]).split()[0]:
                return "FALSE", f"the game ends on {board.board_fen()}, not {cert['target']}"
            return "true", "replayed by python-chess"
        if ctype in ("puzzle4x4-line", "puzzle4x4-unsolvable"):
            o = run_cli(["puzzle4x4", "solve", cert["board"], *limit], cap=seconds + 10)
            v = _verdict_of(o)
            if not v or v.get("verdict") != "proved":
                return "undecided", f"re-solve: exit {o.status}"
            solvable = v.get("answer") != "unsolvable"
            ok = solvable == (ctype == "puzzle4x4-line")
            return ("true" if ok else "FALSE"), f"re-solve: {v.get('answer')}"
        if ctype in ("cage-proof", "cage-counterexample"):
            start = cert["start"]
            if set(start) - {"board", "frozen"} or cert.get("restrictions"):
                return "undecided", "castling rights or restrictions (not on the command line)"
            argv = ["cage", start["board"], "--zone", ",".join(cert["zone"]), *limit]
            if start.get("frozen"):
                argv += ["--frozen", ",".join(start["frozen"])]
            if cert.get("model") == "plain":
                argv.append("--plain")
            o = run_cli(argv, cap=seconds + 10)
            v = _verdict_of(o)
            if not v or v.get("verdict") not in ("proved", "refuted"):
                return "undecided", f"re-solve: exit {o.status}"
            cage = v.get("verdict") == "proved"
            ok = cage == (ctype == "cage-proof")
            return ("true" if ok else "FALSE"), f"re-solve: {'cage' if cage else 'not a cage'}"
        if ctype == "deduce-drup":
            argv = ["deduce", cert["fen"], "--json"]   # small positions: no limit needed
            claim = cert.get("claim")
            if claim:
                argv += ["--claim", claim["expr"]]
            for a in cert.get("assumptions") or []:
                argv += ["--assume", a["expr"] if isinstance(a, dict) else str(a)]
            if cert.get("frozen"):
                argv += ["--frozen", " ".join(cert["frozen"])]
            o = run_cli(argv, cap=seconds + 10)
            v = _verdict_of(o)
            if not v or v.get("verdict") not in ("proved", "refuted"):
                return "undecided", f"re-solve: exit {o.status}"
            return ("true" if v["verdict"] == "proved" else "FALSE"), f"re-solve: {v['verdict']}"
        if ctype == "lastmove-proof":
            argv = ["lastmove", cert["fen"], "--plies", str(cert.get("plies", 1)), *limit]
            if cert.get("to_move") in ("white", "black", "?"):
                argv += ["--to-move", cert["to_move"]]
            o = run_cli(argv, cap=seconds + 10)
            v = _verdict_of(o)
            if not v or "facts" not in v:
                return "undecided", f"re-solve: exit {o.status}"
            possible = set(v["facts"].get("possible", [])) | set(v["facts"].get("unknown", []))
            claimed_out = {c.get("notation") for c in cert.get("candidates", [])
                           if c.get("status") == "impossible"}
            wrong = claimed_out & possible
            if wrong:
                return "FALSE", f"claimed impossible, re-solve says possible: {sorted(wrong)}"
            return "true", f"re-solve: possible {sorted(possible)}"
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        return "undecided", f"cannot read the claim: {type(e).__name__}: {e}"
    return "n/a", f"no oracle for {ctype!r}"
