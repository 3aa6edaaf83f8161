"""An independent DRUP checker: each added lemma must follow from the clauses by unit
propagation (RUP), deletions are honoured, and the empty clause must be reached; and a checker of
hinted (LRAT-style) proofs, each lemma refuted by the clauses it names (issue 22).
Long because: the DRUP check, the writers' trimming tracer and the hinted check share one
watched-literal propagation (a class and its hooks), which must stay one copy.

Import rule: it imports nothing of retrologic but errors (for messages), and no solver: a proof is
checked by this code alone.

Forward checking with two watched literals, written for this project so that a proof is never
trusted on a solver's word. Literals assigned at the top level stay assigned when a clause is
deleted: they are consequences of the formula, so this is sound (drat-trim does the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from retrologic.errors import shown


@dataclass
class DrupResult:
    """The checker's verdict, with the first failing step if any."""

    ok: bool
    reason: str = ""
    lemmas: int = 0
    deletions: int = 0
    missing_deletions: int = 0


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """(number of variables, clauses) of a DIMACS CNF text; ValueError if malformed."""
    nv, header, body = 0, False, []
    for line in text.splitlines():
        head = line.lstrip()[:1]
        if head == "c":
            continue
        if head == "p":
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf":
                raise ValueError(f"bad header: {shown(line)}")
            nv, header = int(parts[2]), True
            continue
        body.append(line)
    if not header:
        raise ValueError("no 'p cnf' header")
    clauses, cur = [], []
    for lit in map(int, " ".join(body).split()):
        if lit == 0:
            clauses.append(cur)
            cur = []
        else:
            cur.append(lit)
    if cur:
        raise ValueError("last clause not terminated by 0")
    return nv, clauses


def parse_proof(lines: Iterable[str]) -> list[tuple[bool, list[int]]]:
    """(is_deletion, literals) for each line of a textual DRUP proof."""
    return list(iter_proof(lines))


def iter_proof(lines: Iterable[str]) -> Iterator[tuple[bool, list[int]]]:
    """`parse_proof` one line at a time (a checker that stops early reads no further, and a
    proof of millions of short lines never lies in memory as parsed lists)."""
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        delete = parts[0] == "d"
        nums = [int(t) for t in (parts[1:] if delete else parts)]
        if not nums or nums[-1] != 0 or 0 in nums[:-1]:
            raise ValueError(f"proof line not terminated by a single 0: {shown(line)}")
        yield delete, nums[:-1]


