"""The spg-listing certificate checker: every game of a length to a diagram, and no other
(issue 22, item 3).

Rule: this module imports python-chess, the flat core (retrologic.certformat), the proof-game
CNF (retrologic.spg.cnf, the trusted encoding, rebuilt here from the diagram and the length)
and our own DRUP checker (retrologic.history.drup). It never imports the search, the listing,
the schedule model or spg/certify.py, nor a SAT solver: a certificate is accepted on the
encoding, python-chess and our RUP checker alone (tests/test_architecture.py holds the rule).

Why an accepted certificate proves its claim, per length L: every legal game of L plies from the
initial array to the diagram is a model of encode(diagram, L), with its own moves' variables
true (the admission property of the encoding, tested against random games). A game listed
here is replayed with python-chess (legal, ends on the diagram, L plies); its blocking clause
is falsified only by models whose move variables are the game's, that is by that game (a
variable names the piece, squares, promotion and kind of a move, so equal variables on equal
boards are equal moves). An illegal prefix is replayed: its moves but the last are legal, the
last is not, and each has a variable; its clause is falsified only by models that play that
prefix, so by no legal game. The DRUP proof shows the CNF with all these clauses has no model,
hence no legal game is missing from the list. The proof may be checked against part of the CNF
(the `core` the certificate names by clause index: what the writer's trimming found the proof
to use); that is sound, a part without a model has no model when completed, and it makes the
check several times faster. Proof and core may be packed (base64 of xz, bounded unpacking).
The proof is plain DRUP (`proof`: each lemma checked by unit propagation over everything) or
hinted (`lrat`: each lemma names the earlier clauses that refute its negation, after the
top-level units of the input; checked by those alone, in linear time: history.drup.check_lrat).
Clause ids of a hinted proof: the core's clauses 1..k in core order, the blocking clauses
(games, then illegal prefixes, in the certificate's order) k+1..k+b, then the lemmas.
"""

from __future__ import annotations

import base64
import io
import lzma
import re
from typing import Any, Iterable, Iterator

import chess

from retrologic import certsize
from retrologic.certformat import Rejected, Verdict, tick, verdict_of
from retrologic.history.drup import check, check_lrat, iter_lrat, iter_proof
from retrologic.spg.checker import parse_moves, stated_diagram_fault
from retrologic.spg.cnf import ENCODING, Encoding, encode

TYPE = "spg-listing"
UNPACK_SLICE = 1 << 20  # packed bytes unpacked between two looks at the check's limit
TICK_LINES = 256        # proof lines parsed between two looks at it (hinted lines are long)
MAX_PLIES = 80     # longer than the CNF route reaches by far; bounds a hostile file's cost
# A packed proof or core unpacks to at most `certsize.unpacked_bytes()` (512 MiB by default: a
# 40 MiB file at LRAT's xz ratio, about 11; the largest measured, 20-22-ply hinted proofs of
# 321 MiB (buchanan-motley-c, natch-promotee-switchback), checked in about 62 s CPU and 2.9 GB;
# `check --certificate-mib` scales it)


def _moves(item: Any, what: str) -> list[chess.Move]:
    if not isinstance(item, list) or not all(isinstance(u, str) for u in item):
        raise Rejected(f"{what}: expected a list of UCI moves")
    try:
        return [chess.Move.from_uci(u) for u in item]
    except ValueError:
        raise Rejected(f"{what}: not UCI moves") from None


