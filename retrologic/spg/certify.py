"""Writes `spg-listing` certificates: every game of a length, and the proof that there is no other
(issue 22, item 3).

For each length L in (plies, plies - 2, ..., down to 0 or 1: the stipulated one and every shorter
one with the same side to move) the CNF of spg/cnf.py is solved with Glucose and its models
listed: each model is decoded to moves and replayed with python-chess; a legal game (it reaches
the diagram: the CNF's last ply fixes the placement) is listed and blocked by the clause
"not all of its move literals"; an illegal sequence is blocked by the clause on its prefix up to
its first illegal ply. The solver logs a DRUP proof throughout (Glucose 4.1, `with_proof`): when
the CNF plus the blocking clauses is UNSAT, its proof refutes them all. The proof is then trimmed
(history/drup.trim: the lemmas and CNF clauses the refutation uses, found by a forward check
and backward marking) and packed with xz when that is shorter. The certificate holds the
diagram, the lengths, per length the games and the illegal prefixes (as UCI moves: the checker
rebuilds the blocking clauses from them), the core's clause indices and the proof;
spg/proof_checker.py checks it without this module.

The verdict of a question never comes from here: the engines decide, and this module only tries
to certify their verdict within the time it is given (a LimitHit means no certificate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chess

from retrologic.history.cnf import SOLVER, Alarm, solve_limited
from retrologic.history.drup import Trimmed, parse_proof, trim
from retrologic.limits import Budget, LimitHit, interrupted
from retrologic.spg.cnf import ENCODING, Encoding, encode

TYPE = "spg-listing"
MAX_BYTES = 15 * 1024 * 1024      # a certificate must stay below `check`'s 16 MiB reading limit
DEFAULT_SECONDS = 120.0           # the CNF route's time when the question has no time limit
PRESET = 6                        # xz preset of the packed proof and core


@dataclass
class LengthListing:
    """The listing of one length: games, illegal prefixes, the DRUP proof, and measurements."""

    plies: int
    games: list[list[chess.Move]] = field(default_factory=list)
    illegal: list[list[chess.Move]] = field(default_factory=list)
    proof: list[str] = field(default_factory=list)
    variables: int = 0
    clauses: int = 0
    core: list[int] | None = None      # the CNF clauses the proof uses (None: all of them)
    raw_lemmas: int = 0                # lemmas of the solver's proof, before trimming
    blocks: list[list[int]] = field(default_factory=list, repr=False)  # the blocking clauses

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plies": self.plies,
                               "games": [[m.uci() for m in g] for g in self.games],
                               "illegal": [[m.uci() for m in p] for p in self.illegal]}
        if self.core is not None:
            out.update(smaller("core", " ".join(map(str, deltas(self.core)))))
        out.update(smaller("proof", "\n".join(self.proof)))
        return out


def smaller(key: str, text: str) -> dict[str, str]:
    """{key: text} or {key_xz: packed text}, whichever is shorter (xz has a fixed overhead of
    about 100 bytes: a short proof stays plain)."""
    packed = pack(text)
    return {f"{key}_xz": packed} if len(packed) < len(text) else {key: text}


def pack(text: str) -> str:
    """xz (LZMA) of the text, in base64: a DRUP proof or a clause list shrinks about tenfold."""
    import base64
    import lzma
    return base64.b64encode(lzma.compress(text.encode("ascii"), preset=PRESET)).decode("ascii")


def deltas(ascending: list[int]) -> list[int]:
    """The differences of an ascending list (the first from -1): small numbers that compress."""
    return [b - a for a, b in zip([-1] + ascending[:-1], ascending)]


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
            proof = lean_proof(s.get_proof())
        finally:
            alarm.close()
    out.proof, out.blocks = proof, blocks
    out.raw_lemmas = sum(1 for line in proof if not line.startswith("d"))
    return out


def trim_listing(target: chess.BaseBoard, out: LengthListing, budget: Budget) -> None:
    """Replace the listing's proof by its trimmed form and name its core (LimitHit if the
    budget runs out first; the listing is then unchanged). The CNF is encoded again rather than
    kept from the solving: every length's CNF at once would not fit in memory on long ones."""
    enc = encode(target, out.plies)
    trimmed = trim_proof(enc.clauses, out.blocks, out.proof, enc.nv, budget)
    out.core = trimmed.core
    out.proof = [("d " if delete else "") + " ".join(map(str, lits)) + " 0"
                 for delete, lits in trimmed.proof]


def trim_proof(clauses: list[list[int]], blocks: list[list[int]], proof: list[str], nv: int,
               budget: Budget) -> Trimmed:
    """The proof reduced to the lemmas and CNF clauses its refutation uses (the blocking clauses
    are always all given to the checker, so `core` indexes `clauses` only). It checks the proof
    on the way: one that does not check is an internal error (AssertionError)."""
    def tick() -> None:
        budget.check_now()
    try:
        t = trim(clauses + blocks, parse_proof(proof), nv, tick)
    except ValueError as e:
        raise AssertionError(f"internal error: the solver's proof does not check ({e})") from None
    t.core = [i for i in t.core if i < len(clauses)]
    return t


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
    # trimming comes second: when the time runs out during it, the lengths not yet trimmed keep
    # the solver's whole proof (a larger certificate, slower to check, just as valid)
    for lst in listings:
        try:
            trim_listing(target, lst, budget)
        except LimitHit:
            if interrupted():
                raise
            break
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
    core = sum(len(lst.core) if lst.core is not None else lst.clauses for lst in listings)
    return str(path), (f"listing certificate: {path} ({cert['status']}; lengths "
                       f"{', '.join(str(lst.plies) for lst in listings)}; "
                       f"{sum(len(lst.illegal) for lst in listings)} illegal prefixes blocked, "
                       f"{lemmas} proof lines (of {sum(lst.raw_lemmas for lst in listings)} "
                       f"lemmas), {core} CNF clauses used, {size / 1024:.0f} KiB, "
                       f"{time.monotonic() - started:.2f} s)")
