"""What a collection run shows besides the records: a progress bar per collection (tqdm, on
stderr), the final table (file, kind, verdict, expect met, time) and the `--csv` file (written
atomically), issue #20 "Collections".
"""

from __future__ import annotations

import contextlib
import csv
import io
import sys
from typing import Any, Iterator

from retrologic.errors import printable
from retrologic.files import atomic_write_text

CSV_FIELDS = ("file", "title", "kind", "verdict", "outcome", "expect_met", "status", "seconds",
              "error")


def expect_cell(record: dict[str, Any]) -> str:
    """The 'expect met' column: met, NOT MET, not decided (a limit hit), or '-' (no [expect])."""
    expect = record.get("expect")
    if expect is None:
        return "-"
    met = expect.get("met")
    return "not decided" if met is None else ("met" if met else "NOT MET")


def verdict_cell(record: dict[str, Any]) -> str:
    if "error" in record:
        return f"error ({record['status']})"
    return str(record.get("verdict", ""))


def table(rows: list[tuple[dict[str, Any], float]]) -> str:
    """The final table of a collection: one line per finished problem, in input order."""
    head = ("file", "kind", "verdict", "expect met", "time")
    body = [(printable(str(r["file"])), str(r.get("kind", "-")), verdict_cell(r), expect_cell(r),
             f"{seconds:.2f} s") for r, seconds in rows]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(cell.rjust(w) if i == 4 else cell.ljust(w)
                       for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head, *body]]
    return "\n".join([lines[0], "  ".join("-" * w for w in widths), *lines[1:]])


def csv_text(rows: list[tuple[dict[str, Any], float]]) -> str:
    """The CSV file of a run: a header, then one row per finished problem, in input order."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r, seconds in rows:
        met = (r.get("expect") or {}).get("met")
        row = [r["file"], r.get("title", ""), r.get("kind", ""), r.get("verdict", ""),
               r["outcome"], "" if met is None else str(met).lower(), r["status"],
               f"{seconds:.3f}", (r.get("error") or {}).get("message", "")]
        # a file name that is not UTF-8 (lone surrogates, also in the default title and in
        # error messages) is written escaped, as on screen
        writer.writerow([printable(c) if isinstance(c, str) else c for c in row])
    return out.getvalue()


def write_csv(path: str, rows: list[tuple[dict[str, Any], float]]) -> None:
    """Write the CSV file atomically (a temporary file renamed over it)."""
    atomic_write_text(path, csv_text(rows))


class Bars:
    """One tqdm bar per collection on stderr, or nothing (stderr not a terminal and no
    --progress, or tqdm missing)."""

    def __init__(self, totals: dict[str, int], show: bool) -> None:
        self.bars: dict[str, Any] = {}
        if not show:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._tqdm = tqdm
        for position, (name, total) in enumerate(totals.items()):
            self.bars[name] = tqdm(total=total, desc=name, unit="problem", file=sys.stderr,
                                   position=position, leave=True, dynamic_ncols=True)

    def advance(self, group: str) -> None:
        bar = self.bars.get(group)
        if bar is not None:
            bar.update(1)

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """Clear the bars while records or error lines are printed, then redraw them."""
        if not self.bars:
            yield
            return
        with self._tqdm.external_write_mode(file=sys.stderr):
            yield

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.bars = {}
