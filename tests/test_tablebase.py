"""8x8 tablebases: indexing and symmetry, move generation against python-chess, the KBNK table
(published longest mate, forward check with python-chess), the forward checker itself, storage,
limits, the problem-file kind and the CLI."""

from __future__ import annotations

import json

import chess
import numpy as np
import pytest

from retrologic import cli, problem
from retrologic.tablebase import retrograde as rg
from retrologic.tablebase import index as ti
from retrologic.errors import InputError
from retrologic.tablebase.table import Library, Table, dependencies, from_board, squares_of
from retrologic.tablebase.moves import ChessTable, static_legal
from retrologic.tablebase.plot import histogram
from retrologic.tablebase.checker import board_of, check


@pytest.fixture(scope="module")
def lib() -> Library:
    return Library()


# -- indexing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("signature", ["KQKR", "KRRK", "KPK", "KBNK", "KK"])
def test_index_round_trip_and_symmetry(signature: str) -> None:
    lay = ti.layout(signature)
    rng = np.random.default_rng(1)
    idx = rng.integers(0, lay.size, 20000)
    side, sq = ti.decode(lay, idx)
    assert (ti.encode(lay, side, sq) == idx).all()
    canon = ti.canonical(lay, sq)
    assert (ti.canonical(lay, canon) == canon).all()
    symmetries = [ti.MIRROR] if lay.pawns else list(ti.TRANSFORMS)
    for t in symmetries:
        assert (ti.canonical(lay, t[sq]) == canon).all()
    for g in lay.groups:                   # identical men: either order is the same position
        swapped = sq.copy()
        swapped[:, list(g)] = swapped[:, list(g)[::-1]]
        assert (ti.canonical(lay, swapped) == canon).all()


def test_signatures() -> None:
    assert ti.parse_signature("kqkr") == ("KQ", "KR")
    assert ti.parse_signature("KNBK") == ("KBN", "K")
    assert ti.oriented("K", "KR") == ("KRK", True)
    assert dependencies("KQKR") == ["KQK", "KRK"]
    assert dependencies("KPK") == ["KBK", "KK", "KNK", "KQK", "KRK"]
    for bad in ["KXK", "QK", "KQRK Q", "KQKRN", "K"]:
        with pytest.raises(InputError):
            ti.parse_signature(bad)


# -- move generation against python-chess -------------------------------------------------------

def _index(lay: ti.Layout, board: chess.Board) -> int:
    sig, side, sq = squares_of(board)
    assert sig == lay.signature
    return int(ti.index_of(lay, np.array([side]), np.array([sq]))[0])


@pytest.mark.parametrize("signature", ["KQKR", "KPK", "KKP", "KBNK"])
def test_moves_and_unmoves_match_python_chess(signature: str) -> None:
    """In-table moves are python-chess's legal non-captures, non-promotions; un-moves invert them."""
    game = ChessTable(signature)
    lay = game.lay
    game.compute_legal()
    rng = np.random.default_rng(2)
    sample = rng.choice(np.flatnonzero(game.legal), size=300, replace=False)
    rows, kids = game.successors(sample)
    forward = set(zip(sample[rows].tolist(), kids.tolist()))
    for i, p in enumerate(sample):
        board = board_of(lay, *[x[0] for x in ti.decode(lay, np.array([p]))])
        assert board.is_valid()
        want = set()
        for move in board.legal_moves:
            if board.is_capture(move) or move.promotion:
                continue
            board.push(move)
            want.add(_index(lay, board))
            board.pop()
        assert set(kids[rows == i].tolist()) == want, board.fen()
    # un-moves invert moves: the parents of the children include the sample's positions, and
    # every parent found for a sampled position has it among its children
    children = np.unique(kids)
    brow, parents = game.unmoves(children)
    backward = set(zip(parents.tolist(), children[brow].tolist()))
    assert forward <= backward
    brow, parents = game.unmoves(sample)
    prow, pkids = game.successors(parents)
    pairs = set(zip(prow.tolist(), pkids.tolist()))
    assert all((j, int(sample[brow[j]])) in pairs for j in range(len(parents)))
    assert len(parents) > len(sample)


