"""The verified-cage library: every entry re-verified, sub-board matching with the colour swap,
frozen units and restrictions respected, bootstrapping, and `retrologic cage --learn`."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from retrologic.cages.search import verify
from retrologic.cages.checker import check_proof
from retrologic.cages.library import DEFAULT_DIR, CageEntry, Library, learn, load_entry, load_library
from retrologic.cages.rules import NoPawnCaptures
from retrologic.cli import main
from retrologic.errors import InputError
from retrologic.position import Placement, Position

ENTRIES = sorted(DEFAULT_DIR.glob("*.toml"))


def test_library_is_not_empty_and_loads():
    lib = load_library()
    assert len(lib) == len(ENTRIES) >= 10
    assert {e.name for e in lib} >= {"hwa-fig2-brandis-corner", "hwa-fig3-perpetual-bishop",
                                     "hwa-fig5-darvall", "hwa-fig7-ceriani-no-dxe"}


@pytest.mark.parametrize("path", ENTRIES, ids=[p.stem for p in ENTRIES])
def test_every_entry_re_verifies(path):
    """Nothing unverified is trusted: each entry is verified again with the zone, frozen units,
    restrictions, model and known cages it names, and its proof passes the checker."""
    lib = load_library()
    entry = load_entry(path)
    result = lib.proof(lib.get(entry.name))
    assert result.verdict == "proved", f"{path.name}: {result.reason or result.line}"
    assert check_proof(result.certificate()).ok


def test_matching_sub_board_and_colour_swap():
    lib = load_library()
    fig2 = Placement.from_board_fen("8/8/8/8/8/8/PPkPP3/KR1b4")
    # the cage inside a bigger position
    m = lib.matches(Position(Placement.from_board_fen("r3k3/8/8/8/8/5N2/PPkPP3/KR1b4"), None, 0, None, 0, True))
    assert m is not None and m.entry.name == "hwa-fig2-brandis-corner" and not m.swapped
    # one unit different: no match
    assert lib.matches(Placement.from_board_fen("8/8/8/8/8/8/PPkPP3/KR1n4")) is None
    # colours exchanged, board flipped top to bottom
    m = lib.matches(fig2.colour_swapped())
    assert m is not None and m.entry.name == "hwa-fig2-brandis-corner" and m.swapped
    # a mirror image left-right is not the same cage (homes are not symmetric) and must not
    # match it; it is in the library on its own, verified: the 4B1rk/3ppKpp swapped
    only_fig2 = Library([lib.get("hwa-fig2-brandis-corner")])
    mirrored = Placement(*(chess.flip_horizontal(b) for b in fig2))
    assert only_fig2.matches(mirrored) is None
    m = lib.matches(mirrored)
    assert m.entry.name == "king-and-bishop-in-black-corner" and m.swapped


def test_matching_respects_frozen_units_and_restrictions():
    lib = load_library()
    rook = Placement.from_board_fen("8/8/8/8/8/8/6PP/6Nr")
    assert lib.matches(Position(rook, None, 0, None, 0, True)) is None
    assert lib.matches(Position(rook, None, 0, None, chess.BB_G1, True)).entry.name == "rook-behind-frozen-knight"
    fig7 = Position(Placement.from_board_fen("8/5p2/5P2/4PKP1/4pRrB/5pp1/8/8"), None, 0, None, 0, True)
    assert lib.matches(fig7) is None
    assert lib.matches(fig7, [NoPawnCaptures("white", 3, 4)]) is None
    assert lib.matches(fig7, [NoPawnCaptures("either", 3, 4)]).entry.name == "hwa-fig7-ceriani-no-dxe"
    assert lib.matches(fig7, [NoPawnCaptures("either", None, None)]) is not None   # broader
    # colour swap turns White's restriction into Black's (either stays either)
    assert lib.matches(Position(fig7.placement.colour_swapped(), None, 0, None, 0, True),
                       [NoPawnCaptures("either", 3, 4)]).swapped


def test_bootstrapping_a_known_cage_closes_the_search():
    """Hwa section 3: a verified cage becomes a known illegality. Figure 2 plus a free white
    queen: without the library the queen's wanderings are searched, with it the start closes."""
    board = "8/8/8/8/8/3Q4/PPkPP3/KR1b4"
    alone = verify(board)
    lib = load_library()
    known = verify(board, library=lib)
    assert alone.verdict == known.verdict == "proved"
    assert known.states == 1 and alone.states > 20
    assert [e.name for e in known.lemmas] == ["hwa-fig2-brandis-corner"]
    cert = known.certificate()
    assert cert["lemmas"][0]["name"] == "hwa-fig2-brandis-corner" and check_proof(cert).ok