def _clause(enc: Encoding, moves: list[chess.Move], what: str, *, game: bool) -> list[int]:
    """The blocking clause of a listed game (legal, ends on the diagram) or of an illegal
    prefix (all legal but the last), replayed with python-chess; Rejected if it is not. At
    length 0 the empty game is a game (the diagram is the initial array): its blocking clause is
    the empty clause, true to "no other game of 0 plies"."""
    if not moves and not (game and enc.plies == 0):
        raise Rejected(f"{what}: empty")   # an illegal prefix has a move; only a 0-ply game none
    board = chess.Board()
    clause = []
    for ply, move in enumerate(moves, 1):
        var = enc.move_var(ply, board, move)
        if var is None:
            raise Rejected(f"{what}: ply {ply} {move.uci()} has no variable in the CNF")
        if enc.move_of(var) != (ply, move):
            raise Rejected(f"{what}: ply {ply} {move.uci()} does not read back from its variable")
        clause.append(-var)
        legal = board.is_legal(move)
        last = ply == len(moves)
        if not legal and not (last and not game):
            raise Rejected(f"{what}: ply {ply} {move.uci()} is illegal in {board.fen()}")
        if legal and last and not game:
            raise Rejected(f"{what}: ply {ply} {move.uci()} is legal: not an illegal prefix")
        board.push(move)
    if game:
        if len(moves) != enc.plies:
            raise Rejected(f"{what}: {len(moves)} plies, not {enc.plies}")
        if board.board_fen() != enc.target:
            raise Rejected(f"{what}: ends on {board.board_fen()}, not the diagram")
    elif len(moves) > enc.plies:
        raise Rejected(f"{what}: longer than {enc.plies} plies")
    return clause


def _length(target: chess.BaseBoard, entry: Any, i: int, want: int) -> tuple[int, int]:
    """Check one length's listing (its plies must be `want`): (games, lemmas)."""
    if not isinstance(entry, dict):
        raise Rejected(f"lengths[{i}]: expected an object")
    plies = entry.get("plies")
    if not isinstance(plies, int) or isinstance(plies, bool) or plies != want:
        raise Rejected(f"lengths[{i}].plies is {str(plies)[:12]}, expected {want}")
    games, illegal = entry.get("games"), entry.get("illegal")
    hinted = "lrat" in entry or "lrat_xz" in entry
    if hinted and ("proof" in entry or "proof_xz" in entry):
        raise Rejected(f"lengths[{i}]: both a 'proof' and an 'lrat' proof")
    proof = _text(entry, "lrat" if hinted else "proof", i)
    if not isinstance(games, list) or not isinstance(illegal, list) or proof is None:
        raise Rejected(f"lengths[{i}]: 'games' and 'illegal' must be lists, 'proof' or 'lrat' "
                       "(or 'proof_xz', 'lrat_xz') a string")
    enc = encode(target, plies, tick)      # seconds on long lengths: the check's limit applies
    core = _core(entry, i, len(enc.clauses))
    blocks = []
    seen = set()
    for j, g in enumerate(games):
        moves = _moves(g, f"lengths[{i}].games[{j}]")
        if tuple(moves) in seen:
            raise Rejected(f"lengths[{i}].games[{j}]: listed twice")
        seen.add(tuple(moves))
        blocks.append(_clause(enc, moves, f"lengths[{i}].games[{j}]", game=True))
    for j, p in enumerate(illegal):
        blocks.append(_clause(enc, _moves(p, f"lengths[{i}].illegal[{j}]"),
                              f"lengths[{i}].illegal[{j}]", game=False))
    steps = _steps(proof, hinted, enc.nv, i)
    clauses = enc.clauses if core is None else [enc.clauses[k] for k in core]
    # hinted: each lemma checked by its hints alone (ids: the core's clauses, then the blocking
    # clauses, then the lemmas); plain DRUP: by unit propagation over everything. The lines are
    # parsed as the check reads them (a packed field of 512 MiB of "0 0" lines took 70-80
    # times its size in memory parsed whole: audit of 2026-12-05)
    try:
        res = check_lrat(clauses + blocks, steps, tick) if hinted else \
            check(clauses + blocks, steps, enc.nv, tick)
        after = sum(1 for _ in steps) if res.ok else 0     # read and in range, all the same
    except ValueError as e:
        raise Rejected(f"lengths[{i}]: bad proof: {str(e)[:80]}") from None
    if not res.ok:      # the checker cannot tell which: say both (review of 2026-11-30)
        raise Rejected(f"lengths[{i}] ({plies} plies): the proof does not show that the "
                       f"{len(games)} game(s) listed are all (a game left out of the list, or "
                       f"a wrong proof): {res.reason}")
    if hinted and after:    # the writer ends its proofs where they refute: nothing unchecked
        raise Rejected(f"lengths[{i}]: {after} proof line(s) after the refutation")
    return len(games), res.lemmas


