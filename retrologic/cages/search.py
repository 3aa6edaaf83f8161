"""Cage verification (Hwa) as exact reachability over zone positions, with checkable proofs.

From a partial position, every retraction legal in some extension is followed (retract.py in
partial mode, uncaptured units not materialised); a unit leaving the zone is removed; the search
fails when a position is reached whose units are all home, or none is left. A breadth-first
search with a visited set computes the whole reachable set, so the answer depends neither on a
depth cap nor on move order: *proved* when the set closes without failing (the set is the
proof), *refuted* with the shortest retraction line to a failing position, *unknown* when a
node or time limit stops it first.

Two models: "plain" is the paper's (only unblockable checks count); "lines" (the default) adds
line checks through squares the retraction itself empties, which verifies Figure 5 (see
cages.rules.prune_rule for the rules and why each is sound).

Known cages close positions through any KnownCages (the library, cages.library.Library, which
imports this module to verify its entries: this module never imports the library).
"""

from __future__ import annotations

import heapq
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol

import chess

from retrologic import certformat
from retrologic.cages import fast
from retrologic.cages.checker import Escape
from retrologic.cages.entry import CageEntry, Match
from retrologic.cages.rules import (MODELS, NoPawnCaptures, prune_rule, restrictions_from,
                                   retraction_key, squares_of, zone_mask)
from retrologic.errors import InputError
from retrologic.limits import Budget, LimitHit, budget_for
from retrologic.position import (Placement, Position, all_home, away_from_home, castling_fault,
                                 home_mask)
from retrologic.result import Result, Verdict
from retrologic.retract import apply, retractions

__all__ = ["verify", "CageResult", "KnownCages", "check_proof", "check_counterexample",
           "start_position", "setup"]


class KnownCages(Protocol):
    """What the search needs of known cages (cages.library.Library): the verified entry that
    stands in a position, and an entry's own proof (embedded in certificates that use it)."""

    def matches(self, position: Position | Placement,
                restrictions: Iterable[NoPawnCaptures] = ()) -> Match | None: ...

    def proof(self, entry: CageEntry) -> CageResult | None: ...


