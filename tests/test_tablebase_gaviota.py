"""KQK, KRK, KPK (and KBK, KNK) against the Gaviota tablebases, the independent oracle.

Gaviota's DTM of every placement ships as tests/data/gaviota-3man.npz (made once by
tests/data/make_gaviota.py from Debian's gaviotatb; see tests/data/README.md), so these tests need
no root: every placement of each table, canonical or not, either colour strong, is compared with
it (which exercises the symmetry reduction, the legality filter and the colour-flipped lookups).
Where the live tables are installed (/usr/share/gaviotatb/gtb4, or RETROLOGIC_GAVIOTA), a sample
is also probed live, checking both the shipped data and the tables against Gaviota itself."""

from __future__ import annotations

import os
from pathlib import Path

import chess
import chess.gaviota
import numpy as np
import pytest

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.tablebase.table import Library
from retrologic.tablebase.checker import board_of

DATA = Path(__file__).resolve().parent / "data" / "gaviota-3man.npz"
SHIPPED_INVALID = -128           # the data's mark of a placement python-chess calls invalid
N = 64 ** 3
PIECES = {chess.PAWN: "KPK", chess.QUEEN: "KQK", chess.ROOK: "KRK", chess.BISHOP: "KBK",
          chess.KNIGHT: "KNK"}
LIVE_TABLES = ("kqk", "krk", "kpk", "kbk", "knk")  # what `test_live_gaviota_sample` probes
CANDIDATES = ["/usr/share/gaviotatb/gtb4", "/usr/share/gaviotatb/gtb3", "/usr/share/gaviotatb/gtb2",
              "/usr/share/gaviotatb/gtb1"]


@pytest.fixture(scope="module")
def shipped() -> dict[str, np.ndarray]:
    """Gaviota's DTM per signature, indexed turn * 64**3 + white king * 4096 + black king * 64
    + White's piece (see make_gaviota.py)."""
    with np.load(DATA) as z:
        return {name: z[name] for name in z.files}


def shipped_index(turn: np.ndarray, wk: np.ndarray, bk: np.ndarray, piece: np.ndarray) -> np.ndarray:
    return turn.astype(np.int64) * N + wk * 4096 + bk * 64 + piece


def shipped_dtm(shipped: dict[str, np.ndarray], board: chess.Board) -> int:
    """Gaviota's DTM of a position of at most three men, from the shipped data; a colour-flipped
    position (Black has the piece) is looked up as its mirror image, which has the same value."""
    men = board.piece_map()
    if len(men) == 2:
        return 0                      # bare kings: a draw (python-chess cannot probe K vs K)
    (piece_sq, piece), = [(sq, p) for sq, p in men.items() if p.piece_type != chess.KING]
    if piece.color == chess.BLACK:
        board = board.mirror()
        piece_sq = chess.square_mirror(piece_sq)
    value = int(shipped[PIECES[piece.piece_type]][shipped_index(
        np.int64(board.turn), np.int64(board.king(chess.WHITE)), np.int64(board.king(chess.BLACK)),
        np.int64(piece_sq))])
    assert value != SHIPPED_INVALID, board.fen()
    return value


@pytest.fixture(scope="module")
def lib() -> Library:
    return Library()


def every_placement() -> np.ndarray:
    """(turn, first king, second king, piece) for every placement of three men on distinct squares."""
    g = np.indices((2, 64, 64, 64)).reshape(4, -1).T
    return g[(g[:, 1] != g[:, 2]) & (g[:, 1] != g[:, 3]) & (g[:, 2] != g[:, 3])]