class _Checker:
    def __init__(self, nv: int, indexed: bool = True) -> None:
        """`indexed`: keep the clause index that deletions look clauses up in (a hinted
        proof has no deletions: without it, loading a 20-ply CNF is a third cheaper)."""
        self.indexed = indexed
        self.nv = nv
        self.val = [0] * (nv + 1)          # +1 true, -1 false, 0 open
        self.clauses: list[list[int] | None] = []
        self.watch: dict[int, list[int]] = {}
        self.index: dict[tuple[int, ...], list[int]] = {}
        self.trail: list[int] = []
        self.qhead = 0
        self.conflict = False               # the top level is refuted

    def _grow(self, lit: int) -> None:
        if abs(lit) > self.nv:
            self.val.extend([0] * (abs(lit) - self.nv))
            self.nv = abs(lit)

    def value(self, lit: int) -> int:
        v = self.val[abs(lit)]
        return v if lit > 0 else -v

    def _assign(self, lit: int, why: int = -1) -> None:
        """Set `lit` true (`why`: the clause that implied it, kept by the trimming tracer)."""
        self.val[abs(lit)] = 1 if lit > 0 else -1
        self.trail.append(lit)

    def _conflicted(self, cid: int) -> None:
        """Clause `cid` is falsified (the trimming tracer remembers it)."""

    def _propagate(self) -> bool:
        """Unit propagation from qhead; False on a conflict."""
        val, watch, clauses = self.val, self.watch, self.clauses
        while self.qhead < len(self.trail):
            false_lit = -self.trail[self.qhead]
            self.qhead += 1
            ws = watch.get(false_lit)
            if not ws:
                continue
            i = j = 0
            n = len(ws)
            while i < n:
                cid = ws[i]
                i += 1
                c = clauses[cid]
                if c is None:
                    continue                # deleted: drop the watch
                if c[0] == false_lit:
                    c[0], c[1] = c[1], c[0]
                first = c[0]
                fv = val[abs(first)] if first > 0 else -val[abs(first)]
                if fv == 1:
                    ws[j] = cid
                    j += 1
                    continue
                for k in range(2, len(c)):
                    lk = c[k]
                    if (val[abs(lk)] if lk > 0 else -val[abs(lk)]) != -1:
                        c[1], c[k] = lk, false_lit
                        watch.setdefault(lk, []).append(cid)
                        break
                else:
                    ws[j] = cid
                    j += 1
                    if fv == -1:
                        while i < n:
                            ws[j] = ws[i]
                            i += 1
                            j += 1
                        del ws[j:]
                        self._conflicted(cid)
                        return False
                    self._assign(first, cid)
            del ws[j:]
        return True

    def add(self, lits: list[int]) -> None:
        """Add a clause at the top level (original or checked lemma)."""
        c = list(dict.fromkeys(lits))
        if c:
            top = max(map(abs, c))
            if top > self.nv:
                self._grow(top)
        cid = len(self.clauses)
        if self.indexed:
            self.index.setdefault(tuple(sorted(c)), []).append(cid)
        seen = set(c)
        if any(-l in seen for l in c):
            self.clauses.append(None)       # a tautology constrains nothing
            return
        self.clauses.append(c)
        if self.conflict:
            return
        val = self.val
        vals = [val[l] if l > 0 else -val[-l] for l in c]
        if len(c) >= 2 and vals[0] != -1 and vals[1] != -1:
            pass                            # the first two literals can be watched as they are
        else:
            order = sorted(range(len(c)), key=lambda i: -vals[i])   # true, open, then false
            c[:] = [c[i] for i in order]
            vals = [vals[i] for i in order]
            if not c or vals[0] == -1:
                self.conflict = True
                return
            if (len(c) == 1 or vals[1] == -1) and vals[0] == 0:
                self._assign(c[0])
                if not self._propagate():
                    self.conflict = True
        if len(c) >= 2:
            self.watch.setdefault(c[0], []).append(cid)
            self.watch.setdefault(c[1], []).append(cid)

    def delete(self, lits: list[int]) -> bool:
        """Remove one copy of the clause; False if it is not in the database."""
        key = tuple(sorted(dict.fromkeys(lits)))
        ids = self.index.get(key)
        if not ids:
            return False
        cid = ids.pop()
        self.clauses[cid] = None
        return True

    def rup(self, lits: list[int]) -> bool:
        """Does unit propagation refute the negation of the clause?"""
        if self.conflict:
            return True
        for lit in lits:
            self._grow(lit)
        saved = len(self.trail)
        ok = False
        for lit in lits:
            v = self.value(lit)
            if v == 1:
                ok = True
                break
            if v == 0:
                self._assign(-lit)
        if not ok:
            ok = not self._propagate()
        for lit in self.trail[saved:]:
            self.val[abs(lit)] = 0
        del self.trail[saved:]
        self.qhead = saved
        return ok


TICK_EVERY = 16    # proof steps (input clauses: 64 times as many) between two calls of `tick`


def check(clauses: Iterable[list[int]], proof: Iterable[tuple[bool, list[int]]],
          nv: int = 0, tick: Callable[[], None] | None = None) -> DrupResult:
    """Check a DRUP proof (parsed) of the unsatisfiability of `clauses`; `tick` is called every
    TICK_EVERY steps (a caller's time limit or Ctrl-C may raise from it)."""
    chk = _Checker(nv)
    for k, c in enumerate(clauses):
        if tick is not None and k % (TICK_EVERY * 64) == 0:
            tick()
        chk.add(list(c))
    res = DrupResult(False)
    for step, (delete, lits) in enumerate(proof, 1):
        if tick is not None and step % TICK_EVERY == 0:
            tick()
        if delete:
            res.deletions += 1
            if not chk.delete(lits):
                res.missing_deletions += 1
            continue
        res.lemmas += 1
        if not chk.rup(lits):
            res.reason = f"proof step {step}: lemma {' '.join(map(str, lits))} 0 is not RUP"
            return res
        chk.add(lits)
        if chk.conflict:
            res.ok = True
            return res
    if chk.conflict:
        res.ok = True
    else:
        res.reason = "the proof never derives the empty clause"
    return res


def check_text(cnf_text: str, proof_lines: Iterable[str]) -> DrupResult:
    """Check a DIMACS CNF and a textual DRUP proof."""
    nv, clauses = parse_dimacs(cnf_text)
    return check(clauses, parse_proof(proof_lines), nv)


