"""Where the project's data lives: `encodings/` beside the package (a checkout or an editable
install), else in the working directory (a regular install run from the project's root)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def encodings(*parts: str) -> Path:
    """A directory under encodings/ (e.g. encodings("cages"))."""
    beside = ROOT.joinpath("encodings", *parts)
    return beside if beside.is_dir() else Path("encodings").joinpath(*parts)
