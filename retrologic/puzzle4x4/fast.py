"""A compiled census kernel for the 4x4 capture puzzle (optional: needs numba, the extra `fast`).

The same search as puzzle4x4.Solver - depth-first, the isolated-king prune, a memo of positions
proved unsolvable shared along a batch - on an explicit stack, with the memo as an open-addressing
hash table of int64 keys. It answers solvable / unsolvable only (lines and proofs come from the
Python solver, which the census reruns on any start the kernel calls unsolvable).
"""

from __future__ import annotations

import numpy as np

from retrologic.puzzle4x4 import game as p4
from retrologic.limits import Budget

TABLE_BITS = 21                      # memo slots: 2^21 int64 keys (16 MiB); cleared when half full
CENSUS_CHUNK = 1024                  # indices per kernel call (about 0.1 s): limits looked at between
SOLVE_CHUNK = 128                    # random starts per kernel call (about 0.1 s)


def available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    moves = np.array(p4.MOVES, dtype=np.int64)                 # [type][square]
    between = np.array(p4.BETWEEN, dtype=np.int64)             # [from][to]
    king = np.array(p4.KING_AREA, dtype=np.int64)
    log2 = np.zeros(1 << 16, dtype=np.int64)
    for s in range(16):
        log2[1 << s] = s
    return moves, between, king, log2


_kernel = None


def _compile():
    global _kernel
    if _kernel is not None:
        return _kernel
    from numba import njit

    @njit(cache=True)
    def memo_has(table, key):
        mask = table.shape[0] - 1
        h = ((key * -7046029254386353131) >> 40) & mask
        while True:
            k = table[h]
            if k == key:
                return True
            if k == 0:
                return False
            h = (h + 1) & mask

    @njit(cache=True)
    def memo_add(table, used, key):
        """Insert a key; the table is cleared when half full (forgetting is always sound)."""
        mask = table.shape[0] - 1
        h = ((key * -7046029254386353131) >> 40) & mask
        while table[h] != 0:
            if table[h] == key:
                return
            h = (h + 1) & mask
        table[h] = key
        used[0] += 1
        if used[0] * 2 > table.shape[0]:
            table[:] = 0
            used[0] = 0

    @njit(cache=True)
    def solve_one(key0, table, used, moves, between, king, log2):
        """(solvable, nodes)."""
        K = np.zeros(17, np.int64)
        W = np.zeros(17, np.int64)
        B = np.zeros(17, np.int64)
        KS = np.zeros(17, np.int64)
        WT = np.zeros(17, np.int64)
        MV = np.zeros(17, np.int64)
        AT = np.zeros(17, np.int64)
        F = np.zeros(17, np.int64)
        PF = np.zeros(17, np.int64)
        white = 0
        black = 0
        ksq = -1
        for s in range(16):
            p = (key0 >> (4 * s)) & 15
            if p != 0:
                if p & 8:
                    black |= 1 << s
                else:
                    white |= 1 << s
                    if p == 5:
                        ksq = s
        if ksq < 0:
            return False, 0
        nodes = 0
        # enter the root
        occ = white | black
        if occ == (1 << ksq):
            return True, 0
        if (king[ksq] & occ) == 0 or memo_has(table, key0):
            return False, 0
        wc = 0
        bc = 0
        for s in range(16):
            wc += (white >> s) & 1
            bc += (black >> s) & 1
        sp = 0
        K[0] = key0
        W[0] = white
        B[0] = black
        KS[0] = ksq
        WT[0] = 1 if wc == bc else 0
        MV[0] = white if wc == bc else black
        AT[0] = 0
        nodes += 1
        while sp >= 0:
            key = K[sp]
            white = W[sp]
            black = B[sp]
            ksq = KS[sp]
            occ = white | black
            if AT[sp] == 0:
                if MV[sp] == 0:                      # every move failed: unsolvable
                    memo_add(table, used, key)
                    sp -= 1
                    continue
                fb = MV[sp] & -MV[sp]
                MV[sp] ^= fb
                f = log2[fb]
                pf = (key >> (4 * f)) & 15
                if WT[sp] == 1:
                    targets = black
                else:
                    targets = white & ~(1 << ksq)
                cand = moves[pf & 7, f] & targets
                att = 0
                while cand != 0:
                    tb = cand & -cand
                    cand ^= tb
                    if (between[f, log2[tb]] & occ) == 0:
                        att |= tb
                AT[sp] = att
                F[sp] = f
                PF[sp] = pf
                continue
            tb = AT[sp] & -AT[sp]
            AT[sp] ^= tb
            t = log2[tb]
            f = F[sp]
            pf = PF[sp]
            fb = 1 << f
            pt = (key >> (4 * t)) & 15
            nkey = key ^ (pf << (4 * f)) ^ ((pt ^ pf) << (4 * t))
            if WT[sp] == 1:
                nw = white ^ fb ^ tb
                nb = black ^ tb
                nks = t if pf == 5 else ksq
            else:
                nw = white ^ tb
                nb = black ^ fb ^ tb
                nks = ksq
            nocc = nw | nb
            if nocc == (1 << nks):
                return True, nodes
            if (king[nks] & nocc) == 0 or memo_has(table, nkey):
                continue
            nodes += 1
            sp += 1
            K[sp] = nkey
            W[sp] = nw
            B[sp] = nb
            KS[sp] = nks
            WT[sp] = 1 - WT[sp - 1]
            MV[sp] = nw if WT[sp] == 1 else nb
            AT[sp] = 0
        return False, nodes

    @njit(cache=True)
    def solve_batch(keys, table, used, moves, between, king, log2):
        n = keys.shape[0]
        out = np.zeros(n, np.bool_)
        nodes = np.zeros(n, np.int64)
        for i in range(n):
            ok, nd = solve_one(keys[i], table, used, moves, between, king, log2)
            out[i] = ok
            nodes[i] = nd
        return out, nodes

    @njit(cache=True)
    def census_range(arr, ksq, mirror, count, diag, table, used, moves, between, king, log2):
        """Solve `count` consecutive arrangements (lexicographic, from `arr`, stepped in place)
        of the 15 other units with the king on `ksq`; with `mirror`, skip an arrangement whose key
        is larger (unsigned) than its image under `diag`. (kept, solvable, nodes, offsets of the
        unsolvable ones)."""
        squares = np.zeros(15, np.int64)
        j = 0
        for s in range(16):
            if s != ksq:
                squares[j] = s
                j += 1
        flip = np.int64(-9223372036854775808)
        bad = np.zeros(count, np.int64)
        nbad = 0
        kept = 0
        solvable = 0
        nodes = 0
        n = arr.shape[0]
        for i in range(count):
            key = np.int64(5) << (4 * ksq)
            for j in range(15):
                key |= arr[j] << (4 * squares[j])
            keep = True
            if mirror:
                img = np.int64(0)
                for s in range(16):
                    img |= ((key >> (4 * s)) & 15) << (4 * diag[s])
                keep = (key ^ flip) <= (img ^ flip)
            if keep:
                kept += 1
                ok, nd = solve_one(key, table, used, moves, between, king, log2)
                nodes += nd
                if ok:
                    solvable += 1
                else:
                    bad[nbad] = i
                    nbad += 1
            if i == count - 1:
                break
            # next arrangement in lexicographic order
            a = n - 2
            while a >= 0 and arr[a] >= arr[a + 1]:
                a -= 1
            if a < 0:
                break
            b = n - 1
            while arr[b] <= arr[a]:
                b -= 1
            tmp = arr[a]
            arr[a] = arr[b]
            arr[b] = tmp
            lo = a + 1
            hi = n - 1
            while lo < hi:
                tmp = arr[lo]
                arr[lo] = arr[hi]
                arr[hi] = tmp
                lo += 1
                hi -= 1
        return kept, solvable, nodes, bad[:nbad]

    _kernel = (solve_batch, census_range)
    return _kernel