def check_lines(clauses: Iterable[list[int]], proof_lines: Iterable[str], nv: int,
                tick: Callable[[], None] | None = None) -> DrupResult:
    """Check a certificate's textual DRUP proof against the CNF its checker rebuilt (`nv`
    variables): a malformed line ("bad proof: ...") or a literal beyond `nv` is a failed
    result, not an exception, so every certificate checker (history.checker, cages.sat_checker)
    rejects them alike, with the reason."""
    try:
        proof = parse_proof(proof_lines)
    except ValueError as e:
        return DrupResult(False, f"bad proof: {str(e)[:80]}")
    for step, (_, lits) in enumerate(proof, 1):
        if any(abs(lit) > nv for lit in lits):
            return DrupResult(False, f"proof step {step}: a literal beyond the CNF's {nv} variables")
    return check(clauses, proof, nv, tick)


# --- trimming (issue 22): which clauses and lemmas a refutation uses --------------------------


@dataclass
class Trimmed:
    """What a checked refutation used: `core`, the indices (ascending) of the input clauses it
    needs; `proof`, the lemmas it needs with their deletions, in the input order; `lemmas`, the
    number of lemmas of the input proof. The clauses of `core` and the steps of `proof` are a
    refutation again (every kept lemma was RUP by kept clauses only)."""

    core: list[int]
    proof: list[tuple[bool, list[int]]]
    lemmas: int


class _Tracer(_Checker):
    """The forward checker, remembering why: the reason clause of every assignment and, per
    lemma, what its RUP check used: the clauses of its conflict's implication graph and the
    top-level literals it leaned on. Marking backwards from the final conflict then finds the
    used clauses and lemmas (the backward marking of drat-trim, Wetzler, Heule and Hunt 2014,
    here after one forward pass). Untrusted: what it keeps is checked again by `check`."""

    def __init__(self, nv: int) -> None:
        super().__init__(nv)
        self.reason = [-1] * (nv + 1)
        self.body: list[list[int]] = []     # every clause's literals, also after its deletion
        self.final: list[int] = []          # the clause of the last conflict found

    def _grow(self, lit: int) -> None:
        if abs(lit) > self.nv:
            self.reason.extend([-1] * (abs(lit) - self.nv))
        super()._grow(lit)

    def _assign(self, lit: int, why: int = -1) -> None:
        self.val[abs(lit)] = 1 if lit > 0 else -1
        self.reason[abs(lit)] = why
        self.trail.append(lit)

    def load(self, clauses: list[list[int]], tick: Callable[[], None] | None = None) -> None:
        """Add the input clauses at once: watches first, then one propagation of the units
        (much faster than adding them one by one; the same database); `tick` as in `check`."""
        top = max((abs(lit) for c in clauses for lit in c), default=0)
        if top > self.nv:
            self._grow(top)
        watch, units, empty = self.watch, [], -1
        for lits in clauses:
            if tick is not None and len(self.body) % (TICK_EVERY * 64) == 0:
                tick()
            c = list(dict.fromkeys(lits))
            cid = len(self.clauses)
            self.body.append(c)
            if len(set(map(abs, c))) < len(c):
                self.clauses.append(None)   # a tautology constrains nothing
                continue
            self.clauses.append(c)
            if len(c) >= 2:
                watch.setdefault(c[0], []).append(cid)
                watch.setdefault(c[1], []).append(cid)
            elif c:
                units.append(cid)
            elif empty < 0:
                empty = cid
        if empty >= 0:
            self.conflict, self.final = True, [empty]
            return
        for cid in units:
            lit = self.clauses[cid][0]
            v = self.value(lit)
            if v == -1:
                self.conflict, self.final = True, [cid]
                return
            if v == 0:
                self._assign(lit, cid)
        if not self._propagate():
            self.conflict = True

    def _conflicted(self, cid: int) -> None:
        self.final = [cid]

    def add(self, lits: list[int]) -> None:
        """As _Checker.add, recording the clause's body and the reasons of what it implies."""
        cid = len(self.clauses)
        before = self.conflict
        unit = len(self.trail)
        self.final = []
        super().add(lits)
        c = self.clauses[cid]
        self.body.append(list(c) if c is not None else [])
        if c is None or before:
            return
        if len(self.trail) > unit and self.reason[abs(self.trail[unit])] == -1:
            self.reason[abs(self.trail[unit])] = cid    # the unit this clause became
        if self.conflict and not self.final:
            self.final = [cid]                          # every literal of it false

    def local_why(self, start: int, local: set[int]) -> tuple[list[int], list[int]]:
        """The clauses of the implication graph of a conflict at `start` through the `local`
        variables (assigned in this RUP check), and the top-level variables it reaches."""
        out, seen, tops = [], {start}, []
        seen_var: set[int] = set()
        stack = [start]
        body, reason = self.body, self.reason
        while stack:
            cid = stack.pop()
            out.append(cid)
            for lit in body[cid]:
                v = abs(lit)
                if v in seen_var:
                    continue
                seen_var.add(v)
                r = reason[v]
                if v in local:
                    if r >= 0 and r not in seen:
                        seen.add(r)
                        stack.append(r)
                elif r != cid:
                    tops.append(v)
        return out, tops

    def rup_why(self, lits: list[int]) -> tuple[list[int], list[int]] | None:
        """(clauses, top-level variables) a RUP check of `lits` uses, or None if not RUP."""
        for lit in lits:
            self._grow(lit)
        saved = len(self.trail)
        deps: tuple[list[int], list[int]] | None = None
        for lit in lits:
            v = self.value(lit)
            if v == 1:
                deps = ([], [abs(lit)]) if self.reason[abs(lit)] >= 0 else ([], [])
                break
            if v == 0:
                self._assign(-lit)
        if deps is None:
            self.final = []
            if not self._propagate():
                local = {abs(x) for x in self.trail[saved:]}
                deps = self.local_why(self.final[0], local)
            self.final = []
        for lit in self.trail[saved:]:
            self.val[abs(lit)] = 0
        del self.trail[saved:]
        self.qhead = saved
        return deps


