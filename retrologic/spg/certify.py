"""Writes `spg-listing` certificates: every game of a length, and the proof that there is no other
(issue 22, item 3).

For each length L in (plies, plies - 2, ..., down to 0 or 1: the stipulated one and every shorter
one with the same side to move) the CNF of spg/cnf.py is solved with Glucose and its models
listed: each model is decoded to moves and replayed with python-chess; a legal game (it reaches
the diagram: the CNF's last ply fixes the placement) is listed and blocked by the clause
"not all of its move literals"; an illegal sequence is blocked by the clause on its prefix up to
its first illegal ply. The solver logs a DRUP proof throughout (Glucose 4.1, `with_proof`): when
the CNF plus the blocking clauses is UNSAT, its proof refutes them all. The certificate holds the diagram,
the lengths, per length the games and the illegal prefixes (as UCI moves: the checker rebuilds
the blocking clauses from them) and the proof; spg/proof_checker.py checks it without this module.

The verdict of a question never comes from here: the engines decide, and this module only tries
to certify their verdict within the time it is given (a LimitHit means no certificate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic.history.cnf import SOLVER, Alarm, solve_limited
from retrologic.limits import Budget, LimitHit
from retrologic.spg.cnf import ENCODING, Encoding, encode

TYPE = "spg-listing"
MAX_BYTES = 15 * 1024 * 1024      # a certificate must stay below `check`'s 16 MiB reading limit
DEFAULT_SECONDS = 60.0            # the CNF route's time when the question has no time limit


@dataclass
class LengthListing:
    """The listing of one length: games, illegal prefixes, the DRUP proof, and measurements."""

    plies: int
    games: list[list[chess.Move]] = field(default_factory=list)
    illegal: list[list[chess.Move]] = field(default_factory=list)
    proof: list[str] = field(default_factory=list)
    variables: int = 0
    clauses: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"plies": self.plies, "games": [[m.uci() for m in g] for g in self.games],
                "illegal": [[m.uci() for m in p] for p in self.illegal],
                "proof": "\n".join(self.proof)}


def first_illegal(moves: list[chess.Move]) -> int | None:
    """Index of the first move python-chess rejects when replayed from the initial array."""
    board = chess.Board()
    for i, move in enumerate(moves):
        if not board.is_legal(move):
            return i
        board.push(move)
    return None


def blocking_clause(enc: Encoding, moves: list[chess.Move]) -> list[int]:
    """The clause "not all of these moves" over the moves' variables (pseudo-legal replay)."""
    board = chess.Board()
    out = []
    for ply, move in enumerate(moves, 1):
        var = enc.move_var(ply, board, move)
        if var is None:
            raise AssertionError(f"internal error: no variable for ply {ply} {move.uci()}")
        out.append(-var)
        board.push(move)
    return out


def list_length(target: chess.BaseBoard, plies: int, budget: Budget) -> LengthListing:
    """Every game of `plies` plies to `target` with a DRUP proof that no other exists;
    LimitHit when `budget` runs out."""
    from pysat.solvers import Solver
    enc = encode(target, plies)
    out = LengthListing(plies, variables=enc.nv, clauses=len(enc.clauses))
    blocks: list[list[int]] = []
    # one proof-logging solver for the whole listing: a lemma learnt before a blocking clause
    # was added is RUP with it too, so the proof of the last (UNSAT) call covers CNF + blocks
    with Solver(name=SOLVER, bootstrap_with=enc.clauses, with_proof=True) as s:
        alarm = Alarm(s, budget)
        try:
            while solve_limited(s, [], budget):
                true = {v for v in s.get_model() if v > 0}
                moves = []
                for t in range(1, plies + 1):
                    var = next(v for v in enc.moves[t].values() if v in true)
                    moves.append(enc.move_of(var)[1])
                bad = first_illegal(moves)
                if bad is None:
                    board = chess.Board()
                    for m in moves:
                        board.push(m)
                    if board.board_fen() != target.board_fen():
                        raise AssertionError("internal error: a model's game misses the diagram")
                    out.games.append(moves)
                else:
                    moves = moves[:bad + 1]
                    out.illegal.append(moves)
                clause = blocking_clause(enc, moves)
                blocks.append(clause)
                s.add_clause(clause)
            out.proof = lean_proof(s.get_proof())
        finally:
            alarm.close()
    return out


