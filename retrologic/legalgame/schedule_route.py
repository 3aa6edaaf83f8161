"""A legal game by the proof-game schedule model (issue #19): for a position near the initial
array that the finders and the search's route miss, the CP-SAT schedule model
(`spg.listing.schedule`: the strategy layer, then the model as a game generator, each solution
played out by python-chess) asked for one game of a length at a time.

Why: the route (`legalgame.proof_route`) searches the lengths in rising order and must exhaust
each shorter one first; on published proof games of 30-40 plies that takes minutes, while the
schedule model lists one game of the right length in seconds (measured on the problems/spg
diagrams `legal` left unknown: bench/README-legal.md, session of 2026-11-26 21:00 UTC). A legal
game need not be shortest, so the lengths are taken in passes: each pass gives the first
`WINDOW` lengths not yet refuted (every game of the length listed, none fitting) a slice of time
each, the shortest the whole slice and each next one half the one before (the first length the
strategy layer leaves is the published length of most proof games, measured), and the slices
double from pass to pass. The model does not know castling rights, so a length whose games
listed do not fit (`lose_rights`) is asked for twice as many the next time.

The target's castling rights: its king and rooks with a right are frozen (they never move), and
a right the game keeps that the target lacks is given up by a tour (`legalgame.rights`).
The e.p. state: `find_game` strips a stated e.p. square; a game whose last move leaves an e.p.
capture legal ends on another position and is not used. Nothing is proved by failing; a game
found is replayed by `legalgame.checker`.
"""

from __future__ import annotations

import chess

from retrologic.legalgame.rights import lose_rights
from retrologic.legalgame.stipulated import immobile
from retrologic.limits import Budget, LimitHit, turn
from retrologic.spg.analysis import Analysis

MAX_PLIES = 60       # lengths tried up to this many plies
WINDOW = 2           # lengths not yet refuted given a slice per pass (each half the one before)
FIRST_SLICE = 1.0    # seconds of the shortest length's slice in the first pass (doubled each pass)
GAMES = 4            # games listed per length at first (the first that fits is kept)


class ScheduleRoute:
    """The schedule model over one target's lengths, in passes of doubling slices; resumable
    (`run` goes on with the pass it stopped in)."""

    def __init__(self, target: chess.Board, max_plies: int = MAX_PLIES) -> None:
        self.target = target
        self.rights = target.clean_castling_rights()
        start = chess.Board()
        self.analysis = Analysis(start, target, extra_frozen=immobile(target))
        parity = 0 if target.turn == chess.WHITE else 1
        self.lengths = [] if self.analysis.impossible or target.ep_square is not None else \
            [p for p in range(parity, max_plies + 1, 2) if not self.analysis.prune(start, p)]
        self.slice = FIRST_SLICE
        self.games = dict.fromkeys(self.lengths, GAMES)   # games to list per length
        self.tried = 0                 # attempts made (each a length and a slice)

    def run(self, budget: Budget) -> list[chess.Move] | None:
        """Passes until a game to the full target (None: every length up to `max_plies` has
        no game the model lists, or no game found fits); LimitHit when `budget` runs out.
        `budget` needs a deadline (the passes go on until one)."""
        if budget.left() is None:
            raise ValueError("the schedule route runs under a deadline")
        while self.lengths:
            for rank, plies in enumerate(list(self.lengths[:WINDOW])):
                game = self._attempt(plies, self.slice / 2 ** rank, budget)
                if game is not None:
                    return game
            self.slice *= 2
        return None

    def _attempt(self, plies: int, seconds: float, budget: Budget) -> list[chess.Move] | None:
        """`seconds` on one length: its first game that fits, else None (the length dropped
        when the model proved it has no more games)."""
        from retrologic.spg.listing import schedule      # OR-Tools: loaded only here
        from retrologic.spg.status import Listing
        self.tried += 1
        try:
            with turn(budget, budget.share(seconds=seconds)) as inner:
                report = schedule(self.target, plies, base=self.analysis,
                                  limit=self.games[plies], budget=inner)
        except LimitHit:
            report = None
        if budget.expired() is not None:
            budget.check(0, every=1)                     # the caller's limit: LimitHit
        if budget.nodes_used_up():
            raise LimitHit(budget.node_reason())         # CP-SAT's conflicts used them up
        if report is None:
            return None
        for game in report.games:
            fitted = lose_rights(game, self.target)
            if fitted is not None:
                return fitted
        if report.status == Listing.COMPLETE:            # every game of this length listed
            self.lengths.remove(plies)
        elif len(report.games) >= self.games[plies]:      # listed, none fits: list more
            self.games[plies] *= 2
        return None


def find_by_schedule(target: chess.Board, budget: Budget,
                     max_plies: int = MAX_PLIES) -> list[chess.Move] | None:
    """A game from the initial array to `target` (a full position without an e.p. square) by
    `ScheduleRoute`, or None (see `ScheduleRoute.run`)."""
    return ScheduleRoute(target, max_plies).run(budget)


__all__ = ["FIRST_SLICE", "ScheduleRoute", "WINDOW", "find_by_schedule"]
