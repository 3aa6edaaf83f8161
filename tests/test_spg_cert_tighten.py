"""Core iteration in the spg-listing writer (issue 22, item 3: smaller certificates): each
length's core and blocking clauses refuted again by a fresh solver run (`certify.tighten`).

Oracles: the independent checker (`check`, which regenerates the CNF from the diagram and
length and checks every hint), the listing written without the iteration (the same games, a
core that contains the tightened one, a larger file), and the published game of the problem.
"""

from __future__ import annotations

import base64
import copy
import json
import lzma
import tomllib
from pathlib import Path

import chess
import pytest

from retrologic.certificate import check
from retrologic.limits import Budget
from retrologic.spg import certify as writer
from retrologic.spg.certify import certificate

PROBLEMS = Path(__file__).resolve().parent.parent / "problems" / "spg"


def _problem(name: str) -> tuple[chess.BaseBoard, int]:
    """The diagram and the stipulated plies of a problems/spg file."""
    data = tomllib.loads((PROBLEMS / f"{name}.toml").read_text())
    fen = data["position"]["fen"].split()[0]
    return chess.BaseBoard(fen), round(float(data["question"]["moves"]) * 2)


def _core(entry: dict) -> list[int]:
    """The core's clause indices of a certificate's length (deltas, maybe packed)."""
    text = entry["core"] if "core" in entry else \
        lzma.decompress(base64.b64decode(entry["core_xz"])).decode()
    out, at = [], 0
    for step in map(int, text.split()):
        at += step
        out.append(at)
    return out


@pytest.fixture(scope="module")
def both() -> dict[str, tuple[dict, list]]:
    """promoted-bishop-c8 (10 plies, unique) written without and with the iteration."""
    board, plies = _problem("promoted-bishop-c8")
    out = {}
    for name, rounds in (("plain", 0), ("tightened", writer.TIGHTEN_ROUNDS)):
        saved, writer.TIGHTEN_ROUNDS = writer.TIGHTEN_ROUNDS, rounds
        try:
            cert, listings = certificate(board, plies, Budget(timeout=300))
        finally:
            writer.TIGHTEN_ROUNDS = saved
        out[name] = (json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"})),
                     listings)
    return out


def test_a_tightened_listing_is_smaller_and_checks(both: dict[str, tuple[dict, list]]) -> None:
    plain, plain_listings = both["plain"]
    tight, tight_listings = both["tightened"]
    assert tight["status"] == plain["status"] == "unique"
    assert tight_listings[0].rounds >= 1 and plain_listings[0].rounds == 0
    for cert in (plain, tight):
        verdict = check(cert)
        assert verdict.ok, verdict.reason
    # the same games; a core inside the plain one; a smaller file
    for mine, theirs in zip(tight["lengths"], plain["lengths"]):
        assert mine["games"] == theirs["games"] and mine["illegal"] == theirs["illegal"]
        assert set(_core(mine)) <= set(_core(theirs))
    assert len(_core(tight["lengths"][0])) < len(_core(plain["lengths"][0]))
    assert len(json.dumps(tight)) < len(json.dumps(plain))


def test_a_tightened_proof_cut_is_rejected(both: dict[str, tuple[dict, list]]) -> None:
    tight, listings = both["tightened"]
    lines = listings[0].proof
    assert len(lines) >= 2
    bad = copy.deepcopy(tight)
    entry = bad["lengths"][0]
    entry.pop("lrat_xz", None)
    entry["lrat"] = "\n".join(lines[:-1])
    verdict = check(bad)
    assert not verdict.ok and "lengths[0]" in verdict.reason, verdict.reason
    # the tightened core with one clause fewer: the hints name a clause that is not there
    bad = copy.deepcopy(tight)
    entry = bad["lengths"][0]
    core = _core(entry)
    core = core[:1] + core[2:]
    entry.pop("core_xz", None)
    entry["core"] = " ".join(map(str, [core[0]] + [b - a for a, b in zip(core, core[1:])]))
    verdict = check(bad)
    assert not verdict.ok and "lengths[0]" in verdict.reason, verdict.reason


def test_tightening_cut_short_keeps_the_listing() -> None:
    """A budget that runs out inside `tighten` leaves every length as it was (a complete
    refutation), never half replaced."""
    board, plies = _problem("knight-swap-b8")
    saved, writer.TIGHTEN_ROUNDS = writer.TIGHTEN_ROUNDS, 0
    try:
        cert, listings = certificate(board, plies, Budget(timeout=300))
    finally:
        writer.TIGHTEN_ROUNDS = saved
    before = [(lst.core, lst.proof) for lst in listings]
    writer.tighten(board, listings, Budget(timeout=1e-6))
    assert [(lst.core, lst.proof) for lst in listings] == before
    assert all(lst.rounds == 0 for lst in listings)


def test_each_length_is_packed_fully_once_and_a_cut_leaves_it_quick(monkeypatch) -> None:
    """Until `tighten` is done the lengths are packed at QUICK_PRESET (a tenth of xz's time);
    then each once at PRESET, so a proof that a core iteration replaces is never packed fully
    (until 2026-12-05 every length was packed fully first and each smaller round again: 37 % of
    packa-1995's writing was xz). A limit during the full packing leaves the lengths from there
    on packed quickly: a larger certificate that `check` accepts all the same."""
    from retrologic.limits import LimitHit
    board, plies = _problem("promoted-bishop-c8")
    real = writer.pack
    calls: list[int] = []

    def counted(text: str, tick=None, preset: int = writer.PRESET) -> str:
        calls.append(preset)
        return real(text, tick, preset)
    monkeypatch.setattr(writer, "pack", counted)
    cert, listings = certificate(board, plies, Budget(timeout=300))
    assert listings[0].rounds >= 1                 # a proof was replaced by a smaller one
    assert calls.count(writer.PRESET) == sum(1 + (lst.core is not None) for lst in listings)
    assert all(lst.packed_at == writer.PRESET for lst in listings)

    def cut(text: str, tick=None, preset: int = writer.PRESET) -> str:
        if preset == writer.PRESET:
            raise LimitHit("time limit 300 s")
        return real(text, tick, preset)
    monkeypatch.setattr(writer, "pack", cut)
    quick, quick_listings = certificate(board, plies, Budget(timeout=300))
    assert all(lst.packed_at == writer.QUICK_PRESET for lst in quick_listings)
    full, quick = (json.loads(json.dumps(c | {"format": 2, "retrologic": "test"}))
                   for c in (cert, quick))
    for c in (full, quick):
        verdict = check(c)
        assert verdict.ok, verdict.reason
    assert [e["games"] for e in quick["lengths"]] == [e["games"] for e in full["lengths"]]
    assert len(json.dumps(quick)) > len(json.dumps(full))
