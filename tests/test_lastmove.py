"""The last-move solver: proofs checked by the independent checker, corrupted proofs rejected,
supporting lines replayed by python-chess, limits giving unknown."""

from __future__ import annotations

import copy
import io

import chess
import chess.pgn

from retrologic.lastmove import search as lastmove
from retrologic.lastmove.pgn import support_pgn
from retrologic.certificate import check
from retrologic.limits import Budget
from retrologic.position import GAME_START, Position, parse

from conftest import BRANDIS, listing_nodes

THREE = "8/8/8/1r1b4/B7/2K5/8/3k4 b - - 0 1"
KNIGHT = "k1K5/8/8/8/8/8/7P/6B1 w - - 0 1"


# These tests check the proof trees of Brandis without cages (no closer given): six candidates
# stay unresolved there, and each would get the game finders' full count (CERTIFY_NODES,
# 120,000 positions) and minutes of finding no game; a small count gives the same proof trees. Brandis with its cages, answered unique, is test_discovered_cage_leaves_are_reverified.
GAME_NODES = {BRANDIS: 100}


def cert_of(fen: str, plies: int = 1) -> dict:
    pos = Position.from_fen(fen)
    saved = lastmove.CERTIFY_NODES
    lastmove.CERTIFY_NODES = GAME_NODES.get(fen, saved)
    try:
        return lastmove.certificate(pos, plies, lastmove.solve(pos, plies))
    finally:
        lastmove.CERTIFY_NODES = saved


def test_proofs_check():
    for fen, plies in ((THREE, 3), (KNIGHT, 1), (BRANDIS, 1)):
        cert = cert_of(fen, plies)
        assert check(cert).ok
    trees = [c for c in cert["candidates"] if c["status"] == "impossible" and "retractions" in c["proof"]]
    assert trees  # Brandis: Ka2xNa1 etc. are refuted by proof trees, not single rules


def test_corrupted_proofs_are_rejected():
    cert = cert_of(KNIGHT)
    # 1. A candidate dropped from the list.
    bad = copy.deepcopy(cert)
    bad["candidates"] = [c for c in bad["candidates"] if c["notation"] != "Ka7-a8"]
    assert not check(bad).ok
    # 2. The surviving candidate claimed impossible by a rule that does not hold there.
    bad = copy.deepcopy(cert)
    surv = next(c for c in bad["candidates"] if c["status"] == "possible")
    surv["status"] = "impossible"
    surv["proof"] = {"fen": Position.from_fen(KNIGHT).fen(), "rule": "triple-check"}
    assert not check(bad).ok
    # 3. A proof tree with one retraction left out (Brandis: Ka2xNa1 needs a tree).
    bad = copy.deepcopy(cert_of(BRANDIS))
    imp = next(c for c in bad["candidates"] if c["status"] == "impossible" and "retractions" in c["proof"])
    imp["proof"]["retractions"].pop()
    assert not check(bad).ok
    # 4. A retro-stalemate claimed where a retraction exists (the survivor's leaf).
    bad = copy.deepcopy(cert)
    pos = Position.from_fen(KNIGHT)
    surv_leaf = next(c for c in lastmove.candidates(pos, 1) if c.notation == "Ka7xNa8").positions[-1]
    surv = next(c for c in bad["candidates"] if c["notation"] == "Ka7xNa8")
    surv["status"], surv["proof"] = "impossible", {"fen": surv_leaf.fen(), "rule": "retro-stalemate"}
    assert not check(bad).ok


def test_games_and_support_lines_replay_to_the_diagram():
    """A possible candidate's game (from the initial array) and an unresolved one's supporting
    line both replay with python-chess to the diagram; a game ends with the candidate."""
    for fen, plies in ((THREE, 3), (KNIGHT, 1), ("7R/7p/5P1k/4PKpP/8/8/8/8 w - - 0 1", 1)):
        pos = Position.from_fen(fen)
        res = lastmove.solve(pos, plies)
        shown = [c for c in res.candidates if c.status != "impossible" and support_pgn(c)]
        assert shown
        for c in shown:
            if c.status == "possible":
                assert [m.uci() for m in c.game[-plies:]] == \
                    [r.move().uci() for r in reversed(c.line)]
            game = chess.pgn.read_game(io.StringIO(support_pgn(c)))
            board = game.board()
            for move in game.mainline_moves():
                assert board.is_legal(move)
                board.push(move)
            assert board.board_fen() == pos.placement.board_fen()
            assert board.turn == pos.turn


