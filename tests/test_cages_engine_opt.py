"""Issue #21, the engines everywhere: the SAT engine decides the unrestricted Figure 7 (its escape
is deeper than the old bounded search reached), `--engine` reaches `cage --learn` and
`--collection`, and what a SAT proof teaches the library.

Oracles: the explicit engines (cages.search and cages.fast, whose retractions come from
retract.py, tested against python-chess) for every verdict; the independent checkers
(cages.checker, cages.sat_checker) for every certificate; history.drup for the proof helper.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrologic.cages import collection
from retrologic.cages.library import Library, load_library
from retrologic.cages.sat import _without_loops, verify_sat
from retrologic.cages.search import verify
from retrologic.certificate import check
from retrologic.cli import main
from retrologic.history.drup import check_lines

FIG7 = "8/5p2/5P2/4PKP1/4pRrB/5pp1/8/8"
PAWNS = "7K/pppp1ppp/4p3/8/8/8/8/8"              # the king behind the black pawns: a cage
PAWNS_PLUS = "7K/pppp1ppp/4p3/8/8/8/6PP/6Nr"     # the same, with a free cluster elsewhere
COLLECTION = f"""# a cage, a board containing it, a non-cage (2-retraction escape), Figure 3
{PAWNS}  expect=proved
{PAWNS_PLUS}  expect=proved
8/8/8/8/8/8/6PP/6Nr  expect=refuted
6b1/5pp1/6p1/8/8/8/8/8  zone=g8,f7,g7,h7,g6  name=fig3  expect=proved
"""


def test_sat_engine_refutes_unrestricted_figure7() -> None:
    """Its escape (d5xe4 un-made, 21 retractions for the explicit engine) lies past the old
    bounded model checking's reach in time; the jump in the BMC schedule finds a line, replayed
    by the explicit rules into a cage-counterexample the checker accepts, without loops."""
    explicit = verify(FIG7, engine="explicit")
    assert explicit.verdict == "refuted"
    res = verify_sat(FIG7, timeout=120)
    assert res.verdict == "refuted", res.reason
    assert res.stats["bmc_k"] > 10                  # found by a jump, not by the dense part
    line = res.explicit.line
    seen = [res.start] + [pos for _, pos in line]
    assert len(set(seen)) == len(seen)              # no position twice
    cert = json.loads(json.dumps(res.certificate()))
    assert cert["type"] == "cage-counterexample"
    assert check(cert).ok


def test_loops_are_cut_from_a_line() -> None:
    """A line that comes back to a position continues from its first visit (the bounded model
    checker's deep queries may wander): the cut line replays and the checker accepts it."""
    res = verify("8/8/8/8/8/8/6PP/6Nr", engine="explicit")
    assert res.verdict == "refuted"
    start, line = res.start, list(res.line)
    looped = [line[0], ("x", start), *line]          # out and back, then the real line
    assert _without_loops(start, looped) == line
    assert _without_loops(start, line + [("y", line[0][1])]) == line[:1]


def test_collection_same_verdicts_with_every_engine(tmp_path: Path) -> None:
    items = collection.parse(COLLECTION)
    runs = {e: collection.run(items, learn=False, engine=e) for e in ("fast", "explicit", "sat")}
    verdicts = {e: [o.result.verdict for o in r.outcomes] for e, r in runs.items()}
    assert verdicts["fast"] == verdicts["explicit"] == verdicts["sat"] == \
        ["proved", "proved", "refuted", "proved"]
    assert {o.result.engine for o in runs["explicit"].outcomes} == {"explicit"}
    assert all(o.met for r in runs.values() for o in r.outcomes)
    with pytest.raises(Exception):
        collection.run(items, learn=False, engine="wide")


def test_sat_learning_is_the_board_alone_and_checked_again(tmp_path: Path) -> None:
    """A SAT proof has no closed set: the library learns the proved board itself (no
    members), with no cached proof, so its first match verifies it with the explicit engine;
    a later board containing it is then closed by it, and that proof's certificate (with the
    entry's own explicit proof embedded) is accepted."""
    items = collection.parse(COLLECTION)
    run = collection.run(items, learn=True, engine="sat", directory=tmp_path)
    first, second = run.outcomes[0], run.outcomes[1]
    assert first.entry is not None and first.entry.members == () and first.path is not None
    assert second.known and second.entry is None            # contains the learned cage
    assert run.outcomes[3].entry.name == "fig3"
    lib = load_library(tmp_path)
    assert sorted(e.name for e in lib) == sorted([first.entry.name, "fig3"])
    later = verify(PAWNS_PLUS, library=lib)
    assert later.proved and [e.name for e in later.lemmas] == [first.entry.name]
    assert check(json.loads(json.dumps(later.certificate()))).ok
    # the explicit engines learn their closed sets' boards too (members), the SAT engine not
    fast = collection.run(items, learn=True, engine="fast")
    assert fast.outcomes[0].entry.members or fast.outcomes[3].entry.members


def test_learn_result_does_not_learn_a_known_cage() -> None:
    lib = Library()
    res = verify_sat(PAWNS, timeout=30)
    entry, path = collection.learn_result(res, "pawns", lib, None)
    assert entry is not None and path is None and lib.get("pawns") is not None
    again = verify_sat(PAWNS_PLUS, timeout=30)
    assert collection.learn_result(again, "plus", lib, None) == (None, None)


def test_cli_engine_with_learn_and_collection(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    col = tmp_path / "c.txt"
    col.write_text(COLLECTION)
    lib, certs = tmp_path / "lib", tmp_path / "certs"
    lib.mkdir()
    assert main(["cage", "--collection", str(col), "--engine", "sat", "--learn", "--library",
                 str(lib), "--certificate-dir", str(certs), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [b["verdict"] for b in out["boards"]] == ["proved", "proved", "refuted", "proved"]
    assert {b["engine"] for b in out["boards"]} == {"sat"}
    assert out["summary"]["learned"] == 2 and out["summary"]["members"] == 0
    assert len(list(lib.iterdir())) == 2
    assert main(["check", *map(str, sorted(certs.iterdir()))]) == 0
    types = {json.loads(p.read_text())["type"] for p in certs.iterdir()}
    assert types == {"cage-sat-proof", "cage-counterexample"}
    # one board, learned with an explicit engine: its closed set's boards become members
    lib2 = tmp_path / "lib2"
    lib2.mkdir()
    assert main(["cage", PAWNS, "--engine", "explicit", "--learn", "--library", str(lib2),
                 "--name", "pawns"]) == 0
    assert "members" in (lib2 / "pawns.toml").read_text()
    assert main(["cage", PAWNS, "--engine", "sat", "--learn", "--library", str(lib2),
                 "--name", "pawns-sat"]) == 0                 # contains a known cage
    capsys.readouterr()
    assert sorted(p.name for p in lib2.iterdir()) == ["pawns.toml"]
    # bad combinations: one line on stderr, exit 3
    for argv in (["cage", PAWNS, "--engine", "sat", "--library", str(lib2)],
                 ["cage", "--collection", str(col), "--with-position",
                  "8/8/8/8/8/8/8/K6k w - - 0 1"]):
        assert main(argv) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err


def test_drup_check_lines_rejects_malformed_and_out_of_range() -> None:
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    assert check_lines(clauses, ["1 0", "0"], 2).ok
    bad = check_lines(clauses, ["1 x 0", "0"], 2)
    assert not bad.ok and bad.reason.startswith("bad proof")
    far = check_lines(clauses, ["3 0", "0"], 2)
    assert not far.ok and "beyond the CNF's 2 variables" in far.reason
    assert not check_lines(clauses, [], 2).ok               # never derives the empty clause
    assert not check_lines(clauses, ["3 0", "0"], 3).ok     # 3 is not RUP
