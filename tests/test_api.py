"""The public API (`retrologic.retractions`, `is_legal`, `verify_cage`, `deduce`, `last_move`,
`solve_spg`), called as the layout issue shows, against independent oracles: python-chess
replays every retraction and every proof game, the problem files' published or hand-argued
answers stand for the rest. Also: `import retrologic` loads no solver, results are plain JSON."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import chess
import chess.pgn
import pytest

import retrologic
from retrologic.result import VERDICTS, Result, Verdict

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ("retractions", "is_legal", "verify_cage", "deduce", "last_move", "solve_spg")


def toml(path: str) -> dict:
    return tomllib.loads((ROOT / path).read_text())


def plain_json(result: Result) -> dict:
    """The result's JSON form, asserted to be made of plain JSON types only."""
    data = result.to_json()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert type(data["verdict"]) is str and type(data["facts"]["verdict"]) is str
    return data


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


# -- the package's top level ---------------------------------------------------------------------

def test_import_loads_no_solver_and_no_chess():
    out = run_python("import retrologic, sys; print([m for m in sys.modules if m.startswith("
                     "('chess','ortools','pysat','numpy'))])")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_issue_command_prints_the_retractions():
    out = run_python("import retrologic, chess; print(retrologic.retractions(chess.Board()))")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "retractions: proved"
    # Black moved last in the initial array: only a knight can have moved (to b8 or g8)
    assert {line.split()[0] for line in lines[2:]} == {"Na6-b8", "Nc6-b8", "Nf6-g8", "Nh6-g8"}


def test_public_names():
    assert set(PUBLIC) <= set(retrologic.__all__) <= set(dir(retrologic))
    assert set(retrologic.__all__) == {"__version__", *retrologic._LAZY}
    for name in PUBLIC:
        assert callable(getattr(retrologic, name))
    assert retrologic.Result is Result and retrologic.Verdict is Verdict
    with pytest.raises(AttributeError):
        retrologic.no_such_name  # noqa: B018


def test_py_typed_is_shipped():
    assert (ROOT / "retrologic" / "py.typed").is_file()
    data = toml("pyproject.toml")
    assert "py.typed" in data["tool"]["setuptools"]["package-data"]["retrologic"]


def test_verdict_is_a_str_enum():
    assert VERDICTS == ("proved", "refuted", "unknown")
    r = Result("legal", "refuted", "x", reason="why", lines=["a line not in the repr"])
    assert r.verdict is Verdict.REFUTED and r.verdict == "refuted"
    assert repr(r) == "Result(kind='legal', verdict='refuted', answer='x', reason='why')"
    assert str(r) == "legal: refuted (why)\n  a line not in the repr"
    assert json.dumps(r.to_json()["verdict"]) == '"refuted"'
    with pytest.raises(ValueError):
        Result("legal", "maybe")


# -- each public function ------------------------------------------------------------------------

def _game(sans: list[str]) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


@pytest.mark.parametrize("sans", [
    [],                                                        # the initial array
    ["e4", "d5", "e5", "f5", "exf6"],                          # en passant
    ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"],           # castling
    ["h4", "g5", "hxg5", "h6", "gxh6", "Bg7", "hxg7", "Nf6", "gxh8=N"],  # capture-promotion
])
def test_retractions_replay_forward_with_python_chess(sans):
    board = _game(sans)
    result = retrologic.retractions(board)
    data = plain_json(result)
    rows = data["details"]["retractions"]
    assert result.verdict == "proved" and data["facts"]["count"] == len(rows) > 0
    if sans:                                   # the move played is among the retractions
        assert board.peek().uci() in {row["uci"] for row in rows}
    for row in rows:                           # each one, replayed forward, gives the position
        before = chess.Board(row["predecessor"])
        move = chess.Move.from_uci(row["uci"])
        assert before.is_legal(move), row
        before.push(move)
        assert (before.board_fen(), before.turn) == (board.board_fen(), board.turn), row
    # the same position as a FEN string gets the same answer
    assert retrologic.retractions(board.fen(en_passant="fen")).to_json() == data


def test_brandis_retractions_open_uncaptures():
    want = toml("problems/retractions/brandis.toml")
    result = retrologic.retractions(want["position"]["fen"], uncaptures="open")
    assert sorted(result.answer) == sorted(want["expect"]["answer"])


