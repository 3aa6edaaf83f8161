"""Cages for the last-move solver: lemmas from files, the library, and automatic discovery.

Placeholder wiring until the cage verifier lands: no closers, nothing discovered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def closers_for(lemmas: list[Path], discover: bool) -> tuple[list, list[dict[str, Any]]]:
    """Closers (functions proving positions illegal by cages) and the list discoveries go to."""
    return [], []


def reverify(node: dict[str, Any]) -> tuple[bool, str]:
    """Re-verify the cage named by a proof leaf."""
    return False, "cage verification is not available"
