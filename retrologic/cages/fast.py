"""The fast explicit cage engine (issue #21, item 2): the same search as cages.search, on states
that are plain tuples of bitboards, with the retraction rules table-driven and incremental.

A state is `(pawns, knights, bishops, rooks, queens, kings, white, castling, frozen)`: the
fields of a partial `Position` (placement, castling rights, frozen units; no side to move, no
en-passant square), so a state and a Position name the same zone position and the closed set
is the same set. Per state and retracting side, everything a retraction's checks read that
does not depend on the retraction is computed once: the retractor's units unblockably
attacking the other king (in the predecessor only the moved unit changes, and an unblockable
attack does not depend on occupancy), the line checks through empty squares on the
retractor's king (candidates for `line-check-after`) and the retractor's line pieces aligned
with the other king (for `line-check-before`). A retraction then costs a few mask operations.

Equivalence with the reference generator (retract.retractions in partial mode, open
uncaptures, unit counts; rules.prune_rule; the zone cut) is kept *exactly*, retraction by
retraction and in the same order, so the best-first search visits the same positions in the
same order: same verdict, closed set, pruned retractions with the same rule names, the same
counterexample line and the same position counts. The rare retractions (un-promotions,
un-castling) go through the reference generator and rules themselves. tests/test_cages_fast.py
compares the successor lists of both on thousands of reachable positions, and the whole
results on every cage problem file and library entry. Proofs are checked by the unchanged,
independent checker (cages.checker), which never trusts either engine.

The search loop returns raw data (`Exploration`); cages.search turns it into a CageResult.
"""

from __future__ import annotations

import heapq
import sys
import time
from collections import Counter
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import chess
from chess import BB_KING_ATTACKS, BB_KNIGHT_ATTACKS, BB_PAWN_ATTACKS

from retrologic import retract
from retrologic.cages.rules import DIAG, ORTH, NoPawnCaptures, prune_rule, retraction_key
from retrologic.limits import Budget, LimitHit
from retrologic.position import HOME, Placement, Position, castling_frozen
from retrologic.retract import OPEN, Retraction, apply
from retrologic.vocabulary import DIAGONAL_NEIGHBOURS, ORTHOGONAL_NEIGHBOURS

__all__ = ["Exploration", "explore", "state_of", "position_of", "successors", "code_of",
           "retraction_of", "supports"]

State = tuple  # (pawns, knights, bishops, rooks, queens, kings, white, castling, frozen)

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BETWEEN = [[chess.between(a, b) for b in range(64)] for a in range(64)]
ORTHN, DIAGN = ORTHOGONAL_NEIGHBOURS, DIAGONAL_NEIGHBOURS
KN, KG = BB_KNIGHT_ATTACKS, BB_KING_ATTACKS
PAWN_ATT = BB_PAWN_ATTACKS                              # [color][square]
# Unblockable attacks of a unit: [color][type][square] (line pieces: adjacent squares only).
UATT = [[[0] * 64,
         list(BB_PAWN_ATTACKS[c]), list(KN), list(DIAGN), list(ORTHN),
         [ORTHN[s] | DIAGN[s] for s in range(64)], list(KG)] for c in (0, 1)]
HOME_W = [0] + [HOME[(t, chess.WHITE)] for t in range(1, 7)]
HOME_B = [0] + [HOME[(t, chess.BLACK)] for t in range(1, 7)]
_RANK_ATT, _FILE_ATT, _DIAG_ATT = chess.BB_RANK_ATTACKS, chess.BB_FILE_ATTACKS, chess.BB_DIAG_ATTACKS
_RANK_M, _FILE_M, _DIAG_M = chess.BB_RANK_MASKS, chess.BB_FILE_MASKS, chess.BB_DIAG_MASKS
NOWHERE = [0] * 64
CASTLE_KING_SQUARES = chess.BB_G1 | chess.BB_C1 | chess.BB_G8 | chess.BB_C8


def state_of(pos: Position) -> State:
    """The state of a partial zone position (its placement, castling rights, frozen units)."""
    return (*pos.placement, pos.castling, pos.frozen)


def position_of(s: State) -> Position:
    """The partial Position a state stands for (as cages.search builds them)."""
    return Position(Placement(*s[:7]), None, s[7], None, s[8], True)


def supports(start: Position) -> str | None:
    """None when this engine handles the search from `start`, else the reason it does not (the
    caller then falls back to cages.search's engine): it needs a partial position with no side
    to move and no en-passant square, as cages.search.start_position makes them."""
    if not start.partial or start.turn is not None or start.ep_square is not None:
        return "the start position is not an open partial position"
    return None


