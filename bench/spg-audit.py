"""Soundness audit of the proof-game engines against the CNF oracle (issue #22): random games,
every engine's verdict on their final placements compared with an exhaustive SAT listing.

    python bench/spg-audit.py [--seed K] [--cases N] [--plies 9-14] [--timeout S]
                              [--engines auto,search,schedule,race] [--cap GAMES]
                              [--csv FILE]
                              [--prefixes DIR] [--shift D]

Case k plays a random game from the initial array (seed K + k; captures and promotions weighted
up, so that the diagrams have victims and promoted units), of a length drawn from `--plies`, and
puts its final placement as a proof game of that length. `auto` races the search and the
schedule model on two cores when one is idle, as the command does (RETROLOGIC_RACE=0 audits
it as a batch's `auto`, one engine after the other); `race` is `auto` racing from the start
whatever the load, the quick path off (as tests/test_spg_race.py does), so that the race's
second listing and its shorter lengths told beside (spg/shorter.py) meet the oracle on
diagrams the quick path would settle alone. With `--prefixes DIR` the game is
instead a prefix, of a length drawn from `--plies`, of a published game of DIR's proof-game files
(a composed game's first plies: fewer transpositions than a random game's, so more unique
verdicts). `--shift D` asks for D plies more than the game has (even D: -2 mostly gives *no
solution*, +2 *shorter* or a longer game with tempo moves). Each engine answers under `--timeout`
(`spg.solver.solve`, the strategy layer on). The oracle is `spg.cnf.encode`, the
certificates' encoding (built from the placement and the length alone: no search, strategy or
schedule code), listed by CaDiCaL 1.9.5 with a blocking clause per model and python-chess
replaying every model (an illegal prefix is blocked and not counted): the exact number of games
of the stipulated length (up to `--cap`, beyond which the count is a lower bound) and, for each
shorter length of the same parity, whether a game exists. A finished engine verdict must agree:
its count equal to the oracle's, each listed game replayed legal and among the oracle's games,
no shorter game when it says none, its shortest length the oracle's when it says exact.
The exit status is 1 if any engine disagreed with the oracle, else 0; one line per case, a
summary and the disagreements at the end; `--csv` gets a row per case and engine as it ends (the
CPU column is this process's: the race's worker processes are not in it; `told`: the shorter
lengths the race's search process decided and told, spg/shorter.py). The oracle's listing
takes seconds up to 16 plies and can take minutes from 18 on.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
from pysat.solvers import Solver

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from spg_games import published_games  # noqa: E402  (not conftest: it turns the race off)
from retrologic.limits import Budget  # noqa: E402
from retrologic.spg import race  # noqa: E402
from retrologic.spg import solver as spg  # noqa: E402
from retrologic.spg.certify import blocking_clause, first_illegal, model_game  # noqa: E402
from retrologic.spg.cnf import encode  # noqa: E402
from retrologic.spg.search import Limits  # noqa: E402

Game = tuple[str, ...]


@dataclass
class Oracle:
    """The CNF listing of one length: its games (UCI) and whether the list is whole."""

    plies: int
    games: set[Game] = field(default_factory=set)
    whole: bool = True
    seconds: float = 0.0


def random_game(rng: random.Random, plies: int) -> list[chess.Move] | None:
    """A random legal game of `plies` plies (captures x3, promotions x5); None if it mates or
    stalemates before the end."""
    board = chess.Board()
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            return None
        weights = [5 if m.promotion else 3 if board.is_capture(m) else 1 for m in legal]
        move = rng.choices(legal, weights)[0]
        moves.append(move)
        board.push(move)
    return moves


def oracle(target: chess.BaseBoard, plies: int, cap: int, first_only: bool = False) -> Oracle:
    """Every game of `plies` plies to `target`'s placement by the CNF and CaDiCaL (at most `cap`,
    or one with `first_only`)."""
    out = Oracle(plies)
    start = time.process_time()
    if plies == 0:
        out.games = {()} if target.board_fen() == chess.STARTING_BOARD_FEN else set()
        return out
    enc = encode(target, plies)
    if any(not c for c in enc.clauses):
        out.seconds = time.process_time() - start
        return out
    with Solver(name="cadical195", bootstrap_with=enc.clauses) as solver:
        while solver.solve():
            moves, game = model_game(enc, solver.get_model())
            if game:
                out.games.add(tuple(m.uci() for m in moves))
                if len(out.games) >= (1 if first_only else cap):
                    out.whole = False
                    break
            solver.add_clause(blocking_clause(enc, moves))
    out.seconds = time.process_time() - start
    return out


def replays(target: chess.BaseBoard, game: list[chess.Move]) -> bool:
    """The game is legal from the initial array and ends on the target's placement."""
    if first_illegal(game) is not None:
        return False
    board = chess.Board()
    for move in game:
        board.push(move)
    return board.board_fen() == target.board_fen()


