"""bench/spg-audit.py, the proof-game engines' audit: its CNF oracle lists exactly the games the
brute-force search finds, and its check flags each kind of wrong answer (a check that cannot
fail would make the audit's "none wrong" worthless)."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import sys
from pathlib import Path

import chess
import pytest

from retrologic.spg import solver as spg
from test_spg_bruteforce import all_games

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "spg-audit.py"


@pytest.fixture(scope="module")
def audit():
    spec = importlib.util.spec_from_file_location("spg_audit", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["spg_audit"] = module        # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules["spg_audit"]


def _target(moves: list[chess.Move]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push(move)
    return spg.parse_target(board.board_fen(), len(moves))


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_the_oracle_lists_what_brute_force_finds(audit, seed: int) -> None:
    game = audit.random_game(random.Random(seed), 5)
    target = _target(game)
    listed = audit.oracle(target, 5, cap=10_000)
    assert listed.whole
    assert listed.games == all_games(chess.Board(), target, 5)
    assert tuple(m.uci() for m in game) in listed.games
    first = audit.oracle(target, 5, cap=10_000, first_only=True)
    assert len(first.games) == 1 and first.games <= listed.games


def test_the_check_passes_a_right_answer_and_flags_each_wrong_one(audit) -> None:
    # 1.Nf3 Nf6 2.Ng1 Ng8: the initial array again, and a 0-ply game is shorter
    game = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")]
    target = _target(game)
    main = audit.oracle(target, 4, cap=1000)
    shorter = {n: audit.oracle(target, n, 1000, first_only=True) for n in (0, 2)}
    assert shorter[0].games == {()} and not shorter[2].games
    answer = spg.solve(target, 4)
    assert answer.count == len(main.games) >= 2
    assert audit.disagreements(answer, target, main, shorter) == []

    def flagged(**change) -> list[str]:
        return audit.disagreements(dataclasses.replace(answer, **change), target, main, shorter)

    assert any("count" in f for f in flagged(count=answer.count + 1))
    assert any("count" in f for f in flagged(count=answer.count - 1))
    assert any("not legal" in f for f in flagged(games=[game[:3]]))
    listed = tuple(m.uci() for m in answer.games[0])
    short = dataclasses.replace(main, games=main.games - {listed})    # an oracle missing it
    assert any("does not admit" in f
               for f in audit.disagreements(answer, target, short, shorter))
    for complete in (True, False):
        assert any("no shorter game" in f for f in flagged(shorter=None, shorter_game=None,
                                                            shorter_complete=True,
                                                            complete=complete))
    assert any("shortest said" in f for f in flagged(shorter=2, shorter_game=game[:2],
                                                      shorter_exact=True))


@pytest.mark.skipif(not spg.race.possible(), reason="racing needs two cores and fork")
def test_the_race_engine_races_and_agrees(audit) -> None:
    """`--engines race`: `auto` racing from its start on a diagram the quick path would settle
    alone (1.Nf3 Nf6 2.Ng1 Ng8 at 4 plies: cooked, a 0-ply game shorter); it agrees with the
    oracle and the solver's switches are restored after. (Which process decides the 0-ply
    length is the race's luck here: tests/test_spg_race.py pins the told lengths down.)"""
    game = [chess.Move.from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8")]
    target = _target(game)
    main = audit.oracle(target, 4, cap=1000)
    shorter = {n: audit.oracle(target, n, 1000, first_only=True) for n in (0, 2)}
    switches = spg.RACE_AFTER, spg.QUICK, spg.race.available
    answer = audit.solve(target, 4, 30.0, "race")
    assert (spg.RACE_AFTER, spg.QUICK, spg.race.available) == switches
    assert "race" in answer.searches[0]
    assert answer.shorter == 0 and audit.disagreements(answer, target, main, shorter) == []