def test_static_legality_matches_python_chess() -> None:
    lay = ti.layout("KQKR")
    rng = np.random.default_rng(3)
    idx = rng.integers(0, lay.size, 5000)
    legal = static_legal(lay, idx)
    side, sq = ti.decode(lay, idx)
    canonical = ti.index_of(lay, side, sq) == idx
    for i in range(len(idx)):
        if canonical[i] and len(set(sq[i].tolist())) == lay.k:
            assert legal[i] == board_of(lay, side[i], sq[i]).is_valid()
        else:
            assert not legal[i]


# -- a four-man table ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kbnk(lib: Library) -> Table:
    return lib.table("KBNK")


def test_kbnk_longest_mate_is_33(kbnk: Table) -> None:
    stats = kbnk.stats()
    assert kbnk.complete
    assert stats["longest_mate"] == 33 and stats["longest_plies"] == 65   # the published maximum
    assert stats["black_to_move_wins"] == 0 and stats["white_to_move_losses"] == 0


def test_kbnk_forward_check_with_python_chess(lib: Library, kbnk: Table) -> None:
    report = check(lib, "KBNK", sample=1500, seed=11)
    # 1,500 of each table, KK (fewer legal positions than that) in full: the sub-tables whose
    # values the captures of KBNK's positions look up are checked the same way
    assert report.tables == ["KBNK", "KBK", "KNK", "KK"]
    kk = int((lib.table("KK").outcome != rg.INVALID).sum())
    assert report.checked == 3 * 1500 + kk and report.children > 10000
    assert report.indices == 3 * 2 * 1500 + lib.table("KK").layout.size
    assert report.ok and report.mismatches == [] and report.wrong_marks == 0
    # and every position at the longest distance (these are the hardest to get right)
    longest = np.flatnonzero((kbnk.outcome == rg.WIN) & (kbnk.dist == 65))
    report = check(lib, "KBNK", longest)
    assert report.ok and report.checked == len(longest)


def test_kbnk_longest_line_mates_in_65_plies(lib: Library, kbnk: Table) -> None:
    """The table's principal variation, played by python-chess, ends in mate after 65 plies."""
    idx = np.flatnonzero((kbnk.outcome == rg.WIN) & (kbnk.dist == 65))[0]
    board = board_of(kbnk.layout, *[x[0] for x in ti.decode(kbnk.layout, np.array([idx]))])
    line = lib.line(board)
    assert len(line) == 65
    for move in line:
        assert board.is_legal(move)
        board.push(move)
    assert board.is_checkmate() and board.turn == chess.BLACK


# -- the forward checker catches a wrong table ---------------------------------------------------

def test_forward_check_rejects_corrupted_values(lib: Library) -> None:
    good = lib.table("KRK")
    bad_lib = Library()
    corrupt = Table("KRK", good.outcome.copy(), good.dist.copy())
    bad_lib.tables["KRK"] = corrupt
    bad_lib.tables["KK"] = lib.table("KK")
    rng = np.random.default_rng(4)
    won = rng.choice(np.flatnonzero(good.outcome == rg.WIN), size=3, replace=False)
    drawn = rng.choice(np.flatnonzero(good.outcome == rg.DRAW), size=3, replace=False)
    corrupt.dist[won] += 2                         # a slower mate than the real one
    corrupt.outcome[drawn] = rg.WIN                # a draw claimed as a win
    corrupt.dist[drawn] = 7
    report = check(bad_lib, "KRK", np.concatenate([won, drawn]))
    assert len(report.mismatches) == 6
    assert check(lib, "KRK", np.concatenate([won, drawn])).ok


