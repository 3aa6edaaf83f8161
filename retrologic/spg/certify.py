"""Writes `spg-listing` certificates: every game of a length, and the proof that there is no other
(issue 22, item 3).

For each length L in (plies, plies - 2, ..., down to 0 or 1: the stipulated one and every shorter
one with the same side to move) the CNF of spg/cnf.py is solved and its models listed: each
model is decoded to moves and replayed with python-chess; a legal game (it reaches the diagram:
the CNF's last ply fixes the placement) is listed and blocked by the clause "not all of its move
literals"; an illegal sequence is blocked by the clause on its prefix up to its first illegal
ply. The solver logs its proof throughout: when the CNF plus the blocking clauses is UNSAT, the
proof refutes them all. By default (`hints`) the solver is CaDiCaL 1.9.5 logging LRAT (each
derived clause with the ids of the clauses its propagation used); the log is reduced to the
lemmas and CNF clauses the refutation uses (backward marking through the hints), without the
lemmas the core's top-level unit propagation implies, renumbered and checked once here
(history/drup.check_lrat, linear). Without `hints`, Glucose 4.1 logs plain DRUP, trimmed by
history/drup.trim (a forward RUP check and backward marking: as slow as checking it). Both are
packed with xz when that is shorter. The certificate holds the diagram, the lengths, per length
the games and the illegal prefixes (as UCI moves: the checker rebuilds the blocking clauses from
them), the core's clause indices and the proof (`lrat` or `proof`); spg/proof_checker.py checks
it without this module.

The verdict of a question never comes from here: the engines decide, and this module only tries
to certify their verdict within the time it is given (a LimitHit means no certificate).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import chess

from retrologic.history.cnf import SOLVER, Alarm, solve_limited
from retrologic.history.drup import Trimmed, parse_proof, trim
from retrologic.limits import Budget, LimitHit, interrupted, request_stop
from retrologic.memory import MemoryGuard
from retrologic.spg.cnf import ENCODING, Encoding, encode
from retrologic.spg.lratlog import reduce_log
from retrologic.spg.writer_progress import Ticker, say, shown
from retrologic import certsize

TYPE = "spg-listing"
DEFAULT_SECONDS = 120.0           # the CNF route's time when the question has no time limit
PRESET = 6                        # xz preset of the packed proof and core
QUICK_PRESET = 1                  # ... until `tighten` is done (a tenth of the time, 1.5x larger)
SLICE = 200                       # conflicts of CaDiCaL between two looks at the budget (first)
LOAD_CHUNK = 50_000               # clauses loaded into the solver between two looks at the budget
PACK_CHUNK = 1 << 20              # bytes of proof packed between two looks at the budget
SLICE_MAX = 10_000                # ... doubling per slice up to this (4-5 s on a 20-ply CNF)
TIGHTEN_ROUNDS = 3                # core iterations a length at most (`tighten`)
# The caps (retrologic.certsize, `--certificate-mib`): the writer writes at most
# `certsize.write_bytes()` (39 MiB by default, below `check`'s 40 MiB), no field unpacking past
# `certsize.unpacked_bytes()`, and stops past `certsize.log_bytes()` of CaDiCaL's LRAT log (1 GiB
# by default: irsigler-2004, given 3 GiB, logged 1.2 GiB and its listing was 79.8 MiB, written
# in 620 s at a 7.7 GB peak). The log is mapped, not read (LogIndex).


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
    hinted: bool = False               # `proof` is hinted (LRAT-style lines), not plain DRUP
    blocks: list[list[int]] = field(default_factory=list, repr=False)  # the blocking clauses
    conflicts: int = 0                 # the listing solver's conflicts (hinted proofs)
    rounds: int = 0                    # core iterations that shrank the proof (`tighten`)
    packed: dict[str, str] | None = field(default=None, repr=False)  # core and proof, packed
    packed_at: int | None = None       # ... at this xz preset

    def unpacked(self) -> int:
        """The bytes of the longest text `as_dict` packs (the proof or the core), as `check`
        unpacks it (at most `certsize.unpacked_bytes()`)."""
        proof = sum(len(line) + 1 for line in self.proof) - 1 if self.proof else 0
        core = len(" ".join(map(str, deltas(self.core)))) if self.core is not None else 0
        return max(proof, core)

    def as_dict(self, tick: Callable[[], None] | None = None) -> dict[str, Any]:
        """The length's entry of the certificate, its proof and core packed (`tick` as in
        `pack`)."""
        out: dict[str, Any] = {"plies": self.plies,
                               "games": [[m.uci() for m in g] for g in self.games],
                               "illegal": [[m.uci() for m in p] for p in self.illegal]}
        out.update(self.packed if self.packed is not None else self.packing(tick))
        return out

    def packing(self, tick: Callable[[], None] | None = None, preset: int = PRESET
                ) -> dict[str, str]:
        """The core and the proof as the certificate holds them (`smaller`), packed at
        `preset` once (the packing kept until then when a limit stops it)."""
        if self.packed is None or self.packed_at != preset:
            packed = {}
            if self.core is not None:
                packed.update(smaller("core", " ".join(map(str, deltas(self.core))), tick,
                                      preset))
            packed.update(smaller("lrat" if self.hinted else "proof", "\n".join(self.proof),
                                  tick, preset))
            self.packed, self.packed_at = packed, preset
        return self.packed

    def packed_bytes(self, tick: Callable[[], None] | None = None, preset: int = PRESET) -> int:
        """The bytes the core and the proof take in the certificate, packed at `preset`."""
        return sum(len(text) for text in self.packing(tick, preset).values())


def smaller(key: str, text: str, tick: Callable[[], None] | None = None, preset: int = PRESET
            ) -> dict[str, str]:
    """{key: text} or {key_xz: packed text}, whichever is shorter (xz has a fixed overhead of
    about 100 bytes: a short proof stays plain)."""
    packed = pack(text, tick, preset)
    return {f"{key}_xz": packed} if len(packed) < len(text) else {key: text}


def pack(text: str, tick: Callable[[], None] | None = None, preset: int = PRESET) -> str:
    """xz (LZMA) of the text, in base64: a DRUP proof or a clause list shrinks about tenfold.
    Fed in PACK_CHUNK pieces with `tick` called before each (a time limit raises from it: xz
    takes seconds per ten MiB of proof); the stream is the same as one `lzma.compress`."""
    import base64
    import lzma
    data = text.encode("ascii")
    packer = lzma.LZMACompressor(preset=preset)
    pieces = []
    for start in range(0, len(data), PACK_CHUNK):
        if tick is not None:
            tick()
        pieces.append(packer.compress(data[start:start + PACK_CHUNK]))
    pieces.append(packer.flush())
    return base64.b64encode(b"".join(pieces)).decode("ascii")


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


def model_moves(enc: Encoding, model: list[int]) -> list[chess.Move]:
    """The moves a model of the CNF plays, ply by ply (each ply has one true move variable)."""
    true = {v for v in model if v > 0}
    return [enc.move_of(next(v for v in enc.moves[t].values() if v in true))[1]
            for t in range(1, enc.plies + 1)]


def model_game(enc: Encoding, model: list[int]) -> tuple[list[chess.Move], bool]:
    """A model's moves and whether they are a legal game; if not, cut after the first move
    python-chess rejects (the illegal prefix that the model's blocking clause forbids)."""
    moves = model_moves(enc, model)
    bad = first_illegal(moves)
    return (moves, True) if bad is None else (moves[:bad + 1], False)


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


def list_length(target: chess.BaseBoard, plies: int, budget: Budget, hints: bool = False
                ) -> LengthListing:
    """Every game of `plies` plies to `target` with a proof that no other exists: hinted (the
    LRAT log of the CaDiCaL run that listed them, reduced to its core; a fresh run on CNF +
    blocking clauses if that log does not check) or, without `hints`, Glucose's plain DRUP
    proof of the whole CNF (to be trimmed by trim_listing); LimitHit when `budget` runs out."""
    enc = encode(target, plies, budget.check_now)     # a 24-ply CNF: a second or more
    out = LengthListing(plies, variables=enc.nv, clauses=len(enc.clauses))
    say(f"{plies} plies: {len(enc.clauses):,} clauses on {enc.nv:,} variables, solving")
    found: list[tuple[bool, list[int]]] = []     # (a game?, blocking clause), as found

    def listed(model: list[int]) -> list[int]:
        """Record the model's game (or illegal prefix); its blocking clause."""
        moves, game = model_game(enc, model)
        if game:
            board = chess.Board()
            for m in moves:
                board.push(m)
            if board.board_fen() != target.board_fen():
                raise AssertionError("internal error: a model's game misses the diagram")
            out.games.append(moves)
            say(f"{plies} plies: game {len(out.games)} found")
        else:
            out.illegal.append(moves)
        found.append((game, blocking_clause(enc, moves)))
        return found[-1][1]

    def in_order() -> tuple[list[list[int]], list[int]]:
        """The blocking clauses in the checker's order (the games', then the illegal
        prefixes'), and for each as found its index in that order."""
        games = [k for k, (game, _) in enumerate(found) if game]
        rest = [k for k, (game, _) in enumerate(found) if not game]
        where = {k: n for n, k in enumerate(games + rest)}
        return [found[k][1] for k in games + rest], [where[k] for k in range(len(found))]

    if hints:
        # one logging solver for the whole listing: a lemma derived before a blocking clause
        # was added still follows, so the log of the last (UNSAT) call refutes CNF + blocks
        order = units_last(enc.clauses)
        with LratSolver([enc.clauses[i] for i in order], budget, f"{plies} plies") as ls:
            while ls.solve(budget):
                ls.add(listed(ls.model()))
            log = ls.log()
            out.conflicts = ls.conflicts()
        blocks, where = in_order()
        order += [len(enc.clauses) + k for k in where]
        out.blocks, out.hinted = blocks, True
        say(f"{plies} plies: {len(out.games)} game(s), refuted; reducing the proof log")
        if any(not c for c in enc.clauses + blocks):
            out.core, out.proof, out.raw_lemmas = hinted_refutation(enc.clauses, blocks, budget)
            return out
        try:
            out.core, out.proof, out.raw_lemmas = reduce_log(log, enc.clauses, blocks, order,
                                                             budget.check_now)
        except AssertionError:
            out.core, out.proof, out.raw_lemmas = hinted_refutation(enc.clauses, blocks, budget)
        return out
    from pysat.solvers import Solver
    # one proof-logging solver for the whole listing, as above
    with Solver(name=SOLVER, bootstrap_with=enc.clauses, with_proof=True) as s:
        alarm = Alarm(s, budget)
        try:
            while solve_limited(s, [], budget):
                s.add_clause(listed(s.get_model()))
            proof = lean_proof(s.get_proof())
        finally:
            alarm.close()
    out.proof, out.blocks = proof, in_order()[0]
    out.raw_lemmas = sum(1 for line in proof if not line.startswith("d"))
    return out


def trim_listing(target: chess.BaseBoard, out: LengthListing, budget: Budget) -> None:
    """Replace the listing's proof by its trimmed form and name its core (LimitHit if the
    budget runs out first; the listing is then unchanged). The CNF is encoded again rather than
    kept from the solving: every length's CNF at once would not fit in memory on long ones."""
    enc = encode(target, out.plies, budget.check_now)
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


def hinted_refutation(clauses: list[list[int]], blocks: list[list[int]], budget: Budget
                      ) -> tuple[list[int], list[str], int]:
    """(core, lines, lemmas logged): a hinted refutation of CNF + blocking clauses from a fresh
    CaDiCaL run (see LratSolver), reduced to what it uses and checked (reduce_log). LimitHit
    when the budget runs out; AssertionError if the solver finds a model or its log fails."""
    inputs = clauses + blocks
    empty = next((k for k, c in enumerate(inputs) if not c), None)
    if empty is not None:                # an empty input clause refutes by itself
        return ([empty] if empty < len(clauses) else []), [], 0
    order = units_last(inputs)
    with LratSolver([inputs[i] for i in order], budget) as s:
        if s.solve(budget):
            raise AssertionError("internal error: CNF + blocking clauses have a model")
        log = s.log()
    return reduce_log(log, clauses, blocks, order, budget.check_now)


def tighten(target: chess.BaseBoard, listings: list[LengthListing], budget: Budget) -> None:
    """Core iteration, for smaller certificates: a length's core (the CNF clauses its proof
    uses) and blocking clauses, refuted again by a fresh CaDiCaL run, often have a shorter
    refutation than the one the listing's solver logged among all the CNF's clauses; it
    replaces the length's proof when it packs smaller (both packed at QUICK_PRESET, as every
    length is until `certificate` packs them fully, once). Largest proof first, at most
    TIGHTEN_ROUNDS rounds a length, all of them within as many conflicts as the length's
    listing took (the solver's time at most doubles, and the result is the same on any
    machine), a length left after a round that does not shrink it; until `budget` runs out.
    Every round's result is a complete refutation: a round cut short loses only itself (Ctrl-C
    still stops the writer). docs/spg-certificates.md, "Core iteration"."""
    for lst in sorted(listings, key=lambda lst: -len(lst.proof)):
        if lst.core is None or not lst.proof:
            continue
        conflicts = budget.share(nodes=max(lst.conflicts, SLICE))   # every round's
        try:
            enc = encode(target, lst.plies, budget.check_now)
            for k in range(TIGHTEN_ROUNDS):
                before = lst.packed_bytes(budget.check_now, QUICK_PRESET)
                say(f"{lst.plies} plies: core iteration {k + 1}, the proof packs quickly to "
                    f"{before / 2**20:,.1f} MiB")
                core, proof, logged = hinted_refutation([enc.clauses[i] for i in lst.core],
                                                        lst.blocks, conflicts)
                again = LengthListing(lst.plies, core=[lst.core[i] for i in core], proof=proof,
                                      hinted=True)
                if again.packed_bytes(budget.check_now, QUICK_PRESET) >= before:
                    break
                lst.core, lst.proof = again.core, proof
                lst.packed, lst.packed_at = again.packed, again.packed_at
                lst.raw_lemmas += logged
                lst.rounds += 1
        except LimitHit:
            if interrupted():
                raise
            if budget.expired():
                return
            # the rounds used the listing's conflicts: on to the next length


def units_last(clauses: list[list[int]]) -> list[int]:
    """The clauses' indices, the unit clauses last: CaDiCaL logs a shortened copy of every clause
    added after a unit falsified one of its literals (a seventh to a tenth of a listing's
    kept lemmas); added before the units, they need none."""
    return [i for i, c in enumerate(clauses) if len(c) != 1] + \
        [i for i, c in enumerate(clauses) if len(c) == 1]


class LratSolver:
    """CaDiCaL 1.9.5 (python-sat's `cadical195`, options `lrat` and text output) logging every
    clause it derives with its id and the ids of the clauses its propagation used (LRAT,
    Cruz-Filipe et al. 2017). Incremental: clauses added between calls are inputs too (the log
    numbers inputs and derived clauses in one sequence, in the order they arrive). python-sat
    cannot interrupt CaDiCaL, so it runs in slices of conflicts and the budget (time, nodes,
    Ctrl-C) is looked at between them. The slices are sized by conflicts alone (SLICE doubling
    up to SLICE_MAX), never by time: the solver's path, and so its log, is the same on a loaded
    machine (time-sized slices made wilts-1994-b certify in one run and not in the next); a
    time limit is overshot by at most one slice. Untrusted, like any solver here."""

    def __init__(self, clauses: list[list[int]], budget: Budget | None = None,
                 label: str = "a refutation") -> None:
        """Load `clauses`, LOAD_CHUNK at a time, `budget` (if any) looked at between chunks
        (LimitHit: nothing is left open); the solver sees the same clauses in the same order.
        `label` names the run in the progress lines (writer_progress)."""
        import tempfile
        import pysolvers
        from pysat.solvers import Solver
        self.file = tempfile.TemporaryFile()
        self.solver = Solver(name="cadical195")
        try:
            engine = self.solver.solver
            engine.configure({"lrat": 1, "binary": 0})
            handle = pysolvers.cadical195_tracepr(engine.cadical, self.file)
            engine.prfile, engine.prfp = self.file, handle  # as with_proof does: pysat closes them
            for at in range(0, len(clauses), LOAD_CHUNK):
                if budget is not None:
                    budget.check_now()
                self.solver.append_formula(clauses[at:at + LOAD_CHUNK])
        except BaseException:
            self.__exit__()
            raise
        self.slice = SLICE
        self.slices = 0                   # solver calls so far
        self.rate: float | None = None    # conflicts a second in the last slice (of 50 or more)
        self.ticker = Ticker(label)

    def __enter__(self) -> "LratSolver":
        return self

    def __exit__(self, *exc: object) -> None:
        self.solver.delete()
        self.file.close()

    def add(self, clause: list[int]) -> None:
        self.solver.add_clause(clause)

    def model(self) -> list[int]:
        return self.solver.get_model()

    def solve(self, budget: Budget) -> bool:
        """SAT (True) or UNSAT (False); LimitHit when the budget runs out first. A slice that
        would pass the node limit, or the deadline at the last slice's rate, is cut to what
        fits and is the last: a conflict budget only stops CaDiCaL, so the path up to the cut
        is the full slice's, and every run that finishes follows the same path whatever the
        limits (a `--timeout 10` run used to end at 13 s, waiting for a 10,000-conflict slice:
        fuzz seed 2922)."""
        s = self.solver
        while True:
            budget.check_now()
            if budget.nodes_used_up():
                raise LimitHit(budget.node_reason())
            size, last = self._slice_within(budget)
            before = s.accum_stats().get("conflicts", 0)
            started = time.monotonic()
            s.solver.conf_budget(size)
            res = self._solve_slice()
            self.slices += 1
            done = s.accum_stats().get("conflicts", 0) - before
            self.rate = done / max(time.monotonic() - started, 1e-3) if done >= 50 else self.rate
            budget.spent += done
            logged = self.log_bytes()
            self.ticker.tick(lambda: f"{self.conflicts():,} conflicts, LRAT log {logged >> 20:,} "
                                     f"MiB (at most {certsize.log_bytes() >> 20:,})")
            if logged > certsize.log_bytes():
                raise LimitHit(f"the solver's proof log passed {certsize.log_bytes() >> 20} MiB "
                               f"(--certificate-mib {certsize.mib()})")
            if res is not None:
                return res
            if last is not None:
                raise LimitHit(last)
            self.slice = min(self.slice * 2, SLICE_MAX)

    def _solve_slice(self) -> bool | None:
        """One call of CaDiCaL under its conflict budget: SAT, UNSAT or None (budget spent).
        Called as pysat's C function with `main_thread` 0, so that Python's SIGINT handler
        stays in place (Ctrl-C is the soft stop of retrologic.limits, seen after the slice):
        pysat's own handler for the main thread jumps out of CaDiCaL with an error and stays
        installed, so Ctrl-C while a listing was written lost the proved verdict (exit 5,
        `error: Caught keyboard interrupt`) and a second one would jump into a dead frame."""
        import pysolvers
        engine = self.solver.solver
        status = pysolvers.cadical195_solve_lim(engine.cadical, [], 0)
        engine.status = {1: True, -1: False, 0: None}[status]   # what get_model() looks at
        return engine.status

    def _slice_within(self, budget: Budget) -> tuple[int, str | None]:
        """The next slice's conflicts, and the reason to stop after it when it was cut to fit
        the node limit or the time left (None: a full slice)."""
        size, last = self.slice, None
        nodes = budget.nodes_left()
        if nodes is not None and nodes < size:
            size, last = nodes, budget.node_reason()
        left = budget.left()
        if left is not None and self.rate is not None and self.rate * left < size:
            size, last = int(self.rate * left), budget.time_reason()
        return max(size, 1), last

    def conflicts(self) -> int:
        """The conflicts of every call so far."""
        return self.solver.accum_stats().get("conflicts", 0)

    def log_bytes(self) -> int:
        """The LRAT log's size so far, in bytes."""
        import os
        import pysolvers
        pysolvers.flushpr(self.solver.solver.prfp)
        return os.fstat(self.file.fileno()).st_size

    def log(self) -> Any:
        """The LRAT log so far, mapped from its file (an mmap: read as bytes, never copied
        whole into memory; it stays valid after the solver is closed)."""
        import mmap
        if self.log_bytes() == 0:
            return b""
        return mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)


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


