"""Bootstrapping (Hwa §3): every board of a verified closed set becomes a known cage (a member
tied to its parent entry); a later cage passing through one is cut at once, its proof embeds
the member's proof (the parent's closed set started at the member) and `retrologic check`
accepts it; members never make a non-cage a cage; tampered members are never used or accepted;
collection files are verified in order, learning as they go; the index finds what a scan of
every entry finds."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import chess
import pytest

from retrologic.cages import collection
from retrologic.cages.checker import check_proof
from retrologic.cages.entry import CageEntry, member_text
from retrologic.cages.library import Library, entry_of, load_library
from retrologic.cages.search import verify
from retrologic.cli import main
from retrologic.errors import InputError
from retrologic.position import Placement, Position

from conftest import random_game

ROOT = Path(__file__).resolve().parent.parent
KING = "7K/pppp1ppp/4p3/8/8/8/8/8"           # the white king behind the black pawns: 19 boards
LATER = "3K4/pppp1ppp/4p3/8/3N4/8/8/8"        # a board of that set, and a free knight
FIG4 = "8/8/8/8/8/5P2/4PrPP/7K"


def _learned(board: str, members: bool = True, name: str = "king") -> tuple[Library, CageEntry]:
    result = verify(board)
    assert result.proved
    entry = entry_of(result, name, members=members)
    lib = Library()
    lib.add(entry, proof=result)
    return lib, entry


def test_a_later_cage_is_cut_by_a_learned_member():
    alone = verify(LATER)
    start_only, _ = _learned(KING, members=False)
    with_members, entry = _learned(KING)
    assert len(entry.members) >= 10
    via_start = verify(LATER, library=start_only)
    via_member = verify(LATER, library=with_members)
    assert alone.verdict == via_start.verdict == via_member.verdict == "proved"
    assert via_member.states == 1 < via_start.states <= alone.states
    assert via_member.lemmas[0].parent == "king"
    cert = via_member.certificate()
    lemma = cert["lemmas"][0]["proof"]
    assert lemma["start"]["board"] == "3K4/pppp1ppp/4p3/8/8/8/8/8"    # the member, not KING
    assert lemma["members"][0] == lemma["start"] and len(lemma["members"]) == 19
    v = check_proof(cert)
    assert v.ok, v.reason


def test_members_are_written_and_re_verified_from_the_file(tmp_path):
    assert main(["cage", KING, "--learn", "--library", str(tmp_path), "--name", "king"]) == 0
    text = (tmp_path / "king.toml").read_text()
    assert "members = [" in text and '"K7/pppp1ppp/4p3/8/8/8/8/8",' in text
    lib = load_library(tmp_path)
    assert len(lib) == 1 and lib.size == 1 + len(lib.get("king").members)
    r = verify(LATER, library=lib)
    assert r.proved and r.states == 1 and check_proof(r.certificate()).ok
    # a proof citing a member of a file-loaded entry names it in `uses` when learned itself
    assert main(["cage", LATER, "--learn", "--library", str(tmp_path), "--name", "later"]) == 0
    assert load_library(tmp_path).get("later") is None      # contains a known cage: not learned


def test_a_tampered_member_is_never_used(tmp_path):
    """A member that is not a board of its parent's closed set (hand-edited in) is never used:
    the parent verifies again, the member is looked up in the set, not trusted."""
    _, entry = _learned(KING)
    bogus = Position(Placement.from_board_fen("7K/pp4pp/8/8/8/8/8/8"), None, 0, None, 0, True)
    assert not verify(bogus).proved                         # a real escape: not a cage
    text = entry.to_toml().replace("members = [\n", f"members = [\n  \"{member_text(bogus)}\",\n")
    (tmp_path / "king.toml").write_text(text)
    lib = load_library(tmp_path)
    sub = next(e for e in lib._names.values() if e.placement == bogus.placement)
    assert lib.proof(sub).verdict == "unknown" and "closed set" in lib.proof(sub).reason
    assert lib.matches(bogus) is None
    assert verify("7K/pp4pp/8/8/8/8/8/8", library=lib).verdict == "refuted"
    # a member with different restrictions or a parent that does not verify: unused as well
    fake = CageEntry("fig4", Placement.from_board_fen(FIG4), chess.BB_ALL,
                     members=(Position(Placement.from_board_fen("8/8/8/8/8/5P2/4P1PP/5r1K"),
                                       None, 0, None, 0, True),))
    lib = Library([fake])
    assert lib.matches(fake.members[0].placement) is None and lib.matches(fake.placement) is None


def test_a_tampered_member_proof_is_rejected_by_the_checker():
    lib, _ = _learned(KING)
    cert = verify(LATER, library=lib).certificate()
    assert check_proof(cert).ok
    bad = copy.deepcopy(cert)                   # the member claimed is another board
    bad["lemmas"][0]["proof"]["start"]["board"] = "3K4/pppp1ppp/8/8/8/8/8/8"
    assert not check_proof(bad).ok
    bad = copy.deepcopy(cert)                   # a board of the parent's set dropped
    del bad["lemmas"][0]["proof"]["members"][-1]
    assert not check_proof(bad).ok
    bad = copy.deepcopy(cert)                   # the member swapped for a board it does not match
    bad["lemmas"][0]["proof"]["start"] = {"board": "K7/pppp1ppp/4p3/8/8/8/8/8"}
    v = check_proof(bad)
    assert not v.ok and "member 0" in v.reason


def test_learned_members_never_make_a_non_cage_a_cage():
    """With every board of every closed set of the collection's cages known, the collection's
    non-cages stay refuted, and parts of legal positions never verify."""
    items = collection.load(ROOT / "bench" / "cages-collection.txt")
    done = collection.run(items, nodes=20_000)
    assert done.summary()["members"] > 50 and done.summary()["not_met"] == 0
    lib = done.library
    refuted = [o for o in done.outcomes if o.item.expect == "refuted"]
    assert len(refuted) >= 15 and all(o.result.verdict == "refuted" for o in refuted)
    rng = random.Random(5)
    outcomes = {"proved": 0, "refuted": 0, "unknown": 0}
    for seed in range(800, 880):
        game = random_game(seed, max_plies=rng.choice([12, 30, 60]))
        before, move = game[-1]
        board = before.copy(stack=False)
        board.push(move)
        full = Placement.from_board(board)
        units = list(chess.scan_forward(full.occupied))
        centre = rng.choice(units)
        units.sort(key=lambda s: (chess.square_distance(s, centre), rng.random()))
        mask = sum(1 << s for s in units[:rng.choice([3, 5, 8])])
        pos = Position(full.without(~mask & chess.BB_ALL), None, 0, None, 0, True)
        r = verify(pos, library=lib, nodes=400)
        assert r.verdict != "proved", f"{board.fen()}: {pos.placement.board_fen()}"
        outcomes[r.verdict] += 1
    assert outcomes["refuted"] >= 30, outcomes


def test_collection_with_and_without_member_learning():
    text = (f"{KING} name=king expect=proved\n# a comment\n\n{LATER} expect=proved  # later\n"
            f"{FIG4} expect=refuted\n8/8/8/8/8/8/6PP/6Nr frozen=g1 expect=proved\n"
            "8/5p2/5P2/4PKP1/4pRrB/5pp1/8/8 restrict='pawn_captures(either, from_file=\"d\", "
            "to_file=\"e\") == 0' expect=proved\n")
    items = collection.parse(text)
    assert [i.line for i in items] == [1, 4, 5, 6, 7] and items[3].frozen == ("g1",)
    assert len(items[4].restrict) == 1
    runs = {m: collection.run(items, members=m) for m in (False, True)}
    for run in runs.values():
        assert [o.result.verdict for o in run.outcomes] == ["proved", "proved", "refuted",
                                                            "proved", "proved"]
        assert all(o.met for o in run.outcomes)
    assert runs[True].outcomes[1].result.states == 1 < runs[False].outcomes[1].result.states
    assert runs[True].outcomes[0].entry.name == "king" and runs[True].outcomes[1].known


def test_collection_on_the_command_line(tmp_path, capsys):
    coll = tmp_path / "c.txt"
    coll.write_text(f"{KING} name=king\n{LATER} expect=proved\n{FIG4} expect=refuted\n")
    out = tmp_path / "lib"
    out.mkdir()
    assert main(["cage", "--collection", str(coll), "--learn", "--library", str(out),
                 "--certificate-dir", str(tmp_path / "certs")]) == 0
    text = capsys.readouterr().out
    assert "learned king (+" in text and "3 boards: 2 proved, 1 refuted" in text
    assert [p.name for p in out.iterdir()] == ["king.toml"]
    assert main(["check", *map(str, (tmp_path / "certs").iterdir())]) == 0
    capsys.readouterr()
    # again, with the learned library read back: the first board is known now
    assert main(["cage", "--collection", str(coll), "--library", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["states"] for b in data["boards"]][:2] == [1, 1] and data["summary"]["boards"] == 3
    # a wrong expectation is exit 1; bad lines are bad input naming the line
    coll.write_text(f"{FIG4} expect=proved\n")
    assert main(["cage", "--collection", str(coll)]) == 1
    for bad in (f"{FIG4} colour=red\n", f"{FIG4} model=fancy\n", f"{FIG4} restrict='x\n"):
        with pytest.raises(InputError) as e:
            collection.parse(bad, file="c.txt")
        assert e.value.file == "c.txt" and "line 1" in str(e.value)
    assert main(["cage"]) == 3
    assert main(["cage", KING, "--collection", str(coll)]) == 3


def test_the_index_finds_what_a_scan_of_every_entry_finds():
    items = collection.load(ROOT / "bench" / "cages-collection.txt")
    lib = collection.run(items, nodes=20_000).library
    assert lib.size > 100
    rng = random.Random(3)
    probes = [collection_start(i) for i in items]
    for seed in range(40):
        game = random_game(seed, max_plies=40)
        board = game[-1][0]
        pl = Placement.from_board(board)
        keep = sum(1 << s for s in chess.scan_forward(pl.occupied) if rng.random() < 0.5)
        probes.append(Position(pl.without(~keep & chess.BB_ALL), None, 0, None, 0, True))
    for p in probes:
        for swap in (False, True):
            q = Position(p.placement.colour_swapped(), None, 0, None,
                         chess.flip_vertical(p.frozen), True) if swap else p
            assert lib.matches(q) == lib._matches_linear(q), q.placement.board_fen()


def collection_start(item: collection.Item) -> Position:
    from retrologic.cages.search import start_position
    return start_position(item.board, list(item.frozen) or None)