def away(s: State) -> int:
    """Units not on a home square (the best-first key, as cages.search._away)."""
    p, n, b, r, q, k, w = s[:7]
    bl = ~w
    home = ((p & ((w & HOME_W[1]) | (bl & HOME_B[1]))) | (n & ((w & HOME_W[2]) | (bl & HOME_B[2])))
            | (b & ((w & HOME_W[3]) | (bl & HOME_B[3]))) | (r & ((w & HOME_W[4]) | (bl & HOME_B[4])))
            | (q & ((w & HOME_W[5]) | (bl & HOME_B[5]))) | (k & ((w & HOME_W[6]) | (bl & HOME_B[6]))))
    return ((p | n | b | r | q | k) & ~home).bit_count()


# A retraction as one int: to | from << 8 | flags (double step, en passant, castling,
# un-promotion, open uncapture) << 15.. | type << 20 | colour << 24.
F_DOUBLE, F_EP, F_CASTLE, F_UNPROMO, F_UNC = 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19


def code_of(rt: Retraction) -> int:
    """The int code of a retraction (its uncapture None or OPEN, as in open mode)."""
    if rt.uncapture not in (None, OPEN):
        raise ValueError("typed uncaptures have no code")
    return (rt.to_square | rt.from_square << 8 | (F_DOUBLE if rt.double_step else 0)
            | (F_EP if rt.en_passant else 0) | (F_CASTLE if rt.castling else 0)
            | (F_UNPROMO if rt.unpromotion else 0) | (F_UNC if rt.uncapture is not None else 0)
            | rt.piece_type << 20 | int(rt.color) << 24)


def retraction_of(code: int) -> Retraction:
    """The Retraction a code stands for."""
    return Retraction(bool(code >> 24 & 1), code >> 20 & 15, code >> 8 & 63, code & 63,
                      OPEN if code & F_UNC else None, bool(code & F_UNPROMO),
                      bool(code & F_CASTLE), bool(code & F_EP), bool(code & F_DOUBLE))


