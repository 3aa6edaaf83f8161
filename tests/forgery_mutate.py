"""Helpers of the forgery suite (tests/test_forgery.py): random mutations of certificates (JSON
values flipped, replaced, deleted, duplicated; squares, boards and moves changed; nesting added)
and, for each certificate type, the claim an accepted certificate states and an oracle that
decides that claim by solving it again with the engine (or replaying it with python-chess).
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

import chess
from test_spg_certificates import listing_claim, listing_oracle

SQUARES = list(chess.SQUARE_NAMES)
PIECES = "KQRBNPkqrbnp"
SCALARS: list[Any] = [None, True, False, 0, 1, -1, 2, 7, 64, 2 ** 70, 1.5, -0.0, "", "x", "e4",
                      "white", "black", "either", "lines", "plain", "impossible", "possible",
                      "8/8/8/8/8/8/8/8", [], {}, [[]], {"a": 1}]


# --- mutations ----------------------------------------------------------------------------------

def _paths(doc: Any, rng: random.Random) -> list[tuple]:
    """A random path into the document: from the root, step to a random child, stopping with
    probability 1/3 at each container (so top-level fields are mutated as often as deep ones)."""
    path: list = []
    node = doc
    while isinstance(node, (dict, list)) and node and (not path or rng.random() > 1 / 3):
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append(key)
        node = node[key]
    return path


def _get(doc: Any, path: list) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _mutate_string(s: str, rng: random.Random) -> str:
    """A domain-aware change: squares, board placements, UCI moves, then generic edits."""
    if s in chess.SQUARE_NAMES:
        return rng.choice(SQUARES)
    if "/" in s and " " not in s.strip():                      # a placement or 4x4 board
        chars = list(s)
        spots = [i for i, c in enumerate(chars) if c.isalpha()]
        op = rng.randrange(3)
        if op == 0 and spots:
            i = rng.choice(spots)
            chars[i] = rng.choice(PIECES if len(s.split("/")) == 8 else "KQRBNkqrbn")
            return "".join(chars)
        ranks = s.split("/")
        if op == 1 and len(ranks) > 1:
            i, j = rng.sample(range(len(ranks)), 2)
            ranks[i], ranks[j] = ranks[j], ranks[i]
            return "/".join(ranks)
        if spots:
            i = rng.choice(spots)
            chars[i] = rng.choice("12")
            return "".join(chars)
    if len(s) in (4, 5) and s[:2] in chess.SQUARE_NAMES and s[2:4] in chess.SQUARE_NAMES:
        k = rng.randrange(2)
        return (rng.choice(SQUARES) + s[2:]) if k == 0 else (s[:2] + rng.choice(SQUARES) + s[4:])
    if " " in s and rng.random() < 0.5:                        # FEN fields, DIMACS, DRUP lines
        parts = s.split(" ")
        i = rng.randrange(len(parts))
        p = parts[i]
        if p.lstrip("-").isdigit():
            parts[i] = str(int(p) + rng.choice([-1, 1, 2]))
        else:
            parts[i] = rng.choice(["w", "b", "-", "KQkq", "K", "e3", "d6", "0", p[::-1]])
        return " ".join(parts)
    if not s:
        return rng.choice(["a", " ", "0"])
    i = rng.randrange(len(s))
    op = rng.randrange(4)
    if op == 0:
        return s[:i] + s[i + 1:]
    if op == 1:
        return s[:i] + rng.choice("abcdefgh12345678KQRBNkqrbnp-x0 ") + s[i + 1:]
    if op == 2:
        return s[:i]
    return s + s[i:]


def mutate(cert: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """One random mutation of a deep copy of `cert`; returns it and a description."""
    doc = copy.deepcopy(cert)
    path = _paths(doc, rng)
    while not path or (path == ["type"] and rng.random() < 0.8):   # a bad type is only exit 3
        path = [rng.choice(list(doc))]
    parent = _get(doc, path[:-1])
    key = path[-1]
    value = parent[key]
    ops = ["replace", "delete", "nest"]
    if isinstance(value, str):
        ops += ["string"] * 6
    if isinstance(value, bool):
        ops += ["flip"] * 3
    elif isinstance(value, (int, float)):
        ops += ["number"] * 4
    if isinstance(value, list) and value:
        ops += ["dup-item", "drop-item", "swap-items", "shuffle"] * 2
    if isinstance(value, dict):
        ops += ["add-key", "rename-key"]
    if isinstance(parent, list):
        ops += ["dup-self"]
    op = rng.choice(ops)
    where = "/".join(map(str, path))
    if op == "replace":
        parent[key] = copy.deepcopy(rng.choice(SCALARS))
    elif op == "delete":
        del parent[key]
    elif op == "nest":
        parent[key] = rng.choice([[value], {"value": value}])
    elif op == "string":
        parent[key] = _mutate_string(value, rng)
    elif op == "flip":
        parent[key] = not value
    elif op == "number":
        parent[key] = rng.choice([value + 1, value - 1, -value, value * 2, 0, str(value)])
    elif op == "dup-item":
        i = rng.randrange(len(value))
        value.insert(rng.randrange(len(value) + 1), copy.deepcopy(value[i]))
    elif op == "drop-item":
        del value[rng.randrange(len(value))]
    elif op == "swap-items" and len(value) > 1:
        i, j = rng.sample(range(len(value)), 2)
        value[i], value[j] = value[j], value[i]
    elif op == "shuffle":
        rng.shuffle(value)
    elif op == "add-key":
        new = rng.choice(["extra", "lemma", "pruned", "frozen", "castling", "rule", "proof",
                          "frozen", "castling", "to_move"])
        if new in ("frozen", "castling"):             # a plausible extra assumption
            pool = ["a1", "h1", "a8", "h8"] if new == "castling" else SQUARES
            value[new] = rng.sample(pool, rng.randint(1, 2))
        elif new == "to_move":
            value[new] = rng.choice(["white", "black", None])
        else:
            value[new] = copy.deepcopy(rng.choice(SCALARS))
    elif op == "rename-key" and value:
        k = rng.choice(list(value))
        value[k + "_"] = value.pop(k)
    elif op == "dup-self":
        parent.insert(key, copy.deepcopy(value))
    return doc, f"{op} at {where or '(root)'}"


# --- claims and oracles -------------------------------------------------------------------------

def _restrictions(items: list[dict[str, Any]]) -> list:
    from retrologic.cages.rules import NoPawnCaptures
    out = []
    for r in items:
        pc = r["pawn_captures"]
        files = [None if pc[k] is None else "abcdefgh".index(pc[k]) for k in ("from_file", "to_file")]
        out.append(NoPawnCaptures(pc["side"], files[0], files[1]))
    return out


def _mask(names: list[str]) -> int:
    out = 0
    for n in names:
        out |= chess.BB_SQUARES[chess.parse_square(n)]
    return out


def _cage_start(cert: dict[str, Any]):
    from retrologic.position import Placement, Position
    start = cert["start"]
    return Position(Placement.from_board_fen(start["board"]), None, _mask(start.get("castling", [])),
                    None, _mask(start.get("frozen", [])), True)


def cage_claim(cert: dict[str, Any]) -> tuple:
    """What a cage certificate states: start, zone, model, restrictions (and whether it is a
    proof that may rest on known cages of the library)."""
    start = _cage_start(cert)
    rs = tuple(sorted((r["pawn_captures"]["side"], r["pawn_captures"]["from_file"],
                       r["pawn_captures"]["to_file"]) for r in cert["restrictions"]))
    return (cert["type"], start, tuple(sorted(cert["zone"])), cert["model"], rs,
            bool(cert.get("lemmas")))


def cage_oracle(cert: dict[str, Any]) -> bool:
    """Verify the stated cage again with the engine: a proof must be proved (with the library
    when the proof used known cages), a counterexample refuted."""
    from retrologic.cages.search import verify
    from retrologic.cages.library import DEFAULT_DIR, load_library
    library = load_library(DEFAULT_DIR) if cert.get("lemmas") else None
    res = verify(_cage_start(cert), cert["zone"], _restrictions(cert["restrictions"]), library,
                 model=cert["model"], nodes=50_000)
    return res.verdict == ("proved" if cert["type"] == "cage-proof" else "refuted")


def lastmove_claim(cert: dict[str, Any]) -> tuple:
    """The diagram (FEN, side, frozen), the plies and the candidates called impossible."""
    impossible = tuple(sorted(c["notation"] for c in cert["candidates"] if c["status"] == "impossible"))
    return (cert["fen"], cert.get("to_move"), tuple(cert.get("frozen", [])), cert["plies"], impossible)


def lastmove_oracle(cert: dict[str, Any]) -> bool:
    """Solve the stated diagram again (with cage discovery): every candidate the certificate
    calls impossible must be impossible for the engine too."""
    from retrologic.lastmove import search as lastmove
    from retrologic.lastmove.cages import closers_for
    from retrologic.position import Position
    pos = Position.from_fen(cert["fen"])
    if cert.get("to_move") is None:
        pos = pos.with_turn(None)
    frozen = _mask(cert.get("frozen", []))
    pos = Position(pos.placement, pos.turn, pos.castling, pos.ep_square, frozen, False)
    closer, _ = closers_for([], discover=True, use_library=True)
    res = lastmove.solve(pos, cert["plies"], closers=[closer])
    engine = {c.notation for c in res.candidates if c.status == "impossible"}
    return set(lastmove_claim(cert)[4]) <= engine


def deduce_claim(cert: dict[str, Any]) -> tuple:
    claim = cert.get("claim")
    return (cert["fen"], tuple(cert.get("frozen", [])),
            tuple((a["name"], a["expr"]) for a in cert["assumptions"]),
            None if claim is None else (claim["name"], claim["expr"]))


def deduce_oracle(cert: dict[str, Any]) -> bool:
    """Deduce the stated claim again with the engine (pysat): proved, or no history."""
    from retrologic.history.deduce import Constraint, deduce
    from retrologic.position import Position
    frozen = _mask(cert.get("frozen", []))
    pos = Position.from_fen(cert["fen"], frozen=frozen)
    assumptions = [Constraint.parse(a["name"], a["expr"]) for a in cert["assumptions"]]
    claim = cert.get("claim")
    claims = [] if claim is None else [Constraint.parse(claim["name"], claim["expr"])]
    d = deduce(pos, assumptions, claims, explain=False)
    if not claims:
        return d.consistent is False
    return d.consistent is False or d.claims[0].status == "proved"


def spg_claim(cert: dict[str, Any]) -> tuple:
    return (cert["target"], cert["plies"], tuple(cert["moves"]))


def spg_oracle(cert: dict[str, Any]) -> bool:
    """Replay the game with python-chess (from its SAN when given, parsed independently of the
    UCI list): legal, `plies` long, ending on the target."""
    board = chess.Board()
    if "san" in cert:
        sans = [m.split(".")[-1] for m in cert["san"].split()]
        for san in (s for s in sans if s):
            board.push_san(san)
        if [m.uci() for m in board.move_stack] != cert["moves"]:
            return False
    else:
        for uci in cert["moves"]:
            move = chess.Move.from_uci(uci)
            if move not in board.legal_moves:
                return False
            board.push(move)
    return (len(board.move_stack) == cert["plies"]
            and board.board_fen() == chess.BaseBoard(cert["target"]).board_fen())


def puzzle_claim(cert: dict[str, Any]) -> tuple:
    return (cert["type"], cert["board"])


def puzzle_oracle(cert: dict[str, Any]) -> bool:
    """The engine's own solver (bitboards, not the checker's python-chess geometry)."""
    from retrologic.puzzle4x4 import game as p4
    solvable = p4.solvable(p4.parse(cert["board"]))
    return solvable if cert["type"] == "puzzle4x4-line" else not solvable


def retraction_claim(cert: dict[str, Any]) -> tuple:
    return (tuple(cert["positions"]), tuple(cert["moves"]))


def retraction_oracle(cert: dict[str, Any]) -> bool:
    """Replay the line forward with python-chess from its earliest position, comparing full FENs
    (without move counters; e.p. as python-chess prints it) at every step."""
    fens, moves = cert["positions"], cert["moves"]
    board = chess.Board(fens[-1])
    for i in range(len(moves) - 1, -1, -1):
        move = chess.Move.from_uci(moves[i])
        if move not in board.legal_moves:
            return False
        board.push(move)
        want = chess.Board(fens[i])
        if board.fen().split()[:3] != want.fen().split()[:3]:
            return False
    return True


ORACLES: dict[str, tuple[Callable[[dict], tuple], Callable[[dict], bool]]] = {
    "cage-proof": (cage_claim, cage_oracle),
    "cage-counterexample": (cage_claim, cage_oracle),
    "lastmove-proof": (lastmove_claim, lastmove_oracle),
    "deduce-drup": (deduce_claim, deduce_oracle),
    "spg-game": (spg_claim, spg_oracle),
    "spg-listing": (listing_claim, listing_oracle),
    "puzzle4x4-line": (puzzle_claim, puzzle_oracle),
    "puzzle4x4-unsolvable": (puzzle_claim, puzzle_oracle),
    "retraction-line": (retraction_claim, retraction_oracle),
}