def disagreements(answer: spg.SpgAnswer, target: chess.BaseBoard, main: Oracle,
                  shorter: dict[int, Oracle]) -> list[str]:
    """What the engine's answer states that the oracle refutes (empty: they agree)."""
    faults = []
    listed = {tuple(m.uci() for m in g) for g in answer.games}
    for game in answer.games:
        if not replays(target, game):
            faults.append(f"listed game not legal or not ending on the diagram: {game}")
    if main.whole and not listed <= main.games:
        faults.append(f"listed game(s) the CNF does not admit: {sorted(listed - main.games)[:2]}")
    if main.whole and answer.count != len(main.games) \
            and (answer.complete or answer.count > len(main.games)):
        faults.append(f"count {answer.count}, the oracle {len(main.games)}")
    if answer.complete and not main.whole and answer.count < len(main.games):
        faults.append(f"count {answer.count}, the oracle at least {len(main.games)}")
    real = sorted(n for n, o in shorter.items() if o.games)
    if answer.shorter is not None:
        game = answer.shorter_game or []
        if len(game) != answer.shorter or not replays(target, game):
            faults.append(f"shorter game of {answer.shorter} plies does not replay")
        if answer.shorter_exact and real and real[0] != answer.shorter:
            faults.append(f"shortest said {answer.shorter}, the oracle {real[0]}")
    elif answer.shorter_complete and real:   # claimed even when the length itself stopped
        faults.append(f"no shorter game said, the oracle has one of {real[0]} plies")
    return faults


def solve(target: chess.Board, plies: int, timeout: float, engine: str) -> spg.SpgAnswer:
    """The engine's answer under `timeout`; "race": `auto` racing from its start (no slice of
    search alone, no quick path, no idle-core check), the module's switches restored after."""
    limits = Limits(budget=Budget(timeout=timeout))
    if engine != "race":
        return spg.solve(target, plies, limits, engine=engine)
    saved = spg.RACE_AFTER, spg.QUICK, race.available
    spg.RACE_AFTER, spg.QUICK, race.available = 0.0, False, race.possible
    try:
        return spg.solve(target, plies, limits, engine="auto")
    finally:
        spg.RACE_AFTER, spg.QUICK, race.available = saved


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--plies", default="9-14", help="LO-HI, the lengths drawn from")
    ap.add_argument("--timeout", type=float, default=30.0, help="per engine and case")
    ap.add_argument("--engines", default="auto,search,schedule",
                    help="among auto, search, schedule and race (auto racing from the start)")
    ap.add_argument("--cap", type=int, default=1000, help="games the oracle lists at most")
    ap.add_argument("--csv", type=Path)
    ap.add_argument("--prefixes", type=Path, help="a folder of proof-game files")
    ap.add_argument("--shift", type=int, default=0, help="plies asked beyond the game's")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.plies.split("-"))
    engines = args.engines.split(",")
    published = [g for _, g in published_games(args.prefixes) if len(g) >= lo] \
        if args.prefixes else []
    faults, tally = [], {e: {"agree": 0, "unknown": 0, "wrong": 0} for e in engines}
    out = args.csv.open("w", newline="") if args.csv else None
    writer: csv.DictWriter | None = None
    for k in range(args.cases):
        rng = random.Random(args.seed + k)
        if published:
            whole = rng.choice(published)
            plies = rng.randint(lo, min(hi, len(whole)))
            game: list[chess.Move] | None = whole[:plies]
        else:
            plies = rng.randint(lo, hi)
            game = random_game(rng, plies)
        if game is None:
            continue
        board = chess.Board()
        for move in game:
            board.push(move)
        plies += args.shift
        if plies < 1:
            continue
        target = spg.parse_target(board.board_fen() + (" b" if plies % 2 else " w"), plies)
        main_oracle = oracle(target, plies, args.cap)
        shorter = {n: oracle(target, n, args.cap, first_only=True)
                   for n in range(plies % 2, plies - 1, 2)}
        oracle_cpu = main_oracle.seconds + sum(o.seconds for o in shorter.values())
        real = sorted(n for n, o in shorter.items() if o.games)
        told = (f"{len(main_oracle.games)}{'' if main_oracle.whole else '+'} game(s)"
                + (f", shortest {real[0]}" if real else ""))
        line = [f"seed {args.seed + k} {plies} plies {board.board_fen()}: oracle {told} "
                f"({oracle_cpu:.1f} s)"]
        for engine in engines:
            start = time.process_time()
            answer = solve(target, plies, args.timeout, engine)
            cpu = time.process_time() - start
            found = disagreements(answer, target, main_oracle, shorter)
            decided = answer.status.value != "unknown"
            verdict = "wrong" if found else "agree" if decided else "unknown"
            tally[engine][verdict] += 1
            faults += [f"seed {args.seed + k} {engine}: {f}" for f in found]
            told = sum(1 for entry in answer.searches[1:] if entry.get("beside"))
            line.append(f"{engine} {answer.status.value} count {answer.count} {cpu:.1f} s "
                        f"{verdict}" + (f", {told} shorter length(s) told" if told else ""))
            row = {"seed": args.seed + k, "plies": plies, "fen": board.board_fen(),
                   "oracle_games": len(main_oracle.games), "oracle_whole": main_oracle.whole,
                   "oracle_shortest": real[0] if real else "",
                   "oracle_cpu": round(oracle_cpu, 2), "engine": engine,
                   "status": answer.status.value, "count": answer.count,
                   "complete": answer.complete,
                   "shorter": "" if answer.shorter is None else answer.shorter,
                   "cpu": round(cpu, 2), "told": told, "verdict": verdict,
                   "faults": "; ".join(found)}
            if out is not None:     # a row per engine as it ends: a stopped run keeps them
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=list(row))
                    writer.writeheader()
                writer.writerow(row)
                out.flush()
        print("; ".join(line), flush=True)
    if out is not None:
        out.close()
    for engine, counts in tally.items():
        print(f"{engine}: {counts['agree']} agree, {counts['unknown']} unknown, "
              f"{counts['wrong']} wrong")
    for fault in faults:
        print("DISAGREEMENT", fault)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
