"""The game's start in last-move questions (audit of 2026-12-05): the initial array may need no
last move at all, and a line of retractions may reach it before the question's plies run out.

Two false accepts of the `lastmove-proof` checker, both written by the engine itself: the initial
array with the side to move open and knights frozen was "illegal" (every candidate impossible,
the empty history forgotten), and the position after 1.e4 was "illegal" for the last 2 plies
(only 2-ply lines were candidates, so the real history, e2-e4 alone, was never one).
Oracles: python-chess replays of the games, and the forged certificates the audit built.
"""

from __future__ import annotations

import copy

import chess

from retrologic.certificate import check
from retrologic.lastmove import search as lastmove
from retrologic.legality import rules
from retrologic.position import GAME_START, Position, parse

START = chess.STARTING_FEN
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def _solved(pos: Position, plies: int) -> tuple[lastmove.LastMoveResult, dict]:
    res = lastmove.solve(pos, plies)
    return res, lastmove.certificate(pos, plies, res)


def _without(cert: dict, notation: str) -> dict:
    out = copy.deepcopy(cert)
    out["candidates"] = [e for e in out["candidates"] if e["notation"] != notation]
    return out


def test_the_initial_array_with_the_side_open_is_its_empty_history() -> None:
    pos = parse(fen=START, to_move="?", frozen=["b8", "g8"])
    res, cert = _solved(pos, 1)
    assert res.finding == lastmove.Finding.UNIQUE and res.answer == [GAME_START]
    # White's four knight retractions are each impossible (Black never moved), and only those
    impossible = sorted(c.notation for c in res.candidates if c.status == "impossible")
    assert impossible == ["Na3-b1", "Nc3-b1", "Nf3-g1", "Nh3-g1"]
    verdict = check(cert)
    assert verdict.ok and "no move has been played: the diagram is the initial array" in \
        verdict.reason and "the other 4 candidate(s) impossible" in verdict.reason
    # the audit's forgery: every listed candidate impossible, "the diagram is illegal"
    forged = _without(cert, GAME_START)
    verdict = check(forged)
    assert not verdict.ok and "the candidate list" in verdict.reason, verdict.reason
    # with every knight frozen, no candidate at all but the empty one (an empty list: forged)
    pos = parse(fen=START, to_move="?", frozen=["b1", "g1", "b8", "g8"])
    res, cert = _solved(pos, 1)
    assert [(c.notation, c.status, c.game) for c in res.candidates] == \
        [(GAME_START, "possible", [])]
    assert check(cert).ok and not check(_without(cert, GAME_START)).ok


def test_the_empty_history_is_never_impossible_and_its_game_is_empty() -> None:
    _, cert = _solved(parse(fen=START, to_move="?", frozen=["b8", "g8"]), 1)
    entry = next(e for e in cert["candidates"] if e["notation"] == GAME_START)
    bad = copy.deepcopy(cert)
    tampered = next(e for e in bad["candidates"] if e["notation"] == GAME_START)
    tampered.pop("game")
    tampered.update(status="impossible", proof={"fen": START, "rule": "retro-stalemate",
                                                "message": "x"})
    assert not check(bad).ok
    bad = copy.deepcopy(cert)
    tampered = next(e for e in bad["candidates"] if e["notation"] == GAME_START)
    tampered["game"] = ["g1f3", "g8f6", "f3g1", "f6g8"]    # reaches it, but after 4 moves
    verdict = check(bad)
    assert not verdict.ok and "empty game" in verdict.reason, verdict.reason
    assert entry["game"] == [] and entry["uci"] == []


def test_a_history_shorter_than_the_plies_asked_is_a_candidate() -> None:
    pos = parse(fen=AFTER_E4, frozen=["b1", "g1", "d1", "f1"])
    res, cert = _solved(pos, 2)
    short = [c for c in res.candidates if c.notation == "e2-e4"]
    assert len(short) == 1 and short[0].status == "possible" and \
        [m.uci() for m in short[0].game] == ["e2e4"]
    assert res.finding == lastmove.Finding.UNIQUE and res.answer == ["e2-e4"]
    verdict = check(cert)
    assert verdict.ok and "unique, each shown by a legal game: e2-e4" in verdict.reason
    # the audit's forgery: the 2-ply lines alone, all impossible, "the diagram is illegal"
    forged = _without(cert, "e2-e4")
    verdict = check(forged)
    assert not verdict.ok and "the candidate list" in verdict.reason, verdict.reason
    # python-chess: the game 1.e4 reaches the diagram
    board = chess.Board()
    board.push_uci("e2e4")
    assert board.epd() == chess.Board(AFTER_E4).epd()