def certificate(target: chess.BaseBoard, plies: int, budget: Budget, hints: bool = True
                ) -> tuple[dict[str, Any], list[LengthListing]]:
    """The spg-listing certificate of (target, plies), and the listings; LimitHit if the budget
    runs out first. With `hints` (the default) each length's proof is hinted (CaDiCaL's LRAT,
    checked in linear time); without, Glucose's DRUP proof, trimmed while time is left."""
    listings = [list_length(target, length, budget, hints) for length in lengths_of(plies)]
    if hints:
        for lst in listings:     # packed quickly first: whatever `tighten` leaves is ready
            lst.packing(budget.check_now, QUICK_PRESET)
        tighten(target, listings, budget)
        for lst in listings:     # then fully while time is left (a quick packing is as valid)
            try:
                lst.packing(budget.check_now)
            except LimitHit:
                if interrupted():
                    raise
                break
    # trimming comes second: when the time runs out during it, the lengths not yet trimmed keep
    # the solver's whole proof (a larger certificate, slower to check, just as valid)
    for lst in [] if hints else listings:
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
            "status": status, "lengths": [lst.as_dict(budget.check_now) for lst in listings]}
    return cert, listings


def certify(dest: Any, target: chess.BaseBoard, plies: int, games: list[list[chess.Move]],
            budget: Budget | None, count: int | None = None, status: str | None = None,
            progress: bool = False) -> tuple[str | None, str]:
    """Write the spg-listing certificate of the question through `dest` (a certformat
    Destination): (path or None, a line saying what was written or why not). `games` are the
    engine's games of the stipulated length (`count` of them when only some are kept): a
    different listing (or `status`, the engine's verdict, differing from the listing's) is
    reported, never hidden.
    The time is what `budget` has left of its time limit, DEFAULT_SECONDS without one (until
    2026-12-05 it was at most DEFAULT_SECONDS even under a limit: `solve --timeout 3000` wrote
    no certificate that takes more than two minutes, yanami-1997's 23 included). The writer
    stops, the verdict kept, when less than memory.MARGIN is left of the machine's memory (or
    its cgroup's, or `ulimit -v`): the OOM killer's SIGKILL would lose the verdict. `progress`:
    the writer's progress lines on stderr (writer_progress)."""
    import json
    left = budget.left() if budget is not None else None
    own = Budget(timeout=max(left if left is not None else DEFAULT_SECONDS, 0.001),
                 guard=MemoryGuard())   # stops before the machine runs out: the verdict stays
    started = time.monotonic()
    try:
        with shown(progress):
            say(f"the lengths {', '.join(map(str, lengths_of(plies)))} plies, "
                f"{own.timeout:g} s given")
            cert, listings = certificate(target, plies, own)
    except LimitHit as e:
        return None, (f"listing certificate: not written, the CNF route did not finish "
                      f"({e.reason}; {own.timeout:g} s given)")
    except AssertionError as e:          # a bug of the encoding or the listing, said plainly
        return None, f"listing certificate: not written ({e}): please report this"
    except KeyboardInterrupt:            # the hard stop after Ctrl-C (limits): a slice of
        request_stop()                   # CaDiCaL outlasted it; the verdict is finished work
        return None, "listing certificate: not written, interrupted"
    except MemoryError:                  # the verdict stands; only its certificate is lost
        return None, (f"listing certificate: not written, out of memory (--certificate-mib "
                      f"{certsize.mib()})")
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
    if size > certsize.write_bytes():
        return None, (f"listing certificate: not written, too large ({size / 2**20:.1f} MiB; "
                      f"--certificate-mib {certsize.mib()} writes at most "
                      f"{certsize.write_bytes() / 2**20:.1f})")
    unpacked = max(lst.unpacked() for lst in listings)
    if unpacked > certsize.unpacked_bytes():  # `check` would reject it (buchanan-motley-c)
        return None, (f"listing certificate: not written, a proof unpacks to "
                      f"{unpacked / 2**20:.0f} MiB (check reads at most "
                      f"{certsize.unpacked_bytes() >> 20} MiB)")
    path = dest.write(cert, "spg-listing")
    lemmas = sum(len(lst.proof) for lst in listings)
    core = sum(len(lst.core) if lst.core is not None else lst.clauses for lst in listings)
    return str(path), (f"listing certificate: {path} ({cert['status']}; lengths "
                       f"{', '.join(str(lst.plies) for lst in listings)}; "
                       f"{sum(len(lst.illegal) for lst in listings)} illegal prefixes blocked, "
                       f"{lemmas} proof lines (of {sum(lst.raw_lemmas for lst in listings)} "
                       f"lemmas), {core} CNF clauses used, "
                       f"{sum(lst.rounds for lst in listings)} core iteration(s), "
                       f"{size / 1024:.0f} KiB, "
                       f"{time.monotonic() - started:.2f} s)")
