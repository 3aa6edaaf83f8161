"""The DTM histogram of a table as a PNG (matplotlib, imported only here)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from retrologic.tablebase import retrograde as rg
from retrologic.errors import InputError
from retrologic.files import atomic_write_bytes, refused_writes
from retrologic.tablebase.table import Table


def histogram(table: Table) -> dict[str, np.ndarray]:
    """Positions per distance to mate in moves, for wins (side to move mates) and losses
    (side to move is mated), over the canonical legal positions."""
    out = {}
    for name, code in (("wins", rg.WIN), ("losses", rg.LOSS)):
        d = table.dist[table.outcome == code].astype(np.int64)
        moves = (d + 1) // 2 if code == rg.WIN else d // 2
        out[name] = np.bincount(moves, minlength=1)
    return out


def plot(table: Table, path: str | Path) -> Path:
    """Write the histogram of `table` to `path` (PNG) and return the path."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plotting needs matplotlib (pip install matplotlib)", field="--plot",
                         value=str(path)) from None
    hist = histogram(table)
    stats = table.stats()
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    width = 0.4
    for shift, (name, counts) in zip((-width / 2, width / 2), hist.items()):
        ax.bar(np.arange(len(counts)) + shift, counts, width=width,
               label=f"side to move {'mates' if name == 'wins' else 'is mated'} ({counts.sum():,})")
    ax.set_xlabel("distance to mate (moves)")
    ax.set_ylabel("positions (symmetry-reduced)")
    ax.set_title(f"{table.signature}: DTM histogram, longest mate {stats['longest_mate']} moves; "
                 f"draws {stats['white_to_move_draws'] + stats['black_to_move_draws']:,}")
    ax.legend()
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png")
    plt.close(fig)
    with refused_writes(field="--plot", value=str(path)):     # atomically, as every file
        return atomic_write_bytes(path, image.getvalue())
