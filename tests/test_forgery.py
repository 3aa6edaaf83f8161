"""Forgery and tamper suite (issue 17): a certificate is accepted only if every fact it relies on
is re-derived or compared with the position it is about.

(a) Hand-built certificates of FALSE claims, for every type, are rejected (the issue's forged
    cage proof among them). (b) Seeded random mutations of real certificates (made by solving
    problem files and small positions) are each rejected with a short reason, or accepted only
    when the claim they then state is still true, decided by solving it again with the engine
    (or replaying it with python-chess); never an exception. (c) `check` on malformed files
    exits 3 or 1 with one short stderr line, never 5. FORGERY_MUTATIONS=N runs more mutations
    (the default, about 1,040, keeps the suite near 15 s of CPU), FORGERY_SEED another seed,
    FORGERY_SHOW=1 prints each accepted mutation; run with -s to see the counts per type.
"""

from __future__ import annotations

import collections
import copy
import json
import os
import random
from pathlib import Path
from typing import Any

import chess
import pytest

from retrologic import certificate, certread
from retrologic.lastmove import search as lastmove
from retrologic.puzzle4x4 import game as p4
from retrologic.spg import solver as spg
from retrologic.cages.search import verify
from retrologic.certificate import check
from retrologic.errors import InputError
from retrologic.position import Placement, Position

from forgery_mutate import ORACLES, mutate

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
MUTATIONS = int(os.environ.get("FORGERY_MUTATIONS", "1040"))
# share of the mutations per certificate type (deduce checks cost ~1 s each: a few only)
SHARE = {"cage-proof": 0.25, "cage-counterexample": 0.12, "lastmove-proof": 0.14,
         "spg-game": 0.14, "puzzle4x4-line": 0.1, "puzzle4x4-unsolvable": 0.1,
         "retraction-line": 0.14, "deduce-drup": 0.012, "spg-listing": 0.03}