def _steps(proof: str, hinted: bool, nv: int, i: int) -> Iterator[Any]:
    """The proof's steps as the check reads them, the check's limit looked at every TICK_LINES
    lines, each literal within the CNF's `nv` variables (Rejected: the first beyond)."""
    lines = io.StringIO(proof)
    parsed = iter_lrat(_ticking(lines)) if hinted else iter_proof(_ticking(lines))
    for step, step_lits in enumerate(parsed, 1):
        if any(abs(lit) > nv for lit in step_lits[0 if hinted else 1]):
            raise Rejected(f"lengths[{i}]: proof step {step}: a literal beyond the CNF's "
                           f"{nv} variables")
        yield step_lits


def _ticking(lines: Iterable[str]) -> Iterator[str]:
    """The lines, the check's limit looked at every TICK_LINES of them (parsing a long proof
    takes seconds)."""
    for k, line in enumerate(lines):
        if k % TICK_LINES == 0:
            tick()
        yield line


def _text(entry: dict[str, Any], key: str, i: int) -> str | None:
    """The field `key` as plain text, or `key`_xz unpacked (base64 of xz, at most
    `certsize.unpacked_bytes()`: a small file must not unpack to a huge one); None when neither
    is a string."""
    if key in entry and f"{key}_xz" in entry:
        raise Rejected(f"lengths[{i}]: both '{key}' and '{key}_xz'")
    if key in entry:
        return entry[key] if isinstance(entry[key], str) else None
    packed = entry.get(f"{key}_xz")
    if not isinstance(packed, str):
        return None
    try:
        raw = base64.b64decode(packed.encode("ascii"), validate=True)
        unpacker = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        pieces, produced, fed, cap = [], 0, 0, certsize.unpacked_bytes()
        # fed in slices, the check's limit looked at between them (320 MiB take seconds); the
        # output is capped one byte past the cap, so a larger text is seen and rejected
        while fed < len(raw) and not unpacker.eof and produced <= cap:
            tick()
            piece = unpacker.decompress(raw[fed:fed + UNPACK_SLICE],
                                        max_length=cap + 1 - produced)
            fed += UNPACK_SLICE
            pieces.append(piece)
            produced += len(piece)
    except (ValueError, UnicodeError, lzma.LZMAError) as e:
        raise Rejected(f"lengths[{i}].{key}_xz: not base64 of xz data ({str(e)[:60]})") from None
    if produced > cap or not unpacker.eof or unpacker.unused_data or fed < len(raw):
        raise Rejected(f"lengths[{i}].{key}_xz: more than {cap >> 20} MiB unpacked "
                       f"(--certificate-mib {certsize.mib()}), or trailing data")
    data = b"".join(pieces)
    try:
        return data.decode("ascii")
    except UnicodeError:
        raise Rejected(f"lengths[{i}].{key}_xz: not ASCII text") from None