def test_side_to_move_open():
    pos = Position.from_fen("8/8/8/8/1k6/P7/1K6/8 b - - 0 1").with_turn(None)
    res = lastmove.solve(pos, 1)
    assert res.illegal_for == ["black"]          # the black king is in check: Black did not move
    assert res.answer == ["a2-a3+"] and res.verdict == "proved"


def test_limits_give_unknown_never_proved():
    pos = Position.from_fen(BRANDIS)
    res = lastmove.solve(pos, 1, lastmove.Limits(nodes=5))
    assert res.verdict == "unknown" and "node limit" in res.reason


def test_the_node_limit_stops_the_candidate_listing() -> None:
    """Fuzz seed 2945: `lastmove --plies 7 --nodes 20000` on an open position ran for minutes
    with 0 nodes counted, the candidate listing (growing 20-30 times per ply) charged nothing.
    Each position listed is a node now: the limit stops the listing at once, and the answer
    counts those nodes; with no limit four plies alone list more than 10,000 positions."""
    pos = Position.from_fen("8/8/8/8/P7/kP6/prP5/K7 w - - 0 1")
    res = lastmove.solve(pos, 7, lastmove.Limits(nodes=5_000, timeout=60))
    assert res.verdict == "unknown" and not res.listed
    assert res.reason == "node limit 5000 before the candidates were all listed"
    assert 5_000 <= res.nodes <= 5_001 and res.seconds < 30
    unlimited = Budget()
    assert len(lastmove.candidates(pos, 4, unlimited)) > 10_000 and unlimited.spent > 10_000


def test_discovered_cage_leaves_are_reverified(brandis_discovered):
    res, discovered = brandis_discovered.result, brandis_discovered.discovered
    # every other candidate impossible, Ka2-a1 shown possible by a legal game (issue #19)
    assert res.verdict == "proved" and res.answer == ["Ka2-a1"]
    assert str(res.finding) == "unique"
    assert [d["cage"] for d in discovered] == ["8/8/8/8/8/8/PPkPP3/KR1b4"]
    cert = brandis_discovered.certificate
    assert check(cert).ok
    # A cage leaf whose cage is not a cage (a white pawn taken out: the king walks free).
    bad = copy.deepcopy(cert)
    leaf = next(c for c in bad["candidates"] if c["notation"] == "a2xQb3")["proof"]
    assert leaf["rule"] == "cage"
    leaf["cage"] = "8/8/8/8/8/8/P1kPP3/KR1b4"
    assert not check(bad).ok


def test_the_text_lists_some_candidates_of_each_status_and_counts_the_rest() -> None:
    """hoeg-1915's last three moves (bench/lastmove-collection) have about ten thousand
    candidate sequences: the text lists every possible one and at most SHOWN of the others per
    status, then the count of the rest; the facts and the JSON details keep every one. The
    node limit is the listing's positions (each one node) and 20 more."""
    from retrologic.questions import lastmove as question
    pos = Position.from_fen("bN6/pPkR3p/PpPpPP2/8/2KP4/B6B/1q1P2PQ/br1R2Nr b - - 0 1")
    result = question.answer(pos, plies=3, nodes=listing_nodes(pos, 3) + 20, discover=False,
                             use_library=False)
    unresolved, impossible = result.facts["unresolved"], result.facts["impossible"]
    assert len(unresolved) > 5_000 and 0 < len(impossible) <= question.SHOWN
    assert len(result.details["candidates"]) == len(unresolved) + len(impossible)
    listed = [line for line in result.lines if line.split(" ")[0] != "..."
              and ("unresolved" in line or "impossible" in line)]
    assert len(listed) == question.SHOWN + len(impossible)
    assert f"... and {len(unresolved) - question.SHOWN} more unresolved (--json lists" in \
        "\n".join(result.lines)
    assert all(n in "\n".join(result.lines) for n in impossible)


def test_a_candidate_the_generator_misses_is_found_by_python_chess(monkeypatch):
    """The checker no longer trusts the engine's generator for completeness: with retract made
    to miss Ka7-a8 at the diagram (and the certificate without that candidate, so the two
    agree), python-chess's brute-force retractions (lastmove.unmoves) still find it."""
    from retrologic.lastmove import checker
    cert = cert_of(KNIGHT)
    diagram = Position.from_fen(KNIGHT).placement
    real = checker.retractions

    def missing_one(pos, **kw):
        return [r for r in real(pos, **kw)
                if not (pos.placement == diagram and r.notation() == "Ka7-a8")]

    bad = copy.deepcopy(cert)
    bad["candidates"] = [c for c in bad["candidates"] if c["notation"] != "Ka7-a8"]
    monkeypatch.setattr(checker, "retractions", missing_one)
    verdict = check(bad)
    assert not verdict.ok and "python-chess finds the retraction a7a8" in verdict.reason
    assert check(cert).ok is False          # the full list now differs from the generator's