def test_is_legal_initial_array_and_adjacent_kings():
    initial = retrologic.is_legal(chess.Board())
    assert chess.Board().is_valid()            # python-chess: the initial array is legal
    # legal, proved by construction: the empty game (checked by the legal-game replay)
    assert (initial.verdict, initial.answer, initial.details["uci"]) == ("proved", "legal", [])
    for position in ("8/8/8/8/8/8/8/Kk6 w - - 0 1", chess.Board("8/8/8/8/8/8/8/Kk6 w - - 0 1")):
        assert chess.Board("8/8/8/8/8/8/8/Kk6 w - - 0 1").status() & chess.STATUS_OPPOSITE_CHECK
        result = retrologic.is_legal(position)
        data = plain_json(result)
        assert (result.verdict, result.answer) == ("proved", "illegal")
        assert {"opposite-check", "both-in-check"} <= set(result.facts["rules"])
        assert data["details"]["reasons"][0]["message"]
    partial = retrologic.is_legal("8/8/8/8/8/8/8/Kk6")     # a board string: either side to move
    assert partial.verdict == "proved" and partial.facts["rules"] == ["both-in-check"]


def test_verify_cage_known_cage_and_figure_4():
    entry = toml("encodings/cages/hwa-fig2-brandis-corner.toml")
    result = retrologic.verify_cage(entry["board"], zone=entry["zone"], frozen=entry["frozen"])
    plain_json(result)
    assert (result.verdict, result.answer) == ("proved", "cage")
    assert result.facts["states"] == entry["states"]
    fig4 = toml("problems/cages/fig4-not-a-cage.toml")     # Hwa: looks like a cage, is not
    escape = retrologic.verify_cage(fig4["position"]["board"])
    assert (escape.verdict, escape.answer) == ("refuted", "not verified")
    assert escape.facts["escape"] == fig4["expect"]["escape"]
    limited = retrologic.verify_cage(entry["board"], nodes=1)
    assert limited.verdict == "unknown" and limited.reason == "node limit 1"


def test_deduce_claims_of_a_problem_file():
    problem = toml("problems/deduce/d-pawn-took-on-e.toml")
    claims = [f"{c['name']}: {c['expr']}" for c in problem["constraint"]]
    result = retrologic.deduce(problem["position"]["fen"], claims)
    plain_json(result)
    assert result.verdict == "proved"
    assert sorted(result.answer) == sorted(problem["expect"]["answer"])
    assert result.facts["illegal"] is False
    bishops = toml("problems/deduce/two-light-bishops.toml")   # no claim: has it a history?
    none = retrologic.deduce(chess.Board(bishops["position"]["fen"]))
    assert (none.verdict, none.answer) == ("proved", "illegal")
    assert sorted(none.facts["core"]) == sorted(bishops["expect"]["core"])


def test_last_move_g7_g5_and_its_game():
    """Every other candidate impossible; g7-g5 proved possible by a legal game that python-chess
    replays to the diagram (the e.p. convention: the FEN's "-" leaves e.p. open, issue #19)."""
    problem = toml("problems/lastmove/g7-g5.toml")
    result = retrologic.last_move(problem["position"]["fen"], plies=1)
    data = plain_json(result)
    assert (result.verdict, result.answer) == ("proved", problem["expect"]["answer"])
    assert sorted(result.facts["impossible"]) == sorted(problem["expect"]["impossible"])
    diagram = chess.Board(problem["position"]["fen"])
    [possible] = [c for c in data["details"]["candidates"] if c["status"] == "possible"]
    game = chess.pgn.read_game(io.StringIO(possible["pgn"]))   # python-chess replays it
    board = game.board()
    for move in game.mainline_moves():
        assert board.is_legal(move)
        board.push(move)
    assert board.board_fen() == diagram.board_fen() and board.peek().uci() == "g7g5"
    limited = retrologic.last_move(problem["position"]["fen"], nodes=1)
    assert limited.verdict == "unknown" and limited.reason.startswith("node limit 1")


def test_solve_spg_finds_the_published_game():
    problem = toml("problems/spg/schweig-1938.toml")          # Schweig, Tükör 1938, 4.0
    result = retrologic.solve_spg(problem["position"]["fen"], problem["question"]["moves"])
    data = plain_json(result)
    assert result.verdict == "proved" and result.facts["status"] == "unique"
    assert result.answer == problem["expect"]["answer"]
    game = chess.pgn.read_game(io.StringIO(data["details"]["pgn"][0]))
    board = chess.Board()
    for move in game.mainline_moves():
        board.push(move)                       # raises on an illegal move
    assert board.board_fen() == problem["position"]["fen"].split()[0]
    assert len(board.move_stack) == 8