def _core(entry: dict[str, Any], i: int, n: int) -> list[int] | None:
    """The CNF clauses the proof is checked against: `core` (or `core_xz`) lists their indices as
    differences (the first from -1), each at least 1, all below `n`; None (absent): all.
    Checking a subset of the CNF is sound: if part of a formula has no model, neither has the
    whole."""
    if "core" not in entry and "core_xz" not in entry:
        return None
    text = _text(entry, "core", i)
    if text is None:
        raise Rejected(f"lengths[{i}]: 'core' (or 'core_xz') must be a string")
    out, k = [], -1
    try:
        for tok in re.finditer(r"\S+", text):      # one token at a time: a list of 268 million
            d = int(tok.group())                  # "1" tokens would not fit in memory
            if d < 1:
                raise ValueError
            k += d
            if k >= n:
                break
            out.append(k)
    except ValueError:
        raise Rejected(f"lengths[{i}].core: the differences must be whole numbers >= 1") \
            from None
    if k >= n:
        raise Rejected(f"lengths[{i}].core: clause {k} beyond the CNF's {n} clauses")
    return out


def check_certificate(cert: dict[str, Any]) -> Verdict:
    """Check an spg-listing certificate: `target` (a placement), `plies`, `status` and
    `lengths`, one entry per length (plies, plies - 2, ... down to 0 or 1; the stipulated one
    first) with its `games`, `illegal` prefixes (UCI) and DRUP `proof`.

    The claim accepted: the games listed for each length are all the legal games of that many
    plies from the initial array to the target placement, so the stated status (unique: one
    game and none shorter; cooked: two or more; no solution: none of the length; shorter: one
    game and a shorter one) holds. It relies on the CNF encoding of spg/cnf.py (rebuilt here),
    python-chess's move legality and our DRUP checker."""
    return verdict_of(TYPE, _check, cert)


def _check(cert: dict[str, Any]) -> str:
    if cert.get("encoding") != ENCODING:
        raise Rejected(f"'encoding' must be {ENCODING!r} (the encoding this retrologic rebuilds)")
    if not isinstance(cert.get("target"), str):
        raise Rejected("'target' must be a board placement")
    try:
        target = chess.BaseBoard(cert["target"])
    except ValueError as e:
        raise Rejected(f"bad target placement: {str(e)[:80]}") from None
    plies = cert.get("plies")
    if not isinstance(plies, int) or isinstance(plies, bool) or not 0 <= plies <= MAX_PLIES:
        raise Rejected(f"'plies' must be a whole number 0..{MAX_PLIES}")
    lengths = cert.get("lengths")
    want = list(range(plies, -1, -2))
    if not isinstance(lengths, list) or len(lengths) != len(want):
        raise Rejected(f"'lengths' must list the lengths {want[:4]}... (every shorter one with "
                       "the same side to move)")
    counts = []
    lemmas = 0
    for i, (entry, length) in enumerate(zip(lengths, want)):
        n, k = _length(target, entry, i, length)
        counts.append(n)
        lemmas += k
    shorter = [length for length, n in zip(want[1:], counts[1:]) if n]
    status = "cooked" if counts[0] >= 2 else "no solution" if counts[0] == 0 else \
        "shorter" if shorter else "unique"
    if cert.get("status") != status:
        raise Rejected(f"the stated status {str(cert.get('status'))[:20]!r} is not the listing's "
                       f"({status})")
    _stated(cert, target, plies)
    side = "White" if plies % 2 == 0 else "Black"
    short = f"shortest other: {shorter[0]} plies" if shorter else "no shorter game"
    return (f"{status}: exactly {counts[0]} game(s) of {plies} plies reach {target.board_fen()} "
            f"with {side} to move; {short} ({lemmas} lemmas checked by RUP)")


def _stated(cert: dict[str, Any], target: chess.BaseBoard, plies: int) -> None:
    """The problem's stated diagram and length (when given) must be the certificate's."""
    why = stated_diagram_fault(cert.get("position"), target.board_fen(), plies % 2 == 0)
    if why:
        raise Rejected(f"{why} ({plies} plies)")
    q = cert.get("question")
    if isinstance(q, dict) and "moves" in q:
        try:
            asked = parse_moves(q["moves"])
        except Exception:  # noqa: BLE001 - any malformed length is a rejection
            raise Rejected("the question's length is malformed") from None
        if asked != plies:
            raise Rejected(f"the question asks for {asked} plies, the certificate has {plies}")
