"""8x8 endgame tablebases with distance to mate (DTM, in plies), built by the retrograde engine.

A `Library` holds solved tables (in memory, optionally saved to / loaded from a directory as
`<SIGNATURE>.npz`) and builds missing ones on demand, sub-tables first: a capture or promotion
leaves a table, and its value comes from the table it enters (KPK promotes into KQK and KRK,
KQKR's captures lead to KQK and KRK). Probing takes a python-chess board.
"""

from __future__ import annotations

import sys
import time
import zipfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import chess
import numpy as np

from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.errors import InputError
from retrologic.limits import Budget, budget_for
from retrologic.tablebase.moves import ChessTable

FORMAT_VERSION = 1


class Incomplete(Exception):
    """A table needed for an answer could not be finished within the limits."""


def _member(z: zipfile.ZipFile, name: str, size: int, kinds: str,
            dtype: type | None = None) -> np.ndarray:
    """One array of a saved table, read from its .npy header and bytes without numpy's loader:
    at most `size` items of a dtype of one of `kinds` (exactly `dtype` if given), never an
    object array; ValueError/KeyError for anything else (a corrupted or forged file)."""
    from numpy.lib import format as npf
    info = z.getinfo(f"{name}.npy")
    if info.file_size > size * 8 + 4096:
        raise ValueError(f"{name}: {info.file_size:,} bytes, more than a table holds")
    with z.open(info) as fh:
        major, _minor = npf.read_magic(fh)
        read_header = npf.read_array_header_1_0 if major == 1 else npf.read_array_header_2_0
        shape, fortran, dt = read_header(fh)
        if dt.hasobject or dt.kind not in kinds or (dtype is not None and dt != np.dtype(dtype)):
            raise ValueError(f"{name}: unexpected type {dt}")
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if len(shape) > 1 or count > size:
            raise ValueError(f"{name}: unexpected shape {shape}")
        data = fh.read(count * dt.itemsize + 1)
    if len(data) != count * dt.itemsize:
        raise ValueError(f"{name}: {len(data):,} bytes of data, not {count * dt.itemsize:,}")
    arr = np.frombuffer(data, dtype=dt).copy()
    return arr.reshape(shape) if shape else arr.reshape(())