def unit_support(clauses: list[list[int]], variables: Iterable[int],
                 tick: Callable[[], None] | None = None) -> set[int]:
    """The indices of the clauses whose unit propagation at the top level sets `variables` (the
    reasons of their values, and of those reasons' other literals, transitively): any set of
    clauses containing these propagates the same values again. For the writer (untrusted);
    `tick` as in `check`."""
    chk = _Tracer(0)
    chk.load(clauses, tick)
    out: set[int] = set()
    seen: set[int] = set()
    stack = [v for v in variables if 0 < v <= chk.nv]
    steps = 0
    while stack:
        steps += 1
        if tick is not None and steps % (TICK_EVERY * 64) == 0:
            tick()
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        r = chk.reason[v]
        if r < 0 or chk.val[v] == 0:
            continue
        out.add(r)
        stack.extend(abs(lit) for lit in chk.body[r] if abs(lit) != v and abs(lit) <= chk.nv)
    return out


def trim(clauses: list[list[int]], proof: Iterable[tuple[bool, list[int]]], nv: int = 0,
         tick: Callable[[], None] | None = None) -> Trimmed:
    """Check a DRUP proof forwards recording each lemma's antecedents, then mark backwards from
    the final conflict: the used input clauses and lemmas. ValueError if the proof does not
    check. `tick` is called every few lemmas (a time limit may raise from it)."""
    chk = _Tracer(nv)
    chk.load(clauses)
    n_in = len(clauses)
    steps = list(proof)
    deps: dict[int, tuple[list[int], list[int]]] = {}
    step_cid: list[int] = []              # per step: the clause it adds or deletes (-1: none)
    lemmas = 0
    for step, (delete, lits) in enumerate(steps, 1):
        if chk.conflict:
            step_cid.append(-1)
            continue
        if delete:
            ids = chk.index.get(tuple(sorted(dict.fromkeys(lits))))
            step_cid.append(ids[-1] if ids else -1)
            chk.delete(lits)
            continue
        lemmas += 1
        if tick is not None and lemmas % 64 == 0:
            tick()
        used = chk.rup_why(lits)
        if used is None:
            raise ValueError(f"proof step {step}: lemma {' '.join(map(str, lits))} 0 is not RUP")
        cid = len(chk.clauses)
        deps[cid] = used
        step_cid.append(cid)
        chk.add(lits)
    if not chk.conflict:
        raise ValueError("the proof never derives the empty clause")
    marked = bytearray(len(chk.clauses))
    expanded = bytearray(chk.nv + 1)
    body, reason = chk.body, chk.reason

    def mark_vars(variables: list[int]) -> None:
        """Mark the top-level reasons of these variables, and of theirs (once each)."""
        stack = list(variables)
        while stack:
            v = stack.pop()
            if expanded[v]:
                continue
            expanded[v] = 1
            r = reason[v]
            if r < 0:
                continue
            marked[r] = 1
            stack.extend(abs(lit) for lit in body[r] if abs(lit) != v)

    fin = chk.final[0]
    marked[fin] = 1
    mark_vars([abs(lit) for lit in body[fin]])
    for cid in range(len(chk.clauses) - 1, n_in - 1, -1):
        if marked[cid] and cid in deps:
            used, tops = deps[cid]
            for d in used:
                marked[d] = 1
            mark_vars(tops)
    core = [i for i in range(n_in) if marked[i]]
    kept = [(delete, lits) for (delete, lits), cid in zip(steps, step_cid)
            if cid >= 0 and marked[cid] and (delete or cid >= n_in)]
    return Trimmed(core, kept, sum(1 for delete, _ in steps if not delete))


