"""Difficulty of 4x4 capture puzzles, and generation of puzzles of a chosen difficulty.

Definition: p is the probability that a player who picks every move uniformly at random among the
legal captures solves the puzzle; the difficulty is -log2(p) bits, the luck such a player needs
(infinite for an unsolvable position). p is exact over the positions reachable from the board
(`exact=True`) or estimated from seeded random play-outs with a 95% Wilson interval.
The survival curve S(N) - the chance that N random plies still leave a solvable position - is the
puzzle article's table, measured here with the exact forward solver after each ply.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any, Callable

from retrologic.puzzle4x4 import game as p4
from retrologic.limits import Budget, LimitHit


def playout(key: int, rng: random.Random) -> list[int]:
    """The positions of one uniformly random play-out, from `key` until no capture is left."""
    out = [key]
    while True:
        ms = p4.moves(key)
        if not ms:
            return out
        key = p4.play(key, ms[rng.randrange(len(ms))])
        out.append(key)


def exact_probability(key: int, memo: dict[int, Fraction] | None = None,
                      limit: int | None = None, budget: Budget | None = None) -> Fraction:
    """The exact probability that uniformly random play solves the position (LimitReached when
    more than `limit` positions would be visited, or at `budget`'s time limit or Ctrl-C).
    The positions visited are the count of a Budget of their own (`seen`, what `--progress`
    shows: `budget` is charged the solver's nodes too)."""
    memo = {} if memo is None else memo
    failed: set[int] = set()
    budget = budget if budget is not None else Budget()
    seen = Budget()

    def p(k: int) -> Fraction:
        got = memo.get(k)
        if got is not None:
            return got
        if p4.is_solved(k):
            val = Fraction(1)
        elif p4.Solver(failed=failed, budget=budget).solve(k) is None:
            val = Fraction(0)
        else:
            ms = p4.moves(k)
            val = sum((p(p4.play(k, m)) for m in ms), Fraction(0)) / len(ms)
        memo[k] = val
        seen.spent = len(memo)
        if limit is not None and len(memo) > limit:
            raise p4.LimitReached(f"node limit {limit} (more than {limit} positions for the "
                                  "exact probability)")
        budget.check()
        return val

    return p(key)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion."""
    if n == 0:
        return 0.0, 1.0
    phat = successes / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def bits(p: float) -> float:
    """Difficulty in bits: -log2(p), infinite for p = 0."""
    return math.inf if p <= 0 else -math.log2(p)


def rate(key: int, *, playouts: int = 20000, seed: int = 0, exact: bool = False,
         exact_limit: int | None = None, budget: Budget | None = None) -> dict[str, Any]:
    """The difficulty of a position: p, bits, the interval (estimates), first moves that keep it
    solvable. `budget`: the question's time limit and Ctrl-C (LimitReached); the play-outs are
    a count, so a rating never depends on the machine's speed."""
    pieces = sum(1 for s in range(16) if p4.piece_at(key, s))
    failed: set[int] = set()
    budget = budget if budget is not None else Budget()
    first = p4.moves(key)
    good = sum(1 for m in first
               if p4.Solver(failed=failed, budget=budget).solve(p4.play(key, m)) is not None)
    out: dict[str, Any] = {"board": p4.to_string(key), "units": pieces,
                           "first_moves": len(first), "good_first_moves": good,
                           "solvable": p4.is_solved(key) or good > 0}
    if exact:
        prob = exact_probability(key, limit=exact_limit, budget=budget)
        out.update(method="exact", p=float(prob), p_fraction=f"{prob.numerator}/{prob.denominator}",
                   difficulty_bits=bits(float(prob)))
        return out
    rng = random.Random(seed)
    wins = done = 0
    try:
        for _ in range(playouts):
            budget.check(1)             # a play-out charged: the progress bar counts them
            wins += p4.is_solved(playout(key, rng)[-1])
            done += 1
    except LimitHit as e:               # the play-outs made are kept: a partial estimate
        if not done:
            raise
        out["stopped"] = e.reason
    lo, hi = wilson(wins, done)
    p = wins / done
    if not out["solvable"]:
        lo = hi = p = 0.0
    out.update(method="playouts", playouts=done, seed=seed, solved_playouts=wins, p=p,
               p_low=lo, p_high=hi, difficulty_bits=bits(p),
               difficulty_bits_range=[bits(hi), bits(lo)])
    return out


def survival(starts: list[int], rng: random.Random, plies: int = 15,
             first: bool = False) -> list[float]:
    """S(N) for N = 0..plies: the fraction of the starts still solvable after N plies of one
    play-out per start (a play-out stuck before N plies counts as unsolvable). The plies are
    uniformly random, or with `first` the first capture in the original solver's scan order."""
    alive = [0] * (plies + 1)
    for start in starts:
        if first:
            line = [start]
            while ms := p4.moves(line[-1]):
                line.append(p4.play(line[-1], ms[0]))
        else:
            line = playout(start, rng)
        failed: set[int] = set()
        for n in range(min(plies, len(line) - 1), -1, -1):
            if p4.solvable(line[n], failed):        # a solvable position's ancestors are solvable
                for j in range(n + 1):
                    alive[j] += 1
                break
    return [a / len(starts) for a in alive]


def generate(difficulty: float, *, tolerance: float = 0.25, seed: int | None = None,
             playouts: int = 4000, attempts: int = 2000, timeout: float | None = None,
             progress: Callable[[int], None] | None = None,
             budget: Budget | None = None) -> tuple[int, dict[str, Any]] | None:
    """A random starting position whose difficulty is within `tolerance` bits of `difficulty`
    (estimated from play-outs, then confirmed with 5x more); None after `attempts` tries.
    `budget` (default: one of `timeout` seconds): at its time limit or on Ctrl-C, LimitReached
    when a budget was given, else None (as before the shared limits)."""
    rng = random.Random(seed)
    own = budget is None
    budget = Budget(timeout) if own else budget
    try:
        return _generate(difficulty, tolerance, rng, playouts, attempts, progress, budget)
    except p4.LimitReached:
        if own:
            return None
        raise


def _generate(difficulty: float, tolerance: float, rng: random.Random, playouts: int,
              attempts: int, progress: Callable[[int], None] | None, budget: Budget
              ) -> tuple[int, dict[str, Any]] | None:
    for attempt in range(1, attempts + 1):
        budget.check_now()
        if progress:
            progress(attempt)
        start = p4.random_start(rng)
        quick = rate(start, playouts=playouts, seed=rng.randrange(2 ** 31), budget=budget)
        if abs(quick["difficulty_bits"] - difficulty) > 2 * tolerance:
            continue
        full = rate(start, playouts=5 * playouts, seed=rng.randrange(2 ** 31), budget=budget)
        if abs(full["difficulty_bits"] - difficulty) <= tolerance:
            full["attempts"] = attempt
            return start, full
    return None
