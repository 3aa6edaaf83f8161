"""`retrologic check --spg DIAGRAM --moves 8.0 claim.pgn` (issue #20): check a claimed proof
game, as a judge receives it (PGN, or SAN / Popeye move text), then report whether retrologic
finds it unique.

The claim is accepted when python-chess replays it from the initial array, it has the
stipulated number of plies and it ends on the diagram's placement (the side to move follows
from the length) -- the same test as the spg certificate checker. Uniqueness is then the
solver's answer under the usual limits (--timeout, --nodes; unknown when one is hit).
"""

from __future__ import annotations

import argparse
from typing import Any

import chess

from retrologic.errors import EXIT_INTERNAL, EXIT_MISMATCH, EXIT_OK, EXIT_UNKNOWN, InputError
from retrologic.files import read_text
from retrologic.formats.notation import NotationError, legal_line, normalize_fen, read_game

MAX_CLAIM_BYTES = 1024 * 1024


def add_arguments(p: argparse.ArgumentParser) -> None:
    """--spg DIAGRAM --moves N.0 [--timeout S] [--nodes N] [--replay-only] for `check`."""
    from retrologic.console import _nodes_argument, _timeout_argument
    p.add_argument("--spg", metavar="DIAGRAM",
                   help="check each FILE as a claimed proof game (PGN or SAN text) to this "
                        "diagram (FEN or its board part; S or N for the knight)")
    p.add_argument("--moves", metavar="N.0|N.5",
                   help="the claimed game's length (8.0, 7.5, 8, dia8, PG 8.0); with --spg")
    p.add_argument("--timeout", type=_timeout_argument, metavar="S",
                   help="time limit per file: of a certificate's check, or of a claim's "
                        "uniqueness search (-> unknown)")
    p.add_argument("--nodes", type=_nodes_argument, metavar="N",
                   help="node limit of the uniqueness search, per claim (-> unknown)")
    p.add_argument("--replay-only", action="store_true",
                   help="check the claim only; do not search for other games")


def _target(args: argparse.Namespace) -> tuple[chess.Board, int]:
    from retrologic.spg.checker import parse_moves
    from retrologic.spg.solver import parse_target
    if args.spg is None:
        raise InputError("--moves is for --spg DIAGRAM (a claimed proof game)", field="--moves",
                         value=args.moves)
    if args.moves is None:
        raise InputError("--spg needs --moves (the length, e.g. 8.0)", field="--moves")
    plies = parse_moves(args.moves, field="--moves")
    try:
        diagram = normalize_fen(args.spg)
    except NotationError as e:
        raise InputError(str(e), field="--spg", value=args.spg) from None
    return parse_target(diagram, plies, field="--spg"), plies


def replay_claim(text: str, target: chess.Board, plies: int) -> tuple[list[chess.Move], str | None]:
    """The claim's moves and None if it is a proof game of `plies` to `target`, else the
    reason it is not."""
    try:
        moves = read_game(text)
    except NotationError as e:
        return [], f"does not replay: {e}"
    try:
        board = legal_line(moves)        # whatever the reader let through
    except NotationError as e:
        return moves, f"does not replay: {e}"
    if len(moves) != plies:
        return moves, f"has {len(moves)} plies, the stipulation {plies}"
    if board.board_fen() != target.board_fen():
        return moves, f"ends at {board.board_fen()}, not at the diagram {target.board_fen()}"
    return moves, None


def check_claim(path: str, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """One claim file's record and text line; InputError for a bad diagram, length or file."""
    from retrologic.spg.checker import moves_text, san_text
    target, plies = _target(args)
    text = read_text(path, limit=MAX_CLAIM_BYTES, what="claim")
    moves, fault = replay_claim(text, target, plies)
    record: dict[str, Any] = {"file": path, "type": "spg-claim", "moves": moves_text(plies)}
    if fault is not None:
        record.update(accepted=False, reason=fault, outcome="rejected", status=EXIT_MISMATCH)
        return record, f"{path}: spg-claim: REJECTED: the game {fault}"
    game = san_text(moves)
    record.update(accepted=True, game=game)
    head = f"{path}: spg-claim: accepted: a proof game of {moves_text(plies)} ({game})"
    if args.replay_only:
        record.update(reason=None, uniqueness=None, outcome="accepted", status=EXIT_OK)
        return record, head
    uniqueness, status, line = _uniqueness(target, plies, moves, args)
    record.update(uniqueness=uniqueness, reason=line,
                  outcome={EXIT_OK: "accepted", EXIT_UNKNOWN: "unknown"}.get(status, "error"),
                  status=status)
    return record, f"{head}\n  {line}"


def _uniqueness(target: chess.Board, plies: int, moves: list[chess.Move],
                args: argparse.Namespace) -> tuple[str, int, str]:
    """(status, exit status, sentence): what the solver says of the claim's stipulation."""
    from retrologic.options import budget_of
    from retrologic.spg import solver as spg
    from retrologic.spg.search import Limits
    from retrologic.spg.status import SpgStatus
    answer = spg.solve(target, plies, Limits(progress=args.progress, budget=budget_of(args)))
    status = answer.status
    found = [list(g) for g in answer.games]
    if status == SpgStatus.UNIQUE:
        if found and found[0] != moves:
            return (status, EXIT_INTERNAL, "contradiction: retrologic's unique game is "
                    f"{spg.san_text(found[0])}, not the claim (a bug: please report it)")
        return status, EXIT_OK, "unique: retrologic finds this game and no other " \
            "(and no shorter one)"
    if status == SpgStatus.COOKED:
        other = next((g for g in found if g != moves), None)
        extra = f"; another: {spg.san_text(other)}" if other else ""
        return status, EXIT_OK, f"not unique (cooked): {answer.count} games{extra}"
    if status == SpgStatus.SHORTER:
        return status, EXIT_OK, "not the shortest: a game of " \
            f"{spg.moves_text(answer.shorter)} reaches the diagram: " \
            f"{spg.san_text(answer.shorter_game)}"
    if status == SpgStatus.NO_SOLUTION:
        return (status, EXIT_INTERNAL, "contradiction: the solver finds no game although the "
                "claim is one (a bug: please report it)")
    return status, EXIT_UNKNOWN, f"uniqueness not decided: {answer.reason or 'a limit was hit'}"
