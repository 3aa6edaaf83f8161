"""CaDiCaL's LRAT log of a listing's refutation reduced to the hinted proof an `spg-listing`
certificate holds (issue 22, item 3): marked backwards from the empty clause through the hints
to the lemmas and CNF clauses the refutation uses, without what the core's top-level units
imply, renumbered as spg/proof_checker.py reads it, and checked once here (history/drup.py's
`check_lrat`, linear). Untrusted, like the solver: `check` does not use this module. The log
is read through an index over its bytes (`LogIndex`), so a log of gigabytes is never copied.
"""

from __future__ import annotations

from array import array
from typing import Any, Callable, Sequence

from retrologic.history.drup import check_lrat, drop_top_level, unit_closure, unit_support

TICK_LINES = 4_096   # log lines indexed or marked between two looks at the budget
Numbers = Sequence[int]   # a clause's literals or a lemma's hints (a list, or an array "q")


def reduce_log(log: Any, clauses: list[list[int]], blocks: list[list[int]],
               order: list[int] | None = None, tick: Callable[[], None] | None = None
               ) -> tuple[list[int], list[str], int]:
    """(core, lines, lemmas logged) of CaDiCaL's LRAT log (bytes or an mmap: `LogIndex`) of the
    refutation of CNF + blocks. The ids not logged as derived are the inputs, in the order they
    were given to the solver: `order[p]` is the index in CNF + blocks of the p-th (default: the
    same order). Marking backwards from the empty clause through the hints keeps the lemmas and
    CNF clauses it needs (`core`: CNF indices, ascending); the lines renumber them as
    `spg/proof_checker.py` reads them: the core's clauses 1..k, all blocks k+1..k+b, then the
    kept lemmas. The result is checked here (history.drup.check_lrat, linear): AssertionError
    if the log is not as expected. `tick` is called every few thousand lines or clauses (a
    time limit raises from it: the reduction of a log near its 1 GiB cap takes minutes)."""
    inputs = clauses + blocks
    order = list(range(len(inputs))) if order is None else order
    if sorted(order) != list(range(len(inputs))):
        raise AssertionError("internal error: the solver's input order is not a permutation")
    index = LogIndex(log, tick)
    if index.final is None:
        raise AssertionError("internal error: the solver's log derives no empty clause")
    logged = index.lemmas()
    derived_ids = set(index.ids)
    # a marked lemma's literals and hints as arrays of 8-byte numbers: a list holds each as its
    # own int object, about 36 bytes (the hints are large ids), and these are a fifth to a
    # quarter of the numbers of a log of up to gigabytes
    parsed: dict[int, tuple[Numbers, Numbers]] = {}
    input_of: dict[int, int] = {}           # the inputs the marked lemmas name
    used: set[int] = set()
    stack, seen = [index.final], {index.final}
    while stack:
        if tick is not None and len(parsed) % TICK_LINES == 0:
            tick()
        cid = stack.pop()
        nums = array("q", map(int, index.body(cid).split()))
        z = nums.index(0)
        parsed[cid] = (nums[:z], nums[z + 1:-1])
        for h in parsed[cid][1]:
            if h in seen or h in input_of:
                continue
            if h in derived_ids:
                seen.add(h)
                stack.append(h)
                continue
            k = index.input_position(h)
            if k is None or k >= len(inputs):
                raise AssertionError(f"internal error: hint {h} of the solver's log is unknown")
            input_of[h] = order[k]
            used.add(order[k])
    core = sorted(i for i in used if i < len(clauses))
    checked = [clauses[i] for i in core] + blocks
    # the checker sets the top-level units of its input first (R): the lemmas R implies (most
    # of them: CaDiCaL logs each unit it propagates at the top level) and the hints to clauses
    # R satisfies are left out
    top = unit_closure(checked, tick=tick)
    if top is None:
        return core, [], logged
    lemma_ids = [cid for cid in sorted(parsed) if not any(lit in top for lit in parsed[cid][0])]
    # the core is then what the remaining hints name, and what sets the R literals they use
    named = {h for cid in lemma_ids for h in parsed[cid][1]}   # each hinted clause once
    hinted = {input_of[h] for h in named if h in input_of}
    bodies = {cid: parsed[cid][0] for cid in lemma_ids}
    falsified = {abs(lit) for h in named
                 for lit in (inputs[input_of[h]] if h in input_of else bodies.get(h, ()))
                 if -lit in top}
    support = unit_support(checked, falsified, tick)
    small = sorted({i for i in hinted if i < len(clauses)} |
                   {core[k] for k in support if k < len(core)})
    if len(small) < len(core):
        try:
            return _hinted_lines(small, top, inputs, clauses, blocks, input_of, parsed, logged,
                                 tick)
        except AssertionError:
            pass
    return _hinted_lines(core, top, inputs, clauses, blocks, input_of, parsed, logged, tick)


