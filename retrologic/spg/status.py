"""The statuses and verdicts of the proof-game engines, one StrEnum each.

A member equals its string ("unique" == SpgStatus.UNIQUE, json.dumps prints "unique"), so JSON
output, [expect] tables and callers comparing with plain strings see no change.
"""

from __future__ import annotations

from enum import StrEnum


class SpgStatus(StrEnum):
    """The verdict on a proof-game question (`SpgAnswer.status`)."""

    UNIQUE = "unique"              # one game of the length, and no shorter one: both exhausted
    COOKED = "cooked"              # two games of the length or more
    NO_SOLUTION = "no solution"    # the length was exhausted without a game
    SHORTER = "shorter"            # a shorter game (same side to move) reaches the diagram
    UNKNOWN = "unknown"            # a limit was hit before the verdict was proved


class Feasibility(StrEnum):
    """A CP-SAT model's answer: the strategy model's solves and its report (spg/strategy.py)."""

    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"      # proved: no strategy, so no game
    UNKNOWN = "unknown"            # the deadline or Ctrl-C came first


class Listing(StrEnum):
    """How the schedule model's listing of a length's games ended (`ScheduleReport.status`)."""

    COMPLETE = "complete"          # every game is listed (none when there is no strategy)
    UNKNOWN = "unknown"            # a limit, the listing limit or the model's size stopped it