@dataclass
class CageResult:
    """The outcome of a cage verification.

    `members` (proved) is the closed set of reachable zone positions, start first; `pruned[i]`
    names, per retraction of member i that leaves the set, the rule that makes it impossible;
    `closed[i]` is the library match that proves member i illegal. `line` (refuted) is the
    retraction line from the start to the failing position, `escape` says how it fails.
    """

    verdict: Verdict
    start: Position
    zone: int
    model: str
    restrictions: tuple[NoPawnCaptures, ...]
    states: int = 0
    expanded: int = 0
    reason: str | None = None
    members: list[Position] = field(default_factory=list)
    pruned: dict[int, dict[str, str]] = field(default_factory=dict)
    closed: dict[int, Match] = field(default_factory=dict)
    line: list[tuple[str, Position]] | None = None
    escape: Escape | None = None
    rules: Counter = field(default_factory=Counter)
    elapsed: float = 0.0
    library: KnownCages | None = None
    engine: str = "explicit"       # the engine that searched: "fast" (cages.fast) or "explicit"
    engine_note: str | None = None  # why the fast engine was asked for but not used

    @property
    def proved(self) -> bool:
        return self.verdict == Verdict.PROVED

    @property
    def lemmas(self) -> list[CageEntry]:
        """Library entries the proof relies on, in first-use order."""
        seen: dict[str, CageEntry] = {}
        for m in self.closed.values():
            seen.setdefault(m.entry.name, m.entry)
        return list(seen.values())

    def certificate(self) -> dict[str, Any]:
        """The proof (closed set) or counterexample (line) as JSON for `retrologic check`."""
        from retrologic.version import __version__
        from retrologic.certformat import FORMAT
        head = {"format": FORMAT, "retrologic": __version__, "model": self.model, "zone": squares_of(self.zone),
                "restrictions": [r.to_json() for r in self.restrictions]}
        if self.verdict == Verdict.PROVED:
            lemmas = self.lemmas
            index = {e.name: i for i, e in enumerate(lemmas)}
            members = []
            for i, pos in enumerate(self.members):
                m = state_json(pos)
                if i in self.closed:
                    match = self.closed[i]
                    m["lemma"] = {"index": index[match.entry.name], "swap": match.swapped}
                elif self.pruned.get(i):
                    m["pruned"] = dict(sorted(self.pruned[i].items()))
                members.append(m)
            embedded = []
            for e in lemmas:                        # lemmas: closed by self.library's entries
                proof = self.library.proof(e) if self.library is not None else None
                assert proof is not None            # verified before its first use
                embedded.append({"name": e.name, "source": e.source, "proof": proof.certificate()})
            return {"type": "cage-proof", **head, "start": state_json(self.start), "members": members,
                    "lemmas": embedded}
        if self.verdict == Verdict.REFUTED:
            return {"type": "cage-counterexample", **head, "start": state_json(self.start),
                    "line": [{"retraction": k, "position": state_json(p)} for k, p in self.line or []],
                    "end": self.escape}
        raise ValueError("an unknown verdict has no certificate")

    def to_result(self) -> Result:
        """The answer as a retrologic Result (facts for [expect], readable lines)."""
        facts: dict[str, Any] = {"cage": self.proved if self.verdict != Verdict.UNKNOWN else None,
                                 "model": self.model, "states": self.states,
                                 "zone": squares_of(self.zone),
                                 "lemmas_used": [e.name for e in self.lemmas]}
        lines = [f"start {self.start.placement.board_fen()}"
                 + (f", frozen {' '.join(squares_of(self.start.frozen))}" if self.start.frozen else ""),
                 f"zone {' '.join(squares_of(self.zone))}", f"model {self.model}"
                 + ("" if not self.restrictions else
                    "; restrictions: " + "; ".join(r.expr() for r in self.restrictions))]
        answer = None
        if self.verdict == Verdict.PROVED:
            answer = "cage"
            lines.append(f"cage verified: the {len(self.members)} reachable zone positions never "
                         f"get every unit home ({self.expanded} expanded, {self.elapsed * 1000:.1f} ms)")
            ruled = {k: v for k, v in self.rules.items() if k != "known-cage"}
            if ruled:
                lines.append("retractions ruled out: " + ", ".join(
                    f"{k} {v}" for k, v in sorted(ruled.items())))
            if self.closed:
                lines.append(f"{len(self.closed)} positions closed by known cages: "
                             + ", ".join(e.name for e in self.lemmas))
        elif self.verdict == Verdict.REFUTED:
            answer = "not verified"
            facts["escape"] = self.escape
            facts["line"] = [k for k, _ in self.line or []]
            facts["line_length"] = len(self.line or [])
            end = self.line[-1][1] if self.line else self.start
            lines.append(f"not verified: {len(self.line or [])} retractions reach "
                         f"{'an empty zone' if self.escape == Escape.EMPTY else 'a position with every unit home'}"
                         f" ({end.placement.board_fen() or '8/8/8/8/8/8/8/8'})")
            if self.line:
                lines.append("line: " + ", ".join(k for k, _ in self.line))
        else:
            lines.append(f"stopped after {self.states} positions: {self.reason}")
        details = {"expanded": self.expanded, "rules": dict(self.rules),
                   "elapsed_ms": round(self.elapsed * 1000, 3), "engine": self.engine}
        if self.engine_note:
            details["engine_note"] = self.engine_note
            lines.append(f"engine: {self.engine} ({self.engine_note})")
        return Result("cage", self.verdict, answer, self.reason, facts, details, lines,
                      unordered=frozenset({"zone", "lemmas_used"}))


def state_json(pos: Position) -> dict[str, Any]:
    """A zone position in certificates: board, and the frozen and castling squares if any."""
    out: dict[str, Any] = {"board": pos.placement.board_fen()}
    if pos.frozen:
        out["frozen"] = squares_of(pos.frozen)
    if pos.castling:
        out["castling"] = squares_of(pos.castling)
    return out


def start_position(position: Position | Placement | str, frozen: Any = None) -> Position:
    """The partial position a cage search starts from (a full position's castling rights and
    frozen units are kept: they are facts about every extension)."""
    if isinstance(position, str):
        from retrologic.position import parse
        try:
            position = parse(board=position)
        except ValueError as e:
            raise InputError(str(e), field="board", value=position) from None
    if isinstance(position, Placement):
        position = Position(position, None, 0, None, 0, True)
    mask = position.frozen
    if frozen is not None:
        if isinstance(frozen, int):
            mask |= frozen
        else:
            from retrologic.schema import parse_squares
            try:
                for sq in parse_squares(frozen):
                    mask |= chess.BB_SQUARES[sq]
            except ValueError as e:
                raise InputError(str(e), field="frozen", value=frozen) from None
    empty = mask & ~position.placement.occupied
    if empty:
        raise InputError("frozen squares must hold a unit", field="frozen", value=squares_of(empty))
    away = away_from_home(position.placement, mask)
    if away:
        raise InputError("a frozen unit never moved, so it stands where a unit of its type and "
                         "colour starts the game", field="frozen", value=squares_of(away))
    fault = castling_fault(position.placement, position.castling)
    if fault:       # a right no position has would make any board a cage, vacuously
        raise InputError(fault, field="castling", value=squares_of(position.castling))
    return Position(position.placement, None, position.castling, None, mask, True)