# --- LRAT-style proofs with hints (issue 22): a linear check, no search -----------------------


def parse_lrat(lines: Iterable[str]) -> list[tuple[list[int], list[int]]]:
    """(literals, hints) of each line "l1 l2 ... 0 h1 h2 ... 0" of a hinted proof: the lemma and
    the ids of the clauses (inputs 1..n, then the lemmas in order) whose unit propagation
    refutes its negation (the LRAT format of Cruz-Filipe, Heule, Hunt, Kaufmann and
    Schneider-Kamp 2017, with implicit ids and without deletions or RAT hints); ValueError if
    malformed."""
    return list(iter_lrat(lines))


def iter_lrat(lines: Iterable[str]) -> Iterator[tuple[list[int], list[int]]]:
    """`parse_lrat` one line at a time (as `iter_proof`)."""
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        nums = [int(t) for t in parts]
        zeros = [k for k, n in enumerate(nums) if n == 0]
        if len(zeros) != 2 or zeros[1] != len(nums) - 1:
            raise ValueError(f"hinted proof line not 'literals 0 hints 0': {shown(line)}")
        yield nums[:zeros[0]], nums[zeros[0] + 1:-1]


def unit_closure(clauses: Iterable[list[int]], nv: int = 0,
                 tick: Callable[[], None] | None = None) -> set[int] | None:
    """The literals unit propagation derives from the clauses at the top level (consequences of
    them), or None if it reaches a conflict (the clauses are then refuted); `tick` as in
    `check`."""
    chk = _Checker(nv, indexed=False)
    for k, c in enumerate(clauses):
        if tick is not None and k % (TICK_EVERY * 64) == 0:
            tick()
        chk.add(list(c))
        if chk.conflict:
            return None
    return set(chk.trail)