@dataclass
class Table:
    """A solved (or, when a limit stopped it, partly solved) table of one signature."""

    signature: str
    outcome: np.ndarray            # int8 per index: WIN, LOSS, DRAW, INVALID (NONE: unknown)
    dist: np.ndarray               # int16 per index: plies to mate, -1 otherwise
    complete: bool = True
    reason: str = ""
    seconds: float = 0.0
    counts: list[tuple[int, int, int]] = field(default_factory=list)

    @cached_property
    def layout(self) -> ti.Layout:
        return ti.layout(self.signature)

    def values(self, side: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(outcome, dist) of positions given by side to move and squares in layout order."""
        idx = ti.index_of(self.layout, side, squares)
        return self.outcome[idx], self.dist[idx].astype(np.int32)

    def stats(self) -> dict[str, int]:
        """Counts over the canonical legal positions, and the longest mate."""
        lay = self.layout
        legal = self.outcome != rg.INVALID
        out: dict[str, int] = {"positions": int(legal.sum())}
        for name, part in (("white", slice(0, lay.per_side)), ("black", slice(lay.per_side, None))):
            o = self.outcome[part]
            out[f"{name}_to_move_wins"] = int((o == rg.WIN).sum())
            out[f"{name}_to_move_losses"] = int((o == rg.LOSS).sum())
            out[f"{name}_to_move_draws"] = int((o == rg.DRAW).sum())
            out[f"{name}_to_move_mated"] = int(((o == rg.LOSS) & (self.dist[part] == 0)).sum())
        won = self.outcome == rg.WIN
        out["longest_plies"] = int(self.dist[won].max()) if won.any() else 0
        out["longest_mate"] = (out["longest_plies"] + 1) // 2
        return out

    def save(self, directory: str | Path) -> Path:
        """Write `<directory>/<SIGNATURE>.npz` atomically (a temporary file renamed when
        complete), so an interrupted build never leaves a truncated table behind."""
        from retrologic.files import atomic_open, refused_writes
        path = Path(directory) / f"{self.signature}.npz"
        with refused_writes("the table", file=str(path)), atomic_open(path) as fh:
            np.savez_compressed(fh, outcome=self.outcome, dist=self.dist,
                                signature=np.array(self.signature),
                                version=np.array(FORMAT_VERSION), seconds=np.array(self.seconds))
        return path

    @classmethod
    def load(cls, path: str | Path, signature: str | None = None) -> "Table":
        """A saved table (of `signature`, if given); InputError (exit 3) naming the file if it
        is missing, truncated, corrupted, of another format or not the table it should be.
        Nothing is unpickled and no array larger than the largest table is allocated."""
        file = str(path)
        try:
            with zipfile.ZipFile(path) as z:
                sig = str(_member(z, "signature", 1, "U"))
                version = int(_member(z, "version", 1, "iu"))
                seconds = float(_member(z, "seconds", 1, "f"))
                size = ti.layout(sig).size
                outcome = _member(z, "outcome", size, "i", np.int8)
                dist = _member(z, "dist", size, "i", np.int16)
        except FileNotFoundError:
            raise InputError("no such table file", file=file) from None
        except IsADirectoryError:
            raise InputError("is a directory, not a table file", file=file) from None
        except Exception as e:  # noqa: BLE001 - whatever a damaged file raises: corrupted
            detail = e.message if isinstance(e, InputError) else f"{type(e).__name__}: {e}"
            raise InputError(f"corrupted table file, rebuild it (delete the file): {detail}",
                             file=file) from None
        if version != FORMAT_VERSION:
            raise InputError(f"table of format version {version}, not {FORMAT_VERSION}; rebuild it "
                             "(delete the file)", file=file)
        if signature is not None and sig != signature:
            raise InputError(f"holds table {sig}, not {signature}; rebuild it (delete the file)",
                             file=file)
        if (outcome.shape != (size,) or dist.shape != (size,) or outcome.min(initial=0) < rg.NONE
                or outcome.max(initial=0) > rg.INVALID or dist.min(initial=0) < -1):
            raise InputError("corrupted table file (values out of range), rebuild it (delete the "
                             "file)", file=file)
        return cls(sig, outcome, dist, seconds=seconds)


def dependencies(signature: str) -> list[str]:
    """Oriented signatures reachable by one capture or promotion."""
    white, black = ti.parse_signature(signature)
    subs = set()
    for side, other, is_white in ((white, black, True), (black, white, False)):
        for i, c in enumerate(other):
            if c != "K":
                rest = ti._sorted_side(other[:i] + other[i + 1:])
                subs.add(ti.oriented(*((side, rest) if is_white else (rest, side)))[0])
        if "P" in side:
            for p in "QRBN":
                promoted = ti._sorted_side(side.replace("P", p, 1))
                subs.add(ti.oriented(*((promoted, other) if is_white else (other, promoted)))[0])
                for i, c in enumerate(other):   # a promotion that captures
                    if c != "K":
                        rest = ti._sorted_side(other[:i] + other[i + 1:])
                        subs.add(ti.oriented(*((promoted, rest) if is_white else (rest, promoted)))[0])
    return sorted(subs)


ProgressFn = Callable[[str, bool], None]   # (text, final line?)


class StderrProgress:
    """A one-line progress display on stderr, redrawn at most ten times a second."""

    def __init__(self) -> None:
        self.last = 0.0

    def __call__(self, text: str, final: bool = False) -> None:
        now = time.monotonic()
        if final or now - self.last >= 0.1:
            self.last = now
            print(f"\r{text:<78}", end="\n" if final else "", file=sys.stderr, flush=True)


class Library:
    """Solved tables by oriented signature; loads from `directory`, builds what is missing."""

    def __init__(self, directory: str | Path | None = None, *, save: bool = True,
                 progress: bool | ProgressFn = False, timeout: float | None = None,
                 nodes: int | None = None, budget: Budget | None = None):
        self.directory = Path(directory) if directory else None
        self.save = save
        self.tables: dict[str, Table] = {}
        self.progress: ProgressFn | None = (StderrProgress() if progress is True else progress or None)
        self.budget = budget_for(timeout, None, budget)   # time and Ctrl-C over every build
        self.nodes = nodes                  # per table: positions expanded by the engine

    def table(self, signature: str) -> Table:
        """The table of a signature (oriented: stronger side White), loading or building it."""
        white, black = ti.parse_signature(signature)
        sig, _ = ti.oriented(white, black)
        if "P" in white and "P" in black:
            raise InputError("pawns on both sides would need en passant, which these tables do not "
                             "model", field="table", value=signature)
        if sig in self.tables:
            return self.tables[sig]
        if self.directory and (self.directory / f"{sig}.npz").exists():
            table = Table.load(self.directory / f"{sig}.npz", sig)
        else:
            table = self.build(sig)
        if table.complete:
            self.tables[sig] = table
        return table

    def build(self, signature: str) -> Table:
        """Solve one table (its sub-tables first); incomplete if a sub-table or a limit stops it."""
        for sub in dependencies(signature):
            t = self.table(sub)
            if not t.complete:
                return Table(signature, np.zeros(0, np.int8), np.zeros(0, np.int16), complete=False,
                             reason=f"sub-table {sub}: {t.reason}")
        t0 = time.monotonic()
        game = ChessTable(signature, lookup=self.lookup)
        note = self.progress
        if note:
            game.on_chunk = lambda done, total: note(f"{signature}: setup {100 * done // total}%", False)
        spent = self.budget.expired()
        if spent is not None:
            return Table(signature, np.zeros(0, np.int8), np.zeros(0, np.int16), complete=False,
                         reason=f"{spent}, reached before the build started")
        progress = None
        if note:
            def progress(ply: int, won: int, lost: int) -> None:
                note(f"{signature}: ply {ply:3d}  won {won:>10,}  lost {lost:>10,}  "
                     f"{time.monotonic() - t0:6.1f} s", False)
        game.budget = self.budget
        sol = rg.solve(game, budget=self.budget.share(nodes=self.nodes), progress=progress)
        if note:
            word = "solved" if sol.complete else f"stopped ({sol.reason})"
            note(f"{signature}: {word} in {time.monotonic() - t0:.1f} s, {sol.plies} plies", True)
        table = Table(signature, sol.outcome, sol.dist.astype(np.int16), complete=sol.complete,
                      reason=sol.reason, seconds=time.monotonic() - t0, counts=sol.counts)
        if table.complete and self.directory and self.save:
            table.save(self.directory)
        return table

    def lookup(self, signature: str, side: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values of positions of any signature (colours as written), flipping colours if needed."""
        white, black = ti.parse_signature(signature)
        sig, flipped = ti.oriented(white, black)
        table = self.table(sig)
        if not table.complete:
            raise Incomplete(f"table {sig} not solved: {table.reason}")
        if flipped:
            _, side, squares = ti.flip_colours(ti.layout(white + black), side, squares)
        return table.values(side, squares)

    def probe(self, board: chess.Board) -> "Probe":
        """The value of a python-chess position."""
        signature, side, squares = from_board(board)
        outcome, dist = self.lookup(signature, side, squares)
        return Probe(int(outcome[0]), int(dist[0]), board.turn)

    def best_moves(self, board: chess.Board) -> tuple["Probe", list[tuple[chess.Move, "Probe"]]]:
        """The position's value and every legal move with the value of its child (python-chess
        generates the moves, so this is also an independent check of the table)."""
        here = self.probe(board)
        children = []
        for move in board.legal_moves:
            board.push(move)
            children.append((move, self.probe(board)))
            board.pop()
        return here, children

    def line(self, board: chess.Board, max_plies: int = 400) -> list[chess.Move]:
        """A principal variation: the winner mates fastest, the loser resists longest."""
        board = board.copy(stack=False)
        moves = []
        while not board.is_game_over() and len(moves) < max_plies:
            here, children = self.best_moves(board)
            if here.outcome == rg.DRAW or not children:
                break
            move, _ = max(children, key=lambda mc: mc[1].score_for_parent())
            moves.append(move)
            board.push(move)
        return moves


@dataclass(frozen=True)
class Probe:
    """A probed value, from the side to move's point of view."""

    outcome: int
    dist: int
    turn: bool

    def score_for_parent(self) -> int:
        """How good this child is for the side that moved into it (higher is better)."""
        if self.outcome == rg.LOSS:
            return 100000 - self.dist
        if self.outcome == rg.WIN:
            return -100000 + self.dist
        return 0

    @property
    def signed(self) -> int:
        """Gaviota's convention: +plies if the side to move wins, -plies if it loses, 0 draw."""
        return self.dist if self.outcome == rg.WIN else -self.dist if self.outcome == rg.LOSS else 0

    @property
    def word(self) -> str:
        return {rg.WIN: "win", rg.LOSS: "loss", rg.DRAW: "draw"}.get(self.outcome, "unknown")

    def text(self) -> str:
        mover = "White" if self.turn else "Black"
        if self.outcome == rg.WIN:
            return f"{mover} to move wins: mate in {(self.dist + 1) // 2} ({self.dist} plies)"
        if self.outcome == rg.LOSS:
            if self.dist == 0:
                return f"{mover} is checkmated"
            return f"{mover} to move loses: mated in {self.dist // 2} ({self.dist} plies)"
        if self.outcome == rg.DRAW:
            return f"{mover} to move: draw"
        return f"{mover} to move: unknown"


def from_board(board: chess.Board,
               stated: str | None = None) -> tuple[str, np.ndarray, np.ndarray]:
    """(signature as written, side, squares in layout order) of a python-chess position;
    `stated`: the FEN as the user wrote it, quoted by an error (python-chess's `fen()` drops
    the castling rights it finds bad, the very fault reported)."""
    fen = board.fen() if stated is None else stated
    if not board.is_valid():
        status = board.status()
        flaws = ", ".join(f.name.lower().replace("_", " ") for f in chess.Status if f and f & status)
        raise InputError(f"not a legal position: {flaws}", field="fen", value=fen)
    if board.castling_rights:
        raise InputError("tablebases hold positions without castling rights", field="fen", value=fen)
    if board.has_legal_en_passant():
        raise InputError("tablebases hold positions without an en-passant capture", field="fen",
                         value=fen)
    if len(board.piece_map()) > ti.MAX_MEN:
        raise InputError(f"at most {ti.MAX_MEN} men are supported", field="fen", value=fen)
    signature, side, squares = squares_of(board)
    return signature, np.array([side]), np.array([squares], dtype=np.int64)


def squares_of(board: chess.BaseBoard | chess.Board) -> tuple[str, bool, list[int]]:
    """(signature, side to move, squares in layout order) without validation: the fast path."""
    white = "K" + "".join(sorted((chess.piece_symbol(t).upper()
                                  for t in (5, 4, 3, 2, 1) for _ in board.pieces(t, True)),
                                 key=ti.LETTERS.index))
    black = "K" + "".join(sorted((chess.piece_symbol(t).upper()
                                  for t in (5, 4, 3, 2, 1) for _ in board.pieces(t, False)),
                                 key=ti.LETTERS.index))
    cols = []
    seen: dict[tuple[bool, int], list[int]] = {}
    for colour, t in ti.layout(white + black).units:
        pool = seen.setdefault((colour, t), list(board.pieces(t, colour)))
        cols.append(pool.pop(0))
    return white + black, bool(getattr(board, "turn", True)), cols


def parse_fen(fen: str, field: str = "fen") -> chess.Board:
    """A python-chess board from a FEN (a board part alone means White to move)."""
    if not isinstance(fen, str) or len(fen) > 256:
        raise InputError("not a FEN (a string of at most 256 characters)", field=field, value=fen)
    text = fen.strip()
    if len(text.split()) == 1:
        text += " w - - 0 1"
    try:
        return chess.Board(text)
    except ValueError as e:
        raise InputError(f"malformed FEN: {e}", field=field, value=fen) from None