def test_a_lemma_lifts_the_plain_model():
    """The Darvall cage needs the lines model; as a known cage it closes a plain-model search."""
    darvall = Library([load_entry(DEFAULT_DIR / "hwa-fig5-darvall.toml")])
    board = "Knrk4/BpppRp2/1p2p3/8/8/8/8/8"
    assert verify(board, model="plain").verdict == "refuted"
    r = verify(board, model="plain", library=darvall)
    assert r.verdict == "proved"
    cert = r.certificate()
    assert cert["model"] == "plain" and cert["lemmas"][0]["proof"]["model"] == "lines"
    assert check_proof(cert).ok


def test_an_entry_that_does_not_verify_is_never_used():
    """A hand-edited library file claiming a non-cage (Figure 4) must not make anything verify."""
    fake = CageEntry("fig4-claimed", Placement.from_board_fen("8/8/8/8/8/5P2/4PrPP/7K"), chess.BB_ALL)
    lib = Library([fake])
    assert lib.matches(fake.placement) is None
    assert lib.proof(fake).verdict == "refuted"
    assert verify("8/8/8/8/8/5P2/4PrPP/7K", library=lib).verdict == "refuted"
    # and an entry relying on itself gets no help from itself
    loop = CageEntry("loop", fake.placement, chess.BB_ALL, uses=("loop",))
    assert Library([loop]).matches(loop.placement) is None


def test_the_same_cage_twice_is_read_once_another_of_its_name_is_an_error(tmp_path):
    """`lastmove --lemma` naming a library file (docs/lastmove.md's example) loads the library
    and the file: the same cage twice is one entry; another cage under a taken name is refused."""
    corner = Path(DEFAULT_DIR) / "hwa-fig2-brandis-corner.toml"
    lib = load_library([DEFAULT_DIR, corner])
    assert len(lib) == len(load_library())
    copy = tmp_path / "copy.toml"
    copy.write_text(corner.read_text())
    assert len(load_library([corner, copy])) == 1
    copy.write_text(corner.read_text().replace('board = "8/8/8/8/8/8/PPkPP3/KR1b4"',
                                               'board = "8/8/8/8/8/8/PPkPP3/KR1n4"'))
    with pytest.raises(InputError) as e:
        load_library([corner, copy])
    assert "duplicate cage name" in str(e.value) and str(copy) in str(e.value)


def test_uses_cycles_and_bad_entries_are_errors(tmp_path):
    def entry(name: str, uses: list[str]) -> str:
        return (f'format = "retrologic-cage/1"\nname = "{name}"\nboard = "8/8/8/8/8/8/P1P5/1B6"\n'
                f"uses = {uses!r}\n".replace("'", '"'))
    (tmp_path / "a.toml").write_text(entry("a", ["b"]))
    (tmp_path / "b.toml").write_text(entry("b", ["a"]))
    with pytest.raises(InputError) as e:
        load_library(tmp_path)
    assert "cycle" in str(e.value)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.toml").write_text('format = "retrologic-cage/1"\nname = "x"\nboard = "8/8/8/8/8/8/P1P5/1B6"\n'
                                'zone = ["a1"]\n')
    with pytest.raises(InputError) as e:
        load_library(bad)
    assert e.value.field == "zone" and str(bad / "x.toml") in str(e.value)
    (bad / "x.toml").write_text('format = "retrologic-cage/1"\nname = "x"\nboard = "8/8/8/8/8/8/P1P5/1B6"\n'
                                'colour = "red"\n')
    with pytest.raises(InputError) as e:
        load_library(bad)
    assert e.value.field == "colour"