def _krk_with_hidden_mates(lib: Library) -> Library:
    """A library whose KRK table marks its 27 checkmates INVALID and calls every other legal
    position a draw (a forgery the checker accepted before it checked the markings)."""
    good = lib.table("KRK")
    outcome, dist = good.outcome.copy(), good.dist.copy()
    mated = (outcome == rg.LOSS) & (dist == 0)
    outcome[outcome != rg.INVALID] = rg.DRAW
    dist[outcome == rg.DRAW] = -1
    outcome[mated] = rg.INVALID
    forged = Library()
    forged.tables["KRK"] = Table("KRK", outcome, dist)
    forged.tables["KK"] = lib.table("KK")
    return forged


def test_forward_check_rejects_positions_hidden_as_invalid(lib: Library) -> None:
    """A mate marked INVALID is a legal position by python-chess (a wrong marking), and a
    position one move before it sees a legal child marked INVALID (a wrong value): both found,
    on the mate's index and its parent's alone."""
    good = lib.table("KRK")
    forged = _krk_with_hidden_mates(lib)
    mates = np.flatnonzero((good.outcome == rg.LOSS) & (good.dist == 0))
    assert len(mates) == 27
    report = check(forged, "KRK", mates[:1])
    assert not report.ok and report.wrong_marks == 1
    assert report.misplaced == [("KRK", int(mates[0]), "a legal position marked INVALID")]
    parent = np.flatnonzero((good.outcome == rg.WIN) & (good.dist == 1))[:1]
    report = check(forged, "KRK", parent)
    assert not report.ok and report.wrong_marks == 0
    assert report.mismatches[0][2] == (rg.INVALID, -1)
    assert check(lib, "KRK", np.concatenate([mates[:1], parent])).ok


def test_markings_follow_the_checkers_own_rule(lib: Library) -> None:
    """`valid` against brute force with python-chess on random KRK indices: distinct squares,
    the canonical index of its squares, the side not to move not in check; the engine's own
    INVALID markings agree with it."""
    from retrologic.tablebase.checker import valid
    table = lib.table("KRK")
    lay = table.layout
    rng = np.random.default_rng(5)
    idx = rng.choice(lay.size, size=3000, replace=False)
    side, squares = ti.decode(lay, idx)
    want = []
    for s, sq, i in zip(side, squares, idx):
        if len(set(sq.tolist())) < len(sq) or ti.index_of(lay, s[None], sq[None])[0] != i:
            want.append(False)
            continue
        want.append(not board_of(lay, s, sq).was_into_check())
    assert valid(lay, idx).tolist() == want
    assert sum(want) > 500 and (table.outcome[idx] != rg.INVALID).tolist() == want


def test_sub_tables_are_checked_too(lib: Library) -> None:
    """A KK table calling every position lost is found by checking KRK: the captures of the
    rook look their values up in KK (so some KRK values disagree with their children), and the
    check then checks KK itself, whose positions disagree with theirs."""
    kk = lib.table("KK")
    forged = Library()
    forged.tables["KK"] = Table("KK", np.where(kk.outcome == rg.INVALID, rg.INVALID, rg.LOSS)
                                .astype(kk.outcome.dtype), np.where(kk.outcome == rg.INVALID,
                                                                    kk.dist, 0))
    forged.tables["KRK"] = lib.table("KRK")
    report = check(forged, "KRK", sample=50, seed=3)
    assert report.tables == ["KRK", "KK"] and not report.ok
    boards = [fen.split()[0] for fen, _, _ in report.mismatches]
    assert any("R" in b for b in boards) and any("R" not in b for b in boards)
    assert check(lib, "KRK", sample=50, seed=3).ok


# -- storage, limits --------------------------------------------------------------------------

def test_save_load_round_trip(lib: Library, tmp_path) -> None:
    table = lib.table("KQK")
    path = table.save(tmp_path)
    again = Table.load(path)
    assert again.signature == "KQK"
    assert (again.outcome == table.outcome).all() and (again.dist == table.dist).all()
    loaded = Library(tmp_path)
    assert (loaded.table("KQK").dist == table.dist).all()
    (tmp_path / "KRK.npz").write_bytes(b"not a table")
    with pytest.raises(InputError):
        Library(tmp_path).table("KRK")


