"""The schedule model split by strategy (issue #22, reach): a measurement, not an engine.

    python bench/spg-strategy-split.py FILE [--timeout 60]

For one problem file: the strategy layer lists the length's strategies (`analyse`: unit
fates, pawn routes, castlings; move counts are not part of a strategy), then each strategy gets
its own schedule model, built on a strategy model with that strategy's literals fixed, and
lists its games with `spg.listing.list_schedule`, the loop of `list_games` (each solution
played out by python-chess, illegal prefixes and games forbidden), with `--timeout` seconds per
strategy. The strategies
partition the games (the layer blocks each by its fates, routes and castlings), so when every
strategy's listing is complete, the union is every game of the length. Prints, per strategy,
the model's size, build and total CPU, the games, the solutions the play-out cut off and
whether the listing is complete; then the totals beside the joint model's (`list_games` on the
whole length, under the same per-strategy limit times the strategy count, at most 300 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from retrologic import problem  # noqa: E402
from retrologic.limits import Budget  # noqa: E402
from retrologic.spg.listing import ScheduleReport, list_games, list_schedule  # noqa: E402
from retrologic.spg.schedule import ScheduleModel  # noqa: E402
from retrologic.spg import solver as spg  # noqa: E402
from retrologic.spg.status import Feasibility, Listing  # noqa: E402
from retrologic.spg.strategy import StrategyModel, analyse  # noqa: E402

Chosen = tuple[list[tuple[str, object]], dict[chess.Square, bool]]


def strategy_literals(analysis, plies: int) -> list[Chosen]:
    """Each strategy as the keys of its true fate, capture and route literals and its
    castling flags (a fresh model built the same way has the same keys)."""
    model = StrategyModel(analysis, plies)
    out = []
    while True:
        solver, status = model.solve()
        if status != Feasibility.FEASIBLE:
            return out
        chosen = [(kind, key) for kind, table in (("becomes", model.becomes),
                                                  ("captured", model.captured),
                                                  ("routes", model.routes))
                  for key, var in table.items() if solver.boolean_value(var)]
        castles = {rook: solver.boolean_value(var) for rook, var in model.castles.items()}
        out.append((chosen, castles))
        model.block(solver)


def fixed_model(analysis, plies: int, strategy: Chosen) -> StrategyModel:
    """A strategy model of the length with one strategy's literals fixed."""
    chosen, castles = strategy
    model = StrategyModel(analysis, plies)
    for kind, key in chosen:
        model.model.add(getattr(model, kind)[key] == 1)
    for rook, value in castles.items():
        model.model.add(model.castles[rook] == int(value))
    return model


def list_strategy(analysis, plies: int, strategy: Chosen, timeout: float) -> dict:
    """List one strategy's games with its own schedule model (see the module's docstring)."""
    cpu = time.process_time()
    budget = Budget(timeout)
    schedule = ScheduleModel(fixed_model(analysis, plies, strategy), budget=budget)
    build = time.process_time() - cpu
    report = ScheduleReport(plies, Listing.UNKNOWN)
    list_schedule(schedule, report, budget)
    return {"variables": report.variables, "build": build, "games": report.games,
            "rejected": report.rejected, "complete": report.status == Listing.COMPLETE,
            "cpu": time.process_time() - cpu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per strategy")
    args = ap.parse_args()
    prob = problem.load(args.file)
    plies = spg.parse_moves(prob.question["moves"])
    target = spg.parse_target(prob.position_table["fen"], plies)
    cpu = time.process_time()
    # the layer's still units frozen; the strategies are listed once, by strategy_literals
    _, analysis = analyse(target, plies, enumerate_strategies=False)
    strategies = strategy_literals(analysis, plies)
    print(f"{Path(args.file).stem}: {plies} plies, {len(strategies)} strategies "
          f"({time.process_time() - cpu:.2f} s)", flush=True)
    total, games, complete = 0.0, [], True
    for i, strategy in enumerate(strategies, 1):
        row = list_strategy(analysis, plies, strategy, args.timeout)
        total += row["cpu"]
        games += row["games"]
        complete &= row["complete"]
        print(f"  S{i}: {row['variables']} variables, build {row['build']:.2f} s, "
              f"{len(row['games'])} game(s), {row['rejected']} cut off, "
              f"{'complete' if row['complete'] else 'unknown'}, {row['cpu']:.2f} s CPU",
              flush=True)
    print(f"split: {'complete' if complete else 'unknown'}, {len(games)} game(s), "
          f"{total:.1f} s CPU")
    joint_limit = min(300.0, args.timeout * max(1, len(strategies)))
    cpu = time.process_time()
    joint = list_games(analysis, plies, budget=Budget(joint_limit))
    print(f"joint: {joint.status}, {len(joint.games)} game(s), {joint.variables} variables, "
          f"{time.process_time() - cpu:.1f} s CPU (limit {joint_limit:.0f} s)")
    for moves in games:
        print("  " + chess.Board().variation_san(moves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