def signed_values(outcome: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Table values as Gaviota writes them: plies, positive when the side to move wins."""
    return np.where(outcome == rg.WIN, dist, np.where(outcome == rg.LOSS, -dist, 0)).astype(np.int64)


@pytest.mark.parametrize("signature", ["KQK", "KRK", "KPK", "KBK", "KNK", "KKQ", "KKR", "KKP"])
def test_every_placement_matches_gaviota(lib: Library, shipped, signature: str) -> None:
    """Every placement (units ordered white king, black king, the piece; either side to move):
    invalid exactly where python-chess says so, and Gaviota's DTM everywhere else."""
    g = every_placement()
    turn, wk, bk, sq = g.T
    outcome, dist = lib.lookup(signature, turn.astype(bool), g[:, 1:])
    if signature.startswith("KK"):    # Black has the piece: Gaviota's value of the mirror image
        want = shipped["K" + signature[2] + "K"][shipped_index(1 - turn, bk ^ 56, wk ^ 56, sq ^ 56)]
    else:
        want = shipped[signature][shipped_index(turn, wk, bk, sq)]
    have = signed_values(outcome, dist)
    invalid = want == SHIPPED_INVALID
    bad = np.flatnonzero(((outcome == rg.INVALID) != invalid) | (~invalid & (have != want)))
    lay = ti.layout(signature)
    examples = [(board_of(lay, bool(turn[i]), g[i, 1:]).fen(), int(outcome[i]), int(have[i]),
                 int(want[i])) for i in bad[:5]]
    assert not len(bad), f"{len(bad)} of {len(g)} differ (fen, outcome, ours, Gaviota): {examples}"
    assert (~invalid).sum() > 300_000
    if not signature.startswith("KK"):
        stats = lib.table(signature).stats()
        assert stats["longest_plies"] == max(int(want[~invalid].max()), 0)
        assert stats["positions"] > 40_000


def test_mirror_index_agrees_with_python_chess(shipped) -> None:
    """The colour-flip arithmetic above is python-chess's Board.mirror(): sampled placements of
    KKQ/KKR/KKP give the same shipped value both ways."""
    rng = np.random.default_rng(11)
    checked = 0
    for piece in (chess.QUEEN, chess.ROOK, chess.PAWN):
        for _ in range(300):
            wk, bk, sq = (int(x) for x in rng.choice(64, size=3, replace=False))
            board = chess.Board(None)
            board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
            board.set_piece_at(sq, chess.Piece(piece, chess.BLACK))
            board.turn = bool(rng.integers(2))
            if not board.is_valid():
                continue
            index = shipped_index(np.int64(1 - board.turn), np.int64(bk ^ 56), np.int64(wk ^ 56),
                                  np.int64(sq ^ 56))
            assert shipped[PIECES[piece]][index] == shipped_dtm(shipped, board), board.fen()
            checked += 1
    assert checked > 400


def test_best_moves_agree_with_gaviota(lib: Library, shipped) -> None:
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
            assert here.signed == shipped_dtm(shipped, board)
            for move, child in children:
                board.push(move)
                assert child.signed == shipped_dtm(shipped, board), board.fen()
                board.pop()
            checked += 1
            board.push(list(board.legal_moves)[rng.integers(board.legal_moves.count())])
    assert checked >= 30


def test_drawn_positions_list_the_moves_that_keep_the_draw(lib: Library, shipped) -> None:
    """In a draw, `probe`'s best moves are exactly the moves whose child Gaviota rates a draw
    (they listed none until 2026-11-30): drawn KPK and KRK positions of both sides to move, among
    them positions where some moves lose."""
    from retrologic.questions import tablebase as question
    rng = np.random.default_rng(11)
    with_losing = 0
    for piece, wanted in ((chess.PAWN, 40), (chess.ROOK, 20)):
        checked = 0
        while checked < wanted:
            board = chess.Board(None)
            squares = rng.choice(64, 3, replace=False)
            board.set_piece_at(int(squares[0]), chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(int(squares[1]), chess.Piece(chess.KING, chess.BLACK))
            board.set_piece_at(int(squares[2]), chess.Piece(piece, bool(rng.integers(2))))
            board.turn = bool(rng.integers(2))
            if not board.is_valid() or board.is_game_over() or shipped_dtm(shipped, board) != 0:
                continue
            drawing = set()
            for move in board.legal_moves:
                san = board.san(move)
                board.push(move)
                if shipped_dtm(shipped, board) == 0:
                    drawing.add(san)
                board.pop()
            result = question.probe(lib, board.fen())
            assert result.answer == "draw" and set(result.facts["best_moves"]) == drawing, \
                board.fen()
            with_losing += len(drawing) < board.legal_moves.count()
            checked += 1
    assert with_losing >= 5


# -- the live tables, where installed ---------------------------------------------------------------

def gaviota_directory() -> str | None:
    """Where the 3-man Gaviota tables are, or None; RETROLOGIC_GAVIOTA, when set, is the only
    place looked at (set it to an empty directory to run as on a machine without them). A
    directory counts only with every table the live tests probe (a partial one would fail them
    for want of a file, not for a wrong value)."""
    env = os.environ.get("RETROLOGIC_GAVIOTA")
    for d in [env] if env else CANDIDATES:
        if d and all(any(Path(d).glob(f"{name}.gtb.cp*")) for name in LIVE_TABLES):
            return d
    return None


@pytest.fixture(scope="module")
def gaviota():
    directory = gaviota_directory()
    if directory is None:
        pytest.skip("Gaviota tables not installed (apt-get install gaviotatb, or set "
                    "RETROLOGIC_GAVIOTA): live comparison skipped; the shipped Gaviota values "
                    "(tests/data/gaviota-3man.npz) were compared in full")
    tb = chess.gaviota.open_tablebase(directory)
    yield tb
    tb.close()


def gaviota_dtm(tb, board: chess.Board) -> int:
    """Gaviota's DTM in plies; bare kings are a draw (python-chess cannot probe K vs K)."""
    if len(board.piece_map()) == 2:
        return 0
    return tb.probe_dtm(board)


@pytest.mark.parametrize("signature", ["KQK", "KRK", "KPK", "KBK", "KNK", "KKQ", "KKR", "KKP"])
def test_live_gaviota_sample(lib: Library, shipped, gaviota, signature: str) -> None:
    """Random placements probed live: the shipped data and the table both give Gaviota's value,
    and both call a placement invalid exactly when python-chess does."""
    lay = ti.layout(signature)
    rng = np.random.default_rng(len(signature) * 7 + ord(signature[-1]) + ord(signature[1]))
    n = 1500
    squares = np.array([rng.choice(64, size=lay.k, replace=False) for _ in range(n)])
    side = rng.random(n) < 0.5
    outcome, dist = lib.lookup(signature, side, squares)
    have = signed_values(outcome, dist)
    valid = 0
    for i in range(n):
        board = board_of(lay, side[i], squares[i])
        if not board.is_valid():
            assert outcome[i] == rg.INVALID, board.fen()
            continue
        valid += 1
        want = gaviota_dtm(gaviota, board)
        assert outcome[i] != rg.INVALID, board.fen()
        assert have[i] == want, board.fen()
        assert shipped_dtm(shipped, board) == want, f"shipped data differs from Gaviota: {board.fen()}"
    assert valid > n // 2
