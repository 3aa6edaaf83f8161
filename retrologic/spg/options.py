"""The proof-game bound's on/off switches: one frozen record, so an analysis and its obstruction
views agree on them and bench/spg.py can A/B each deduction by name. Every setting is sound:
they differ in speed (and node counts) only."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class BoundOptions:
    """Which deductions the lower bound and the prune use (see `retrologic.spg.analysis`)."""

    capture_accounting: bool = False
    """The Lagrangian grid over the capture count (`bound.LAGRANGE`): sound, rarely tighter,
    slower."""

    victim_slots: bool = True
    """The captures the opponent's pawns must still make land on known squares, where distinct
    units of this side must first walk (`Bound.capture_slots`)."""

    capacity: bool = True
    """The cheapest plans must be able to make the captures still due, else one more move."""

    coupling: bool = True
    """A side with no spare move captures only on its cheapest routes: the other side's units
    that must be captured walk there first (`Coupling.coupled_bound`)."""

    landings: bool = True
    """A side with no spare move leaves its forced victims standing: the other side must land a
    move on each of their squares (`Coupling.landing_squares`)."""

    victim_visits: bool = True
    """Every unit of a side that ends captured first stands where the opponent can still land a
    move: the prune rule victims-stranded (`rules.VictimVisits`, `Bound.visit_bound`)."""

    visit_steps: bool = True
    """A side whose victim visits need every move it has left moves no piece, and pushes no
    pawn one square (when the push leaves the opponent's victim slots as they are), that gets
    no closer to a row of the visit assignment (`MoveFilter.visits_tight`, `wasted`)."""

    route_steps: bool = True
    """A side with no spare move steps along its cheapest routes (`Coupling.next_steps`): the
    move filter lets only those steps through. With it (issue #22): a side with one spare
    move makes no move, quiet or taking a piece, that raises its cheapest plans' moves
    (`MoveFilter.spent`, `Bound.spare_rows`), and no side castles when the plans' scenario of
    that castling needs more moves than it has (`MoveFilter.castling_spent`)."""

    obstruction: bool = True
    """Units on their target squares are obstacles unless one is disturbed: the three-way split
    of `obstruction.Obstruction` (§7 of the paper: movable and unmovable obstacles). With it
    (issue #22): a held unit whose disturbance alone costs its side more than its moves left
    is never moved nor captured (`MoveFilter.fixed_units`)."""

    pawn_walls: bool = True
    """The obstruction split holds every pawn on its own target square too (`held_units`)."""

    def without_split(self) -> "BoundOptions":
        """These options for an obstruction view: the split itself is off there, and so are the
        victim visits (a view is asked only for its prune, which never tried them before they
        became a rule: kept so, the rule's move was behaviour-neutral)."""
        return dataclasses.replace(self, obstruction=False, victim_visits=False)

    def as_keywords(self) -> dict[str, bool]:
        """The options as `Analysis` keyword arguments."""
        return {name: getattr(self, name) for name in SWITCHES}


# the switches' names, in declaration order (bench/spg.py's --previous-options and PREVIOUS)
SWITCHES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BoundOptions))
