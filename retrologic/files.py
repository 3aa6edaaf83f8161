"""Reading and writing files safely: size-capped reads that name the file on any fault, and
atomic writes (a temporary file in the same directory, then a rename), so an interrupted run
never leaves a truncated table, library entry, census shard or certificate behind."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from retrologic.errors import InputError

MAX_TEXT_BYTES = 16 * 1024 * 1024       # problem files, certificates, library entries
READ_CHUNK = 16 * 1024 * 1024           # bytes read at a time (`read_bytes`)
MAX_DIR_FILES = 10_000                  # entries of a directory read as a library
MAX_WALK_ENTRIES = 100_000              # entries a collection's directory tree may hold
_STREAMS: dict[str, bytes] = {}         # what a FIFO gave when first read (read_bytes)


def _read_at_most(fh: BinaryIO, size: int) -> bytes:
    """Up to `size` bytes of `fh`, read READ_CHUNK at a time: `read(size)` allocates `size` bytes
    first, and under `check --certificate-mib 4096` that was 4 GiB for a 240 KB file (a
    MemoryError under the fuzz run's memory cap, fuzz seed 2974)."""
    pieces, got = [], 0
    while got < size:
        piece = fh.read(min(READ_CHUNK, size - got))
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


def read_bytes(path: str | Path, *, limit: int = MAX_TEXT_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError (exit 3) otherwise.

    Reads at most limit + 1 bytes, so a huge file or /dev/zero is refused without being read
    into memory. A FIFO (`check <(cat cert.json)`, /dev/stdin on a pipe) is opened without
    blocking: with no writer its open would wait for ever, past --timeout; it reads as empty
    instead. A socket or block device is refused unopened. A FIFO can be read only once: its
    bytes are kept for the process (`_STREAMS`), so the format detection and the parser of
    `solve /dev/stdin` read the same text."""
    file = str(path)
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
            raise InputError(f"not a regular file ({_kind(mode)})", file=file)
        stream = stat.S_ISFIFO(mode)
        if stream and file in _STREAMS:
            data = _STREAMS[file]
        else:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb") as fh:
                data = _read_at_most(fh, limit + 1)
            if stream:
                _STREAMS[file] = data
    except FileNotFoundError:
        raise InputError("no such file", file=file) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a {what}", file=file) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", file=file) from None
    except ValueError:              # a NUL byte in the name (from a problem file's field)
        raise InputError("not a file name (it holds a NUL character)", file=file) from None
    if len(data) > limit:
        raise InputError(f"too large for a {what} (more than {limit:,} bytes)", file=file)
    return data


def read_text(path: str | Path, *, limit: int = MAX_TEXT_BYTES, what: str = "file") -> str:
    """The UTF-8 text of a file of at most `limit` bytes; InputError for binary or other
    encodings (a NUL byte counts as binary)."""
    data = read_bytes(path, limit=limit, what=what)
    if b"\x00" in data:
        raise InputError(f"binary data, not a {what} (UTF-8 text)", file=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", file=str(path)) from None


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (for one-line errors)."""
    for test, word in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "a special file"


def _special(path: Path) -> bool:
    """`path` exists and is neither a regular file nor a directory (a device, a FIFO): a
    stream, which a write goes into as it is, never renamed over (as root, --csv /dev/null
    would otherwise replace the system's /dev/null by a regular file)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


DESCRIPTORS = ("/proc/", "/dev/fd/", "/dev/stdin", "/dev/stdout", "/dev/stderr")
MAX_LINKS = 40


def _descriptor(path: Path) -> bool:
    """`path` names an open descriptor: by its spelling (`DESCRIPTORS`), or by a directory that
    leads into /proc (a link to /proc/self/fd: `fdl/1`; found in review, 2026-11-30)."""
    if str(path).startswith(DESCRIPTORS):
        return True
    try:
        return os.path.realpath(path.parent).startswith("/proc/")
    except (OSError, ValueError):
        return False


def _target(path: Path) -> tuple[Path, bool]:
    """Where a write to `path` goes, and whether straight in (no rename): a symbolic link is
    followed to its target; a device, FIFO or socket (`_special`), or a name of an open
    descriptor (`DESCRIPTORS`: /dev/stdout to a pipe or to a file the shell redirected) is
    written into. Found in review, 2026-11-30: /dev/stdout and --csv /dev/null renamed over."""
    hops, here = 0, path
    while True:
        if _descriptor(here) or _special(here):
            return here, True
        try:
            if not here.is_symlink():
                return here, False
            link = os.readlink(here)
        except (OSError, ValueError):       # a name the system cannot look up fails later
            return here, False
        here = Path(link) if os.path.isabs(link) else here.parent / link
        hops += 1
        if hops > MAX_LINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))


def path_kind(path: str | Path, *, field: str) -> str | None:
    """"dir", "file" (anything else that exists) or None (nothing there) for a path the user
    gave; InputError naming `field` for a path the system cannot even look up (a name too
    long, a NUL byte), which pathlib would raise as OSError or ValueError."""
    p = Path(path)
    try:
        if p.is_dir():
            return "dir"
        # a link that leads nowhere (dangling, or a loop) is a file the read then names
        return "file" if p.exists() or p.is_symlink() else None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot use this path: {getattr(e, 'strerror', None) or e}",
                         field=field, value=str(path)) from None


def _make_parent(path: Path) -> None:
    """Create the directory `path` goes in; NotADirectoryError if a file stands in the way."""
    for parent in (path.parent, *path.parent.parents):
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(parent))
            break
    path.parent.mkdir(parents=True, exist_ok=True)


def _temporary(path: Path) -> tuple[int, str]:
    """A temporary file next to `path`, with the permissions a plain open() would give it
    (mkstemp makes it private, 0600, which a rename would carry over to the final file)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    mask = os.umask(0o022)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)
    except OSError:
        pass
    return fd, tmp


@contextmanager
def refused_writes(what: str = "", *, file: str | None = None, field: str | None = None,
                   value: object = None) -> Iterator[None]:
    """The system's refusal of a write in the block (a full disk, /proc/x, a file where a
    directory should be, a FIFO nobody reads, a path with a NUL byte) as one line of bad
    input, exit 3: "cannot write [what]: reason", naming the file or the option the user gave."""
    try:
        yield
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or e
        raise InputError(f"cannot write{' ' + what if what else ''}: {reason}",
                         file=file, field=field, value=value) from None


def usable_path(path: str | Path, *, file: str | None = None, field: str | None = None
                ) -> Path:
    """`path`, when the system can name it (missing is fine: it may be made); InputError,
    exit 3, for a NUL byte or a name too long (audit of 2026-12-05: a tablebase `dir` of
    "\\u0000" or 300 letters ended in a traceback)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except (OSError, ValueError) as e:
        raise InputError(f"cannot use this path ({getattr(e, 'strerror', None) or e})",
                         file=file, field=field, value=str(path)) from None
    return Path(path)


def list_dir(directory: str | Path, pattern: str = "*", *, limit: int = MAX_DIR_FILES,
             what: str = "directory") -> list[Path]:
    """The files of `directory` matching `pattern`, sorted; InputError if there are more than
    `limit` (a library directory is not a place to point at /usr or a million files)."""
    out: list[Path] = []
    try:
        for p in Path(directory).glob(pattern):
            out.append(p)
            if len(out) > limit:
                raise InputError(f"more than {limit:,} files in a {what}", file=str(directory))
    except OSError as e:
        raise InputError(f"cannot list: {e.strerror or e}", file=str(directory)) from None
    return sorted(out)


@contextmanager
def atomic_open(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write that appears at `path` only when the block ends without error
    (temporary file in the same directory, fsync, rename); creates the directory. On an error
    or an interrupt the temporary file is removed and `path` is left as it was. A symbolic
    link is written through (its target replaced, the link kept; a loop is an OSError); a
    device, FIFO or open descriptor (`_target`) is written into, appended to, never renamed
    over."""
    path, direct = _target(Path(path))
    if direct:
        # non-blocking open: a FIFO nobody reads fails at once (ENXIO) instead of waiting for
        # ever past --timeout; the writes themselves block as usual. Appended: /dev/stdout
        # redirected to a file opens that file anew, at offset 0, over the text printed so far
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_APPEND)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
        return
    _make_parent(path)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` atomically (temporary file, fsync, rename); creates the directory."""
    path = Path(path)
    with atomic_open(path) as fh:
        fh.write(data)
    return path


def create_exclusive_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to a new file `path`, atomically, and only if no file stands there
    (FileExistsError otherwise, even when another process races us): the temporary file is
    hard-linked to the final name, which fails if the name is taken, instead of renamed."""
    path = Path(path)
    _make_parent(path)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            raise
        except OSError:             # no hard links here (some network or FAT file systems)
            if path.exists():
                raise FileExistsError(str(path)) from None
            os.replace(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write UTF-8 `text` to `path` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def exclusive_path(path: str | Path) -> Path:
    """`path` if no file stands there, else the first free `stem-2.ext`, `stem-3.ext`, ...: a
    certificate or library entry is never overwritten silently."""
    path = Path(path)
    if not path.exists():
        return path
    stem, suffix = path.name.split(".", 1) if "." in path.name else (path.name, "")
    n = 2
    while True:
        candidate = path.with_name(f"{stem}-{n}" + (f".{suffix}" if suffix else ""))
        if not candidate.exists():
            return candidate
        n += 1