class _Limit(Exception):
    pass


def setup(position: Position | Placement | str, zone: Any, restrictions: Iterable[Any],
          frozen: Any = None) -> tuple[Position, list[NoPawnCaptures], int]:
    """(start, pawn-capture rules, zone mask) of a verification: the restricted start (units
    that `never_moved` restrictions freeze added to its frozen ones), the rules, the zone. Shared
    by both engines (this module and cages.sat) so they verify the very same question."""
    start = start_position(position, frozen)
    rules: list[NoPawnCaptures] = []
    raw: list[Any] = []
    for r in restrictions:
        (rules if isinstance(r, NoPawnCaptures) else raw).append(r)
    if raw:
        more, never = restrictions_from(raw, start)
        rules += more
        start = Position(start.placement, None, start.castling, None, start.frozen | never, True)
    return start, rules, zone_mask(zone, start.placement)


def _away(pos: Position) -> int:
    """Units not on a home square: the search's guide towards a failing position."""
    pl = pos.placement
    return chess.popcount(pl.occupied & ~home_mask(pl))


def verify(position: Position | Placement | str, zone: Any = None,
           restrictions: Iterable[Any] = (), library: KnownCages | None = None, *,
           model: str = "lines", frozen: Any = None, nodes: int | None = None,
           timeout: float | None = None, progress: bool = False,
           budget: Budget | None = None, engine: str = "auto") -> CageResult:
    """Verify that `position` is a cage.

    `zone`: None/'auto' (occupied squares and king-move neighbours), square names or a mask.
    `restrictions`: NoPawnCaptures objects, predicate-language strings or parsed expressions, or
    `[[constraint]]` tables (`never_moved` ones freeze their unit). `library`: known cages that
    prove positions illegal. `model`: "lines" (default) or "plain" (the paper's). Limits, each
    giving verdict unknown: `budget` (the question's shared one: time, Ctrl-C, and its node limit
    charged with the positions reached) or one of `timeout` seconds; `nodes` is a count of
    positions reached for this verification alone (cage discovery's per-cage budget).
    `engine`: "auto" (default) and "fast" use cages.fast where it supports the start (the same
    search on bitboard tuples, issue #21), falling back to this module's search (noted in the
    result) otherwise; "explicit" forces this module's search.
    """
    if engine not in ENGINES:
        raise InputError(f"unknown cage engine (known: {', '.join(ENGINES)})", field="engine",
                         value=engine)
    if model not in MODELS:
        raise InputError(f"unknown cage model (known: {', '.join(MODELS)})", field="model", value=model)
    start, rules, zmask = setup(position, zone, restrictions, frozen)
    limits = budget_for(timeout, None, budget)
    why_not = fast.supports(start) if engine != "explicit" else None
    if engine != "explicit" and why_not is None:
        return _run_fast(start, zmask, model, tuple(rules), library, nodes, limits, progress)
    res = _Search(start, zmask, model, tuple(rules), library, nodes, limits, progress).run()
    if engine == "fast":
        res.engine_note = f"fast engine not used: {why_not}"
    return res


ENGINES = ("auto", "fast", "explicit")


def _run_fast(start: Position, zone: int, model: str, rules: tuple[NoPawnCaptures, ...],
              library: KnownCages | None, nodes: int | None, budget: Budget,
              progress: bool) -> CageResult:
    """The search by cages.fast, its raw outcome turned into the same CageResult."""
    t0 = time.perf_counter()
    matches = None if library is None else (lambda pos: library.matches(pos, rules))
    ex = fast.explore(start, zone, model, rules, matches, nodes, budget, progress)
    res = CageResult(Verdict.PROVED, start, zone, model, rules, states=len(ex.states),
                     expanded=ex.expanded, rules=ex.rules, library=library, engine="fast")
    if ex.verdict == "unknown":
        res.verdict, res.reason = Verdict.UNKNOWN, ex.reason
    elif ex.verdict == "refuted":
        line = [(ex.key(code), fast.position_of(ex.states[k])) for code, k in ex.line(ex.failed)]
        end = ex.states[ex.failed]
        res.verdict, res.line = Verdict.REFUTED, line
        res.escape = Escape.EMPTY if not any(end[:6]) else Escape.ALL_HOME
    else:
        res.members = [start] + [fast.position_of(s) for s in ex.states[1:]]
        for i, code, rule in ex.pruned():
            res.pruned.setdefault(i, {})[ex.key(code)] = rule
        res.closed = ex.closed
    res.elapsed = time.perf_counter() - t0
    return res