def lean_proof(lines: list[str]) -> list[str]:
    """The proof without the deletions of clauses it did not derive (Glucose logs the original
    clauses it drops as satisfied: most of a proof's lines here). Keeping a clause is always
    sound for a RUP check; it only makes the file smaller."""
    derived: set[tuple[int, ...]] = set()
    out = []
    for line in lines:
        parts = line.split()
        if parts[:1] == ["d"]:
            if tuple(sorted(map(int, parts[1:-1]))) not in derived:
                continue
        else:
            derived.add(tuple(sorted(map(int, parts[:-1]))))
        out.append(" ".join(parts))
    return out


def lengths_of(plies: int) -> list[int]:
    """The stipulated length and every shorter one with the same side to move."""
    return list(range(plies, -1, -2))


def certificate(target: chess.BaseBoard, plies: int, budget: Budget
                ) -> tuple[dict[str, Any], list[LengthListing]]:
    """The spg-listing certificate of (target, plies), and the listings; LimitHit if the budget
    runs out first."""
    listings = [list_length(target, length, budget) for length in lengths_of(plies)]
    count = len(listings[0].games)
    shorter = any(lst.games for lst in listings[1:])
    status = "cooked" if count >= 2 else "no solution" if count == 0 else \
        "shorter" if shorter else "unique"
    cert = {"type": TYPE, "encoding": ENCODING, "target": target.board_fen(), "plies": plies,
            "status": status, "lengths": [lst.as_dict() for lst in listings]}
    return cert, listings


def certify(dest: Any, target: chess.BaseBoard, plies: int, games: list[list[chess.Move]],
            budget: Budget | None, count: int | None = None, status: str | None = None
            ) -> tuple[str | None, str]:
    """Write the spg-listing certificate of the question through `dest` (a certformat
    Destination): (path or None, a line saying what was written or why not). `games` are the
    engine's games of the stipulated length (`count` of them when only some are kept): a
    different listing (or `status`, the engine's verdict, differing from the listing's) is
    reported, never hidden.
    The time is what `budget` has left, at most DEFAULT_SECONDS without a time limit."""
    import json
    left = budget.left() if budget is not None else None
    own = Budget(timeout=max(min(left, DEFAULT_SECONDS) if left is not None else DEFAULT_SECONDS,
                             0.001))
    started = time.monotonic()
    try:
        cert, listings = certificate(target, plies, own)
    except LimitHit as e:
        return None, (f"listing certificate: not written, the CNF route did not finish "
                      f"({e.reason}; {own.timeout:g} s given)")
    except AssertionError as e:          # a bug of the encoding or the listing, said plainly
        return None, f"listing certificate: not written ({e}): please report this"
    mine = {tuple(m.uci() for m in g) for g in listings[0].games}
    theirs = {tuple(m.uci() for m in g) for g in games}
    if mine != theirs if count in (None, len(theirs)) else \
            len(mine) != count or not theirs <= mine:
        return None, (f"listing certificate: not written, the CNF listing ({len(mine)} games) "
                      f"differs from the engine's ({len(theirs)}): please report this")
    if status is not None and str(status) != cert["status"]:
        return None, (f"listing certificate: not written, the CNF listing says {cert['status']}, "
                      f"the engine {status}: please report this")
    size = len(json.dumps(cert))
    if size > MAX_BYTES:
        return None, f"listing certificate: not written, too large ({size / 2**20:.1f} MiB)"
    path = dest.write(cert, "spg-listing")
    lemmas = sum(len(lst.proof) for lst in listings)
    return str(path), (f"listing certificate: {path} ({cert['status']}; lengths "
                       f"{', '.join(str(lst.plies) for lst in listings)}; "
                       f"{sum(len(lst.illegal) for lst in listings)} illegal prefixes blocked, "
                       f"{lemmas} proof lines, {size / 1024:.0f} KiB, "
                       f"{time.monotonic() - started:.2f} s)")