def test_time_limit_gives_incomplete_table() -> None:
    table = Library(timeout=0.0).table("KRK")
    assert not table.complete and "time limit" in table.reason


def test_histogram_counts_every_decided_position(lib: Library) -> None:
    table = lib.table("KQK")
    hist = histogram(table)
    stats = table.stats()
    assert hist["wins"].sum() == stats["white_to_move_wins"] + stats["black_to_move_wins"]
    assert len(hist["wins"]) == 11 and hist["losses"][0] == stats["black_to_move_mated"]


# -- probing ----------------------------------------------------------------------------------

def test_from_board_rejects_what_tables_do_not_hold() -> None:
    for fen in ["8/8/8/8/8/2k5/8/KRRQ4 b - - 0 1",        # five men
                "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",          # castling rights
                "8/8/8/8/8/2k5/8/KRR5 w - - 0 1",          # side not to move in check
                "k7/8/8/8/4pP2/8/8/K7 b - f3 0 1"]:        # en passant possible
        with pytest.raises(InputError):
            from_board(chess.Board(fen))
    bad_rights = "8/8/8/8/8/2k5/8/KR6 w K - 0 1"          # python-chess's fen() drops the K
    with pytest.raises(InputError) as e:
        from_board(chess.Board(bad_rights), bad_rights)
    assert e.value.value == bad_rights and "bad castling rights" in str(e.value)


def test_line_replays_to_mate(lib: Library) -> None:
    board = chess.Board("8/8/8/8/3k4/8/8/R3K3 b - - 0 1")
    probe = lib.probe(board)
    line = lib.line(board)
    assert len(line) == probe.dist == 28
    for move in line:
        board.push(move)
    assert board.is_checkmate()


# -- problem files and CLI --------------------------------------------------------------------

def _problem(question: dict) -> problem.Problem:
    return problem.parse({"format": "retrologic/1", "question": {"kind": "tablebase", **question}})


def test_problem_fields_are_validated() -> None:
    with pytest.raises(InputError, match="question.table"):
        _problem({"table": "KQQQKR"})
    with pytest.raises(InputError, match="question.fen"):
        _problem({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"})
    with pytest.raises(InputError, match="question.verify"):
        _problem({"table": "KRK", "verify": -1})
    with pytest.raises(InputError, match="question"):
        problem.solve(_problem({}))


def test_cli_build_probe_verify(tmp_path, capsys) -> None:
    assert cli.main(["tablebase", "build", "KRK", "--out", str(tmp_path), "--verify", "50"]) == 0
    out = capsys.readouterr().out
    assert "longest mate 16 moves" in out and "0 mismatches" in out
    assert (tmp_path / "KRK.npz").exists() and (tmp_path / "KK.npz").exists()
    assert cli.main(["tablebase", "probe", "8/8/8/8/8/2k5/8/KR6 w - - 0 1", "--dir", str(tmp_path),
                     "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] == "mate in 14" and data["facts"]["best_moves"] == ["Rd1"]
    assert cli.main(["tablebase", "verify", "KRK", "--dir", str(tmp_path), "--sample", "100"]) == 0
    assert "200 positions" in (out := capsys.readouterr().out) and "tables KRK, KK" in out


def test_cli_plot_writes_png(tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")            # an optional dependency: only --plot needs it
    png = tmp_path / "kqk.png"
    assert cli.main(["tablebase", "plot", "KQK", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tables_with_pawns_on_both_sides_are_refused() -> None:
    with pytest.raises(InputError, match="en passant"):
        Library().table("KPKP")


def test_cli_errors_and_limits(capsys) -> None:
    assert cli.main(["tablebase", "probe", "not a fen"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fen" in err
    assert cli.main(["tablebase", "build", "KXK", "--out", "/tmp/unused-retrologic"]) == 3
    capsys.readouterr()
    assert cli.main(["tablebase", "probe", "8/8/8/8/8/2k5/8/KR6 w - - 0 1", "--timeout", "1e-6"]) == 4
    assert "unknown" in capsys.readouterr().out