@dataclass
class _Search:
    start: Position
    zone: int
    model: str
    restrictions: tuple[NoPawnCaptures, ...]
    library: KnownCages | None
    nodes: int | None          # positions reached, this verification alone
    budget: Budget             # the shared limits: time, Ctrl-C, node limit (positions reached)
    progress: bool

    def run(self) -> CageResult:
        t0 = time.perf_counter()
        res = CageResult(Verdict.PROVED, self.start, self.zone, self.model, self.restrictions,
                         library=self.library)
        index: dict[Position, int] = {self.start: 0}
        members = res.members
        members.append(self.start)
        parent: list[tuple[int, str] | None] = [None]
        budget = self.budget
        try:
            budget.check(1)
            if self._closes(0, self.start, res):
                return self._done(res, t0)
            if all_home(self.start.placement):
                return self._fail(res, 0, parent, t0)
            # Best first: positions with fewer units away from home are expanded first, so a
            # failing line is found early; a proof still needs the whole reachable set, so the
            # order changes neither verdict nor proof set.
            queue = [(_away(self.start), 0)]
            last_report = t0
            while queue:
                _, i = heapq.heappop(queue)
                pos = members[i]
                res.expanded += 1
                budget.check(every=16)
                if self.progress and res.expanded & 63 == 0:
                    now = time.perf_counter()
                    if now - last_report > 1.0:
                        last_report = now
                        print(f"cage: {len(members)} positions, {len(queue)} queued, "
                              f"{now - t0:.1f} s", file=sys.stderr)
                for r in retractions(pos, uncaptures="open"):
                    q = apply(pos, r)
                    rule = prune_rule(pos, r, q.placement, self.model, self.restrictions)
                    if rule is not None:
                        res.pruned.setdefault(i, {})[retraction_key(r)] = rule
                        res.rules[rule] += 1
                        continue
                    child = self._in_zone(q)
                    if child in index:
                        continue
                    j = len(members)
                    index[child] = j
                    members.append(child)
                    parent.append((i, retraction_key(r)))
                    if self.nodes is not None and len(members) > self.nodes:
                        raise _Limit(f"node limit {self.nodes}")
                    budget.check(1)
                    if self._closes(j, child, res):
                        continue
                    if all_home(child.placement):
                        return self._fail(res, j, parent, t0)
                    heapq.heappush(queue, (_away(child), j))
        except (_Limit, LimitHit) as e:
            res.verdict, res.reason = Verdict.UNKNOWN, str(e)
            res.members, res.pruned, res.closed = [], {}, {}
            res.states = len(members)
            res.elapsed = time.perf_counter() - t0
            return res
        return self._done(res, t0)

    def _in_zone(self, q: Position) -> Position:
        """The predecessor with units outside the zone removed (they are no longer followed)."""
        gone = q.placement.occupied & ~self.zone
        if not gone and q.turn is None and q.ep_square is None:
            return q
        return Position(q.placement.without(gone), None, q.castling, None, q.frozen & ~gone, True)

    def _closes(self, j: int, pos: Position, res: CageResult) -> bool:
        if self.library is None:
            return False
        m = self.library.matches(pos, self.restrictions)
        if m is None:
            return False
        res.closed[j] = m
        res.rules["known-cage"] += 1
        return True

    def _done(self, res: CageResult, t0: float) -> CageResult:
        res.states = len(res.members)
        res.elapsed = time.perf_counter() - t0
        return res

    def _fail(self, res: CageResult, j: int, parent: list, t0: float) -> CageResult:
        line = []
        k = j
        while parent[k] is not None:
            i, key = parent[k]
            line.append((key, res.members[k]))
            k = i
        line.reverse()
        res.verdict = Verdict.REFUTED
        res.line = line
        res.escape = Escape.EMPTY if not res.members[j].placement.occupied else Escape.ALL_HOME
        res.states = len(res.members)
        res.members, res.pruned, res.closed = [], {}, {}
        res.elapsed = time.perf_counter() - t0
        return res


def check_proof(cert: dict[str, Any]) -> certformat.Verdict:
    """Checker of "cage-proof" certificates (retrologic.cages.checker, independent of the search)."""
    from retrologic.cages.checker import check_proof as check
    return check(cert)


def check_counterexample(cert: dict[str, Any]) -> certformat.Verdict:
    """Checker of "cage-counterexample" certificates (retrologic.cages.checker)."""
    from retrologic.cages.checker import check_counterexample as check
    return check(cert)