def test_a_history_shorter_than_asked_is_its_own_moves_from_the_start() -> None:
    """Review of 2026-12-06: after 1.e4 with the kingside rights lost (Qq), the history "e2-e4
    alone" is impossible (1.e4 keeps KQkq), but the engine called it possible with a 9-ply game
    (its finder reached the array with the rights lost: 1.Nh3 Nh6 2.Rg1 Rg8 3.Rh1 Rh8 4.Ng1 Ng8
    5.e4) and the checker accepted that. Now the candidate is unresolved ("no game can show it"),
    the answer stays several (63 shown possible), and the forged game is rejected."""
    fen = AFTER_E4.replace("KQkq", "Qq")
    pos = parse(fen=fen)
    res, cert = _solved(pos, 2)
    short = [c for c in res.candidates if c.notation == "e2-e4"]
    assert len(short) == 1 and short[0].began and short[0].status == "unresolved"
    assert "castling rights KQkq" in short[0].reason
    shown = [c.notation for c in res.candidates if c.status == "possible"]
    assert res.finding == lastmove.Finding.SEVERAL and len(shown) == 63 and "e2-e4" not in shown
    assert check(cert).ok
    forged = copy.deepcopy(cert)
    entry = next(e for e in forged["candidates"] if e["notation"] == "e2-e4")
    entry["status"] = "possible"
    entry["game"] = "g1h3 g8h6 h1g1 h8g8 g1h1 g8h8 h3g1 h6g8 e2e4".split()
    board = chess.Board()
    for uci in entry["game"]:
        board.push_uci(uci)             # python-chess: the forged game does reach the diagram
    assert board.epd() == chess.Board(fen).epd()
    verdict = check(forged)
    assert not verdict.ok and "its game is its own moves" in verdict.reason, verdict.reason


def test_the_initial_array_is_no_retro_stalemate_with_frozen_units() -> None:
    """`legal` called the initial array with Black's knights frozen illegal (retro-stalemate:
    the exception for the game's start compared the frozen units and the side to move too)."""
    for pos in (Position.from_fen(START, frozen=chess.BB_B8 | chess.BB_G8),
                parse(fen=START, to_move="?", frozen=["b1", "g1", "b8", "g8"])):
        assert rules.retro_stalemate_reasons(pos) == []
    # still a retro-stalemate when Black is to move (White moved last and cannot have)
    black = Position.from_fen(START.replace(" w ", " b "), frozen=chess.BB_RANK_1)
    assert rules.retro_stalemate_reasons(black)


def test_a_proof_retraction_with_a_list_for_its_uncapture_is_rejected_by_name() -> None:
    """Audit of 2026-12-05: `uncapture: []` was rejected as "TypeError: unhashable type"."""
    _, cert = _solved(parse(fen=START, to_move="?", frozen=["b8", "g8"]), 1)
    bad = copy.deepcopy(cert)
    entry = next(e for e in bad["candidates"] if e["status"] == "impossible")
    node = entry["proof"]
    node.pop("rule", None)
    node.pop("message", None)
    node["retractions"] = [{"retraction": "x", "uci": "a1a2", "uncapture": [], "proof": {}}]
    verdict = check(bad)
    assert not verdict.ok and "'uncapture' a piece type or null" in verdict.reason, \
        verdict.reason


def test_a_candidates_flags_must_have_their_own_types() -> None:
    """Audit of 2026-12-05: `uncaptures: [2.0]` and `en_passant: [0]` passed for [2] and [False]
    (equal in Python, not what the certificate format says)."""
    _, cert = _solved(Position.from_fen("k1K5/8/8/8/8/8/7P/6B1 w - - 0 1"), 1)
    assert check(cert).ok
    taking = next(e for e in cert["candidates"] if e["uncaptures"] != [None])
    for key, value in (("uncaptures", float(taking["uncaptures"][0])), ("en_passant", 0)):
        bad = copy.deepcopy(cert)
        entry = next(e for e in bad["candidates"] if e["notation"] == taking["notation"])
        entry[key] = [value]
        assert entry[key] == taking[key]          # equal in Python, of another type
        verdict = check(bad)
        assert not verdict.ok and "flags differ" in verdict.reason, verdict.reason