def successors(s: State, zone: int, model: str, restrictions: tuple[NoPawnCaptures, ...],
               new: list, pruned: list) -> None:
    """The retractions of state `s`, in the order of retract.retractions(position,
    uncaptures="open"): each ruled out is appended to `pruned` as `(code, rule)` (rule as
    rules.prune_rule names it), each standing one to `new` as `(code, child)`, the
    predecessor cut to the zone -- except an open uncapture whose plain twin (same move, no
    uncapture) stands: the uncaptured unit is not followed, so its child is the twin's."""
    p, n, b, r, q, k, w, castling, frozen = s
    occ = p | n | b | r | q | k
    black = occ & ~w
    rq, bq = r | q, b | q
    if castling:
        cf = castling_frozen(castling)
        immobile = frozen | cf
        unseen = cf & ~occ
    else:
        immobile, unseen = frozen, 0
    lines = model == "lines"
    pos: Position | None = None
    for R in (True, False):
        own, opp = (w, black) if R else (black, w)
        S = not R
        rkb, skb = k & own, k & opp
        rk = (rkb & -rkb).bit_length() - 1
        sk = (skb & -skb).bit_length() - 1
        if rk >= 0 and ((KN[rk] & n) | (KG[rk] & k) | (PAWN_ATT[R][rk] & p)
                        | (ORTHN[rk] & rq) | (DIAGN[rk] & bq)) & opp:
            continue            # R's king in an unblockable check: R did not move last
        movable = own & ~immobile
        if not movable:
            continue
        if sk >= 0:
            base = ((KN[sk] & n) | (KG[sk] & k) | (PAWN_ATT[S][sk] & p)
                    | (ORTHN[sk] & rq) | (DIAGN[sk] & bq)) & own
            orth_sk, diag_sk = ORTH[sk], DIAG[sk]
        else:
            base = 0
            orth_sk = diag_sk = NOWHERE
        allow_unc = opp.bit_count() < 16
        uatt = UATT[R]
        code_r = int(R) << 24
        after_c: list[int] = []
        before_c: list[tuple[int, int]] = []
        if lines:
            if rk >= 0:
                orth, diag = ORTH[rk], DIAG[rk]
                x = opp & rq
                while x:
                    bb = orth[(x & -x).bit_length() - 1]
                    x &= x - 1
                    if bb and not bb & occ:
                        after_c.append(bb)
                x = opp & bq
                while x:
                    bb = diag[(x & -x).bit_length() - 1]
                    x &= x - 1
                    if bb and not bb & occ:
                        after_c.append(bb)
            if sk >= 0:
                x = own & rq
                while x:
                    low = x & -x
                    x ^= low
                    bb = orth_sk[low.bit_length() - 1]
                    if bb:
                        before_c.append((low, bb))
                x = own & bq
                while x:
                    low = x & -x
                    x ^= low
                    bb = diag_sk[low.bit_length() - 1]
                    if bb:
                        before_c.append((low, bb))
        # Nothing to test but the moved unit's own line to the other king (or nothing at all).
        simple = not unseen and not after_c and not before_c

        def rule_of(mt: int, frm: int, bb_to: int, after: int, before: int, q_occ: int) -> str | None:
            """prune_rule for a move (or open uncapture) of a unit of type mt that is neither an
            un-promotion nor castling, and no pawn capture a restriction forbids."""
            if (after | before) & unseen:
                return "castling-square"
            if lines:
                for bb in after_c:
                    if not bb & ~after:
                        return "line-check-after"
                if before and sk >= 0:
                    for sqb, bb in before_c:
                        if sqb != bb_to and not bb & ~before and not bb & q_occ:
                            return "line-check-before"
                    if mt == ROOK or mt == QUEEN:
                        bb = orth_sk[frm]
                        if bb and not bb & ~before and not bb & q_occ:
                            return "line-check-before"
                    if mt == BISHOP or mt == QUEEN:
                        bb = diag_sk[frm]
                        if bb and not bb & ~before and not bb & q_occ:
                            return "line-check-before"
            return None

        x = movable
        while x:
            bb_to = x & -x
            x ^= bb_to
            to = bb_to.bit_length() - 1
            if p & bb_to:
                rank = to >> 3
                rel = rank if R else 7 - rank
                if rel <= 1:
                    continue
                if base & ~bb_to:
                    continue    # another unit of R checks S's king in every predecessor
                back = -8 if R else 8
                bsq = to + back
                bb_b = 1 << bsq
                cbase = code_r | PAWN << 20 | to
                pw = p ^ bb_to
                ww = w ^ bb_to if R else w
                if not occ & bb_b:
                    if not uatt[PAWN][bsq] & skb:
                        rule = None if simple else rule_of(PAWN, bsq, bb_to, bb_b, bb_to,
                                                           occ ^ bb_to ^ bb_b)
                        if rule is None:
                            if bb_b & zone:
                                new.append((cbase | bsq << 8, (pw | bb_b, n, b, r, q, k, ww | bb_b if R else w, castling, frozen)))
                            else:
                                new.append((cbase | bsq << 8, (pw, n, b, r, q, k, ww, castling, frozen)))
                        else:
                            pruned.append((cbase | bsq << 8, rule))
                    if rel == 3:
                        b2 = bsq + back
                        bb_b2 = 1 << b2
                        if not occ & bb_b2 and not uatt[PAWN][b2] & skb:
                            c = cbase | b2 << 8 | F_DOUBLE
                            rule = None if simple else rule_of(PAWN, b2, bb_to, bb_b | bb_b2,
                                                               bb_b | bb_to, occ ^ bb_to ^ bb_b2)
                            if rule is None:
                                if bb_b2 & zone:
                                    new.append((c, (pw | bb_b2, n, b, r, q, k, ww | bb_b2 if R else w, castling, frozen)))
                                else:
                                    new.append((c, (pw, n, b, r, q, k, ww, castling, frozen)))
                            else:
                                pruned.append((c, rule))
                if not allow_unc:
                    continue
                f = to & 7
                for df in (-1, 1):
                    if not 0 <= f + df <= 7:
                        continue
                    frm = bsq + df
                    bb_f = 1 << frm
                    if occ & bb_f or uatt[PAWN][frm] & skb:
                        continue
                    c = cbase | frm << 8 | F_UNC
                    rule = None
                    if restrictions:
                        rt = retraction_of(c)
                        for rr in restrictions:
                            if rr.forbids(rt):
                                rule = "restriction:" + (rr.name or rr.expr())
                                break
                    if rule is None and unseen and bb_f & unseen:
                        rule = "castling-square"
                    if rule is None and after_c:
                        for bb in after_c:
                            if not bb & ~bb_f:
                                rule = "line-check-after"
                                break
                    if rule is None:
                        if bb_f & zone:
                            new.append((c, (pw | bb_f, n, b, r, q, k, ww | bb_f if R else w, castling, frozen)))
                        else:
                            new.append((c, (pw, n, b, r, q, k, ww, castling, frozen)))
                    else:
                        pruned.append((c, rule))
                continue
            if n & bb_to:
                t = KNIGHT
                frms = KN[to] & ~occ
            elif k & bb_to:
                t = KING
                frms = KG[to] & ~occ
            else:
                if b & bb_to:
                    t = BISHOP
                elif r & bb_to:
                    t = ROOK
                else:
                    t = QUEEN
                frms = 0
                if t != BISHOP:
                    frms = (_RANK_ATT[to][_RANK_M[to] & occ] | _FILE_ATT[to][_FILE_M[to] & occ])
                if t != ROOK:
                    frms |= _DIAG_ATT[to][_DIAG_M[to] & occ]
                frms &= ~occ
            if frms and not base & ~bb_to:
                i = t - 1
                ut = uatt[t]
                btw = BETWEEN[to]
                cbase = code_r | t << 20 | to
                m = list(s)
                m[i] ^= bb_to
                if R:
                    m[6] ^= bb_to
                gone_child = tuple(m)           # the child when the unit leaves the zone
                mi, m6 = m[i], m[6]
                line_moved = lines and BISHOP <= t <= QUEEN
                while frms:
                    bb_f = frms & -frms
                    frms ^= bb_f
                    frm = bb_f.bit_length() - 1
                    if ut[frm] & skb:
                        continue
                    if t == KING:
                        a = ((KN[frm] & n) | (KG[frm] & k) | (PAWN_ATT[R][frm] & p)
                             | (ORTHN[frm] & rq) | (DIAGN[frm] & bq)) & opp
                        if a & (a - 1):
                            continue    # two unblockable checks at once
                    c = cbase | frm << 8
                    if simple and not (line_moved and (orth_sk[frm] | diag_sk[frm])):
                        rule = rule_u = None
                    else:
                        path = btw[frm]
                        q_occ = occ ^ bb_to ^ bb_f
                        rule = rule_of(t, frm, bb_to, path | bb_f, path | bb_to, q_occ)
                        rule_u = rule_of(t, frm, bb_to, path | bb_f, path, q_occ) if allow_unc else None
                    if rule is None:
                        if bb_f & zone:
                            m[i] = mi | bb_f
                            if R:
                                m[6] = m6 | bb_f
                            new.append((c, tuple(m)))
                        else:
                            new.append((c, gone_child))
                    else:
                        pruned.append((c, rule))
                    if allow_unc:
                        if rule_u is not None:
                            pruned.append((c | F_UNC, rule_u))
                        elif rule is not None:      # the twin was ruled out: this child is new here
                            if bb_f & zone:
                                m[i] = mi | bb_f
                                if R:
                                    m[6] = m6 | bb_f
                                new.append((c | F_UNC, tuple(m)))
                            else:
                                new.append((c | F_UNC, gone_child))
            if t != KING:
                if (to >> 3) != (7 if R else 0):
                    continue
            elif not bb_to & CASTLE_KING_SQUARES:
                continue
            if pos is None:
                pos = position_of(s)
            _rare(pos, R, t, to, rk, sk, zone, model, restrictions, new, pruned)


