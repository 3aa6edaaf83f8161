"""spg-listing certificates at the edge lengths (issue 22, item 3): a 0-ply listing is the empty
game when the diagram is the initial array, and nothing else is accepted as an empty game.

Oracles: python-chess (the initial array; brute force by tests/test_spg_bruteforce.all_games for
the short lengths), never the CNF's own answers.
"""

from __future__ import annotations

import copy
import json

import chess

from retrologic.certificate import check
from retrologic.limits import Budget
from retrologic.spg.certify import certificate
from test_spg_bruteforce import all_games


def _cert(board: chess.BaseBoard, plies: int) -> dict:
    cert, _ = certificate(board, plies, Budget(timeout=60))
    return json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"}))


def test_zero_plies_lists_the_empty_game() -> None:
    cert = _cert(chess.BaseBoard(), 0)
    assert cert["status"] == "unique" and cert["lengths"][0]["games"] == [[]]
    verdict = check(cert)
    assert verdict.ok, verdict.reason
    assert "exactly 1 game(s) of 0 plies" in verdict.reason


def test_initial_array_after_four_plies_lists_the_knight_returns_and_the_empty_game() -> None:
    """Lengths 4, 2, 0 to the initial array: the brute-force games of each, the 0-ply game last."""
    cert = _cert(chess.BaseBoard(), 4)
    for entry in cert["lengths"]:
        want = all_games(chess.Board(), chess.Board(), entry["plies"])
        assert {tuple(g) for g in entry["games"]} == want
    assert cert["lengths"][-1]["games"] == [[]]
    verdict = check(cert)
    assert verdict.ok, verdict.reason
    assert "shortest other: 0 plies" in verdict.reason


def test_forged_empty_games_are_rejected() -> None:
    cert = _cert(chess.BaseBoard(), 0)
    twice = copy.deepcopy(cert)
    twice["lengths"][0]["games"].append([])
    assert not check(twice).ok and "twice" in check(twice).reason
    dropped = copy.deepcopy(cert)                         # the empty game removed: the CNF has a
    dropped["lengths"][0]["games"] = []                   # model, so no proof can refute it
    dropped["status"] = "no solution"
    assert not check(dropped).ok
    prefix = copy.deepcopy(cert)                          # an empty "illegal prefix" blocks all
    prefix["lengths"][0]["games"], prefix["status"] = [], "no solution"
    prefix["lengths"][0]["illegal"] = [[]]
    assert not check(prefix).ok and "empty" in check(prefix).reason
    # the empty game of another diagram (not the initial array): rejected by the replay
    other = _cert(chess.BaseBoard("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R"), 1)
    assert check(other).ok and other["status"] == "unique"
    forged = copy.deepcopy(other)
    forged["plies"], forged["lengths"] = 0, [{"plies": 0, "games": [[]], "illegal": [],
                                              "proof": ""}]
    assert not check(forged).ok and "not the diagram" in check(forged).reason
    # an empty game listed at a positive length: one ply short
    short = copy.deepcopy(other)
    short["lengths"][0]["games"].append([])
    assert not check(short).ok and "empty" in check(short).reason
