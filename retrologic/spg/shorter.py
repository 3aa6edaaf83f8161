"""The shorter lengths of a proof game decided beside the stipulated one (issue #22, "Reach").

"unique" needs every shorter length of the same parity refuted (spg/solver.py asks each for
one game), whichever engine decides the stipulated length. So in the race (spg/race.py) the
search's process decides these lengths first, then runs on with the stipulated one, while the
schedule process lists the stipulated length; the parent skips every length decided beside
it. A length's engines are those the parent would use after the stipulated length (the
search alone first, then the schedule model); only the core and the time change, never the
answer (each note's games are replayed by the parent). Measured: bench/README-spg.md,
"Session of 2026-12-07, 16:35 UTC".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from retrologic.spg import race

if TYPE_CHECKING:
    from retrologic.spg.analysis import Analysis
    from retrologic.spg.search import Limits

# The search alone decides most shorter lengths in a few seconds at most (peretjatko-2005's 30
# and 32 of 36 plies: 0.008 s and 0.4 s; frolkin-1991's 33 of 35: 3.2 s); beside the race it
# gets SEARCH_SECONDS, or GIVE_UP[0] when it estimates it has searched under GIVE_UP[1] of the
# length's tree by then (`Search.give_up`: vereshchagin-2015's 27 of 29 plies, which the
# schedule model refutes in 3.7 s), then the schedule model lists the length (and the search
# runs on, no longer giving up, if that model cannot decide it).
SEARCH_SECONDS = 5.0
GIVE_UP = (1.0, 0.01)


@dataclass
class ShorterLengths:
    """The shorter lengths to refute, in rising order, and what was decided of them beside
    the stipulated length. `decide(length, limits, analysis, search_seconds, give_up)` is the
    parent's own way to decide one length (spg/solver.py's `_Length`: games, complete, ...)."""

    lengths: list[int]
    decide: Callable[[int, "Limits", "Analysis", float, tuple[float, float]], Any]
    told: dict[int, dict[str, Any]] = field(default_factory=dict)

    def run(self, limits: "Limits", analysis: "Analysis") -> None:
        """In the race's search process: decide the lengths in rising order, telling the parent
        each as it ends (`race.tell`), up to the first with a game (the shortest, as the
        parent's loop stops there) or the end of the budget."""
        for length in self.lengths:
            budget = limits.budget
            if budget.expired() or budget.nodes_used_up() or limits.interrupted():
                return
            sub = self.decide(length, limits, analysis, SEARCH_SECONDS, GIVE_UP)
            race.tell({"plies": length, "complete": sub.complete, "count": sub.count,
                       "games": [[m.uci() for m in g] for g in sub.games],
                       "reason": sub.reason, "nodes": sub.nodes, "seconds": sub.seconds,
                       "entry": dict(sub.entry, beside=True)})
            if sub.games:
                return

    def take(self, name: str, note: dict[str, Any]) -> None:
        """In the parent: keep a worker's note on one length (race.first_complete's `on_note`)."""
        self.told[note["plies"]] = note

    def settled(self, length: int) -> dict[str, Any] | None:
        """The note on `length` when it settles the length (refuted, or a game found); a
        length the worker's budget cut short is left to the parent."""
        note = self.told.get(length)
        return note if note is not None and (note["complete"] or note["games"]) else None
