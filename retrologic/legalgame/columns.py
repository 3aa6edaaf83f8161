"""The capture searches' proof-kernel check (issue #19): a capture is an outcome only when
some sequence of captures and promotions still turns the board's pawn columns into the
target's (`legality.pawn_columns`, Texel's proof kernel, doc/proofgame.md). A capture that
leaves no such sequence can start no game to the target, however the pieces then move: the
finder's other checks count files and captures per side, not the order of the pawns on a file,
and on seeds 42838 and 48566 (misses at 10 s) 19 of the 42 and 19 of the 53 capture outcomes
the tries went on from were such dead ends (bench/README-legal.md, 2026-12-04).

The promotions a board has made are taken as those its pieces show
(`pawn_columns.promotions_needed`): at most the game's real count, and the check stays a
necessary condition, since the promotions still to come are at least the target's types'
excess over the board's. A search the kernel's node cap stops says nothing (no cut).
"""

from __future__ import annotations

import chess

from retrologic.legality.pawn_columns import Kernel, State, promotions_needed, state_of

NODES = 300  # kernel states one check expands at most (a tenth of the rule's: see `Columns`)


class Columns:
    """Whether the target's kernel state is reachable from a board's, memoised by state."""

    def __init__(self, target: chess.BaseBoard, nodes: int = NODES) -> None:
        self.kernel = Kernel.towards(target, nodes)
        self.known: dict[State, bool] = {}

    @staticmethod
    def state(board: chess.BaseBoard) -> State:
        """The board's kernel state, the promotions its pieces show counted as made."""
        return state_of(board, promotions_needed(board, chess.WHITE),
                        promotions_needed(board, chess.BLACK))

    def fit(self, board: chess.BaseBoard) -> bool:
        """False only when the kernel search proves the target's columns out of reach."""
        state = self.state(board)
        hit = self.known.get(state)
        if hit is None:
            hit = self.known[state] = self.kernel.reachable(state) is not False
        return hit