def test_no_certificate_when_a_limit_cuts_the_candidate_list(tmp_path, capsys):
    """Found in review (2026-11-30): a time limit hit while the 3-ply candidates were listed
    wrote a certificate with none, which `check` rejects; nothing is written now, and the
    text says so."""
    import json

    from retrologic.cli import main
    fen = "r1bk3r/p1pp1ppp/np2pn2/P4B2/2PbPP2/8/1P6/RNBQ1K1R b - - 3 16"
    status = main(["lastmove", fen, "--plies", "3", "--timeout", "1", "--json",
                   "--certificate-dir", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert status == 4 and out["verdict"] == "unknown"
    assert out["details"]["certificate"] is None and not list(tmp_path.iterdir())


def test_an_accepted_claim_names_its_candidates_whole_or_by_count():
    """Found in review (2026-11-30): with 163 candidates left the accepted claim was cut at the
    line's cap inside the list (`..., Nb5-c3, N…`), which reads as a shorter list. A list too
    long for the line is now stated by its count; a short one whole."""
    from retrologic.lastmove.search import Limits
    from retrologic.certformat import MAX_CLAIM
    pos = Position.from_fen("4k3/8/8/8/8/8/8/R3K3 b - - 0 1")
    limits = Limits(nodes=listing_nodes(pos, 1) + 50)   # the list whole, 50 nodes more
    cert = lastmove.certificate(pos, 1, lastmove.solve(pos, 1, limits))
    for c in cert["candidates"]:                # all left open: a weaker claim, still accepted
        c["status"] = "unresolved"
        c.pop("proof", None)
        c.pop("game", None)
    many = check(cert)
    assert many.ok and len(many.reason) < MAX_CLAIM and "…" not in many.reason
    assert many.reason.endswith(f"among: {len(cert['candidates'])} candidates (too long for "
                                "this line: the certificate states them)")
    few = check(cert_of(KNIGHT))
    assert few.ok and few.reason.endswith("unique, each shown by a legal game: Ka7xNa8; every "
                                          "other of the 5 candidates impossible")


def test_no_candidate_at_all_says_why():
    """Found in review (2026-11-30): a diagram with no retraction at all answered "every
    candidate is impossible" and named no reason. The answer now gives each side's
    retro-stalemate, with the diagram's static fault beside it (never in its place: a castling
    right leaves every retraction standing), and the checker's accepted claim says there was
    none; the initial array with Black's units frozen is the empty history, possible by the
    empty game (audit of 2026-12-05: it is a candidate of its own, not a special reason)."""
    no_double_step = "1n1qkbnr/2pb1p2/r2p4/Pp2p1pp/4P1PP/8/P1PPNP2/RNBQKB1R w KQk c6 0 12"
    res = lastmove.solve(Position.from_fen(no_double_step), 1)
    assert res.finding == lastmove.Finding.NONE and not res.candidates
    assert res.reason == ("no candidate last move: black made the last move but has no "
                          "retraction (also: no double step can have passed c6, en-passant): "
                          "the position is illegal")
    castling = lastmove.solve(Position.from_fen("r3k3/8/8/3pP3/8/8/8/4K2r w k d6 0 1"), 1)
    assert castling.finding == lastmove.Finding.NONE and not castling.candidates
    assert castling.reason.startswith("no candidate last move: black made the last move but "
                                      "has no retraction (also: a castling right")
    either = lastmove.solve(parse(fen="4k3/8/8/8/8/8/8/4K3 w - e6 0 1", to_move="?"), 1)
    assert either.finding == lastmove.Finding.NONE and not either.candidates
    assert "white made the last move but has no retraction" in either.reason
    assert "; black made the last move but has no retraction" in either.reason
    verdict = check(lastmove.certificate(Position.from_fen(no_double_step), 1, res))
    assert verdict.ok and verdict.reason.endswith(
        "no candidate last move (no retraction): the diagram is illegal")
    start = Position.from_fen(chess.STARTING_FEN, frozen=chess.BB_RANK_7 | chess.BB_RANK_8)
    first = lastmove.solve(start, 1)
    assert first.finding == lastmove.Finding.UNIQUE and first.answer == [GAME_START]
    assert [(c.notation, c.game) for c in first.candidates] == [(GAME_START, [])]
    verdict = check(lastmove.certificate(start, 1, first))
    assert verdict.ok and verdict.reason.endswith(
        "no move has been played: the diagram is the initial array (the empty game); "
        "no other candidate")
