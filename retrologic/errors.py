"""Errors and exit statuses: bad input is reported in one line naming file, field and value."""

from __future__ import annotations

import reprlib

EXIT_OK = 0          # answered; every [expect] met, every certificate accepted
EXIT_MISMATCH = 1    # an [expect] table was not met, or `check` rejected a certificate
EXIT_USAGE = 2       # command-line usage error (argparse)
EXIT_INPUT = 3       # bad input: unreadable file, malformed TOML/FEN/square, missing or unknown field
EXIT_UNKNOWN = 4     # the engine could not decide: a node, depth or time limit was hit
EXIT_INTERNAL = 5    # a bug in retrologic (rerun with --debug for the traceback)


MAX_LINE = 300              # a whole error line on stderr, "retrologic: " included
MAX_ERROR = MAX_LINE - len("retrologic: ")   # what str(InputError) may take
MAX_SHOWN = 80              # an echoed value (its repr), before "…"
MAX_FILE = 100              # an echoed file name
MAX_FIELD = 60              # an echoed field name
ELLIPSIS = "…"

_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxlist, _repr.maxtuple, _repr.maxdict = 3, 6, 6, 4
_repr.maxset, _repr.maxfrozenset, _repr.maxstring, _repr.maxother = 6, 6, MAX_SHOWN, MAX_SHOWN


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, the cut marked with "…"."""
    return text if len(text) <= limit else text[:max(limit - 1, 0)] + ELLIPSIS


def printable(text: str) -> str:
    """`text` on one line: newlines, tabs, escape sequences and other unprintable characters
    written as Python escapes, so a hostile value cannot break or restyle a terminal line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def shown(value: object, limit: int = MAX_SHOWN) -> str:
    """A user's value as it may appear in a message: its repr on one line, at most `limit`
    characters (cut with "…"). Never formats a huge value in full: a 50 MB string costs the
    same as a short one, and a huge integer shows its size, not its digits."""
    try:
        if isinstance(value, (str, bytes)):
            text = repr(value[:limit + 1])
        elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
            text = f"<integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
        else:
            text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still shown by its type
        text = f"<{type(value).__name__}>"
    return cut(printable(text), limit)


def cut_message(text: object, limit: int = MAX_ERROR) -> str:
    """A message (which may quote user text) on one line of at most `limit` characters."""
    return cut(printable(str(text)[:limit * 4 + 8]), limit)


class RetroError(Exception):
    """Base class of the errors retrologic reports to its user."""

    exit_status = EXIT_INTERNAL


class InputError(RetroError):
    """Bad input: names the file, the field and the value at fault."""

    exit_status = EXIT_INPUT

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 value: object = None) -> None:
        self.message = message
        self.file = file
        self.field = field
        self.value = value
        super().__init__(str(self))

    def __str__(self) -> str:
        """One line of at most MAX_ERROR characters: file, field and value each cut to a
        share of it, the message given the rest."""
        parts = []
        if self.file:
            parts.append(cut(printable(str(self.file)[:MAX_FILE * 4]), MAX_FILE))
        if self.field:
            parts.append(f"field '{cut(printable(str(self.field)[:MAX_FIELD * 4]), MAX_FIELD)}'")
        if self.value is not None:
            parts.append(f"value {shown(self.value)}")
        head = ": ".join(parts)
        if not head:
            return cut_message(self.message)
        return f"{head}: {cut_message(self.message, max(MAX_ERROR - len(head) - 2, 16))}"

    def located(self, file: str | None = None, field_prefix: str | None = None) -> "InputError":
        """Return a copy with the file (and a field prefix) filled in."""
        field = self.field
        if field_prefix:
            field = f"{field_prefix}.{field}" if field else field_prefix
        return InputError(self.message, file=self.file or file, field=field, value=self.value)
