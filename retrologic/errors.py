"""Errors and exit statuses: bad input is reported in one line naming file, field and value."""

from __future__ import annotations

EXIT_OK = 0          # answered; every [expect] met, every certificate accepted
EXIT_MISMATCH = 1    # an [expect] table was not met, or `check` rejected a certificate
EXIT_USAGE = 2       # command-line usage error (argparse)
EXIT_INPUT = 3       # bad input: unreadable file, malformed TOML/FEN/square, missing or unknown field
EXIT_UNKNOWN = 4     # the engine could not decide: a node, depth or time limit was hit
EXIT_INTERNAL = 5    # a bug in retrologic (rerun with --debug for the traceback)


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
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.field:
            parts.append(f"field '{self.field}'")
        if self.value is not None:
            parts.append(f"value {self.value!r}")
        parts.append(self.message)
        return ": ".join(parts)

    def located(self, file: str | None = None, field_prefix: str | None = None) -> "InputError":
        """Return a copy with the file (and a field prefix) filled in."""
        field = self.field
        if field_prefix:
            field = f"{field_prefix}.{field}" if field else field_prefix
        return InputError(self.message, file=self.file or file, field=field, value=self.value)
