"""An independent DRUP checker: each added lemma must follow from the clauses by unit
propagation (RUP), deletions are honoured, and the empty clause must be reached.

Import rule: it imports nothing of retrologic but errors (for messages), and no solver: a proof is
checked by this code alone.

Forward checking with two watched literals, written for this project so that a proof is never
trusted on a solver's word. Literals assigned at the top level stay assigned when a clause is
deleted: they are consequences of the formula, so this is sound (drat-trim does the same).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

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
    out = []
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        delete = parts[0] == "d"
        nums = [int(t) for t in (parts[1:] if delete else parts)]
        if not nums or nums[-1] != 0 or 0 in nums[:-1]:
            raise ValueError(f"proof line not terminated by a single 0: {shown(line)}")
        out.append((delete, nums[:-1]))
    return out


class _Checker:
    def __init__(self, nv: int) -> None:
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

    def _assign(self, lit: int) -> None:
        self.val[abs(lit)] = 1 if lit > 0 else -1
        self.trail.append(lit)

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
                        return False
                    self._assign(first)
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


def check(clauses: Iterable[list[int]], proof: Iterable[tuple[bool, list[int]]],
          nv: int = 0) -> DrupResult:
    """Check a DRUP proof (parsed) of the unsatisfiability of `clauses`."""
    chk = _Checker(nv)
    for c in clauses:
        chk.add(list(c))
    res = DrupResult(False)
    for step, (delete, lits) in enumerate(proof, 1):
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
