"""spg-listing certificates (issue 22, item 3): the proof-game CNF admits every real game, the
listing equals a brute-force one, `check` accepts what certify writes and rejects tampering.

Oracles: python-chess (random legal games, replay) and tests/test_spg_bruteforce.all_games (every
game of a few plies, by python-chess move generation), never the CNF's own answers.
"""

from __future__ import annotations

import copy
import io
import json
import random
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
from pysat.solvers import Solver

from conftest import random_game
from retrologic import problem
from retrologic.certificate import check, check_file
from retrologic.cli import main
from retrologic.limits import Budget
from retrologic.spg import cnf
from retrologic.spg.certify import certificate, first_illegal, pack
from retrologic.spg.cnf import encode
from test_spg_bruteforce import all_games

PROBLEMS = Path(__file__).resolve().parent.parent / "problems" / "spg"
OPEN_GAME = "e2e4 e7e5 g1f3 g8f6 b1c3 b8c6 f1c4 f8c5"
# games with the rare move kinds: castling both ways and both colours, e.p., promotions
# (under-promotion with capture), a king walk and a checking move answered
SPECIAL = [
    "e2e4 e7e5 g1f3 g8f6 f1c4 f8c5 e1g1 e8g8",
    "d2d4 d7d5 c1f4 c8f5 b1c3 b8c6 d1d2 d8d7 e1c1 e8c8",
    "e2e4 a7a6 e4e5 d7d5 e5d6 a6a5",
    "a2a4 b7b5 a4b5 a7a6 b5a6 c8b7 a6b7 g8f6 b7a8n",
    "h2h4 g7g5 h4g5 f7f6 g5f6 e8f7 f6e7 f7g6 e7d8n",
    "h2h4 g7g5 h4g5 f7f6 a2a3 f6f5 a3a4 f5f4 a4a5 f4f3 a5a6 f3g2 a6b7 g2h1q",
    "e2e3 f7f6 d1h5 g7g6 h5g6 h7g6",
    "g2g4 e7e5 f2f3 d8h4",
]


def _replayed(ucis: list[str]) -> tuple[list[chess.Move], chess.Board]:
    board = chess.Board()
    moves = [chess.Move.from_uci(u) for u in ucis]
    for m in moves:
        assert board.is_legal(m)
        board.push(m)
    return moves, board


def _admits(moves: list[chess.Move], final: chess.Board) -> bool:
    """Does encode(final, len(moves)) have a model with the game's moves and every board of the
    game (python-chess's) as its states?"""
    enc = encode(final, len(moves))
    board = chess.Board()
    lits = []
    for ply, move in enumerate(moves, 1):
        var = enc.move_var(ply, board, move)
        if var is None or enc.move_of(var) != (ply, move):
            return False
        lits.append(var)
        board.push(move)
        for sq, p in board.piece_map().items():
            key = (ply, sq, p.color, p.piece_type)
            if key not in enc.x:
                return False
            lits.append(enc.x[key])
    with Solver(name="glucose4", bootstrap_with=enc.clauses) as s:
        return s.solve(assumptions=lits)


@pytest.mark.parametrize("ucis", SPECIAL)
def test_cnf_admits_games_with_special_moves(ucis: str) -> None:
    moves, board = _replayed(ucis.split())
    assert _admits(moves, board)


def test_cnf_admits_random_games() -> None:
    """The admission oracle: random legal games (biased to captures, castling, e.p.,
    promotions) satisfy the CNF of their own final placement and length."""
    for seed in range(10):
        plies = random.Random(seed).randint(1, 9)
        pairs = random_game(1000 + seed, max_plies=plies)
        moves = [m for _, m in pairs]
        board = chess.Board()
        for m in moves:
            board.push(m)
        assert _admits(moves, board), (seed, [m.uci() for m in moves])


def _published(stem: str) -> list[tuple[list[chess.Move], chess.Board]]:
    """The published games of problems/spg/STEM.toml, replayed by python-chess (`_replayed`:
    each move checked legal)."""
    prob = problem.load(PROBLEMS / f"{stem}.toml")
    out = []
    for text in prob.expect["answer"]:
        game = chess.pgn.read_game(io.StringIO(text))
        moves, board = _replayed([m.uci() for m in game.mainline_moves()])
        assert board.board_fen() == prob.position.fen().split()[0]
        out.append((moves, board))
    return out


