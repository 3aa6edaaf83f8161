"""KQK, KRK, KPK against the Gaviota tablebases (Debian package gaviotatb, probed by python-chess):
every legal position of each table, and random placements of every orientation (which exercises
the symmetry reduction, the legality filter and the colour-flipped lookups)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import chess
import chess.gaviota
import numpy as np
import pytest

from retrologic import retrograde as rg
from retrologic import tablebase_index as ti
from retrologic.tablebase import Library
from retrologic.tablebase_verify import board_of

CANDIDATES = ["/usr/share/gaviotatb/gtb4", "/usr/share/gaviotatb/gtb3", "/usr/share/gaviotatb/gtb2",
              "/usr/share/gaviotatb/gtb1"]


def gaviota_directory() -> str:
    """Where the 3-man Gaviota tables are; fail loudly where apt could install them."""
    env = os.environ.get("RETROLOGIC_GAVIOTA")
    for d in ([env] if env else []) + CANDIDATES:
        if d and any(Path(d).glob("krk.gtb.cp*")):
            return d
    if shutil.which("apt-get"):
        pytest.fail("the Gaviota tables are missing: install them with "
                    "`apt-get install gaviotatb` (or set RETROLOGIC_GAVIOTA to their directory)")
    pytest.skip("no Gaviota tables and no apt-get on this machine: the oracle cannot be installed")


@pytest.fixture(scope="module")
def gaviota():
    tb = chess.gaviota.open_tablebase(gaviota_directory())
    yield tb
    tb.close()


@pytest.fixture(scope="module")
def lib() -> Library:
    return Library()


def gaviota_dtm(tb, board: chess.Board) -> int:
    """Gaviota's DTM in plies; bare kings are a draw (python-chess cannot probe K vs K)."""
    if len(board.piece_map()) == 2:
        return 0
    return tb.probe_dtm(board)


@pytest.mark.parametrize("signature, longest", [("KQK", 10), ("KRK", 16), ("KPK", 28)])
def test_every_position_matches_gaviota(lib: Library, gaviota, signature: str, longest: int) -> None:
    table = lib.table(signature)
    assert table.complete
    lay = table.layout
    ids = np.flatnonzero(table.outcome != rg.INVALID)
    signed = np.where(table.outcome[ids] == rg.WIN, table.dist[ids],
                      np.where(table.outcome[ids] == rg.LOSS, -table.dist[ids], 0))
    side, squares = ti.decode(lay, ids)
    mismatches = []
    for i in range(len(ids)):
        board = board_of(lay, side[i], squares[i])
        assert board.is_valid(), board.fen()
        want = gaviota_dtm(gaviota, board)
        if want != signed[i]:
            mismatches.append((board.fen(), int(signed[i]), want))
    assert not mismatches, f"{len(mismatches)} of {len(ids)} differ, e.g. {mismatches[:5]}"
    assert len(ids) > 40000
    assert table.stats()["longest_mate"] == longest


@pytest.mark.parametrize("signature", ["KQK", "KRK", "KPK", "KKQ", "KKR", "KKP"])
def test_random_placements_match_gaviota(lib: Library, gaviota, signature: str) -> None:
    """Any placement, canonical or not, either colour strong: legal exactly when python-chess
    says valid, and then Gaviota's value."""
    lay = ti.layout(signature)
    rng = np.random.default_rng(len(signature) * 7 + ord(signature[-1]))
    n = 4000
    squares = np.array([rng.choice(64, size=lay.k, replace=False) for _ in range(n)])
    side = rng.random(n) < 0.5
    outcome, dist = lib.lookup(signature, side, squares)
    valid = 0
    for i in range(n):
        board = board_of(lay, side[i], squares[i])
        if not board.is_valid():
            assert outcome[i] == rg.INVALID, board.fen()
            continue
        valid += 1
        assert outcome[i] != rg.INVALID, board.fen()
        signed = int(dist[i]) if outcome[i] == rg.WIN else -int(dist[i]) if outcome[i] == rg.LOSS else 0
        assert signed == gaviota_dtm(gaviota, board), board.fen()
    assert valid > n // 2


def test_best_moves_agree_with_gaviota(lib: Library, gaviota) -> None:
    """The probe's optimal moves are the moves Gaviota rates best, on positions of a random game."""
    rng = np.random.default_rng(5)
    checked = 0
    for fen in ["8/8/8/8/8/2k5/8/KR6 w - - 0 1", "8/8/1k6/8/8/8/P7/K7 w - - 0 1",
                "7k/8/5K2/8/8/8/P7/8 w - - 0 1", "8/8/8/2k5/8/8/8/K6Q w - - 0 1"]:
        board = chess.Board(fen)
        for _ in range(12):
            if board.is_game_over():
                break
            here, children = lib.best_moves(board)
            assert here.signed == gaviota_dtm(gaviota, board)
            for move, child in children:
                board.push(move)
                assert child.signed == gaviota_dtm(gaviota, board), board.fen()
                board.pop()
            checked += 1
            board.push(list(board.legal_moves)[rng.integers(board.legal_moves.count())])
    assert checked >= 30
