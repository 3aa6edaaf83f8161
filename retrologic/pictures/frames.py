"""A game as pictures (issue #20, item 3, `spg --svg-steps`): one chess.svg board per ply from
the initial array (the move just played highlighted), written as numbered SVG files or as one
HTML page that steps through them (buttons, arrow keys, play) with no script library.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Sequence

import chess

from retrologic.files import atomic_write_text
from retrologic.pictures.svg import diagram


def frames(moves: Sequence[chess.Move], start: chess.Board | None = None) -> list[tuple[str, str]]:
    """(caption, SVG) for the start and after each ply: the caption is the move in SAN."""
    board = chess.Board() if start is None else start.copy()
    out = [("start", diagram(board))]
    for i, move in enumerate(moves):
        number = f"{board.fullmove_number}." + ("" if board.turn else "..")
        san = board.san(move)
        board.push(move)
        out.append((f"{number}{san} ({i + 1}/{len(moves)})", diagram(board, lastmove=move)))
    return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:1em}} #board svg{{width:400px;height:400px}}</style>
</head><body><h1>{title}</h1>
<div id="board"></div><p id="caption"></p>
<p><button id="first">|&lt;</button> <button id="prev">&lt;</button>
<button id="play">play</button> <button id="next">&gt;</button> <button id="last">&gt;|</button></p>
<script>
const frames = {frames};
let i = 0, timer = null;
function show(k) {{ i = Math.max(0, Math.min(frames.length - 1, k));
  document.getElementById("board").innerHTML = frames[i][1];
  document.getElementById("caption").textContent = frames[i][0]; }}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(i - 1);
document.getElementById("next").onclick = () => show(i + 1);
document.getElementById("last").onclick = () => show(frames.length - 1);
document.getElementById("play").onclick = () => {{ if (timer) {{ clearInterval(timer); timer = null; return; }}
  if (i >= frames.length - 1) show(0);
  timer = setInterval(() => {{ if (i >= frames.length - 1) {{ clearInterval(timer); timer = null; }} else show(i + 1); }}, 900); }};
document.addEventListener("keydown", e => {{ if (e.key === "ArrowRight") show(i + 1); if (e.key === "ArrowLeft") show(i - 1); }});
show(0);
</script></body></html>
"""


def page(shots: Sequence[tuple[str, str]], title: str) -> str:
    """One HTML page stepping through the frames (JSON-embedded; '</' escaped for <script>)."""
    data = json.dumps(list(shots)).replace("</", "<\\/")
    return PAGE.format(title=html.escape(title), frames=data)


def write_steps(path: str | Path, shots: Sequence[tuple[str, str]], title: str) -> list[Path]:
    """Write the frames: FILE.html -> one page; otherwise FILE-000.svg, FILE-001.svg, ... beside
    FILE's name (atomically, each). Returns the paths written."""
    path = Path(path)
    if path.suffix.lower() in (".html", ".htm"):
        return [atomic_write_text(path, page(shots, title))]
    stem = path.with_suffix("")
    return [atomic_write_text(Path(f"{stem}-{i:03d}.svg"), svg) for i, (_, svg) in enumerate(shots)]
