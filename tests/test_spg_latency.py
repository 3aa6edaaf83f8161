"""Proof-game latency (issue #22, item 1): a short problem is answered by the search alone, under
a small node budget, without loading OR-Tools, pandas, chess.pgn or asyncio, and that quick
answer is the full path's answer (oracles: the full path itself with the quick path switched
off, a brute-force enumeration of short games with python-chess, and chess.pgn for the PGN
text written without it)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess
import pytest

from conftest import random_walk

from retrologic.pictures.pgn import headers
from retrologic.spg import quick
from retrologic.spg import solver as spg
from retrologic.spg.pgntext import pgn_text
from retrologic.spg.search import Limits

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("ortools", "pandas", "numpy", "chess.pgn", "chess.engine", "asyncio")

PROBE = r"""
import json, sys
from retrologic import problem as P
from retrologic.options import SolveOptions
import retrologic.questions.spg
{run}
print(json.dumps({{"status": status, "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def _probe(run: str) -> dict:
    code = PROBE.format(run=run, heavy=HEAVY)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_short_problem_file_loads_no_heavy_module() -> None:
    """`solve` of a 4-ply file (cooked: two games, every shorter length ruled out), rendered as
    text and JSON with its PGN, in a fresh process: none of the heavy modules is imported."""
    got = _probe("prob = P.load('problems/spg/cooked-a3-h3.toml')\n"
                 "r = P.solve(prob, SolveOptions())\n"
                 "assert not P.check(prob, r), P.check(prob, r)\n"
                 "r.render(); json.dumps(r.to_json()); status = r.facts['status']")
    assert got == {"status": "cooked", "heavy": []}


def test_the_spg_command_loads_no_heavy_module() -> None:
    """`retrologic spg FEN --moves 3.5 --json` (7 plies, a unique game) in a fresh process."""
    got = _probe("from retrologic.cli import main\n"
                 "import contextlib, io\n"
                 "out = io.StringIO()\n"
                 "with contextlib.redirect_stdout(out):\n"
                 "    rc = main(['spg', 'rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR',\n"
                 "               '--moves', '3.5', '--json'])\n"
                 "assert rc == 0, rc\n"
                 "status = json.loads(out.getvalue())['facts']['status']")
    assert got == {"status": "unique", "heavy": []}


def test_a_problem_beyond_the_quick_budget_still_loads_or_tools() -> None:
    """The control: with the quick path given no nodes, the strategy layer runs (so the probe
    above can fail)."""
    got = _probe("import retrologic.spg.quick as q\n"
                 "q.quick_limits.__defaults__ = (0,)\n"
                 "prob = P.load('problems/spg/cooked-a3-h3.toml')\n"
                 "r = P.solve(prob, SolveOptions()); status = r.facts['status']")
    assert got["status"] == "cooked" and "ortools" in got["heavy"]


def _without_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spg, "settle", lambda *args, **kwargs: None)


def _facts(answer: spg.SpgAnswer) -> tuple:
    return (answer.status, answer.count, answer.complete, answer.shorter, answer.shorter_exact,
            answer.shorter_complete, sorted(tuple(m.uci() for m in g) for g in answer.games),
            None if answer.shorter_game is None else len(answer.shorter_game))


@pytest.mark.parametrize("fen, plies", [
    ("rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR", 4),      # cooked, 2 games
    ("rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR", 7),      # unique
    ("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R", 5),         # shorter: 1 ply (1.Nf3)
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 4),           # cooked, shorter: 0 plies
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", 3),           # no solution (parity)
])
def test_the_quick_answer_is_the_full_answer(monkeypatch: pytest.MonkeyPatch, fen: str,
                                             plies: int) -> None:
    """Same verdict, count, games and shorter facts with and without the quick path, and the
    quick one did not run the strategy layer."""
    target = spg.parse_target(fen, plies)
    fast = spg.solve(target, plies)
    assert fast.strategy is None and all(s.get("quick") for s in fast.searches)
    _without_quick(monkeypatch)
    full = spg.solve(target, plies)
    assert full.strategy is not None
    assert _facts(fast) == _facts(full)


def _games_by_placement(plies: int) -> Counter[str]:
    """Every game of exactly `plies` plies from the initial array, counted by final placement
    (python-chess's move generator: the brute-force oracle)."""
    out: Counter[str] = Counter()

    def walk(board: chess.Board, left: int) -> None:
        if left == 0:
            out[board.board_fen()] += 1
            return
        for move in list(board.legal_moves):
            board.push(move)
            walk(board, left - 1)
            board.pop()

    walk(chess.Board(), plies)
    return out


def test_quick_counts_agree_with_brute_force() -> None:
    """Random 3-ply targets: the quick path's count of 3-ply games and its shorter fact (a
    1-ply game) equal python-chess's enumeration."""
    three, one = _games_by_placement(3), _games_by_placement(1)
    rng = random.Random(22)
    for placement in rng.sample(sorted(three), 8):
        target = spg.parse_target(placement, 3)
        answer = spg.solve(target, 3)
        assert answer.strategy is None                     # settled by the quick path
        assert answer.complete and answer.count == three[placement]
        assert (answer.shorter == 1) == (placement in one) and answer.shorter_complete


def test_quick_nodes_count_against_the_node_limit() -> None:
    """The quick search's nodes are charged to the question's count; under a node limit below
    what the problem needs there is no quick verdict: unknown, naming the user's figure."""
    target = spg.parse_target("rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR", 7)
    limits = Limits()
    answer = spg.solve(target, 7, limits)
    assert answer.strategy is None and limits.budget.spent == answer.nodes > 20
    tight = spg.solve(target, 7, Limits(nodes=20), engine="search")  # (the limit binds the
    assert tight.status == "unknown" and "node limit 20" in (tight.reason or "")  # search only)
    assert tight.strategy is not None and tight.searches[0]["nodes"] == 21   # the full path


class _Run:
    def __init__(self, games: list, complete: bool) -> None:
        self.games, self.complete = games, complete


def test_settle_answers_only_when_every_length_is_decided() -> None:
    """quick.settle with stand-in lengths: an undecided main or shorter length leaves it not
    done (the full path runs, reusing a finished main length); the first shorter length with
    a game ends the walk, in rising order."""
    def decider(table: dict[int, _Run]):
        seen = []

        def decide(length: int, limits: Limits, main: bool) -> _Run:
            seen.append(length)
            limits.budget.spent += 3
            return table[length]
        return decide, seen

    decide, seen = decider({6: _Run([], False)})
    got = quick.settle(decide, lambda n: False, 6, Limits())
    assert got is not None and not got.done and not got.main.complete and seen == [6]
    decide, seen = decider({6: _Run([1], True), 0: _Run([], True), 2: _Run([], False)})
    got = quick.settle(decide, lambda n: False, 6, Limits())
    assert got is not None and not got.done and got.main.complete and seen == [6, 0, 2]
    decide, seen = decider({6: _Run([1], True), 0: _Run([], True), 2: _Run([], False),
                            4: _Run([7], True)})
    limits = Limits()
    got = quick.settle(decide, lambda n: n == 2, 6, limits)     # 2 ruled out at the root
    assert got is not None and got.done and got.shorter == 4 and seen == [6, 0, 4]
    assert limits.budget.spent == 9


def test_quick_limits_respect_the_users_limits() -> None:
    """QUICK_NODES under the user's deadline; no quick path under a node limit (it counts the
    full path's searches, as before) nor once the time is up."""
    assert quick.quick_limits(Limits()).budget.nodes == quick.QUICK_NODES
    assert quick.quick_limits(Limits(timeout=60)).budget.deadline is not None
    assert quick.quick_limits(Limits(nodes=10**9)) is None
    gone = Limits(timeout=1.0)
    gone.budget.deadline = gone.budget.started - 1.0
    assert quick.quick_limits(gone) is None


def _chess_pgn(moves: list[chess.Move], comment: str, tags: dict[str, str]) -> str:
    import chess.pgn
    game = chess.pgn.Game()
    node = game
    for move in moves:
        node = node.add_variation(move)
    node.comment = comment
    for key, value in tags.items():
        game.headers[key] = value
    out = io.StringIO()
    print(game, file=out, end="")
    return out.getvalue()


def test_pgn_text_is_what_chess_pgn_writes() -> None:
    """Random games of 0-100 plies, with and without a problem's tags: the same text."""
    rng = random.Random(7)
    metas = [None, {"title": "A \"quoted\" title"}, {"source": "Die Schwalbe 1989"},
             {"title": "T", "source": "S", "authors": ["Pronkin, A.", "Frolkin, A."]}]
    for i in range(60):
        board = random_walk(rng, rng.randrange(0, 101))
        game = board.move_stack
        comment = f"target {board.board_fen()} {'w' if board.turn else 'b'}"
        tags = {"Event": "Proof game", "Result": "*", **headers(metas[i % 4], "PG 3.5")}
        assert pgn_text(game, comment, tags) == _chess_pgn(game, comment, tags)
        assert spg.pgn_text(game, board) == _chess_pgn(game, comment, {"Event": "Proof game"})


def test_a_listed_length_is_handed_to_the_full_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick search lists the stipulated length but leaves a shorter one undecided (as a
    node cap would): the full path decides the shorter lengths without searching the listed
    length again, and the answer equals the full path's alone."""
    target = spg.parse_target("rn1qkbnr/ppp1pppp/3p4/8/4P3/8/PPPP1PPP/RNBQKBNR", 7)
    decide = spg._decide
    calls: list[tuple[int, bool]] = []

    def undecided_below(tgt, length, start, analysis, report, limits, *args, **kwargs):
        found = decide(tgt, length, start, analysis, report, limits, *args, **kwargs)
        quick_run = report is None and limits.budget.nodes == quick.QUICK_NODES
        calls.append((length, quick_run))
        if quick_run and length < 7:
            return spg._Length([], False, 0, "node cap (simulated)", 0, 0.0, found.entry,
                               found.analysis)
        return found

    monkeypatch.setattr(spg, "_decide", undecided_below)
    mixed = spg.solve(target, 7)
    assert [c for c in calls if c[0] == 7] == [(7, True)]        # searched once, by the quick
    assert mixed.searches[0].get("quick") and not mixed.searches[1].get("quick")
    monkeypatch.setattr(spg, "QUICK", False)
    full = spg.solve(target, 7)
    assert _facts(mixed) == _facts(full)
