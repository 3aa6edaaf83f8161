"""A verdict drawn under an assumption says so, and an assumption is never taken for a fact.

Found in review (2026-11-30): each case below is a position reached by a legal game (replayed
here with python-chess: the oracle), on which a problem stated an assumption that game breaks
(a frozen knight that moved, a deduce lemma that assumed its own claim, a list of retractions
without uncaptures). Before, `legal` and `lastmove` said "illegal" without naming the frozen
unit, `legal` called a deduce lemma's assumed claim "deduced" and the position illegal,
`deduce --no-explain` showed no assumption, `retract --uncaptures none` printed a bare 0.
"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from retrologic import problem
from retrologic.cli import main
from retrologic.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
# the g1 knight moved (Ng1-h3, Nh3-g1): "frozen g1" is false in this game
KNIGHT_BACK = "f4 g5 fxg5 f5 e3 f4 Nh3 f3 Bc4 f2+ Ke2 f1=R a3 Rg1 a4 Rxh1 Ng1"
# 2...dxe4 and 30.dxe5 are pawn captures d->e: "no capture d->e" is false in this game
D_TO_E = ("Nc3 d5 Ne4 dxe4 g4 h5 gxh5 Rxh5 h4 Rh8 Rh3 Nc6 Rf3 e5 d3 g5 Bd2 g4 Be3 Rb8 Bf4 Ra8 "
          "Bg3 Rb8 Rf4 Ra8 Nf3 exf3 Rc4 Bf5 e4 Rb8 exf5 Qe7 Kd2 Qg5+ hxg5 Ra8 f6 Rb8 Bh4 g3 Ke3 "
          "Rd8 Ke4 Rb8 Kf5 Rd8 Qd2 Rd4 Qd1 Rg4 Rf4 e4 Qd2 Ne5 d4 Kd7 dxe5+")


def played(game: str) -> chess.Board:
    board = chess.Board()
    for san in game.split():
        board.push_san(san)
    return board


def write(path: Path, text: str) -> Path:
    path.write_text('format = "retrologic/1"\n' + text)
    return path


@pytest.mark.parametrize("kind", ["legal", "last-move"])
def test_a_frozen_unit_is_named_in_the_verdict(tmp_path: Path, kind: str) -> None:
    fen = played(KNIGHT_BACK).fen()
    file = write(tmp_path / "p.toml", f'position = {{ fen = "{fen}", frozen = ["g1"] }}\n'
                                      f'question = {{ kind = "{kind}" }}\n')
    result = problem.solve(problem.load(file))
    assert result.verdict == "proved"            # true: no game keeps the g1 knight at home
    assert "g1 never moved" in (result.reason or "")
    assert "g1 never moved" in result.lines[0]


def test_a_frozen_unit_stands_at_home(tmp_path: Path) -> None:
    fen = played("Nf3").fen()
    file = write(tmp_path / "p.toml", f'position = {{ fen = "{fen}", frozen = ["f3"] }}\n'
                                      'question = { kind = "legal" }\n')
    with pytest.raises(InputError, match="no white knight starts the game there"):
        problem.load(file)
    assert main(["cage", "8/8/8/8/8/5N2/6PP/7r", "--frozen", "f3"]) == 3


def test_a_lemma_may_not_assume_its_claim(tmp_path: Path) -> None:
    fen = played(D_TO_E).fen()
    lemma = write(tmp_path / "lemma.toml", f'position = {{ fen = "{fen}" }}\n'
                  'question = { kind = "deduce", claim = ["no-pawn-capture-d-e"] }\n'
                  '[[constraint]]\nname = "assumed"\nrole = "assume"\n'
                  'expr = \'pawn_captures(either, from_file="d", to_file="e") == 0\'\n')
    cage = ROOT / "encodings" / "cages" / "hwa-fig7-ceriani-no-dxe.toml"
    legal = write(tmp_path / "legal.toml", f'position = {{ fen = "{fen}" }}\n'
                  'question = { kind = "legal" }\n'
                  f'lemmas = ["{lemma}", "{cage}"]\n')
    with pytest.raises(InputError, match="assumes assumed"):
        problem.solve(problem.load(legal))
    other = write(tmp_path / "other.toml", f'position = {{ fen = "{fen.replace(" b ", " w ")}" }}\n'
                  'question = { kind = "deduce", claim = ["no-pawn-capture-d-e"] }\n')
    legal.write_text(legal.read_text().replace(str(lemma), str(other)))
    with pytest.raises(InputError, match="another position"):   # another side to move
        problem.solve(problem.load(legal))


def test_deduce_names_its_assumptions_without_explanations(capsys) -> None:
    fen = played("e4 d5 exd5").fen()
    assert main(["deduce", fen, "--assume", "captures(white) == 0", "--claim",
                 "captures(black) == 5", "--no-explain", "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "under the assumptions assume1: captures(white) == 0" in out.splitlines()[1]
    assert "it is illegal if they hold" in out and "the position has no history" not in out


def test_deduce_json_lists_its_frozen_units(capsys) -> None:
    """Found in review (2026-11-30): with frozen units alone the JSON details' `assumed` list
    was empty, while the reason named them; they are listed as `frozen` now."""
    import json
    fen = "r1bqkbnr/pppppppp/8/8/4P3/4P3/PPP2PPP/RNBQKBNR b KQkq - 0 1"
    assert main(["deduce", fen, "--claim", "captures(black) == 0", "--frozen", "e1 h1",
                 "--json", "--timeout", "30"]) == 0
    details = json.loads(capsys.readouterr().out)["details"]
    assert details["frozen"] == ["e1", "h1"] and details["assumed"] == []
    assert main(["deduce", fen, "--claim", "captures(black) == 0", "--json"]) == 0
    details = json.loads(capsys.readouterr().out)["details"]
    assert "frozen" not in details and "assumed" not in details


def test_retractions_without_uncaptures_say_so(capsys) -> None:
    fen = played("g3 h5 Bg2 h4 Nf3 Nh6 O-O Ng8 Kh1 h3 Nh4 hxg2+").fen()
    assert main(["retract", fen, "--uncaptures", "none"]) == 0
    out = capsys.readouterr().out
    assert "0 retraction(s) (without uncaptures" in out
    assert main(["retract", fen]) == 0                  # the real ones are uncaptures
    assert "2 retraction(s)\n" in capsys.readouterr().out


def test_a_certificate_freezing_a_unit_away_from_home_is_rejected() -> None:
    """The engine's own certificate for a knight on f3 stated frozen (built through the API,
    which the problem-file check does not guard) said "the diagram is illegal"; a frozen unit
    never moved, so the checker now refuses it (certformat.frozen_mask)."""
    from dataclasses import replace

    from retrologic.certificate import check
    from retrologic.lastmove import search as lastmove
    from retrologic.lastmove.cages import closers_for
    from retrologic.position import Position
    pos = replace(Position.from_fen(played("Nf3").fen()), frozen=chess.BB_F3)
    closer, _ = closers_for([], discover=False, use_library=False)
    cert = lastmove.certificate(pos, 1, lastmove.solve(pos, 1, closers=[closer]))
    verdict = check(cert)
    assert not verdict.ok and "no unit of its type and colour starts" in verdict.reason


def test_a_stated_position_names_the_fields_that_differ() -> None:
    """Review of 2026-11-30: a stated side to move left open ("?") against the certificate's
    White read "the stated position ... w ... is not the certificate's ... w ..." (a FEN
    prints an open side as w). The rejection names the differing fields, sides spelled out."""
    from retrologic.certformat import Rejected, same_stated_position
    from retrologic.position import Position
    fen = "7R/7p/5P1k/4PKpP/8/8/8/8 w - - 0 1"
    same_stated_position({"fen": fen}, Position.from_fen(fen))          # the same: no fault
    with pytest.raises(Rejected, match=r"\(side to move: \? against white\)"):
        same_stated_position({"fen": fen, "to_move": "?"}, Position.from_fen(fen))
    with pytest.raises(Rejected, match=r"\(castling rights, e\.p\. square\)"):
        same_stated_position({"fen": "4k2r/8/8/3Pp3/8/8/8/4K3 w k e6 0 1"},
                             Position.from_fen("4k2r/8/8/3Pp3/8/8/8/4K3 w - - 0 1"))