# proof games use every tempo: the tightest test of the implied counts (castling, a
# promotion, captures by pawns and pieces, a cook of two games)
TIGHT = ["castled-rook-f1", "promoted-bishop-c8", "kirtley-caillaud-2-solutions",
         "knight-swap-b8", "queen-return-d1", "schweig-1938"]


@pytest.mark.parametrize("stem", TIGHT)
def test_cnf_admits_published_proof_games(stem: str) -> None:
    """The capture count and the tempo bound (encoding /2) admit every published game, whose
    plies leave no tempo to spare."""
    for moves, board in _published(stem):
        assert _admits(moves, board), stem


def test_cnf_admits_long_games_with_captures() -> None:
    """The exact capture count on long random games: many captures by both sides."""
    for seed in (7, 11, 23):
        pairs = random_game(2000 + seed, max_plies=40)
        moves, board = _replayed([m.uci() for _, m in pairs])
        assert _admits(moves, board), (seed, [m.uci() for m in moves])


def test_the_tempo_bound_counts_the_moves_left() -> None:
    """Not a vacuous bound: the tempo clauses alone (no move clauses), after 2 of the 8 plies
    of 1.e4 e5 2.Nf3 Nf6 3.Nc3 Nc6 4.Bc4 Bc5, admit the boards of the game itself (White's
    three units each one move away, three moves left) and refute those of 1.Nh3 Nh6 (Nf3 now
    two moves away: five), although every one of those states is allowed by reachability."""
    _, target = _replayed(OPEN_GAME.split())
    allowed = cnf.reachable(target, 8)
    enc = cnf.Encoding(target.board_fen(), 8)
    for t, states in enumerate(allowed):
        for st in sorted(states):
            enc.x[(t,) + st] = enc.new()
    enc.moves = [{} for _ in range(9)]       # no castling move: the bound is the moves left
    cnf._tempo(enc, target, allowed, lambda: None)

    def board_after(ucis: str) -> list[int]:
        board = _replayed(ucis.split())[1]
        here = {(s, p.color, p.piece_type) for s, p in board.piece_map().items()}
        assert here <= allowed[2]
        return [enc.x[(2,) + st] * (1 if st in here else -1) for st in sorted(allowed[2])]
    with Solver(name="glucose4", bootstrap_with=enc.clauses) as s:
        assert s.solve(assumptions=board_after("e2e4 e7e5"))
        assert not s.solve(assumptions=board_after("g1h3 g8h6"))


def test_cnf_excludes_a_wrong_final_placement() -> None:
    """Not a vacuous oracle: the same moves do not satisfy the CNF of another diagram."""
    moves, _ = _replayed("e2e4 e7e5 g1f3".split())
    _, other = _replayed("e2e4 e7e5 b1c3".split())
    assert not _admits(moves, other)


def _diagrams(plies: int, count: int) -> list[chess.Board]:
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        board = chess.Board()
        for _ in range(plies):
            board.push(rng.choice(list(board.legal_moves)))
        out.append(board)
    return out


