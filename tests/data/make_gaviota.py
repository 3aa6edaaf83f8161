"""Extract Gaviota's DTM of the 3-man tables (KPK, KQK, KRK, KBK, KNK) to tests/data/gaviota-3man.npz.

The tablebase tests compare retrologic's tables with Gaviota, an independent oracle; this
script probes Gaviota once for every placement so that the tests need not install it (Debian's
`gaviotatb` needs root). Run it where the tables are installed:

    apt-get install gaviotatb        # Debian/Ubuntu: /usr/share/gaviotatb/gtb4
    python tests/data/make_gaviota.py [GAVIOTA_DIR]

The file holds one int8 array per signature (named KPK, ...) of 2 * 64**3 entries indexed by
`turn * 64**3 + white_king * 4096 + black_king * 64 + piece` (turn 1 = White to move, squares as
python-chess numbers them, the piece White's). Each entry is python-chess's
`probe_dtm` (plies, positive when the side to move wins, 0 for a draw or a mated side) where
python-chess calls the placement valid (`Board.is_valid()`), and INVALID (-128) elsewhere
(two men on one square, a pawn on rank 1 or 8, kings adjacent, the side not to move in check).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import chess
import chess.gaviota
import numpy as np

INVALID = -128
SIGNATURES = {"KPK": chess.PAWN, "KQK": chess.QUEEN, "KRK": chess.ROOK, "KBK": chess.BISHOP,
              "KNK": chess.KNIGHT}
OUT = Path(__file__).resolve().parent / "gaviota-3man.npz"


def extract(tb, piece: int) -> np.ndarray:
    """Gaviota's DTM for every (turn, white king, black king, white piece) placement."""
    dtm = np.full(2 * 64 ** 3, INVALID, dtype=np.int8)
    board = chess.Board(None)
    for turn in (0, 1):
        board.turn = bool(turn)
        for wk in range(64):
            for bk in range(64):
                for sq in range(64):
                    if len({wk, bk, sq}) < 3:
                        continue
                    board.clear_board()
                    board.set_piece_at(wk, chess.Piece(chess.KING, chess.WHITE))
                    board.set_piece_at(bk, chess.Piece(chess.KING, chess.BLACK))
                    board.set_piece_at(sq, chess.Piece(piece, chess.WHITE))
                    if board.is_valid():
                        dtm[turn * 64 ** 3 + wk * 4096 + bk * 64 + sq] = tb.probe_dtm(board)
    return dtm


def main(directory: str = "/usr/share/gaviotatb/gtb4") -> None:
    tb = chess.gaviota.open_tablebase(directory)
    arrays = {}
    for name, piece in SIGNATURES.items():
        arrays[name] = extract(tb, piece)
        values = arrays[name][arrays[name] != INVALID]
        print(f"{name}: {len(values)} valid placements, {int((values > 0).sum())} won, "
              f"{int((values < 0).sum())} lost, longest win {int(values.max())} plies")
    tb.close()
    np.savez_compressed(OUT, **arrays)
    digest = hashlib.sha256(OUT.read_bytes()).hexdigest()
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, sha256 {digest}); python-chess {chess.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:])
