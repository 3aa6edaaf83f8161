"""Smaller spg-listing certificates (issue 22, item 3): the DRUP proof trimmed to the lemmas and
CNF clauses its refutation uses, packed with xz; what the checker accepts and rejects of it.

Oracles: our forward DRUP checker on the trimmed proof against the *core clauses only* (a
trimmed proof that is not a refutation of its core fails there), a SAT solver (pigeonhole
formulas are unsatisfiable, minus one clause satisfiable) and the unpacking by the standard
library, never the trimmer's own claims.
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
import lzma

import chess
import pytest
from pysat.solvers import Solver

from retrologic import certsize
from retrologic.certificate import check
from retrologic.history.drup import check as drup_check
from retrologic.history.drup import parse_proof, trim
from retrologic.limits import Budget
from retrologic.spg import proof_checker
from retrologic.spg.certify import certificate, deltas, pack
from retrologic.spg.cnf import encode
from conftest import pigeonhole


def _glucose_proof(clauses: list[list[int]]) -> list[tuple[bool, list[int]]]:
    with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as s:
        assert not s.solve()
        return parse_proof(s.get_proof())


@pytest.mark.parametrize("padding", [0, 40])
def test_trimmed_proof_refutes_its_core_alone(padding: int) -> None:
    """Irrelevant clauses (satisfiable padding over fresh variables) stay out of the core; the
    kept lemmas and core clauses are a refutation by themselves (checked independently)."""
    php = pigeonhole(4)
    top = 4 * 5
    pad = [[top + k + 1, top + k + 2] for k in range(padding)]
    clauses = pad + php
    proof = _glucose_proof(clauses)
    t = trim(clauses, proof, top + padding + 2)
    assert t.lemmas == sum(1 for d, _ in proof if not d)
    assert sum(1 for d, _ in t.proof if not d) <= t.lemmas
    assert all(i >= padding for i in t.core)               # no padding clause is used
    core = [clauses[i] for i in t.core]
    assert drup_check(core, t.proof).ok
    # the core is needed: with one of its clauses left out the formula is satisfiable here
    with Solver(name="glucose4", bootstrap_with=core[1:]) as s:
        assert s.solve()


def test_trim_refuses_a_proof_that_does_not_check() -> None:
    php = pigeonhole(3)
    with pytest.raises(ValueError, match="not RUP|empty clause"):
        trim(php, [(False, [1]), (False, [])])
    with pytest.raises(ValueError, match="empty clause"):
        trim(php, [])


def _cert(fen: str, plies: int) -> dict:
    """A plain-DRUP certificate (the hinted form has its tests in test_spg_cert_hints.py)."""
    cert, _ = certificate(chess.BaseBoard(fen), plies, Budget(timeout=120), hints=False)
    return json.loads(json.dumps(cert | {"format": 2, "retrologic": "test"}))


COOKED = "rnbq1bnr/ppppkppp/8/4p3/8/P6P/1PPPPPP1/RNBQKBNR"      # problems/spg/cooked-a3-h3
KNIGHTS = "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R"  # 4 plies: 4 games


@pytest.fixture(scope="module")
def cooked() -> dict:
    return _cert(COOKED, 4)


def _field(entry: dict, key: str) -> str:
    if key in entry:
        return entry[key]
    return lzma.decompress(base64.b64decode(entry[f"{key}_xz"])).decode("ascii")


def test_written_with_a_core(cooked: dict) -> None:
    entry = cooked["lengths"][0]
    core = [int(t) for t in _field(entry, "core").split()]
    assert core and all(d >= 1 for d in core)
    n = len(encode(chess.BaseBoard(COOKED), 4).clauses)
    assert sum(core) - 1 < n                               # indices (from -1) inside the CNF
    assert check(cooked).ok, check(cooked).reason


def test_unpacked_and_without_core_still_accepted(cooked: dict) -> None:
    """The plain form (`proof` text, no core: the whole CNF) is the same claim."""
    plain = copy.deepcopy(cooked)
    for e in plain["lengths"]:
        e["proof"] = _field(e, "proof")
        for key in ("proof_xz", "core", "core_xz"):
            e.pop(key, None)
    assert check(plain).ok, check(plain).reason
    packed = copy.deepcopy(cooked)
    for e in packed["lengths"]:
        for key in ("proof", "core"):
            if key in e:
                e[f"{key}_xz"] = pack(e.pop(key))
    assert check(packed).ok, check(packed).reason


def _rejected(cert: dict, match: str) -> None:
    verdict = check(cert)
    assert not verdict.ok
    assert match in verdict.reason, verdict.reason


def test_a_core_too_small_is_rejected_by_the_proof(cooked: dict) -> None:
    bad = copy.deepcopy(cooked)
    bad["lengths"][0].pop("core_xz", None)
    bad["lengths"][0]["core"] = "1"                        # only clause 0 of the CNF
    _rejected(bad, "lengths[0]")


@pytest.mark.parametrize("core, match", [
    ("0 3", ">= 1"), ("2 -1", ">= 1"), ("x", ">= 1"), ("99999999", "beyond"),
])
def test_malformed_cores_are_rejected(cooked: dict, core: str, match: str) -> None:
    for packed in (False, True):
        bad = copy.deepcopy(cooked)
        bad["lengths"][0].pop("core", None)
        bad["lengths"][0].pop("core_xz", None)
        bad["lengths"][0]["core_xz" if packed else "core"] = pack(core) if packed else core
        _rejected(bad, match)


def test_malformed_packing_is_rejected(cooked: dict, monkeypatch) -> None:
    def packed_proof(value: str) -> dict:
        bad = copy.deepcopy(cooked)
        bad["lengths"][0].pop("proof", None)
        bad["lengths"][0]["proof_xz"] = value
        return bad
    for value, match in [("%%%", "base64"), (base64.b64encode(b"not xz").decode(), "xz"),
                         (pack("1 0") + "AAAA", "trailing")]:
        _rejected(packed_proof(value), match)
    both = packed_proof(pack(_field(cooked["lengths"][0], "proof")))
    both["lengths"][0]["proof"] = "0"
    _rejected(both, "both")
    # a small file must not unpack to a huge one: the unpacking stops at the limit
    monkeypatch.setattr(certsize, "unpacked_bytes", lambda: 64)
    _rejected(packed_proof(pack("d 1 2 0\n" * 1000)), "MiB unpacked")


def test_packing_shrinks_a_proof() -> None:
    """A DRUP proof of some length packs to a fraction of its text; a listing with several
    games (four orders of the knights' moves) is written and accepted."""
    lines = [("d " if d else "") + " ".join(map(str, c + [0]))
             for d, c in _glucose_proof(pigeonhole(6))]
    text = "\n".join(lines)
    assert len(pack(text)) < len(text) / 2
    cert = _cert(KNIGHTS, 4)
    assert cert["status"] == "cooked" and len(cert["lengths"][0]["games"]) == 4
    assert check(cert).ok, check(cert).reason


def test_deltas_round_trip() -> None:
    xs = [0, 1, 5, 6, 100]
    d = deltas(xs)
    assert d == [1, 1, 4, 1, 94]
    assert list(itertools.accumulate(d, initial=-1))[1:] == xs


def test_untrimmed_when_the_time_runs_out_during_trimming(monkeypatch) -> None:
    """Trimming comes after solving: when the time runs out there, the lengths not trimmed keep
    the solver's whole proof (no core) and the certificate is still written and accepted."""
    from retrologic.limits import LimitHit
    from retrologic.spg import certify as writer
    real, calls = writer.trim_listing, []

    def second_one_runs_out(target, lst, budget):
        calls.append(lst.plies)
        if len(calls) == 2:
            raise LimitHit("time limit 1 s")
        real(target, lst, budget)
    monkeypatch.setattr(writer, "trim_listing", second_one_runs_out)
    cert = _cert(COOKED, 4)
    assert calls == [4, 2]
    assert "core" in cert["lengths"][0] or "core_xz" in cert["lengths"][0]
    assert all("core" not in e and "core_xz" not in e for e in cert["lengths"][1:])
    assert check(cert).ok, check(cert).reason


def test_packing_looks_at_the_limit_and_makes_the_same_stream(monkeypatch) -> None:
    """xz takes seconds per ten MiB of proof, and a listing done just before the limit was
    packed whole past it: the text is fed one PACK_CHUNK at a time with `tick` before each, a
    LimitHit from any call ends it, and the stream is the standard library's one-shot one (the
    certificate is the same whatever the chunks). The certificate's packing gets the budget."""
    from retrologic.limits import LimitHit
    from retrologic.spg import certify as writer
    monkeypatch.setattr(writer, "PACK_CHUNK", 1 << 14)
    text = "\n".join(f"{k} {-3 * k} 0 {k + 7} {2 * k} 0" for k in range(1, 15_000))
    calls: list[int] = []
    packed = pack(text, lambda: calls.append(1))
    assert packed == base64.b64encode(lzma.compress(text.encode(), preset=6)).decode()
    assert len(calls) == -(-len(text) // writer.PACK_CHUNK) >= 3

    def third() -> None:
        calls.append(1)
        if len(calls) % 3 == 0:
            raise LimitHit("time limit 1 s")
    with pytest.raises(LimitHit):
        pack(text, third)
    ticks: list[object] = []
    real_pack = writer.pack
    monkeypatch.setattr(writer, "pack",
                        lambda t, tick=None, preset=6: ticks.append(tick) or real_pack(t))
    budget = Budget(timeout=120)
    certificate(chess.BaseBoard(KNIGHTS), 4, budget, hints=False)
    assert ticks and all(getattr(t, "__self__", None) is budget for t in ticks)