class FastSolver:
    """Solvable / unsolvable for batches of keys, with a memo kept across batches."""

    def __init__(self, table_bits: int = TABLE_BITS) -> None:
        self._solve, self._census = _compile()
        self._tables = _tables()
        self.table = np.zeros(1 << table_bits, dtype=np.int64)
        self.used = np.zeros(1, dtype=np.int64)            # keys in the table

    def solve(self, keys: list[int], budget: Budget | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        """(solvable: bool[n], nodes: int64[n]) for the keys; in chunks of SOLVE_CHUNK, between
        which `budget`'s time limit and Ctrl-C are looked at (LimitReached). The memo carries
        over from chunk to chunk, so the answers and node counts are those of one call."""
        arr = np.array(keys, dtype=np.uint64).view(np.int64)
        if budget is None:
            return self._solve(arr, self.table, self.used, *self._tables)
        oks, nodes = [], []
        for i in range(0, len(arr), SOLVE_CHUNK):
            budget.check_now()
            ok, n = self._solve(arr[i:i + SOLVE_CHUNK], self.table, self.used, *self._tables)
            oks.append(ok)
            nodes.append(n)
        if not oks:
            return self._solve(arr, self.table, self.used, *self._tables)
        return np.concatenate(oks), np.concatenate(nodes)

    def census(self, lo: int, hi: int, budget: Budget | None = None) -> dict:
        """Solve every representative start with lo <= index < hi (see puzzle4x4.index); with
        a `budget`, in chunks of CENSUS_CHUNK indices, its limits looked at between them."""
        from retrologic.puzzle4x4 import index as idx
        kept = solvable = nodes = 0
        unsolvable: list[int] = []
        diag = np.array(idx.DIAGONAL, dtype=np.int64)
        i = lo
        while i < hi:
            block, rank = divmod(i, idx.BLOCK)
            count = min(hi, (block + 1) * idx.BLOCK) - i
            if budget is not None:
                budget.check_now()
                count = min(count, CENSUS_CHUNK)
            arr = np.array(idx.unrank(rank), dtype=np.int64)
            k, s, n, bad = self._census(arr, idx.KING_SQUARES[block], block != 0, count, diag,
                                        self.table, self.used, *self._tables)
            kept, solvable, nodes = kept + k, solvable + s, nodes + n
            unsolvable.extend(i + int(b) for b in bad)
            i += count
        return {"starts": int(kept), "solvable": int(solvable), "nodes": int(nodes),
                "unsolvable_indices": unsolvable}