def test_learn_adds_a_verified_cage_only(tmp_path):
    lib = load_library(tmp_path) if list(tmp_path.glob("*.toml")) else Library()
    result, path = learn("8/8/8/8/8/8/1PPP4/2n5", name="knight c1 boxed", directory=str(tmp_path),
                         library=lib)
    assert result.verdict == "refuted" and path is None and not list(tmp_path.iterdir())
    result, path = learn("4B1rk/3ppKpp/8/8/8/8/8/8", name="corner", source="test", directory=str(tmp_path),
                         library=lib)
    assert result.proved and path == tmp_path / "corner.toml"
    lib = load_library(tmp_path)
    assert [e.name for e in lib] == ["corner"] and lib.proof(lib.get("corner")).proved
    # the same cage again, or a position containing it: nothing new to learn
    assert learn("4B1rk/3ppKpp/8/8/8/8/8/8", name="again", directory=str(tmp_path), library=lib)[1] is None
    assert learn("4B1rk/3ppKpp/8/8/8/8/P7/8", name="bigger", directory=str(tmp_path), library=lib)[1] is None


def test_learn_on_the_command_line(tmp_path, capsys):
    assert main(["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--learn", "--library", str(tmp_path),
                 "--name", "brandis", "--source", "Hwa Figure 2"]) == 0
    assert "learned" in capsys.readouterr().err
    entry = load_entry(tmp_path / "brandis.toml")
    assert entry.source == "Hwa Figure 2" and entry.board == "8/8/8/8/8/8/PPkPP3/KR1b4"
    assert main(["cage", "8/8/8/8/8/5P2/4PrPP/7K", "--learn", "--library", str(tmp_path)]) == 1
    assert "not learned" in capsys.readouterr().err
    assert main(["cage", "8/5ppb/6p1/8/8/8/8/8", "--library", str(DEFAULT_DIR)]) == 0
    assert "hwa-fig3-perpetual-bishop" in capsys.readouterr().out
    # restrictions and frozen units are stored with the entry and required for a match
    assert main(["cage", "8/8/8/8/8/8/6PP/6Nr", "--frozen", "g1", "--learn", "--library", str(tmp_path),
                 "--name", "rook"]) == 0
    lib = load_library(tmp_path)
    assert lib.get("rook").frozen == chess.BB_G1


def test_castling_rights_are_stored_and_required_for_a_match(tmp_path):
    """A cage proved with a castling right (a black bishop g1 shut in by Ke1/Rh1 that never
    moved) keeps the right in its entry, and matches only where the right stands."""
    pos = Position(Placement.from_board_fen("8/8/8/8/8/8/4PPPP/4K1bR"), None, chess.BB_H1, None, 0, True)
    result, path = learn(pos, name="castled", directory=str(tmp_path), library=Library())
    assert result.proved and 'castling = ["h1"]' in path.read_text()
    lib = load_library(tmp_path)
    assert lib.get("castled").castling == chess.BB_H1 and lib.proof(lib.get("castled")).proved
    assert lib.matches(pos) is not None and lib.matches(pos.placement) is None
    assert check_proof(verify(pos, library=lib).certificate()).ok
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.toml").write_text(path.read_text().replace('castling = ["h1"]', 'castling = ["a1"]'))
    with pytest.raises(InputError) as e:
        load_library(bad)
    assert e.value.field == "castling"