def test_bad_input_is_an_input_error():
    with pytest.raises(retrologic.InputError):
        retrologic.retractions("not a position")
    with pytest.raises(retrologic.InputError):
        retrologic.deduce("8/8/8/8/8/8/8/K1k5", "captures(white) == 0")   # needs a full one
    with pytest.raises(retrologic.InputError):
        retrologic.last_move(chess.Board(), plies=0)
    with pytest.raises(retrologic.InputError):
        retrologic.solve_spg(chess.Board(), "4.2")


ONE_MISSING = "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w Qkq - 0 1"
CORNER = "8/8/8/8/8/8/PPkPP3/KR1b4"


@pytest.mark.parametrize("call, field", [
    (lambda: retrologic.deduce(ONE_MISSING, 5), "claims"),
    (lambda: retrologic.deduce(ONE_MISSING, [5]), "claims[0]"),
    (lambda: retrologic.deduce(ONE_MISSING, b"captures(white) == 0"), "claims"),
    (lambda: retrologic.deduce(ONE_MISSING, "captures(white) == 0", certificate_dir=5),
     "certificate_dir"),
    (lambda: retrologic.deduce(ONE_MISSING, "captures(white) == 0", explain="no"), "explain"),
    (lambda: retrologic.deduce(ONE_MISSING, "captures(white) == 0", frozen=["e4"]), "frozen"),
    (lambda: retrologic.deduce(ONE_MISSING, "captures(white) == 0", timeout=-math.inf),
     "timeout"),
    (lambda: retrologic.is_legal(ONE_MISSING, lemmas=[3]), "lemmas"),
    (lambda: retrologic.last_move(ONE_MISSING, lemmas=[1]), "lemmas"),
    (lambda: retrologic.last_move(ONE_MISSING, to_move="x"), "to_move"),
    (lambda: retrologic.last_move(ONE_MISSING, library="x"), "library"),
    (lambda: retrologic.verify_cage(CORNER, library=3), "library"),
    (lambda: retrologic.verify_cage(CORNER, zone=1 << 100), "zone"),
    (lambda: retrologic.verify_cage(CORNER, zone=-1), "zone"),
    (lambda: retrologic.verify_cage(CORNER, frozen=1 << 100), "frozen"),
    (lambda: retrologic.verify_cage(CORNER, restrictions=[{"foo": 1}]), "constraint[0].expr"),
    (lambda: retrologic.verify_cage(CORNER, restrictions="foo("), "restrictions[0]"),
    (lambda: retrologic.retractions(ONE_MISSING, counts="no"), "counts"),
    (lambda: retrologic.solve_spg(chess.Board(), 1.0, strategies="no"), "strategies"),
])
def test_a_bad_argument_is_an_input_error_naming_it(call, field):
    """The API review of 2026-11-30: each of these was a TypeError, AttributeError, KeyError or
    IndexError deep in the engine, a message blaming the position, or silently taken."""
    with pytest.raises(retrologic.InputError) as e:
        call()
    assert e.value.field == field, str(e.value)


def test_legitimate_forms_still_pass():
    """What the checks must not refuse (second read of the change): 1 and 0 as flags, any
    os.PathLike path, numbers as numbers in unordered expectations."""
    from pathlib import PurePosixPath
    from retrologic.result import Result, compare_expect
    assert str(retrologic.retractions(ONE_MISSING, counts=1).verdict) == "proved"
    fig3 = Path(retrologic.__file__).parent.parent / "encodings" / "cages" / \
        "hwa-fig3-perpetual-bishop.toml"
    assert str(retrologic.is_legal(ONE_MISSING, lemmas=[PurePosixPath(fig3)]).verdict) == "proved"
    listed = Result("x", "proved", [1, 2], facts={"answer": [1, 2]},
                    unordered=frozenset({"answer"}))
    assert compare_expect(listed, {"answer": [2.0, 1]}) == []
    assert compare_expect(listed, {"answer": [True, 2]})


def test_a_lemma_path_given_alone_is_one_path(tmp_path):
    with pytest.raises(retrologic.InputError) as e:      # not 'f: no such file'
        retrologic.is_legal(ONE_MISSING, lemmas=str(tmp_path / "foo.toml"))
    assert "foo.toml" in str(e.value)


def test_to_json_holds_plain_types_only():
    """Verdict, Status and Escape enums and tuples were left in the facts and details:
    yaml.safe_dump refused them."""
    yaml = pytest.importorskip("yaml")
    for result in (retrologic.deduce(ONE_MISSING, "captures(black) == 0"),
                   retrologic.last_move("8/8/8/8/1k6/P7/1K6/8 b - - 0 1"),
                   retrologic.verify_cage("8/8/8/8/8/8/6PP/6Nr")):
        record = result.to_json()
        assert yaml.safe_load(yaml.safe_dump(record)) == json.loads(json.dumps(record))