def _rare(pos: Position, R: bool, t: int, to: int, rk: int, sk: int, zone: int, model: str,
          restrictions: tuple[NoPawnCaptures, ...], new: list, pruned: list) -> None:
    """Un-promotions and un-castlings through the reference generator and rules (rare)."""
    S = not R
    rks = None if rk < 0 else rk
    sks = None if sk < 0 else sk

    def ok(qpl: Placement, q_occ: int, king_from: int | None = None) -> bool:
        if sks is not None and retract.attackers(qpl, sks, R, q_occ, True):
            return False
        kk = rks if king_from is None else king_from
        return kk is None or chess.popcount(retract.attackers(qpl, kk, S, q_occ, True)) <= 1

    def unc_types(square: int, qpl: Placement, king_sq: Any, q_occ: int) -> tuple:
        return () if chess.popcount(qpl.occupied & qpl.color_mask(S)) >= 16 else (OPEN,)

    found: list[Retraction] = []
    if t == KING:
        retract._uncastlings(pos, R, to, ok, found)
    else:
        retract._unpromotions(pos, R, t, to, ok, unc_types, True, found)
    for rt in found:
        qpos = apply(pos, rt)
        rule = prune_rule(pos, rt, qpos.placement, model, restrictions)
        if rule is not None:
            pruned.append((code_of(rt), rule))
            continue
        pl = qpos.placement
        gone = pl.occupied & ~zone
        if gone:
            pl = pl.without(gone)
        new.append((code_of(rt), (*pl, qpos.castling, qpos.frozen & ~gone)))


