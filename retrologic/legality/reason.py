"""Why a position is illegal: the record every legality rule returns (the rules say why)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    """Why a position is illegal: a stable rule name and a sentence for people."""

    rule: str
    message: str
