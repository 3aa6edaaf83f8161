"""Pictures (issue #20, item 3): the SVG of each question is python-chess's board with the
right squares shaded, marked and arrowed, read back from the SVG itself (square geometry of
chess.svg: 45-unit squares from a 15-unit margin) and compared with the engine's own answer
and with python-chess replaying the game; files written by --svg / --svg-steps; notebooks'
_repr_svg_; PGN tags read back by python-chess."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import chess
import chess.pgn
import pytest

import retrologic
from retrologic import cli
from retrologic.pictures import frames, pgn, svg
from retrologic.position import parse

ROOT = Path(__file__).resolve().parent.parent
NS = "{http://www.w3.org/2000/svg}"
F4 = "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R"


def _square(rect: ET.Element) -> str:
    """The square a chess.svg fill rectangle covers (white at the bottom)."""
    x, y = float(rect.get("x")), float(rect.get("y"))
    return chess.square_name(chess.square(int((x - 15) // 45), 7 - int((y - 15) // 45)))


def _filled(svg_text: str, colour: str) -> set[str]:
    root = ET.fromstring(svg_text)
    return {_square(r) for r in root.iter(f"{NS}rect") if r.get("fill") == colour
            and "class" not in r.attrib}


def _marked(svg_text: str) -> set[str]:
    root = ET.fromstring(svg_text)
    return {chess.square_name(chess.square(int((float(u.get("x")) - 15) // 45),
                                           7 - int((float(u.get("y")) - 15) // 45)))
            for u in root.iter(f"{NS}use") if u.get("href") == "#xx"}


def test_cage_picture_shades_the_verified_zone_and_marks_frozen_units(tmp_path) -> None:
    out = tmp_path / "cage.svg"
    status = cli.main(["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--frozen", "a2", "--svg", str(out),
                       "--json"])
    assert status == 0
    text = out.read_text()
    result = retrologic.verify_cage("8/8/8/8/8/8/PPkPP3/KR1b4", frozen=["a2"])
    zone = set(result.facts["zone"])
    assert _filled(text, svg.ZONE[:7]) | _filled(text, svg.FROZEN[:7]) == zone
    assert _filled(text, svg.FROZEN[:7]) == _marked(text) == {"a2"}


def test_retractions_picture_has_one_arrow_per_retraction(tmp_path) -> None:
    fen = "8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1"
    out = tmp_path / "r.svg"
    assert cli.main(["retract", fen, "--svg", str(out), "--json"]) == 0
    result = retrologic.retractions(fen)
    heads = ET.fromstring(out.read_text()).iter(f"{NS}polygon")
    assert sum(1 for p in heads if p.get("class") == "arrow") == result.facts["count"]


def test_lastmove_picture_arrows_the_live_candidates_and_shows_their_predecessors() -> None:
    fen = "8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1"
    result = retrologic.last_move(fen, timeout=1.0)
    text = result._repr_svg_()
    live = [c for c in result.details["candidates"] if c["status"] != "impossible"]
    assert live, "Brandis keeps at least Ka2-a1 open"
    root = ET.fromstring(text)
    boards = [e for e in root if e.tag == f"{NS}svg"]
    assert len(boards) == 1 + min(2, sum(svg.predecessor(parse(fen=fen), c["notation"]) is not None
                                         for c in live[:2]))
    # the predecessor of Ka2-a1, checked with python-chess: the white king back on a2, White to move
    before = svg.predecessor(parse(fen=fen), "Ka2-a1")
    board = before.to_board()
    assert board.piece_at(chess.A2) == chess.Piece(chess.KING, chess.WHITE)
    assert board.turn == chess.WHITE and board.is_valid()
    board.push(chess.Move.from_uci("a2a1"))
    assert board.board_fen() == chess.Board(fen).board_fen()


def test_spg_steps_replay_the_game_to_the_diagram(tmp_path) -> None:
    out = tmp_path / "game.svg"
    assert cli.main(["spg", F4, "--moves", "1.5", "--svg", str(out), "--svg-steps", "--json"]) == 0
    files = sorted(tmp_path.glob("game-*.svg"))
    game = chess.pgn.read_game(io.StringIO(retrologic.solve_spg(F4, 1.5).details["pgn"][0]))
    board = game.board()
    assert len(files) == len(list(game.mainline_moves())) + 1
    for path, move in zip(files[1:], game.mainline_moves()):
        board.push(move)
        assert f"<pre>{board}</pre>" in path.read_text()     # chess.svg's text of the board
    assert board.board_fen() == F4
    page = tmp_path / "game.html"
    assert cli.main(["spg", F4, "--moves", "1.5", "--svg", str(page), "--svg-steps", "--json"]) == 0
    data = json.loads(re.search(r"const frames = (\[.*?\]);\n", page.read_text(), re.S)
                      .group(1).replace("<\\/", "</"))
    assert [c for c, _ in data][1:] == ["1.f4 (1/3)", "1...f5 (2/3)", "2.Nf3 (3/3)"]


def test_svg_needs_a_game_for_steps_and_errors_are_one_line(tmp_path, capsys) -> None:
    status = cli.main(["spg", "rnbqkbnr/pppppppp/8/8/8/N7/PPPPPPPP/R1BQKBNR", "--moves", "1.0",
                       "--svg", str(tmp_path / "x.html"), "--svg-steps"])
    err = capsys.readouterr().err
    assert status == 3 and "--svg-steps" in err and len(err.strip().splitlines()) == 1
    status = cli.main(["legal", "8/8/8/8/8/8/8/Kk6 w - - 0 1", "--svg",
                       str(tmp_path / "missing" / "dir" / "x.svg")])
    assert status in (0, 3)           # a new directory is made, or a one-line error
    assert len(capsys.readouterr().err.strip().splitlines()) <= 1


def test_notebook_reprs_are_svg() -> None:
    pos = parse(board="8/8/8/8/8/8/PPkPP3/KR1b4", frozen=["a2"])
    text = pos._repr_svg_()
    assert _marked(text) == {"a2"}
    result = retrologic.retractions(chess.Board())
    assert ET.fromstring(result._repr_svg_()).tag == f"{NS}svg"
    assert retrologic.result.Result("legal", "unknown")._repr_svg_() is None
    assert ET.fromstring(retrologic.solve_spg(F4, 1.5)._repr_svg_()).tag == f"{NS}svg"


def test_pgn_headers_from_the_problem_meta_read_back_by_python_chess() -> None:
    meta = {"title": "T", "authors": ["Wilts, Gerd", "Frolkin, Andrey"], "source": "Die Schwalbe"}
    text = pgn.with_headers(retrologic.solve_spg(F4, 1.5).details["pgn"][0], meta, "PG 1.5")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game.headers["White"] == "Wilts, Gerd; Frolkin, Andrey"
    assert game.headers["Site"] == "Die Schwalbe" and game.headers["Event"] == "T"
    assert game.headers["Stipulation"] == game.headers["Black"] == "PG 1.5"
    assert game.end().board().board_fen() == F4


def test_solving_a_problem_file_puts_its_meta_in_the_pgn() -> None:
    from retrologic import problem as problem_mod
    prob = problem_mod.load(ROOT / "problems/spg/f4-f5-nf3.toml")
    result = problem_mod.solve(prob)
    game = chess.pgn.read_game(io.StringIO(result.details["pgn"][0]))
    assert game.headers["Event"] == prob.meta["title"]
    assert game.headers["Site"] == prob.meta["source"]
    assert result._repr_svg_() is not None
    # the text output's PGN carries the same tags (it kept Event "Proof game" before)
    text = "\n".join(result.lines)
    assert f'[Event "{prob.meta["title"]}"]' in text and '[Event "Proof game"]' not in text


@pytest.mark.parametrize("notation, squares", [("Ka2-a1", ("a2", "a1")), ("a2xRb3", ("a2", "b3")),
                                               ("e7-e8=Q", ("e7", "e8")), ("O-O", None)])
def test_move_squares(notation, squares) -> None:
    got = svg.move_squares(notation)
    assert (None if got is None else tuple(map(chess.square_name, got))) == squares


def test_frames_of_a_game_count_plies() -> None:
    moves = [chess.Move.from_uci(u) for u in ("e2e4", "e7e5")]
    assert [c for c, _ in frames.frames(moves)] == ["start", "1.e4 (1/2)", "1...e5 (2/2)"]