class LogIndex:
    """CaDiCaL's LRAT log as an index over its bytes (bytes, or an mmap of the log file, so that
    a log of gigabytes is never copied into memory): the ids of the derived clauses, ascending,
    and where each one's line goes on; a line is parsed only when the backward marking reaches
    it (a fifth to a quarter of them). Deletion lines are skipped. The ids not derived are the
    solver's inputs, in the order given: the k-th input has the k-th id not derived."""

    def __init__(self, data: Any, tick: Callable[[], None] | None = None) -> None:
        self.data = data
        self.ids, self.starts = array("q"), array("q")
        self.final: int | None = None          # the first derived empty clause
        pos, size, last, lines = 0, len(data), 0, 0
        while pos < size:
            lines += 1
            if tick is not None and lines % TICK_LINES == 0:
                tick()
            end = data.find(b"\n", pos)
            end = size if end < 0 else end
            space = data.find(b" ", pos, end)
            head_end, body = (end, end) if space < 0 else (space, space + 1)
            if head_end > pos and data[body:body + 2] != b"d ":
                try:
                    cid = int(data[pos:head_end])
                except ValueError:
                    raise AssertionError("internal error: the solver's log has a line without "
                                         "an id") from None
                if cid <= last:
                    raise AssertionError("internal error: the solver's ids are not ascending")
                last = cid
                self.ids.append(cid)
                self.starts.append(body)
                if self.final is None and data[body:body + 2] == b"0 ":
                    self.final = cid
            pos = end + 1

    def lemmas(self) -> int:
        """The number of derived clauses logged."""
        return len(self.ids)

    def _at(self, cid: int) -> int | None:
        from bisect import bisect_left
        i = bisect_left(self.ids, cid)
        return i if i < len(self.ids) and self.ids[i] == cid else None

    def body(self, cid: int) -> bytes:
        """The derived clause's line after its id: literals, 0, hints, 0."""
        i = self._at(cid)
        if i is None:
            raise AssertionError(f"internal error: clause {cid} is not in the solver's log")
        start = self.starts[i]
        end = self.data.find(b"\n", start)
        return bytes(self.data[start:end if end >= 0 else len(self.data)])

    def input_position(self, cid: int) -> int | None:
        """The position among the inputs of an id not derived (None: not an id)."""
        from bisect import bisect_left
        if cid < 1:
            return None
        return cid - 1 - bisect_left(self.ids, cid)


def _hinted_lines(core: list[int], top: set[int], inputs: list[list[int]],
                  clauses: list[list[int]], blocks: list[list[int]], input_of: dict[int, int],
                  parsed: dict[int, tuple[Numbers, Numbers]], logged: int,
                  tick: Callable[[], None] | None = None) -> tuple[list[int], list[str], int]:
    """reduce_log's result for this core: the lemmas not implied by the whole core's top-level
    units (`top`), renumbered (the core's clauses, the blocks, the lemmas), then without what
    the checker's top-level units make superfluous (history.drup.drop_top_level); checked
    against this core (AssertionError)."""
    checked = [clauses[i] for i in core] + blocks
    new_id = {i: n for n, i in enumerate(core + list(range(len(clauses), len(inputs))), 1)}
    renum = {cid: new_id[i] for cid, i in input_of.items()
             if i in new_id and not any(lit in top for lit in inputs[i])}
    kept = [cid for cid in sorted(parsed) if not any(lit in top for lit in parsed[cid][0])]
    for n, cid in enumerate(kept, len(new_id) + 1):
        renum[cid] = n
    steps = drop_top_level(checked, [(parsed[cid][0], [renum[h] for h in parsed[cid][1]
                                                       if h in renum]) for cid in kept], tick)
    res = check_lrat(checked, steps, tick)
    if not res.ok:
        raise AssertionError(f"internal error: the solver's hints do not check ({res.reason})")
    # to where the check found the refutation: `check` rejects lines after it
    lines = [" ".join(map(str, [*lits, 0, *hints, 0]))
             for lits, hints in steps[:res.lemmas]]
    return core, lines, logged