@pytest.mark.parametrize("plies", [3, 4, 5])
def test_listing_equals_brute_force(plies: int) -> None:
    """Every length of the certificate lists exactly the brute-force games of that length."""
    for target in _diagrams(plies, 3) + [_replayed("a2a3 e7e5 h2h3 e8e7".split())[1]]:
        if (len(target.move_stack) or 4) % 2 != plies % 2:
            continue
        cert, listings = certificate(target, plies, Budget(timeout=120))
        for lst in listings:
            want = all_games(chess.Board(), target, lst.plies)
            assert {tuple(m.uci() for m in g) for g in lst.games} == want
            assert all(first_illegal(p) == len(p) - 1 for p in lst.illegal)
        verdict = check(json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"})))
        assert verdict.ok, verdict.reason


def _cert(moves: str, plies: int, hints: bool = True) -> dict:
    board = chess.BaseBoard(moves) if "/" in moves else _replayed(moves.split())[1]
    cert, _ = certificate(board, plies, Budget(timeout=120), hints=hints)
    return json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"}))


UNIQUE = "f2f4 f7f5 g1f3"                               # problems/spg/f4-f5-nf3
COOKED = "rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR"  # problems/spg/cooked-a3-h3
NONE = "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R"    # problems/spg/no-solution-parity


@pytest.fixture(scope="module")
def certs() -> dict[str, dict]:
    return {"unique": _cert(UNIQUE, 3), "cooked": _cert(COOKED, 4), "none": _cert(NONE, 3)}


def test_verdicts_accepted(certs: dict[str, dict]) -> None:
    assert certs["unique"]["status"] == "unique"
    assert certs["cooked"]["status"] == "cooked"
    assert len(certs["cooked"]["lengths"][0]["games"]) == 2
    assert certs["none"]["status"] == "no solution"
    for cert in certs.values():
        verdict = check(cert)
        assert verdict.ok, verdict.reason
    assert "exactly 2 game(s) of 4 plies" in check(certs["cooked"]).reason


def _rejected(cert: dict, match: str = "") -> None:
    verdict = check(cert)
    assert not verdict.ok
    assert match in verdict.reason, verdict.reason


def test_game_removed_is_rejected_by_the_proof(certs: dict[str, dict]) -> None:
    bad = copy.deepcopy(certs["cooked"])
    bad["lengths"][0]["games"].pop()
    bad["status"] = "unique"          # consistent with the list: only the proof can object
    _rejected(bad, "lengths[0]")
    # the message says what the failed proof may mean (review: it named a hint alone)
    _rejected(bad, "the 1 game(s) listed are all (a game left out of the list, or a wrong")


def _unpack(text: str) -> str:
    """A packed field (base64 of xz), unpacked here independently of the checker."""
    import base64
    import lzma
    return lzma.decompress(base64.b64decode(text)).decode("ascii")


def _key(entry: dict) -> str:
    """The proof's field: "lrat" (hinted, what certify writes) or "proof" (plain DRUP)."""
    return "lrat" if "lrat" in entry or "lrat_xz" in entry else "proof"


def _proof_lines(cert: dict, i: int = 0) -> list[str]:
    entry = cert["lengths"][i]
    key = _key(entry)
    return (entry[key] if key in entry else _unpack(entry[f"{key}_xz"])).splitlines()


def test_proof_cut_short_is_rejected(certs: dict[str, dict]) -> None:
    for name in ("unique", "cooked"):
        cert = certs[name]
        lines = _proof_lines(cert)
        # the shortest prefix of the proof that is accepted; one line less must not be
        k = next(k for k in range(len(lines) + 1)
                 if check(_with_proof(cert, lines[:k])).ok)
        assert k > 0
        _rejected(_with_proof(cert, lines[:k - 1]), "lengths[0]")
        _rejected(_with_proof(cert, []), "empty clause")


def _with_proof(cert: dict, lines: list[str]) -> dict:
    """The certificate with this (plain text) proof of the stipulated length."""
    out = copy.deepcopy(cert)
    key = _key(out["lengths"][0])
    out["lengths"][0].pop(f"{key}_xz", None)
    out["lengths"][0][key] = "\n".join(lines)
    return out


def test_proof_lines_after_the_refutation_are_rejected(certs: dict[str, dict]) -> None:
    """Audit of 2026-12-05: lines after the refutation were parsed, never checked (a hint to
    a clause that does not exist passed); the writer ends its proofs where they refute."""
    for cert in certs.values():
        lines = _proof_lines(cert)
        assert check(_with_proof(cert, lines)).ok
        _rejected(_with_proof(cert, lines + ["1 2 3 0 999999 -5 0"]), "after the refutation")


def test_a_proof_is_read_only_as_far_as_it_checks(certs: dict[str, dict]) -> None:
    """Audit of 2026-12-05: the whole proof was parsed before the check (a packed field of
    16 MiB of "0 0" lines, 3.7 KB of JSON, took 1.2 GB). The lines are now read as the check
    goes: a first step that fails rejects before the malformed second line is read, and a
    packed field of four million such lines is rejected at its first."""
    cert = certs["cooked"]
    assert _proof_lines(cert)          # a refutation that needs its lemmas
    _rejected(_with_proof(cert, ["0 0", "not a proof line"]), "proof step 1")
    bomb = copy.deepcopy(cert)
    entry = bomb["lengths"][0]
    entry.pop("lrat", None)
    entry["lrat_xz"] = pack("0 0\n" * 4_000_000)
    assert len(entry["lrat_xz"]) < 10_000
    _rejected(bomb, "proof step 1")


def test_other_diagram_is_rejected(certs: dict[str, dict]) -> None:
    bad = copy.deepcopy(certs["cooked"])
    bad["target"] = _replayed("a2a3 e7e5 h2h3 e8e7 g1f3 d7d6".split())[1].board_fen()
    _rejected(bad)
    # the proof transplanted onto another diagram with that diagram's own game
    moves, board = _replayed("a2a4 e7e5 h2h3 e8e7".split())
    bad["target"], bad["status"] = board.board_fen(), "unique"
    bad["lengths"][0]["games"] = [[m.uci() for m in moves]]
    _rejected(bad, "lengths[0]")


def test_forged_blocking_clauses_are_rejected(certs: dict[str, dict],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cert = certs["cooked"]
    # a genuinely illegal prefix (the king onto its own pawn) may be blocked: still accepted by
    # a plain DRUP proof (a hinted one names its clauses by position: one more block shifts
    # the lemmas' ids, and the hints that name lemmas fail: rejected, never wrongly accepted;
    # the solver's own proof names them, a tightened one of one lemma may not)
    drup = _cert(COOKED, 4, hints=False)
    assert _key(drup["lengths"][0]) == "proof" and check(drup).ok
    from retrologic.spg import certify as writer
    monkeypatch.setattr(writer, "TIGHTEN_ROUNDS", 0)
    hinted = _cert(COOKED, 4)
    for base, accepted in ((drup, True), (hinted, False)):
        ok = copy.deepcopy(base)
        ok["lengths"][0]["illegal"].append(["a2a3", "e8e7"])
        assert check(ok).ok == accepted, check(ok).reason
    # a legal prefix claimed illegal would cut real games: rejected
    bad = copy.deepcopy(cert)
    bad["lengths"][0]["illegal"].append(["a2a3", "e7e5"])
    _rejected(bad, "is legal")
    # an illegal move inside the prefix, a game that misses the diagram, a duplicate, a
    # game one ply short, a move the CNF has no variable for
    for field, value, match in [
            ("illegal", ["e8e7", "a2a3"], "illegal"),
            ("games", ["a2a3", "e7e5", "h2h3", "d7d6"], "lengths[0].games[2]"),
            ("games", cert["lengths"][0]["games"][0], "twice"),
            ("games", ["a2a3", "e7e5", "h2h3"], "not 4"),
            ("illegal", ["a2a3", "h7h5"], "no variable")]:
        bad = copy.deepcopy(cert)
        bad["lengths"][0][field].append(value)
        _rejected(bad, match)


def test_stated_facts_are_checked(certs: dict[str, dict]) -> None:
    for field, value in [("status", "unique"), ("plies", 6), ("encoding", "other/1"),
                         ("target", "8/8/8"), ("lengths", [])]:
        bad = copy.deepcopy(certs["cooked"])
        bad[field] = value
        _rejected(bad)
    bad = copy.deepcopy(certs["unique"])
    del bad["lengths"][-1]                                  # a shorter length left out
    _rejected(bad, "lengths")
    bad = _with_proof(certs["unique"], ["99999999 0 1 0"] + _proof_lines(certs["unique"]))
    _rejected(bad, "beyond")                               # beyond the CNF's variables
    bad = copy.deepcopy(certs["cooked"])
    bad["question"] = {"kind": "spg", "moves": "3.0"}
    _rejected(bad, "asks for")
    target = certs["unique"]["target"]          # 3 plies: Black to move (accepted before)
    for fen, ok in [(target, True), (target + " b - - 0 1", True), (target + " w - - 0 1", False)]:
        stated = copy.deepcopy(certs["unique"]) | {"position": {"fen": fen}}
        if ok:
            assert check(stated).ok
        else:
            _rejected(stated, "side to move")
    # every stated field, not only a FEN's (a board, a side, frozen units: review, 2026-11-30)
    for position, ok in [({"board": target}, True), ({"board": target, "to_move": "black"}, True),
                         ({"board": chess.STARTING_BOARD_FEN}, False),
                         ({"fen": target, "board": chess.STARTING_BOARD_FEN}, False),
                         ({"board": target, "to_move": "white"}, False),
                         ({"board": target, "frozen": ["e1"]}, False)]:
        stated = copy.deepcopy(certs["unique"]) | {"position": position}
        assert check(stated).ok == ok, position


def test_a_game_certificates_stated_position_is_compared() -> None:
    """spg-game: the problem's stated board, side to move and frozen units are compared with the
    game's end like its FEN (a stated board of another diagram was accepted: review,
    2026-11-30); the accepted claim names the game's own end, python-chess's replay."""
    from retrologic.certformat import stamp
    board = chess.Board()
    for uci in ("f2f4", "f7f5", "g1f3"):
        board.push_uci(uci)
    game = stamp({"type": "spg-game", "moves": ["f2f4", "f7f5", "g1f3"], "plies": 3,
                  "target": board.board_fen()})
    assert check(game).ok and board.board_fen() in check(game).reason
    for position, ok in [({"fen": board.fen()}, True), ({"board": board.board_fen()}, True),
                         ({"board": board.board_fen(), "to_move": "black"}, True),
                         ({"board": chess.STARTING_BOARD_FEN}, False),
                         ({"fen": board.fen(), "board": chess.STARTING_BOARD_FEN}, False),
                         ({"board": board.board_fen(), "to_move": "white"}, False),
                         ({"board": board.board_fen(), "frozen": ["e1"]}, False)]:
        assert check(game | {"position": position}).ok == ok, position


def test_cli_writes_a_listing_certificate_check_accepts(tmp_path, capsys) -> None:
    fen = "rnbqkbnr/ppppp1pp/8/5p2/5P2/5N2/PPPPP1PP/RNBQKB1R"
    assert main(["spg", fen, "--moves", "1.5", "--certificate-dir", str(tmp_path)]) == 0
    assert "listing certificate:" in capsys.readouterr().out
    [cert] = tmp_path.glob("*.spg-listing.json")
    assert main(["check", str(cert)]) == 0
    assert "unique: exactly 1 game(s) of 3 plies" in capsys.readouterr().out
    data = json.loads(cert.read_text())
    data["lengths"][0]["games"] = []
    data["status"] = "no solution"
    cert.write_text(json.dumps(data))
    assert main(["check", str(cert)]) != 0


# --- random mutations (the forgery harness of tests/test_forgery.py, on these certificates) ---

def listing_claim(cert: dict) -> tuple:
    """What an spg-listing certificate claims (for the forgery harness's ORACLES)."""
    return (cert["target"], cert["plies"], cert["status"],
            tuple(frozenset(tuple(g) for g in e["games"]) for e in cert["lengths"]))


def listing_oracle(cert: dict) -> bool:
    """Is the claim true? Brute force (python-chess move generation) lists every length."""
    target = chess.BaseBoard(cert["target"])
    counts = []
    for entry, length in zip(cert["lengths"], range(cert["plies"], -1, -2)):
        games = all_games(chess.Board(), target, length)
        if games != {tuple(g) for g in entry["games"]}:
            return False
        counts.append(len(games))
    status = "cooked" if counts[0] >= 2 else "no solution" if counts[0] == 0 else \
        "shorter" if any(counts[1:]) else "unique"
    return len(counts) == len(range(cert["plies"], -1, -2)) and status == cert["status"]


def test_random_mutations_are_rejected_or_still_true(certs: dict[str, dict]) -> None:
    from forgery_mutate import mutate
    from retrologic.errors import InputError
    rng = random.Random(20261125)
    truth: dict[tuple, bool] = {}
    bad = []
    for i in range(120):
        base = list(certs.values())[i % 3]
        mutant, what = mutate(base, rng)
        try:
            verdict = check(mutant)
        except InputError:
            continue
        if verdict.ok:
            claim = listing_claim(mutant)
            if claim not in truth:
                truth[claim] = listing_oracle(mutant)
            if not truth[claim]:
                bad.append(f"{what}: accepted a false claim: {verdict.reason}")
    assert not bad, bad[:3]


def test_no_certificate_when_the_time_runs_out(tmp_path) -> None:
    """The CNF route gets what the question's budget has left: none left, nothing written."""
    import time as _time
    from retrologic.certformat import Destination
    from retrologic.spg.certify import certify
    moves, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    budget = Budget(timeout=0.01)
    _time.sleep(0.02)
    path, line = certify(Destination(tmp_path, "t"), board, 6, [moves], budget)
    assert path is None and "did not finish" in line and "time limit" in line
    assert not list(tmp_path.iterdir())
    path, line = certify(Destination(tmp_path, "t"), board, 6, [], None)   # engine disagrees
    assert path is None and "differs" in line


def test_the_writer_shows_its_progress_only_when_asked(tmp_path, capsys, monkeypatch) -> None:
    """`--progress` shows the listing's lengths, games, refutations, core iterations and (a line
    every EVERY seconds, here every slice) the solver's conflicts and log size: a listing under
    a raised --certificate-mib takes up to half an hour after the verdict. Without it, nothing."""
    from retrologic.certformat import Destination
    from retrologic.spg import writer_progress
    from retrologic.spg.certify import certify
    moves, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    # 18 games of 6 plies reach it (transpositions): the engine kept one of them
    path, line = certify(Destination(tmp_path, "quiet"), board, 6, [moves], None, 18)
    assert path is not None and capsys.readouterr().err == ""
    monkeypatch.setattr(writer_progress, "EVERY", 0.0)
    path, line = certify(Destination(tmp_path, "shown"), board, 6, [moves], None, 18,
                         progress=True)
    err = capsys.readouterr().err.splitlines()
    assert path is not None and err[0] == "spg listing: the lengths 6, 4, 2, 0 plies, 120 s given"
    assert "spg listing: 6 plies: game 18 found" in err
    assert "spg listing: 4 plies: 0 game(s), refuted; reducing the proof log" in err
    assert any(e.startswith("spg listing: 6 plies: ") and " conflicts, LRAT log " in e
               for e in err), err
    assert all(e.startswith("spg listing: ") for e in err)


def test_the_cnf_route_looks_at_the_time_while_encoding_and_loading(monkeypatch) -> None:
    """A fuzz run found `solve --timeout 2 --certificate-dir` on a 24-ply file ending past
    3.5 s: the time was looked at only between the solver's conflict slices, and encoding the
    CNF and loading it into CaDiCaL take seconds on long problems. Both now stop at the limit
    (at most one ply or one chunk of clauses late), and loading in chunks changes nothing the
    solver sees."""
    from retrologic.limits import LimitHit
    from retrologic.spg import certify as writer
    moves, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    plies_seen = []

    def tick() -> None:
        plies_seen.append(1)
        if len(plies_seen) == 3:
            raise LimitHit("time limit 1 s")

    with pytest.raises(LimitHit):
        encode(board, 6, tick)
    assert len(plies_seen) == 3                   # stopped at the tick, not at the end
    assert encode(board, 6, lambda: None).clauses == encode(board, 6).clauses
    clauses = encode(board, 6).clauses
    over = Budget(timeout=0.001)
    time.sleep(0.01)
    with pytest.raises(LimitHit):
        writer.LratSolver(clauses, over)
    with pytest.raises(LimitHit):                 # through the writer: before any solving
        writer.list_length(board, 6, over)
    runs = []
    for chunk in (len(clauses) + 1, 7):          # one chunk, then thousands of them
        monkeypatch.setattr(writer, "LOAD_CHUNK", chunk)
        with writer.LratSolver(clauses, Budget(timeout=60)) as solver:
            assert solver.solve(Budget(timeout=60))
            runs.append((solver.model(), bytes(solver.log())))
    assert runs[0] == runs[1]                    # the same model and the same proof log


def test_a_check_ended_by_its_limit_is_unknown_never_rejected(tmp_path, monkeypatch,
                                                             capsys) -> None:
    """`check --timeout` and Ctrl-C reach the spg-listing checker's long loops (a 16-ply
    certificate took 11 s to check and ignored both until then): a check they end first is
    *unknown* (exit 4), and a rejection found after the limit is *unknown* too, since a part of
    the check may have been cut short; an intact certificate is still accepted, a forged one
    still rejected."""
    from retrologic import certformat, limits
    from retrologic.certificate import check as check_under
    moves, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    cert, _ = certificate(board, 6, Budget(timeout=120))
    cert = certformat.stamp(cert)
    assert check_under(cert, Budget(timeout=60)).ok
    calls = []
    real_tick = certformat.tick

    def tick_then_stop() -> None:          # the time runs out after the 5th look at it
        calls.append(1)
        if len(calls) >= 5:
            raise limits.LimitHit("time limit 1 s")
        real_tick()

    monkeypatch.setattr("retrologic.spg.proof_checker.tick", tick_then_stop)
    verdict = check_under(cert, Budget(timeout=60))
    assert (verdict.ok, verdict.stopped, verdict.reason) == (False, "time limit 1 s",
                                                              "time limit 1 s")
    assert len(calls) == 5                 # stopped at the look, not after the whole check
    monkeypatch.undo()
    forged = copy.deepcopy(cert)
    forged["lengths"][0]["games"] = []      # a game removed from the listing
    assert check_under(forged, Budget(timeout=60)).stopped is None
    assert not check_under(forged, Budget(timeout=60)).ok
    limits.request_stop()                  # Ctrl-C before the check: the rejection is unknown
    try:
        verdict = check_under(forged, Budget(timeout=60))
    finally:
        limits.reset()
    assert (verdict.ok, verdict.stopped) == (False, "interrupted")
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(cert))
    assert main(["check", str(path), "--timeout", "60"]) == 0
    capsys.readouterr()

    def out_of_time() -> None:
        raise limits.LimitHit("time limit 1 s")

    monkeypatch.setattr("retrologic.spg.proof_checker.tick", out_of_time)
    assert main(["check", str(path), "--json", "--timeout", "1"]) == 4
    record = json.loads(capsys.readouterr().out)
    assert (record["outcome"], record["accepted"], record["status"], record["reason"]) == \
        ("unknown", False, 4, "time limit 1 s")


def test_no_certificate_that_check_would_not_unpack(tmp_path, monkeypatch) -> None:
    """The writer measures each packed text as `check` unpacks it, and writes nothing that
    `check` would reject for its unpacked size (buchanan-motley-c's 20-ply proof: a 31.5 MiB
    file whose LRAT unpacked to 320 MiB, over the 192 MiB `check` unpacked then, was written
    and then rejected)."""
    from retrologic.certformat import Destination
    from retrologic.spg import certify as writer
    from retrologic.spg.proof_checker import _text
    _, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    cert, listings = writer.certificate(board, 6, Budget(timeout=120))
    for i, (entry, lst) in enumerate(zip(cert["lengths"], listings)):
        texts = [_text(entry, key, i) for key in ("lrat", "proof", "core")]
        assert max(len(t) for t in texts if t is not None) == lst.unpacked()
    games = listings[0].games
    widest = max(lst.unpacked() for lst in listings)
    from retrologic import certsize
    monkeypatch.setattr(certsize, "unpacked_bytes", lambda: widest)
    path, line = writer.certify(Destination(tmp_path, "t"), board, 6, games, None)
    assert path is not None, line
    monkeypatch.setattr(certsize, "unpacked_bytes", lambda: widest - 1)
    path, line = writer.certify(Destination(tmp_path / "no", "t"), board, 6, games, None)
    assert path is None and "unpacks to" in line and not (tmp_path / "no").exists()


def test_the_proof_log_has_a_size_limit(tmp_path, monkeypatch) -> None:
    """Past `certsize.log_bytes()` of CaDiCaL's LRAT log the writer stops with the reason (a
    20-ply listing given 400 s grew a process to 23 GiB before this limit existed; past it, the
    certificate is too large anyway), and `--certificate-mib` moves the limit (this 6-ply
    listing logs about 170 KB: 40 KiB stops it, 1 MiB does not)."""
    from retrologic import certsize
    from retrologic.certformat import Destination
    from retrologic.spg import certify as writer
    moves, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    monkeypatch.setattr(certsize, "LOG_AT_DEFAULT", 40 * 1024)
    path, line = writer.certify(Destination(tmp_path, "t"), board, 6, [moves], None)
    assert path is None and "proof log passed 0 MiB (--certificate-mib 40)" in line, line
    assert not list(tmp_path.iterdir())
    with certsize.allowing(1024):
        games = writer.certificate(board, 6, Budget(timeout=120))[1][0].games
        path, line = writer.certify(Destination(tmp_path, "t"), board, 6, games, None)
    assert path is not None and check_file(path).ok and moves in games, line


def test_the_writer_gets_the_questions_time_left(tmp_path, monkeypatch) -> None:
    """Under a time limit the writer has what the question left of it; DEFAULT_SECONDS is its
    time only without a limit. It was a cap under any limit: `solve yanami-1997.toml
    --timeout 3000` wrote no listing ("120 s given") though 23 minutes would have done."""
    from retrologic.certformat import Destination
    from retrologic.spg import certify as writer
    _, board = _replayed("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
    games = writer.certificate(board, 6, Budget(timeout=120))[1][0].games
    monkeypatch.setattr(writer, "DEFAULT_SECONDS", 0.001)
    path, line = writer.certify(Destination(tmp_path, "t"), board, 6, games, Budget(timeout=120))
    assert path is not None and check_file(path).ok, line
    path, line = writer.certify(Destination(tmp_path / "no", "t"), board, 6, games, None)
    assert path is None and "0.001 s given" in line, line