def _load(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def _solve(files: list[str], directory: Path) -> list[dict]:
    from retrologic import problem
    from retrologic.problem import SolveOptions
    for f in files:
        problem.solve(problem.load(PROBLEMS / f), SolveOptions(certificate_dir=str(directory)))
    return [_load(p) for p in sorted(directory.glob("*.json"))]


def _write_as(cert: dict, name: str, directory: Path) -> None:
    """Write `cert` into `directory` as solving the problem file `name` writes it there (the
    same file name, stamped with the problem's question, position and file)."""
    from retrologic import problem
    from retrologic.certformat import destination
    destination(str(directory), problem.load(PROBLEMS / name)).write(copy.deepcopy(cert),
                                                                      "lastmove-proof")


def _stamped(cert: dict) -> dict:
    return certificate.stamp(cert)


def _castled_lemma() -> dict:
    """A real cage proof whose start holds a castling right (king e1, rook h1 at home): the
    rook on f1 is walled in while the right stands."""
    start = Position(Placement.from_board_fen("8/8/8/8/8/8/5PP1/4KR1R"), None, chess.BB_H1, None, 0, True)
    res = verify(start)
    assert res.proved
    return res.certificate()


def _retraction_line() -> dict:
    """A retraction line from a real game with castling and an e.p. capture (python-chess)."""
    board = chess.Board()
    fens = [board.fen()]
    for san in ["e4", "Nf6", "e5", "d5", "exd6", "e6", "Nf3", "Be7", "Bc4", "O-O", "O-O"]:
        board.push_san(san)
        fens.append(board.fen())
    moves = [m.uci() for m in board.move_stack]
    return _stamped({"type": "retraction-line", "positions": fens[::-1][:8],
                     "moves": moves[::-1][:7]})


@pytest.fixture(scope="module")
def real(tmp_path_factory, brandis_discovered) -> dict[str, list[dict]]:
    """Real certificates of every type, small enough to mutate by the thousand (Brandis's, with
    its discovered cage, from the shared fixture, written as its problem file writes it)."""
    base = tmp_path_factory.mktemp("certs")
    certs: list[dict] = []
    certs += _solve(["cages/fig2-brandis-corner.toml", "cages/fig3-perpetual-bishop-paper-zone.toml",
                     "cages/rook-behind-frozen-knight.toml", "cages/fig7-ceriani-no-dxe.toml",
                     "cages/fig3-colour-swapped-with-lemma.toml", "cages/fig4-not-a-cage.toml",
                     "cages/rook-behind-knight-not-frozen.toml",
                     "cages/castling-escape-kingside.toml"], base / "cages")
    certs.append(_stamped(_castled_lemma()))
    _write_as(brandis_discovered.certificate, "lastmove/brandis-discovered.toml",
              base / "lastmove")           # where solving the file writes it: the same order
    certs += _solve(["lastmove/knight-uncapture.toml", "lastmove/a2-a3-check.toml",
                     "lastmove/side-to-move-open.toml"], base / "lastmove")
    certs += _solve(["spg/f4-f5-nf3.toml"], base / "spg")
    game = [chess.Move.from_uci(u) for u in
            ("e2e4 g8f6 e4e5 d7d5 e5d6 e7e6 g1f3 f8e7 f1c4 e8g8 e1g1".split())]
    board = chess.Board()
    for m in game:
        board.push(m)
    certs.append(spg.certificate(game, board, len(game)))
    certs += _solve(["puzzle4x4/article-solvable-start.toml", "puzzle4x4/article-two-black-units.toml",
                     "puzzle4x4/retrograde-unsolvable.toml"], base / "puzzle4x4")
    certs.append(p4.certificate(p4.parse("1B1K/rNn1/1rQ1/1qbR"), p4.solve(p4.parse("1B1K/rNn1/1rQ1/1qbR"))))
    certs.append(_retraction_line())
    certs += _deduce_certs(base / "deduce")
    print(f"fixture: {len(certs)} real certificates")
    out: dict[str, list[dict]] = collections.defaultdict(list)
    for c in certs:
        v = check(c)
        assert v.ok, (c["type"], v.reason)
        out[c["type"]].append(c)
    assert set(out) == set(ORACLES)
    return out


def _rejected(cert: dict, *words: str) -> str:
    v = check(cert)
    assert not v.ok, f"accepted a forgery: {v.reason}"
    assert v.reason and len(v.reason) <= 200
    for w in words:
        assert w in v.reason, v.reason
    return v.reason


# --- (a) cage certificates ----------------------------------------------------------------------

ZONE = ["e1", "f1", "g1", "h1", "e2", "f2", "g2", "h2"]


def test_issue_reproducer_forged_cage_proof_is_rejected(monkeypatch: pytest.MonkeyPatch):
    """Issue 17, item 1: 8/8/8/8/8/8/4PPPP/5K2 is not a cage (Ke1-f1 gets every unit home), yet
    a proof whose only member is closed by a 'lemma' carrying a castling right on h1 (no king
    on e1, no rook on h1) was accepted. The engine refuses that start since 2026-12-06; the
    forged lemma is made with its rule switched off."""
    board = "8/8/8/8/8/8/4PPPP/5K2"
    assert verify(board, ZONE).verdict == "refuted"
    start = Position(Placement.from_board_fen(board), None, chess.BB_H1, None, 0, True)
    with pytest.raises(InputError, match="castling right h1 needs R on h1"):
        verify(start, ZONE)
    from retrologic.cages import search
    monkeypatch.setattr(search, "castling_fault", lambda *_args, **_kw: None)
    lemma = verify(start, ZONE)
    monkeypatch.undo()
    assert lemma.proved                      # the vacuous state: the castling squares prune all
    forged = _stamped({"type": "cage-proof", "model": "lines", "zone": ZONE, "restrictions": [],
                       "start": {"board": board},
                       "members": [{"board": board, "lemma": {"index": 0, "swap": False}}],
                       "lemmas": [{"name": "forged", "proof": lemma.certificate()}]})
    _rejected(forged, "castling right h1 needs")
    # the lemma alone is no cage either: its castling right has no king or rook at home
    _rejected(_stamped(lemma.certificate()), "castling right h1 needs")


def _with_lemma(board: str, lemma: dict, restrictions: list | None = None, swap: bool = False,
                member: dict | None = None) -> dict:
    return _stamped({"type": "cage-proof", "model": "lines", "zone": lemma["zone"],
                     "restrictions": restrictions or [], "start": {"board": board},
                     "members": [{**(member or {"board": board}), "lemma": {"index": 0, "swap": swap}}],
                     "lemmas": [{"name": "lemma", "proof": lemma}]})


def test_a_lemma_applies_only_where_its_castling_rights_hold():
    """A true cage with a real castling right (8/8/8/8/8/8/5PP1/4KR1R, right h1) closes no
    position without that right: without it the board is no cage."""
    board = "8/8/8/8/8/8/5PP1/4KR1R"
    lemma = _castled_lemma()
    assert check(_stamped(lemma)).ok
    assert verify(board).verdict == "refuted"
    _rejected(_with_lemma(board, lemma), "castling rights")
    # with the right stated in the start and the member, the same lemma is used soundly
    ok = _with_lemma(board, lemma, member={"board": board, "castling": ["h1"]})
    ok["start"] = {"board": board, "castling": ["h1"]}
    v = check(ok)
    assert v.ok and "castling h1" in v.reason


def test_a_lemma_applies_only_where_its_frozen_units_are_frozen():
    frozen_cage = verify("8/8/8/8/8/8/6PP/6Nr", frozen="g1")
    assert frozen_cage.proved and verify("8/8/8/8/8/8/6PP/6Nr").verdict == "refuted"
    _rejected(_with_lemma("8/8/8/8/8/8/6PP/6Nr", frozen_cage.certificate()), "frozen")
    # and a member may not freeze what its start does not
    forged = _stamped({"type": "cage-proof", "model": "lines", "zone": frozen_cage.certificate()["zone"],
                       "restrictions": [], "start": {"board": "8/8/8/8/8/8/6PP/6Nr"},
                       "members": [{"board": "8/8/8/8/8/8/6PP/6Nr", "frozen": ["g1"]}], "lemmas": []})
    _rejected(forged, "not in the set")


NO_DXE = {"expr": 'pawn_captures(either, from_file="d", to_file="e") == 0',
          "pawn_captures": {"side": "either", "from_file": "d", "to_file": "e"}}
FIG7 = "8/5p2/5P2/4PKP1/4pRrB/5pp1/8/8"


def test_a_lemma_applies_only_under_its_restrictions():
    """Figure 7 is a cage only without a pawn capture d->e; its proof may not close the same
    board in a certificate that does not assume that, nor one assuming it for White only."""
    restricted = verify(FIG7, restrictions=[NO_DXE["expr"]])
    assert restricted.proved and verify(FIG7).verdict == "refuted"
    lemma = restricted.certificate()
    _rejected(_with_lemma(FIG7, lemma), "restriction")
    white_only = {"expr": 'pawn_captures(white, from_file="d", to_file="e") == 0',
                  "pawn_captures": {"side": "white", "from_file": "d", "to_file": "e"}}
    _rejected(_with_lemma(FIG7, lemma, [white_only]), "restriction")
    assert check(_with_lemma(FIG7, lemma, [NO_DXE])).ok
    # with the colours swapped the lemma needs the swapped side: "white" does not give "black"
    lemma_b = copy.deepcopy(lemma)
    lemma_b["restrictions"] = [{"expr": 'pawn_captures(black, from_file="d", to_file="e") == 0',
                                "pawn_captures": {"side": "black", "from_file": "d",
                                                  "to_file": "e"}}]
    swapped_board = Placement.from_board_fen(FIG7).colour_swapped().board_fen()
    _rejected(_with_lemma(swapped_board, lemma_b, [white_only | {}], swap=True))
    # a restriction missing a field is malformed, not "any file"
    loose = copy.deepcopy(lemma)
    del loose["restrictions"][0]["pawn_captures"]["from_file"]
    _rejected(_stamped(loose), "exactly side, from_file, to_file")


def test_false_cage_proofs_are_rejected():
    fig2 = verify("8/8/8/8/8/8/PPkPP3/KR1b4").certificate()
    # a member with every unit home
    bad = copy.deepcopy(fig2)
    bad["members"].append({"board": "8/8/8/8/8/8/PPPPP3/R3K3"})
    _rejected(_stamped(bad), "every unit home")
    # the plain model may not use the lines model's rules
    darvall = verify("Knrk4/BpppRp2/1p2p3/8/8/8/8/8").certificate()
    assert any(m.get("pruned") for m in darvall["members"])
    _rejected(_stamped(dict(darvall, model="plain")), "does not rule out")
    # a non-cage "proved" by pruning the escaping retraction with a rule that does not hold
    start = {"board": "8/8/8/8/8/8/4PPPP/5K2"}
    forged = {"type": "cage-proof", "model": "lines", "zone": ZONE, "restrictions": [],
              "start": start, "members": [dict(start, pruned={"w Ke1-f1": "castling-square"})]}
    _rejected(_stamped(forged))
    # a start outside its zone; a zone too small to hold the units
    _rejected(_stamped(dict(fig2, zone=["a1"])), "outside the zone")
    # a counterexample whose line stops short of all-home
    fig4 = verify("8/8/8/8/8/5P2/4PrPP/7K").certificate()
    assert fig4["type"] == "cage-counterexample" and check(_stamped(fig4)).ok
    _rejected(_stamped(dict(fig4, line=fig4["line"][:-1])), "away from home")


# --- (a) last-move certificates -----------------------------------------------------------------

KNIGHT = "k1K5/8/8/8/8/8/7P/6B1 w - - 0 1"


def _lastmove_cert(fen: str, plies: int = 1) -> dict:
    from retrologic.lastmove.cages import closers_for
    pos = Position.from_fen(fen)
    closer, _ = closers_for([], discover=False, use_library=False)
    return lastmove.certificate(pos, plies, lastmove.solve(pos, plies, closers=[closer]))


def test_wrong_last_moves_are_rejected():
    cert = _lastmove_cert(KNIGHT)
    assert check(cert).ok
    surv = next(c for c in cert["candidates"] if c["status"] == "possible")
    leaf = next(c for c in lastmove.candidates(Position.from_fen(KNIGHT), 1)
                if c.notation == surv["notation"]).positions[-1]
    # the survivor marked impossible with a forged tree: each retraction "closed" by a rule
    tree = {"fen": leaf.fen(), "retractions": [
        {"retraction": r.notation(), "uci": r.move().uci(), "uncapture": r.uncapture,
         "proof": {"fen": lastmove.apply(leaf, r).fen(), "rule": "triple-check"}}
        for r in lastmove.retractions(leaf)]}
    bad = copy.deepcopy(cert)
    entry = next(c for c in bad["candidates"] if c["notation"] == surv["notation"])
    entry.update(status="impossible", proof=tree)
    _rejected(bad, "does not hold")
    # the same survivor "closed" by a cage leaf freezing every unit (a frozen set would be a
    # cage, but units away from home never stood still: the engine refuses to freeze them)
    occupied = [chess.square_name(s) for s in chess.scan_forward(leaf.placement.occupied)]
    with pytest.raises(InputError, match="stands where a unit of its type"):
        verify(leaf.placement, frozen=occupied)
    entry.update(proof={"fen": leaf.fen(), "rule": "cage", "cage": leaf.placement.board_fen(),
                        "zone": occupied, "frozen": occupied, "model": "lines"})
    _rejected(bad, "not frozen in")
    # the side to move contradicting the FEN; a candidate left out
    _rejected(dict(cert, to_move="black"), "contradicts")
    _rejected(dict(cert, candidates=cert["candidates"][1:]), "candidate list")


def test_forged_cage_leaves_are_rejected(brandis_discovered):
    cert = copy.deepcopy(brandis_discovered.certificate)
    assert check(cert).ok
    leaves = [c for c in cert["candidates"] if c["status"] == "impossible"
              and c["proof"].get("rule") == "cage"]
    assert leaves
    leaf = leaves[0]["proof"]
    # the cage's zone left without one of its units; a zone under which it is no cage
    bad = copy.deepcopy(cert)
    node = next(c for c in bad["candidates"] if c["notation"] == leaves[0]["notation"])["proof"]
    node["zone"] = [sq for sq in leaf["zone"] if sq != "a1"]
    _rejected(bad, "zone")
    board = chess.BaseBoard(leaf["cage"])
    node["zone"] = [chess.square_name(s) for s in chess.scan_forward(board.occupied)]
    assert not verify(leaf["cage"], node["zone"]).proved
    _rejected(bad, "does not verify")
    # a cage that is not part of the position; frozen units the diagram does not have
    node.update(zone=leaf["zone"], cage="8/8/8/8/8/8/PPkPP3/KR1B4")
    _rejected(bad, "not part of")
    node.update(cage=leaf["cage"], frozen=["a1"])
    _rejected(bad, "not frozen in")


def test_forged_unreachable_leaves_are_rejected():
    """The `unreachable` rule (the proof-game bound) is re-derived at each leaf that claims it:
    a possible candidate (Ng1-f3, shown by a game) marked impossible by it is rejected, and so
    is an uncapture's leaf moved to another position."""
    fen = "r1bqkbnr/pppppppp/8/8/8/1P3N2/1PPPPPPP/RNBQKB1R b KQkq - 0 1"
    cert = _lastmove_cert(fen)
    assert check(cert).ok
    by_name = {c["notation"]: c for c in cert["candidates"]}
    assert by_name["Ng1xNf3"]["proof"]["rule"] == "unreachable"
    leaf = next(c for c in lastmove.candidates(Position.from_fen(fen), 1)
                if c.notation == "Ng1-f3").positions[-1]
    bad = copy.deepcopy(cert)
    entry = next(c for c in bad["candidates"] if c["notation"] == "Ng1-f3")
    entry.update(status="impossible", proof={"fen": leaf.fen(), "rule": "unreachable"})
    _rejected(bad, "does not hold")
    bad = copy.deepcopy(cert)
    node = next(c for c in bad["candidates"] if c["notation"] == "Ng1xNf3")["proof"]
    node["fen"] = leaf.fen()
    _rejected(bad)


def test_a_game_array_is_never_impossible():
    """After 1.Nf3 the last move leads back to the initial array, which needs no last move."""
    fen = "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 0 1"
    cert = _lastmove_cert(fen)
    entry = next(c for c in cert["candidates"] if c["notation"] == "Ng1-f3")
    assert entry["status"] == "possible"
    entry.update(status="impossible", proof={"fen": chess.STARTING_FEN.replace(" 0 1", " 0 1"),
                                             "rule": "retro-stalemate"})
    _rejected(cert)


def test_a_game_shows_only_the_candidate_it_plays():
    """Fabel's record (bench/lastmove-collection/fabel-record-qxn.toml): Qe1-d1 and Qe1xNd1
    both play e1d1, and only the capture is possible (Qe1-d1 is retro-stalemate). The capture's
    game, whose position before the last move has a knight on d1, shows no plain Qe1-d1: the
    checker accepted it as "several" before it compared the game with the candidate's own
    position before the move."""
    cert = _lastmove_cert("8/8/8/8/8/8/P1PPP1P1/k1KQ1B2 b - - 0 1")
    assert "unique" in check(cert).reason
    capture = next(c for c in cert["candidates"] if c["notation"] == "Qe1xNd1")
    plain = next(c for c in cert["candidates"] if c["notation"] == "Qe1-d1")
    assert capture["status"] == "possible" and plain["status"] == "impossible"
    plain.update(status="possible", proof=None, game=capture["game"])
    _rejected(cert, "Qe1-d1", "before its last moves")


# --- (a) proof games ------------------------------------------------------------------------------

def _game_cert() -> dict:
    target = spg.parse_target("rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", 3)
    game = [chess.Move.from_uci(u) for u in ("f2f4", "f7f5", "g1f3")]
    return spg.certificate(game, target, 3)


def test_games_that_do_not_reach_the_diagram_are_rejected():
    cert = _game_cert()
    v = check(cert)
    assert v.ok and "Black to move" in v.reason
    _rejected(dict(cert, target="rnbqkbnr/ppppp1pp/8/5p2/5P2/7N/PPPPP1PP/RNBQKB1R"), "not the target")
    _rejected(dict(cert, to_move="white"), "Black is to move")
    _rejected(dict(cert, plies=4), "plies")
    _rejected(dict(cert, moves=cert["moves"][:2], plies=2, san="1.f4 f5", to_move="white"),
              "not the target")
    _rejected(dict(cert, moves=["f2f4", "f7f5", "g1g3"]), "illegal")
    stated = {"fen": "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R w KQkq - 0 1"}
    _rejected(dict(cert, position=stated), "side to move")
    stated = {"fen": "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R b Qkq - 0 1"}
    _rejected(dict(cert, position=stated), "castling")
    stated = {"fen": "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R b KQkq f6 0 1"}
    _rejected(dict(cert, position=stated), "e.p.")
    _rejected(dict(cert, san="1.f4 f5 2.Nh3"), "san")
    _rejected(dict(cert, question={"kind": "spg", "moves": "1.0"}), "asks for")


# --- (a) deductions -------------------------------------------------------------------------------

def _deduce_certs(directory: Path) -> list[dict]:
    """Two real deduce-drup certificates: "the king never moved" in the initial array, and a
    position the assumption "no pawn capture d->e" makes illegal."""
    from retrologic.history.deduce import Constraint, deduce
    d = deduce(Position.from_fen(chess.STARTING_FEN), [],
               [Constraint.parse("king-home", 'never_moved("e1")')], certificate_dir=str(directory))
    return [_load(d.certificates[0])] + _solve(["deduce/assumption-contradicts-position.toml"],
                                                directory / "illegal")


def test_drup_proofs_of_satisfiable_formulas_are_rejected(tmp_path):
    from retrologic.history.checker import certificate_cnf
    from retrologic.history.clauses import dimacs
    from retrologic.history.drup import check as drup_check
    from retrologic.history.query import Constraint, Query
    [cert, illegal] = _deduce_certs(tmp_path)
    v = check(illegal)                       # accepted, stating the position and the assumption
    assert v.ok and illegal["assumptions"][0]["name"] in v.reason and illegal["fen"] in v.reason
    # a true claim replaced by a false one (the g1 knight may have gone out and back): the CNF
    # no longer matches
    false_claim = {"name": "knight-home", "expr": 'never_moved("g1")'}
    forged = dict(cert, claim=false_claim,
                  conclusion=cert["conclusion"].replace(cert["claim"]["name"], "knight-home"))
    _rejected(forged, "not the encoding")
    # with its own, correct CNF (every fact of the model in the core) the old proof does not
    # refute the formula, which is satisfiable
    pos = Position.from_fen(cert["fen"])
    claim = Constraint.parse(false_claim["name"], false_claim["expr"])
    query = Query(pos, [], [claim])
    clauses, nv = certificate_cnf(query, list(query.model.groups.values()), claim)
    from pysat.solvers import Solver
    with Solver(name="minisat22", bootstrap_with=clauses) as sat:
        assert sat.solve()                                      # satisfiable indeed
    forged.update(core=list(query.model.groups), cnf=dimacs(clauses, nv),
                  question={**cert["question"], "claim": [false_claim["expr"]]})
    assert "proof" in _rejected(forged)
    assert not drup_check(clauses, [(False, [])]).ok           # the empty clause is not RUP
    # a proof taken from another certificate (a different CNF): the illegality of the position
    # with the assumption "no pawn capture d->e" is not refuted by the king's proof
    _rejected(dict(illegal, proof=cert["proof"]), "proof")
    _rejected(dict(cert, conclusion="the position has no history in the model"), "conclusion")
    # frozen units are part of the claim: added, the CNF is another one
    _rejected(dict(cert, frozen=["e2"]), "not the encoding")
    _rejected(dict(cert, frozen=["e4"]), "empty")
    _rejected(dict(cert, proof=["1 " * 3 + "99999999 0", "0"]))


# --- (a) the 4x4 puzzle and retraction lines -----------------------------------------------------

def test_false_puzzle4x4_claims_are_rejected():
    unsolvable, solvable = "Nr1n/kq1B/nNRR/rbBK", "Nbrn/kqQB/nNRR/rbBK"
    assert not p4.solvable(p4.parse(unsolvable)) and p4.solvable(p4.parse(solvable))
    line = p4.certificate(p4.parse(solvable), p4.solve(p4.parse(solvable)))
    assert check(line).ok
    # an unsolvable board claimed solvable, with the solvable board's line or any legal line
    _rejected(dict(line, board=unsolvable))
    key, moves = p4.parse(unsolvable), []
    while p4.moves(key):
        m = p4.moves(key)[0]
        moves.append(p4.SQUARE_NAMES[m[0]] + p4.SQUARE_NAMES[m[1]])
        key = p4.play(key, m)
    _rejected(dict(line, board=unsolvable, moves=moves), "not the white king alone")
    # a solvable board claimed unsolvable: every closed set must leave it
    _rejected(p4.certificate(p4.parse(solvable), None, [p4.parse(solvable)]), "leaves the set")
    closed = p4.certificate(p4.parse(unsolvable), None,
                            p4.unsolvability_proof(p4.parse(unsolvable), _failed(unsolvable)))
    assert check(closed).ok
    _rejected(dict(closed, board=solvable), "not in the set")
    _rejected(dict(line, question={"kind": "puzzle4x4", "board": unsolvable}), "question")


def _failed(board: str) -> set[int]:
    solver = p4.Solver()
    assert solver.solve(p4.parse(board)) is None
    return solver.failed


def test_false_retraction_lines_are_rejected():
    cert = _retraction_line()
    assert check(cert).ok
    fens = list(cert["positions"])
    # a castling right without its rook (the FEN says K but h1 is empty)
    b = chess.Board(fens[-1])
    b.remove_piece_at(chess.H1)
    _rejected(dict(cert, positions=fens[:-1] + [b.fen().replace(" KQkq ", " KQkq ")]))
    # the side to move of a step flipped; a wrong e.p. claim at the start
    flipped = fens[1].replace(" w ", " b ") if " w " in fens[1] else fens[1].replace(" b ", " w ")
    _rejected(dict(cert, positions=[fens[0], flipped] + fens[2:]))
    board = chess.Board(fens[-1])
    mv = chess.Move.from_uci(cert["moves"][-1])
    assert board.is_legal(mv)
    _rejected(dict(cert, moves=cert["moves"][:-1] + ["a2a5"]), "not legal")
    # the problem's stated position must be the line's start; the claim states no move counters
    # (a line is no evidence of them: review, 2026-11-30)
    assert check(dict(cert, position={"fen": fens[0]})).ok
    _rejected(dict(cert, position={"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}), "stated position")
    counted = dict(cert, positions=[" ".join(fens[0].split()[:4] + ["99", "77"])] + fens[1:])
    verdict = check(counted)
    assert verdict.ok and " 99 77" not in verdict.reason and fens[0].split()[0] in verdict.reason


# --- item 3: metadata and names -------------------------------------------------------------------

def test_certificates_are_named_after_the_problem_and_never_overwritten(tmp_path):
    from retrologic import problem
    from retrologic.problem import SolveOptions
    opts = SolveOptions(certificate_dir=str(tmp_path))
    for f in ("puzzle4x4/article-solvable-start.toml", "puzzle4x4/retrograde-agrees.toml"):
        problem.solve(problem.load(PROBLEMS / f), opts)
    problem.solve(problem.load(PROBLEMS / "puzzle4x4/article-solvable-start.toml"), opts)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["article-solvable-start-2.puzzle4x4-line.json",
                     "article-solvable-start.puzzle4x4-line.json",
                     "retrograde-agrees.puzzle4x4-line.json"]
    cert = _load(tmp_path / names[1])
    from retrologic import __version__
    assert cert["format"] == certificate.FORMAT and cert["retrologic"] == __version__
    assert cert["question"]["kind"] == "puzzle4x4" and cert["question"]["board"] == cert["board"]
    assert cert["problem"]["file"] == "article-solvable-start.toml"
    assert certificate.check_file(tmp_path / names[1]).ok
    # a written file is never a half-written one: no temporary file is left behind
    assert not list(tmp_path.glob(".*"))
    # metadata inconsistent with the certificate's own board is rejected; a missing format too
    _rejected(dict(cert, question=dict(cert["question"], board="4/2qn/1K2/2N1")), "question")
    _rejected({k: v for k, v in cert.items() if k != "format"}, "format")
    _rejected(dict(cert, format=1), "format")


def test_two_proof_games_into_one_directory_keep_both(tmp_path):
    """Issue 17, item 7: two SPG problems solved into one --certificate-dir used to leave one
    spg-game-1.json; each is now named after its problem file, and a CLI question by a digest."""
    from retrologic.cli import main
    assert main(["solve", str(PROBLEMS / "spg/f4-f5-nf3.toml"), str(PROBLEMS / "spg/knight-swap-b8.toml"),
                 "--certificate-dir", str(tmp_path)]) == 0
    assert main(["spg", "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R", "--moves", "1.5",
                 "--certificate-dir", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.spg-game-*.json"))
    assert names[:2] == ["f4-f5-nf3.spg-game-1.json", "knight-swap-b8.spg-game-1.json"]
    assert len(names) == 3 and names[2].startswith("spg-") and names[2].endswith(".spg-game-1.json")
    for name in names:
        cert = _load(tmp_path / name)
        assert cert["question"]["kind"] == "spg" and "fen" in cert["position"]
        assert certificate.check_file(tmp_path / name).ok
    # a game certificate claiming the other problem's position is rejected
    a, b = (_load(tmp_path / n) for n in names[:2])
    _rejected(dict(a, position=b["position"]), "position")


# --- (b) random mutations -------------------------------------------------------------------------

def test_random_mutations_are_rejected_or_still_true(real):
    rng = random.Random(int(os.environ.get("FORGERY_SEED", "20261117")))
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    truth: dict[tuple, bool] = {}
    bad: list[str] = []
    for ctype, share in SHARE.items():
        n = max(8, round(MUTATIONS * share))
        claim_of, oracle = ORACLES[ctype]
        for i in range(n):
            base = real[ctype][i % len(real[ctype])]
            mutant, what = mutate(base, rng)
            if rng.random() < 0.25:
                mutant, more = mutate(mutant, rng)
                what += "; " + more
            try:
                v = check(mutant)
            except InputError as e:             # no object / type: exit 3, a reason
                assert len(str(e)) <= 300
                counts[ctype]["input error"] += 1
                continue
            except Exception as e:  # noqa: BLE001
                counts[ctype]["crash"] += 1
                bad.append(f"{ctype}: {what}: crash {type(e).__name__}: {e}")
                continue
            if not v.ok:
                if not v.reason or len(v.reason) > 200:
                    bad.append(f"{ctype}: {what}: reason {v.reason!r}")
                counts[ctype]["rejected"] += 1
                continue
            claim = claim_of(mutant)
            if claim not in truth:
                truth[claim] = oracle(mutant)
            if truth[claim]:
                counts[ctype]["accepted, still true"] += 1
                if os.environ.get("FORGERY_SHOW"):
                    print(f"  accepted {ctype}: {what}")
            else:
                counts[ctype]["ACCEPTED FALSE"] += 1
                bad.append(f"{ctype}: {what}: accepted a false claim: {v.reason}")
    total = collections.Counter()
    for ctype, c in sorted(counts.items()):
        print(f"{ctype:22} {sum(c.values()):5} mutations: {dict(c)}")
        total.update(c)
    print(f"{'total':22} {sum(total.values()):5} mutations: {dict(total)}")
    assert not bad, "\n".join(bad[:10])
    assert sum(total.values()) >= min(MUTATIONS, 1000)
    assert total["rejected"] > 0 and total["accepted, still true"] > 0


def _objects(doc: Any, path: str = "") -> list[tuple[str, dict]]:
    """Every JSON object of a certificate with its path (`lemmas[0].proof`), the metadata
    tables (question, position, problem: informational) left out."""
    out: list[tuple[str, dict]] = []
    if isinstance(doc, dict):
        out.append((path, doc))
        for k, v in doc.items():
            if not (path == "" and k in certread.METADATA):
                out += _objects(v, f"{path}.{k}" if path else k)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _objects(v, f"{path}[{i}]")
    return out


def test_a_field_no_checker_reads_is_rejected_at_any_depth(real):
    """A real certificate of every type with one field added, at the top or in a nested object
    (a proof node, a lemma, a candidate, a length of a listing), is rejected, and the reason
    names the field's path: nothing in an accepted certificate passes unread."""
    rng = random.Random(29)
    tried, nested = collections.Counter(), 0
    for ctype, certs in sorted(real.items()):
        cert = certs[0]
        objects = _objects(cert)
        for where, _ in [objects[0]] + rng.sample(objects[1:], min(2, len(objects) - 1)):
            mutant = copy.deepcopy(cert)
            target = dict(_objects(mutant))[where]
            key = "remark"
            target[key] = "x"
            reason = _rejected(mutant)
            named = f"{where}.{key}" if where else key
            if "not part of" in reason:
                assert f"{named} not part of" in reason, reason
                tried[ctype] += 1
                nested += bool(where)
            else:   # objects whose checker already lists its fields (a cage's zone states)
                assert "unknown field" in reason or "expected {" in reason, reason
    assert set(tried) == set(ORACLES) and nested >= 3, (tried, nested)


def test_a_certificate_nested_past_the_stack_is_rejected_not_a_crash():
    """`check` of a decoded object (the API: no file, so no depth cap) nested thousands deep."""
    deep: Any = "x"
    for _ in range(20_000):
        deep = {"a": deep}
    cert = _stamped(dict(_game_cert(), extra=deep))
    assert check(cert).reason == "malformed certificate: nested too deeply"


def test_informational_words_are_checked_too():
    """The words a reader sees beside the checked data are re-derived: a proof leaf's message,
    a legal game's SAN text, and a candidate not proved impossible carries no proof."""
    cert = _lastmove_cert(KNIGHT)
    assert check(cert).ok
    leaves = [node for c in cert["candidates"] if c["proof"]
              for node in _tree_nodes(c["proof"]) if "message" in node]
    assert leaves
    forged = copy.deepcopy(cert)
    for c in forged["candidates"]:
        for node in _tree_nodes(c["proof"] or {}):
            if "message" in node:
                node["message"] = "White has no king"
    _rejected(forged, "message", "not the rule's")
    open_ones = [i for i, c in enumerate(cert["candidates"]) if c["status"] != "impossible"]
    assert open_ones
    forged = copy.deepcopy(cert)
    forged["candidates"][open_ones[0]]["proof"] = cert["candidates"][
        next(i for i, c in enumerate(cert["candidates"]) if c["proof"])]["proof"]
    _rejected(forged, "a proof, but not impossible")
    from retrologic.legalgame.game import LegalGame
    moves = tuple(chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "g1f3"))
    board = chess.Board()
    for m in moves:
        board.push(m)
    game = LegalGame(moves, board).certificate()
    assert game["san"] == "1.e4 e5 2.Nf3" and check(game).ok
    _rejected(dict(game, san="1.e4 e5 2.Nc3"), "san")


def test_a_hostile_shape_costs_no_more_than_its_objects(monkeypatch):
    """The copy that records what a checker reads: a long key above many objects is not copied
    into every path below it (a 100,000-character key over 5,000 objects stays small; paths
    as strings took 500 MB), paths are spelled as JSON addresses, and past MAX_OBJECTS the
    certificate is refused unchecked."""
    import tracemalloc
    key = "k" * 100_000
    tracemalloc.start()
    top, made = certread.tracked({"type": "x", key: [{} for _ in range(5_000)]})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(made) == 5_001 and peak < 20 * 2 ** 20, peak
    inner = certread.tracked({"a": [[{"b": {"c": 1}}]]})[1]
    assert sorted(certread.unread(inner)) == ["a", "a[0][0].b", "a[0][0].b.c"]
    monkeypatch.setattr(certread, "MAX_OBJECTS", 10_000)
    cert = _stamped(dict(_game_cert(), extra=[{} for _ in range(20_000)]))
    assert check(cert).reason == "not a certificate: more than 10,000 JSON objects"


def test_a_restriction_says_what_it_restricts():
    """A cage proof's restriction text (`expr`) must be the text of its pawn_captures."""
    cert = _stamped(verify(FIG7, restrictions=[NO_DXE["expr"]]).certificate())
    assert check(cert).ok and cert["restrictions"] == [NO_DXE]
    forged = copy.deepcopy(cert)
    forged["restrictions"][0]["expr"] = 'never_moved("e1")'
    _rejected(forged, "is not its pawn_captures")


def _tree_nodes(node: dict) -> list[dict]:
    out = [node]
    for kid in node.get("retractions", []):
        out += _tree_nodes(kid["proof"])
    return out


# --- (c) `check` on malformed files ---------------------------------------------------------------

def _write(path: Path, data: bytes | str) -> str:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


@pytest.mark.parametrize("name,make,status", [
    ("zero", lambda d: "/dev/zero", 3),
    ("binary", lambda d: _write(d / "b.json", bytes(range(256)) * 4), 3),
    ("utf16", lambda d: _write(d / "u.json", '{"type": "spg-game"}'.encode("utf-16")), 3),
    ("null-proof", lambda d: _write(d / "n.json", '{"type": "cage-proof", "proof": null}'), 1),
    ("null-proof-v2", lambda d: _write(d / "m.json", json.dumps(
        {"type": "cage-proof", "format": certificate.FORMAT, "retrologic": "0", "proof": None})), 1),
    ("deep", lambda d: _write(d / "d.json", "[" * 100_000 + "]" * 100_000), 3),
    ("deep-object", lambda d: _write(d / "o.json", '{"a":' * 5000 + "1" + "}" * 5000), 3),
    ("deep-inside", lambda d: _write(d / "i.json", json.dumps(
        {"type": "lastmove-proof", "format": certificate.FORMAT, "retrologic": "0",
         "fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1", "plies": 1,
         "candidates": [{"notation": "x", "uci": [], "status": "impossible", "proof": {}}]})
        .replace('"proof": {}', '"proof": ' + "[" * 60 + "]" * 60)), 1),
    ("empty", lambda d: _write(d / "e.json", ""), 3),
    # an unterminated string of 1.2 MB of escaped quotes: its depth count used to cost the
    # square of its length (80 KB: minutes, past --timeout; audit of 2026-12-05)
    ("escaped-quotes", lambda d: _write(d / "q.json", '{"type": "spg-listing", "x": "'
                                        + '\\"' * 600_000), 3),
    ("list", lambda d: _write(d / "l.json", "[1, 2]"), 3),
    ("nan", lambda d: _write(d / "x.json", '{"type": "spg-game", "plies": NaN}'), 3),
    ("huge-int", lambda d: _write(d / "h.json", '{"type": "spg-game", "plies": ' + "9" * 5000 + "}"), 3),
    ("unknown-type", lambda d: _write(d / "t.json", '{"type": "' + "z" * 5000 + '"}'), 3),
    ("duplicate-key", lambda d: _write(d / "k.json", '{"type": "legal-game", "moves": ["e2e4"], '
                                       '"moves": []}'), 3),
    ("wrong-shapes", lambda d: _write(d / "w.json", json.dumps(
        {"type": "deduce-drup", "format": certificate.FORMAT, "retrologic": "0", "fen": 5,
         "assumptions": None, "proof": {"a": 1}})), 1),
])
def test_check_never_crashes_on_a_malformed_file(tmp_path, capsys, name, make, status):
    from retrologic.cli import main
    path = make(tmp_path)
    assert main(["check", path]) == status
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith("retrologic:")]
    if status == 3:
        assert len(lines) == 1 and len(lines[0]) <= 300, err
    else:
        assert "REJECTED" in out and max(len(line) for line in out.splitlines()) <= 300 + len(path)