def check_lrat(clauses: Iterable[list[int]], steps: Iterable[tuple[list[int], list[int]]],
               tick: Callable[[], None] | None = None) -> DrupResult:
    """Check a hinted refutation of `clauses` (ids 1..n in order; lemma k gets id n + k).
    The top-level unit consequences (T) of the clauses and of each lemma once checked are kept
    by unit propagation with watched literals (as the DRUP check above and drat-trim keep
    them: they are consequences). Per lemma: a lemma with a literal true in T is implied;
    otherwise its negation, with T, must make each hinted earlier clause in turn unit (its
    literal is then set) or satisfied (passed over: deriving nothing is sound) until one
    hinted clause is falsified. A hint with two open literals, or naming no earlier clause,
    fails the step. Beyond T's propagation (linear overall) a lemma costs the size of its
    hints: no search, so a lemma is accepted only by its own hints. An empty input clause, or
    a conflict of T, is a refutation."""
    chk = _Checker(0, indexed=False)
    db: list[list[int]] = [[]]                  # index 0 unused: ids start at 1
    for c in clauses:
        if tick is not None and len(db) % (TICK_EVERY * 64) == 0:
            tick()
        db.append(list(dict.fromkeys(c)))
        chk.add(list(db[-1]))
        if chk.conflict:
            return DrupResult(True)
    res = DrupResult(False)
    val = chk.val
    for step, (lits, hints) in enumerate(steps, 1):
        if tick is not None and step % TICK_EVERY == 0:
            tick()
        res.lemmas += 1
        lemma = list(dict.fromkeys(lits))
        for lit in lemma:
            chk._grow(lit)
        val = chk.val
        if len({abs(lit) for lit in lemma}) != len(lemma):
            res.reason = f"proof step {step}: a tautology"
            return res
        done = any((val[lit] if lit > 0 else -val[-lit]) == 1 for lit in lemma)
        # the lemma's negation and the hints' units are set in `val` itself for this step
        # (each on an open variable, so consistent with the top level) and undone after it:
        # one lookup per hinted literal
        assigned: list[int] = []
        try:
            if not done:
                for lit in lemma:
                    if val[abs(lit)] == 0:
                        val[abs(lit)] = -1 if lit > 0 else 1
                        assigned.append(abs(lit))
            for h in [] if done else hints:
                if not 0 < h < len(db):
                    res.reason = f"proof step {step}: hint {h} names no earlier clause"
                    return res
                unit = 0
                for lit in db[h]:
                    a = val[lit] if lit > 0 else -val[-lit]
                    if a == -1:
                        continue
                    if a == 1:
                        unit = 0
                        break                   # satisfied: passed over
                    if unit:
                        res.reason = f"proof step {step}: hint {h} is not unit"
                        return res
                    unit = lit
                else:
                    if not unit:
                        done = True
                        break
                    val[abs(unit)] = 1 if unit > 0 else -1
                    assigned.append(abs(unit))
        finally:
            for v in assigned:
                val[v] = 0
        if not done:
            res.reason = (f"proof step {step}: lemma {' '.join(map(str, lits[:8]))} 0 is not "
                          "refuted by its hints")
            return res
        if not lemma:
            res.ok = True
            return res
        db.append(lemma)
        chk.add(list(lemma))
        if chk.conflict:
            res.ok = True
            return res
    res.reason = "the proof never derives the empty clause"
    return res


def drop_top_level(clauses: list[list[int]], steps: list[tuple[list[int], list[int]]],
                   tick: Callable[[], None] | None = None) -> list[tuple[list[int], list[int]]]:
    """For a writer (untrusted): the hinted steps without what check_lrat's top-level units make
    superfluous: the lemmas they satisfy and the hints to clauses they satisfy (at that step);
    ids renumbered. check_lrat keeps the same units, so a valid proof stays valid (the writer
    checks it again).

    Two passes, linear in the hints (issue 22: asking each hint's clause afresh took 60 of 150 s
    of a 20-ply listing): the top-level trail grows independently of the hints, so the first
    pass runs it (recording its length when each step is read and which lemmas it satisfies);
    a clause is then satisfied at a step iff its earliest true literal on the final trail came
    before that length, computed once per clause. `tick` as in `check`."""
    chk = _Checker(0, indexed=False)
    for k, c in enumerate(clauses):
        if tick is not None and k % (TICK_EVERY * 64) == 0:
            tick()
        chk.add(list(dict.fromkeys(c)))
    n = len(clauses)
    body: dict[int, list[int]] = {i + 1: c for i, c in enumerate(clauses)}
    taken: list[tuple[int, int]] = []           # (step id, trail length when it was read)
    for k, (lits, _) in enumerate(steps, n + 1):
        if tick is not None and k % TICK_EVERY == 0:
            tick()
        if chk.conflict:
            break
        for lit in lits:
            chk._grow(lit)
        val = chk.val
        if lits and any((val[lit] if lit > 0 else -val[-lit]) == 1 for lit in lits):
            continue
        taken.append((k, len(chk.trail)))
        body[k] = lits
        if not lits:
            break
        chk.add(list(dict.fromkeys(lits)))
    where = {abs(lit): i for i, lit in enumerate(chk.trail)}   # a true literal's trail index
    trail_true = set(chk.trail)
    never = len(chk.trail) + 1
    first: dict[int, int] = {}

    def satisfied_from(h: int) -> int:
        """The trail length from which clause h is satisfied (never: past the final trail)."""
        got = first.get(h)
        if got is None:
            got = min((where[abs(lit)] + 1 for lit in body[h] if lit in trail_true),
                      default=never)
            first[h] = got
        return got
    new_id = {i: i for i in range(1, n + 1)}
    out: list[tuple[list[int], list[int]]] = []
    for k, length in taken:
        if tick is not None and k % TICK_EVERY == 0:
            tick()
        lits, hints = steps[k - n - 1]
        out.append((lits, [new_id[h] for h in hints if h in new_id and
                           (first[h] if h in first else satisfied_from(h)) > length]))
        new_id[k] = n + len(out)
    return out