@dataclass
class Exploration:
    """The raw outcome: `verdict` "proved" | "refuted" | "unknown"; `states` in discovery order
    (start first); `parent[j]`, `via[j]`: the state and the retraction (code, see code_of) that
    reached state j (-1 for the start); `cut`: one packed int per ruled-out retraction (state
    index << 32 | rule number << 25 | code; `rule_names` numbers the rules), so a proof of
    10^6 positions keeps its pruned retractions in 8 bytes each; `closed` index -> library
    Match; `failed` the failing state's index (refuted)."""

    verdict: str
    states: list[State] = field(default_factory=list)
    parent: array = field(default_factory=lambda: array("q", [-1]))
    via: array = field(default_factory=lambda: array("q", [0]))
    cut: array = field(default_factory=lambda: array("q"))
    rule_names: list[str] = field(default_factory=list)
    closed: dict[int, Any] = field(default_factory=dict)
    rules: Counter = field(default_factory=Counter)
    expanded: int = 0
    reason: str | None = None
    failed: int | None = None

    def key(self, code: int) -> str:
        return retraction_key(retraction_of(code))

    def pruned(self) -> Iterator[tuple[int, int, str]]:
        """(state index, retraction code, rule) per ruled-out retraction, in search order."""
        names = self.rule_names
        for x in self.cut:
            yield x >> 32, x & 0x1FFFFFF, names[x >> 25 & 127]

    def line(self, j: int) -> list[tuple[int, int]]:
        """(retraction code, state index) from the start to state j."""
        out = []
        while self.parent[j] >= 0:
            out.append((self.via[j], j))
            j = self.parent[j]
        return out[::-1]


def explore(start: Position, zone: int, model: str, restrictions: tuple[NoPawnCaptures, ...],
            matches: Callable[[Position], Any] | None, nodes: int | None, budget: Budget,
            progress: bool) -> Exploration:
    """cages.search._Search.run on states: best first by units away from home, ties by
    discovery order; `matches(position)` is the library lookup (None: no library)."""
    t0 = time.perf_counter()
    s0 = state_of(start)
    ex = Exploration("proved", [s0])
    states, parent, via, cut_out, rules = ex.states, ex.parent, ex.via, ex.cut, ex.rules
    rule_ids: dict[str, int] = {}
    index: dict[State, int] = {s0: 0}
    check = budget.check
    try:
        check(1)
        if matches is not None:
            m = matches(start)
            if m is not None:
                ex.closed[0] = m
                rules["known-cage"] += 1
                return ex
        a0 = away(s0)
        if a0 == 0:
            ex.verdict, ex.failed = "refuted", 0
            return ex
        queue = [(a0, 0)]
        last_report = t0
        new: list = []
        cut: list = []
        while queue:
            _, i = heapq.heappop(queue)
            ex.expanded += 1
            check(every=16)
            if progress and ex.expanded & 63 == 0:
                now = time.perf_counter()
                if now - last_report > 1.0:
                    last_report = now
                    print(f"cage: {len(states)} positions, {len(queue)} queued, "
                          f"{now - t0:.1f} s", file=sys.stderr)
            new.clear()
            cut.clear()
            successors(states[i], zone, model, restrictions, new, cut)
            for code, rule in cut:
                rid = rule_ids.get(rule)
                if rid is None:
                    rid = rule_ids[rule] = len(ex.rule_names)
                    if rid > 127:                   # 7 bits: more rules than restrictions exist
                        raise ValueError("more than 128 distinct rules in one search")
                    ex.rule_names.append(rule)
                cut_out.append(i << 32 | rid << 25 | code)
                rules[rule] += 1
            for code, child in new:
                if child in index:
                    continue
                j = len(states)
                index[child] = j
                states.append(child)
                parent.append(i)
                via.append(code)
                if nodes is not None and j + 1 > nodes:
                    raise LimitHit(f"node limit {nodes}")
                check(1)
                if matches is not None:
                    m = matches(position_of(child))
                    if m is not None:
                        ex.closed[j] = m
                        rules["known-cage"] += 1
                        continue
                a = away(child)
                if a == 0:
                    ex.verdict, ex.failed = "refuted", j
                    return ex
                heapq.heappush(queue, (a, j))
    except LimitHit as e:
        ex.verdict, ex.reason = "unknown", str(e)
    return ex
