"""Cages for the last-move solver: lemma files, the cage library, and automatic discovery.

A full position that contains a verified cage (as a sub-board, in either colour orientation) is
illegal. When the refutation search is stuck, sub-positions of the stuck position are proposed
as cage candidates — clusters of units within king-move reach of each other, whole and with
one unit taken out — and handed to the cage verifier; a verified one is added to the library
for the rest of the run and reported.

Discovery's budgets are counts of positions (per cage, and over the whole solve), never
seconds, so the same problem discovers the same cages, and gives the same answer, on an idle
or a busy machine; the solve's time limit and Ctrl-C still stop a verification (LimitHit).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chess

from retrologic.lastmove.checker import cage_message
from retrologic.limits import Budget, LimitHit
from retrologic.position import Placement, Position

# Measured on problems/lastmove: a cage tried there reaches at most 386 positions, a whole solve
# at most 3,443. The wall-time budgets used before (2 s per cage, 30 s per solve) reached about
# 15,000 and 220,000 positions on one idle core (about 7,500 positions per CPU second), fewer on
# a busy machine. These counts keep that reach, 50 times what the problem files need.
CAGE_POSITIONS = 20_000      # positions one cage verification may reach
TOTAL_POSITIONS = 200_000    # positions all verifications of one solve may reach


def _squares(mask: int) -> list[str]:
    return [chess.square_name(s) for s in chess.scan_forward(mask)]


def clusters(pl: Placement) -> list[int]:
    """Groups of units linked by king-move adjacency (as square masks), largest last."""
    left = pl.occupied
    out = []
    while left:
        seed = left & -left
        comp = seed
        frontier = seed
        while frontier:
            grow = 0
            for sq in chess.scan_forward(frontier):
                grow |= chess.BB_KING_ATTACKS[sq]
            frontier = grow & left & ~comp
            comp |= frontier
        out.append(comp)
        left &= ~comp
    return sorted(out, key=chess.popcount)


def _mobility(sub: Placement) -> dict[int, int]:
    """Retractions per unit square in a partial position (extension principle)."""
    from retrologic.retract import retractions
    counts: dict[int, int] = {}
    for r in retractions(Position(sub, None, 0, None, 0, True), uncaptures="open"):
        counts[r.to_square] = counts.get(r.to_square, 0) + 1
    return counts


def proposals(pl: Placement, limit: int = 24) -> list[Placement]:
    """Cage candidates inside a position, per cluster of two or more units (smallest cluster
    first): the cluster without its most mobile unit (a free unit often sits beside a cage, as
    an uncaptured one does), the whole cluster, then without each other unit; no repeats."""
    seen: set[Placement] = set()
    out: list[Placement] = []
    for comp in clusters(pl):
        if chess.popcount(comp) < 2:
            continue
        mobility = _mobility(pl.without(~comp & chess.BB_ALL))
        units = sorted(chess.scan_forward(comp), key=lambda sq: -mobility.get(sq, 0))
        without = [comp & ~chess.BB_SQUARES[sq] for sq in units]
        variants = without[:1] + [comp] + without[1:]
        for mask in variants:
            sub = pl.without(~mask & chess.BB_ALL)
            if chess.popcount(mask) >= 2 and sub not in seen:
                seen.add(sub)
                out.append(sub)
    return out[:limit]


class CageCloser:
    """Proves positions illegal by cages: known ones (cheap) and discovered ones (when stuck)."""

    def __init__(self, library, discover: bool, *, nodes: int = CAGE_POSITIONS,
                 total: int = TOTAL_POSITIONS) -> None:
        self.library = library
        self.discover_on = discover
        self.nodes = nodes          # positions per cage verification
        self.total = total          # positions over all verifications of the solve
        self.spent = 0              # positions reached so far
        self.discovered: list[dict[str, Any]] = []
        self.tried: dict[Placement, bool] = {}

    def _leaf(self, match) -> tuple[str, dict[str, Any]]:
        e = match.entry
        pl, zone, frozen = e.placement, e.zone, e.frozen
        if match.swapped:
            pl, zone, frozen = pl.colour_swapped(), chess.flip_vertical(zone), chess.flip_vertical(frozen)
        return "cage", {"cage": pl.board_fen(), "zone": _squares(zone), "frozen": _squares(frozen),
                        "model": e.model, "name": e.name,
                        "message": cage_message(e.name, pl.board_fen())}

    def known(self, pos: Position) -> tuple[str, dict[str, Any]] | None:
        """A library cage standing in `pos` (only entries that assume no restriction)."""
        if self.library is None or not len(self.library):
            return None
        m = self.library.matches(pos)
        return None if m is None else self._leaf(m)

    def discover(self, pos: Position, budget: Budget | None = None) -> tuple[str, dict[str, Any]] | None:
        """Verify cage candidates inside `pos`; the first proved one closes it. Each verification
        reaches at most `nodes` positions, all of them together `total` (then nothing more is
        tried); `budget`'s deadline or Ctrl-C stopping one raises LimitHit (never "no cage")."""
        if not self.discover_on:
            return None
        from retrologic.cages.search import verify
        from retrologic.cages.library import CageEntry, Library
        if self.library is None:
            self.library = Library()
        for sub in proposals(pos.placement):
            if sub in self.tried:
                continue
            if self.spent >= self.total:
                return None
            inner = Budget() if budget is None else budget.share()
            inner.nodes = None          # time and Ctrl-C only: the count is `nodes`
            inner.watched = False       # nor shown by --progress, which counts what --nodes limits
            start = Position(sub, None, 0, None, 0, True)
            res = verify(start, None, (), self.library, nodes=self.nodes, budget=inner)
            if res.verdict == "unknown":
                why = inner.expired()
                if why is not None:
                    raise LimitHit(why)
            self.spent += res.states
            self.tried[sub] = res.proved
            if res.proved and not res.lemmas:
                name = f"discovered-{len(self.discovered) + 1}-{sub.board_fen().replace('/', '_')}"
                entry = CageEntry(name, sub, res.zone, 0, (), res.model, (),
                                  "discovered by retrologic last-move")
                self.library.add(entry)
                self.discovered.append({"cage": sub.board_fen(), "zone": _squares(res.zone),
                                        "model": res.model, "states": res.states,
                                        "found_in": pos.fen()})
                m = self.library.matches(pos)
                if m is not None:
                    return self._leaf(m)
        return None


def closers_for(lemmas: list[Path], discover: bool, use_library: bool = True) -> tuple[CageCloser, list]:
    """The cage closer for a solve: lemma files (+ the library in encodings/cages) and
    discovery; returns it and the list that collects discovered cages."""
    from retrologic.cages.library import DEFAULT_DIR, load_library
    paths: list[Path] = list(lemmas)
    if use_library and Path(DEFAULT_DIR).is_dir():
        paths.insert(0, Path(DEFAULT_DIR))
    library = load_library(paths) if paths else None
    closer = CageCloser(library, discover)
    return closer, closer.discovered
