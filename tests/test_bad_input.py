"""Hostile and broken input (issue #17, items 4, 5 and 8): every case exits 3 with ONE line of at
most 300 characters on stderr naming the file, field or value, never a traceback, a hang or an
unbounded read; data files are written atomically and read back with size and shape checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import numpy as np
import pytest

from retrologic import constraints
from retrologic.cages.library import (DEFAULT_DIR, MAX_USES_DEPTH, CageEntry, Library, default_name,
                                     load_library, toml_string, write_entry)
from retrologic.cli import main
from retrologic.errors import MAX_LINE, InputError, shown
from retrologic.position import Placement

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
BRANDIS = "8/8/8/8/8/1P6/1PkPP3/KR1b4 b - - 0 1"


def bad(capsys, argv: list[str], *needles: str) -> str:
    """Run the CLI in-process: exit 3 and one stderr line of at most MAX_LINE characters that
    contains every needle."""
    status = main(argv)
    err = capsys.readouterr().err
    lines = err.rstrip("\n").split("\n")
    assert status == 3, err[:2000]
    assert len(lines) == 1 and 0 < len(lines[0]) <= MAX_LINE, err[:2000]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def problem(tmp_path: Path, text: str, name: str = "p.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- 1. the predicate language: depth, length, magnitudes ------------------------------------

def test_claim_of_2000_nested_not_is_bad_input(capsys):
    bad(capsys, ["deduce", START, "--claim", "not " * 2000 + "captures(white) <= 3"], "--claim",
        "too long")
    # shorter than the length cap, still far deeper than the depth cap
    bad(capsys, ["deduce", START, "--claim", "not " * 900 + "captures(white) <= 3"], "--claim",
        "nested too deeply")


def test_huge_coefficient_is_bad_input(capsys):
    bad(capsys, ["deduce", START, "--claim", "captures(white) * 99999999999999999999 <= 3"],
        "--claim", "99999999999999999999", "too large")


def test_python_syntax_warnings_do_not_reach_stderr(capsys):
    """ast.parse warns on stderr about "3and" or "\\d": that is an error line of its own."""
    bad(capsys, ["deduce", START, "--claim", "captures(white) <= 3and promoted('c1')"], "--claim",
        "invalid decimal literal")
    bad(capsys, ["deduce", START, "--claim", "promoted('\\d')"], "--claim", "escape")


@pytest.mark.parametrize("text", [
    "captures(white) <= 99999999999999999999",
    "captures(white) <= -10**7",
    "2*(2*(2*(2*captures(white)))) <= 1",                  # a product beyond the weight cap
    "captures(white) * 5 <= 3", "3*captures(white) - 2*captures(black) <= 3",
    " + ".join(["captures(white)"] * 5) + " <= 3",           # a sum beyond it
    "1000000*1000000 <= captures(white)",
    "captures(white) <= 1000000 + 1000000",
    "captures(white) / 0 <= 1", "captures(white) // 2 <= 1", "captures(white) ** 99 <= 1",
    "captures(white) % 2 == 1", "captures(white) <= 1e400", "captures(white) <= 1j",
    "captures(white) <= nan", "captures(white) == 'x' * 10**9", "[captures(white)] <= 3",
    "captures(**{'side': 'white'}) <= 3", "captures(side='white', side='black') <= 3",
    "(lambda: 1)() == 1", "f'{captures(white)}' == 1", "captures(white) <= 3 if x else y",
    "x\x00", "captures(white)\n<= 3\n\x1b[31m", "captures('" + "é" * 3000 + "') <= 3",
    "-" * 3990 + "1 <= 2", "a.b" * 1300, "(" * 150 + "x" + ")" * 150,
    "captures(white) " + "< 1 " * 500, "x" * 5000, "captures(white) <=", "",
])
def test_hostile_expressions_are_one_short_error(text):
    with pytest.raises(InputError) as e:
        constraints.parse_expr(text)
    line = str(e.value)
    assert "\n" not in line and len(line) <= MAX_LINE - len("retrologic: ")


def test_bounds_leave_ordinary_expressions_alone():
    """The caps reject only what no real claim needs (the library's expressions all parse)."""
    for text in ("pawn_captures(either, from_file=\"d\", to_file=\"e\") == 0",
                 "captures(white) + captures(black) <= 9",
                 "2*promotions(white) - captures(black) + missing(white) >= -1000000",
                 "not (promoted(\"c1\") or never_moved(\"e1\")) and captures(white) < 8",
                 " + ".join(["captures(white)"] * 4) + " <= 3",
                 "not " * 50 + "promoted(\"c1\")"):
        constraints.parse_expr(text)
    for path in Path(__file__).resolve().parent.parent.glob("encodings/constraints/*.toml"):
        from retrologic.questions.deduce import load_library_entry
        load_library_entry(path)


# --- 2. last-move sizes -----------------------------------------------------------------------

def test_lastmove_plies_and_depth_are_bounded(capsys, tmp_path):
    bad(capsys, ["lastmove", "2b1kbnr/p1p1pppp/1pn1Qr2/3p3B/q5P1/4PN1R/PPPP1P1P/RNB4K w k - 0 1",
                 "--plies", "1000"], "--plies", "1000", "from 1 to 8")
    bad(capsys, ["lastmove", BRANDIS, "--depth", "100000"], "--depth", "100000")
    bad(capsys, ["lastmove", BRANDIS, "--plies", "0"], "--plies")
    for field, value in (("plies", 9), ("depth", 65), ("support", 10**6), ("plies", -1)):
        path = problem(tmp_path, 'format = "retrologic/1"\n'
                       f'position = {{ fen = "{BRANDIS}" }}\n'
                       f'question = {{ kind = "last-move", {field} = {value} }}\n')
        bad(capsys, ["solve", path], f"question.{field}", str(value))


# --- 3. file reads: caps, devices, binary, encodings, nesting --------------------------------

def test_cage_library_from_dev_zero_is_refused_unread(capsys):
    bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/K1Bb4", "--library", "/dev/zero"], "/dev/zero",
        "too large")


@pytest.mark.parametrize("name, data, needle", [
    ("binary.toml", b'format = "x"\x00\x01\x02', "binary"),
    ("utf16.toml", 'format = "retrologic-cage/1"\n'.encode("utf-16"), "binary"),
    ("latin1.toml", 'comment = "caf\xe9"\n'.encode("latin-1"), "not UTF-8"),
    ("deep.toml", b"a = " + b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    ("bigint.toml", b"a = " + b"9" * 5000, "malformed TOML"),
    ("huge.toml", b"# " + b"x" * (2 * 1024 * 1024), "too large"),
    ("long-board.toml", b'format = "retrologic-cage/1"\nname = "x"\nboard = "' + b"8/" * 200_000
     + b'"\n', "board"),
])
def test_broken_library_files_are_one_line(capsys, tmp_path, name, data, needle):
    (tmp_path / name).write_bytes(data)
    bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/K1Bb4", "--library", str(tmp_path)], name, needle)


def test_a_library_directory_with_too_many_files_is_refused(tmp_path, monkeypatch):
    from retrologic import files
    monkeypatch.setattr(files, "MAX_DIR_FILES", 3)
    for i in range(5):
        (tmp_path / f"e{i}.toml").write_text("")
    with pytest.raises(InputError, match="more than 3 files"):
        files.list_dir(tmp_path, "*.toml", limit=files.MAX_DIR_FILES)


def test_solve_refuses_a_tree_too_large_to_be_a_collection(capsys, tmp_path, monkeypatch):
    """`solve /` (a tree of more than MAX_WALK_ENTRIES entries) is one error record, exit 3,
    before any file is read; a tree within the cap is walked as before."""
    from retrologic import files
    for i in range(4):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "notes.txt").write_text("")
    (tmp_path / "d0" / "p.toml").write_text(
        'format = "retrologic/1"\nposition = { fen = "%s" }\nquestion = { kind = "legal" }\n'
        % START)
    monkeypatch.setattr(files, "MAX_WALK_ENTRIES", 8)
    assert main(["solve", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "more than 8 entries under this directory" in err and str(tmp_path) in err
    monkeypatch.setattr(files, "MAX_WALK_ENTRIES", 9)
    assert main(["solve", str(tmp_path), "--timeout", "30"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("text, needle", [
    ('format = "retrologic/1"\nposition = { fen = "%s" }\nquestion = { kind = "spg", moves = inf }\n'
     % START, "finite"),
    ('format = "retrologic/1"\nposition = { fen = "%s" }\nquestion = { kind = "spg", moves = nan }\n'
     % START, "finite"),
    ('format = "retrologic/1"\nposition = { fen = "%s" }\nquestion = { kind = "spg", moves = %d }\n'
     % (START, 10**400), "digits"),
    ('format = "retrologic/1"\nposition = { fen = "%s" }\nquestion = { kind = "legal" }\n'
     % ("x" * 300_000), "too long"),
    ('format = "retrologic/1"\nposition = { board = "8/8/8/8/8/8/PPkPP3/K1Bb4", frozen = [%s] }\n'
     'question = { kind = "cage" }\n' % ", ".join(['"c1"'] * 100), "64"),
])
def test_hostile_problem_files_are_one_line(capsys, tmp_path, text, needle):
    bad(capsys, ["solve", problem(tmp_path, text)], "p.toml", needle)


def test_certificate_size_cap_is_its_own(capsys, tmp_path):
    """`check` reads certificates up to MAX_CERT_BYTES (40 MiB: a hinted 18-ply spg-listing is
    ~16 MiB), more than a problem file's 16 MiB: a 20 MiB JSON is read (and rejected as no
    certificate on its content), a 41 MiB one is refused unparsed, and /dev/zero unread."""
    from retrologic.certificate import MAX_CERT_BYTES
    from retrologic.files import MAX_TEXT_BYTES
    assert MAX_TEXT_BYTES < 20 * 2**20 < MAX_CERT_BYTES < 41 * 2**20
    mid = tmp_path / "mid.json"
    mid.write_bytes(b'{"type": "no-such-type", "pad": "' + b"x" * (20 * 2**20) + b'"}')
    status = main(["check", str(mid)])
    err = capsys.readouterr().err
    assert status != 0 and "too large" not in err
    big = tmp_path / "big.json"
    big.write_bytes(b'{"pad": "' + b"x" * (41 * 2**20) + b'"}')
    bad(capsys, ["check", str(big)], "big.json", "too large")
    bad(capsys, ["check", "/dev/zero"], "/dev/zero", "too large")


def test_problem_file_from_a_device_or_directory(capsys, tmp_path):
    bad(capsys, ["solve", "/dev/zero"], "/dev/zero", "too large")
    bad(capsys, ["solve", str(tmp_path)], "directory")


def test_a_fifo_without_a_writer_reads_as_empty_at_once_and_with_one_reads_whole(tmp_path):
    """Found in review (2026-11-30): `solve FIFO` waited in open() for a writer for ever,
    past --timeout (a subprocess here, so a regression fails instead of hanging the suite); a
    FIFO with a writer (`check <(cat cert.json)`, /dev/stdin on a pipe) is read as a file."""
    import os
    import subprocess
    import sys
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "retrologic", "solve", "--timeout", "2",
                           str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and done.stdout == "" and str(fifo) in done.stderr
    text = (Path(__file__).resolve().parent.parent / "problems" / "retractions" /
            "brandis.toml").read_text()
    piped = subprocess.run([sys.executable, "-m", "retrologic", "solve", "/dev/stdin"],
                           input=text, capture_output=True, text=True, timeout=60)
    assert piped.returncode == 0 and "Ka2-a1" in piped.stdout, piped.stderr


# --- 4. tablebase files -----------------------------------------------------------------------

KRK_FEN = "8/8/8/8/8/5k2/8/KR6 w - - 0 1"


@pytest.fixture(scope="module")
def krk_dir(tmp_path_factory) -> Path:
    """KK and KRK built once (about a second) and saved."""
    out = tmp_path_factory.mktemp("tables")
    assert main(["tablebase", "build", "KRK", "--out", str(out)]) == 0
    return out


def _copy(krk_dir: Path, tmp_path: Path, krk: bytes) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "KK.npz").write_bytes((krk_dir / "KK.npz").read_bytes())
    (tmp_path / "KRK.npz").write_bytes(krk)
    return tmp_path


def _npz(**arrays) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as d:
        return {k: d[k] for k in d.files}


def test_table_files_damaged_every_way_give_one_line(capsys, krk_dir, tmp_path):
    good = (krk_dir / "KRK.npz").read_bytes()
    assert main(["tablebase", "probe", KRK_FEN, "--dir", str(krk_dir)]) == 0
    capsys.readouterr()
    arrays = _arrays(krk_dir / "KRK.npz")
    flipped = bytearray(good)
    flipped[len(good) // 3] ^= 0xFF
    wrong_values = dict(arrays, outcome=arrays["outcome"].copy())
    wrong_values["outcome"][7] = 99
    cases = {
        "empty": (b"", "corrupted table file, rebuild it"),
        "truncated": (good[: len(good) // 2], "corrupted table file, rebuild it"),
        "one byte short": (good[:-1], "corrupted table file, rebuild it"),
        "bit flipped": (bytes(flipped), "corrupted table file, rebuild it"),
        "pickled object": (_npz(**dict(arrays, outcome=np.array([object()], dtype=object))),
                           "corrupted table file"),
        "oversized array": (_npz(**dict(arrays, outcome=np.zeros(10**6, np.int8))), "corrupted"),
        "values out of range": (_npz(**wrong_values), "out of range"),
        "another table": ((krk_dir / "KK.npz").read_bytes(), "holds table KK, not KRK"),
        "another version": (_npz(**dict(arrays, version=np.array(99))), "format version 99"),
        "garbage signature": (_npz(**dict(arrays, signature=np.array("Q" * 50))), "corrupted"),
    }
    for what, (data, needle) in cases.items():
        d = _copy(krk_dir, tmp_path / what.replace(" ", "-"), data)
        line = bad(capsys, ["tablebase", "probe", KRK_FEN, "--dir", str(d)], "KRK.npz", needle)
        assert "internal" not in line, what


def test_table_save_is_atomic(krk_dir, tmp_path, monkeypatch):
    """An interrupted save leaves the previous file (or none) and no temporary file behind."""
    from retrologic.tablebase.table import Table
    table = Table.load(krk_dir / "KRK.npz", "KRK")
    path = table.save(tmp_path)
    before = path.read_bytes()
    assert Table.load(path).outcome.tolist() == table.outcome.tolist()

    def interrupted(fh, **arrays):
        fh.write(b"PK\x03\x04 half a table")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        table.save(tmp_path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["KRK.npz"]


def test_table_output_directory_that_is_a_file(capsys, tmp_path):
    (tmp_path / "f").write_text("")
    bad(capsys, ["tablebase", "build", "KRK", "--out", str(tmp_path / "f")], "Not a directory")


# --- 5. echoed values are cut -----------------------------------------------------------------

def test_shown_cuts_values_and_escapes_control_characters():
    assert len(shown("x" * 50_000_000)) <= 80 and shown("x" * 50_000_000).endswith("…")
    assert shown("a\nb\x1b[31m") == "'a\\nb\\x1b[31m'"
    assert shown(10**100_000) == "<integer of about 100001 digits>"
    assert len(shown([["y" * 1000] * 1000] * 1000)) <= 80
    assert shown("short") == "'short'" and shown(7) == "7"


def test_input_error_line_is_bounded_and_keeps_its_message():
    e = InputError("the reason", file="f" * 10_000, field="g" * 10_000, value="v" * 10**7)
    line = str(e)
    assert len(line) <= MAX_LINE - len("retrologic: ") and line.endswith("the reason")
    e = InputError("m\n" * 10_000, value="\x00")
    assert "\n" not in str(e) and len(str(e)) <= MAX_LINE - len("retrologic: ")
    line = str(InputError("reason", file="p.toml", field="x", value=3))
    assert line == "p.toml: field 'x': value 3: reason"


def test_a_50mb_string_in_a_library_file_gives_a_short_line(capsys, tmp_path):
    """Issue item 5: the value is under the TOML cap here, and is echoed cut to 80 characters."""
    (tmp_path / "big.toml").write_text('format = "retrologic-cage/1"\nname = "big"\n'
                                       'board = "8/8/8/8/8/8/8/8"\n'
                                       f'model = "{"m" * 900_000}"\n')
    line = bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/K1Bb4", "--library", str(tmp_path)], "model",
               "must be one of")
    assert line.count("m") < 120


# --- 6. the cage library's file names ---------------------------------------------------------

def test_learning_boards_that_differ_only_in_case(capsys, tmp_path):
    """Issue item 8: both cages are learned, into files whose names differ case-insensitively
    too, and the library loads both."""
    assert main(["cage", "8/8/8/8/8/8/PPkPP3/K1BB4", "--learn", "--library", str(tmp_path)]) == 0
    assert main(["cage", "8/8/8/8/8/8/PPkPP3/K1Bb4", "--learn", "--library", str(tmp_path)]) == 0
    assert capsys.readouterr().err.count("learned:") == 2
    names = sorted(p.name for p in tmp_path.glob("*.toml"))
    assert len(names) == 2 and len({n.lower() for n in names}) == 2
    lib = load_library(tmp_path)
    assert sorted(e.board for e in lib) == ["8/8/8/8/8/8/PPkPP3/K1BB4", "8/8/8/8/8/8/PPkPP3/K1Bb4"]
    assert all(lib.proof(e).proved for e in lib)
    assert default_name("8/8/8/8/8/8/PPkPP3/K1BB4") != default_name("8/8/8/8/8/8/PPkPP3/K1Bb4")


def _entry(name: str, board: str = "8/8/8/8/8/8/PPkPP3/KR1b4", uses: tuple[str, ...] = ()) -> CageEntry:
    pl = Placement.from_board(chess.BaseBoard(board))
    return CageEntry(name, pl, pl.occupied, uses=uses)


def test_entries_are_never_overwritten(capsys, tmp_path):
    stranger = tmp_path / "brandis.toml"
    stranger.write_text("# not a cage entry, but someone's file\n")
    path = write_entry(_entry("brandis"), tmp_path)
    assert path.name == "brandis-2.toml" and stranger.read_text().startswith("# not a cage")
    # names differing only in case get different files; the same name twice is refused
    other = write_entry(_entry("Brandis"), tmp_path)
    assert other.name.lower() not in {"brandis.toml", "brandis-2.toml"}
    with pytest.raises(InputError, match="in the library already"):
        write_entry(_entry("brandis"), tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]     # no temporary files
    stranger.unlink()
    assert sorted(e.name for e in load_library(tmp_path)) == ["Brandis", "brandis"]


def test_names_with_quotes_and_control_characters_round_trip(tmp_path):
    import tomllib
    for text in ('a"b\\c', "x\ny\x7f\x00\t", "é😀"):
        assert tomllib.loads("a = " + toml_string(text))["a"] == text
    entry = _entry("n", uses=())
    path = write_entry(CageEntry("quote\" name", entry.placement, entry.zone, source="line\nbreak"),
                       tmp_path)
    loaded = load_library(tmp_path)
    assert [e.source for e in loaded] == ["line\nbreak"] and path.suffix == ".toml"


def test_learn_name_and_source_are_checked(capsys, tmp_path):
    bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--learn", "--library", str(tmp_path),
                 "--name", "x\ny"], "--name")
    bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--learn", "--library", str(tmp_path),
                 "--name", "n" * 1000], "--name")
    file = tmp_path / "f.toml"
    file.write_text("")
    bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--learn", "--library", str(file)],
        "--library", "directory")


def test_shipped_library_still_loads():
    lib = load_library(DEFAULT_DIR)
    assert len(lib) == len(list(DEFAULT_DIR.glob("*.toml"))) > 0


def test_uses_chains_and_cycles_are_checked_without_recursion():
    chain = [_entry(f"e{i}", uses=(f"e{i + 1}",) if i < 2999 else ()) for i in range(3000)]
    with pytest.raises(InputError, match=f"more than {MAX_USES_DEPTH}"):
        Library(chain).check_uses()
    ok = [_entry(f"e{i}", uses=(f"e{i + 1}",) if i < MAX_USES_DEPTH - 1 else ())
          for i in range(MAX_USES_DEPTH)]
    Library(ok).check_uses()
    cycle = [_entry("a", uses=("b",)), _entry("b", uses=("c",)), _entry("c", uses=("a",))]
    with pytest.raises(InputError, match="cycle") as e:
        Library(cycle).check_uses()
    assert "a -> b -> c -> a" in str(e.value)
    with pytest.raises(InputError, match="unknown cage"):
        Library([_entry("a", uses=("nowhere",))]).check_uses()


# --- 7. hostile FEN and board strings on every command ----------------------------------------

HOSTILE = ["x" * 100_000, "8/" * 50_000, START + " " * 1000, "ｒｎｂｑｋｂｎｒ/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
           "8/8/8/8/8/8/PPkPP3/K1Bb4\x1b[2J\x07", "8/8/8\n/8/8/8/PPkPP3/K1Bb4", "٨/8/8/8/8/8/8/k6K",
           "KKKKKKKK/K7/8/8/8/8/8/k7", "", "\u202e8/8/8/8/8/8/PPkPP3/K1Bb4"]
FEN_ONLY = ["x" * 100_000, START.replace(" 0 1", " 0 " + "9" * 5000), START + "\x00",
            "ｒｎｂｑｋｂｎｒ/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "4k3/8/8/8/8/8/8/4K3 ? - - 0 1"]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("command", [["legal"], ["retract"], ["cage"]])
def test_hostile_boards(capsys, command, text):
    bad(capsys, command + [text])


@pytest.mark.parametrize("text", FEN_ONLY)
@pytest.mark.parametrize("command", [["legal"], ["retract"], ["deduce", "--claim", "captures(white) <= 3"],
                                     ["lastmove"]])
def test_hostile_fens(capsys, command, text):
    bad(capsys, [command[0], text, *command[1:]])


@pytest.mark.parametrize("text", HOSTILE[:2] + HOSTILE[3:7] + FEN_ONLY[1:3])
def test_hostile_trajectory_boards(capsys, text):
    bad(capsys, ["trajectory", "--from", "e1", "--to", "e8", "--board", text])


def test_a_fen_with_nine_kings_is_answered_illegal(capsys):
    """A well-formed FEN of an impossible diagram is not bad input: `legal` proves it illegal,
    as python-chess's own status (too many kings) says."""
    fen = "KKKKKKKK/K7/8/8/8/8/8/k7 w - - 0 1"
    assert chess.Board(fen).status() & chess.STATUS_TOO_MANY_KINGS
    assert main(["legal", fen]) == 0
    out = capsys.readouterr().out
    assert "illegal" in out and "[kings] white has 9 kings" in out


@pytest.mark.parametrize("argv, needle", [
    (["--piece", "K", "--color", "white", "--from", "a1", "--to", "h8", "--length", "1000000"], "length"),
    (["--piece", "K", "--color", "white", "--from", "a1", "--to", "h8", "--length", "9", "--degree", "99"],
     "degree"),
    (["--piece", "K", "--color", "white", "--from", "a1", "--to", "h8", "--limit", "10000000000"], "limit"),
    (["--piece", "K" * 100_000, "--color", "white", "--from", "a1"], "piece"),
    (["--piece", "K", "--color", "\x1b" * 100_000, "--from", "a1"], "color"),
    (["--piece", "K", "--color", "white", "--from", "a1", "--block", "a2 " * 100], "block"),
])
def test_trajectory_numbers_are_bounded(capsys, argv, needle):
    bad(capsys, ["trajectory", *argv], needle)


@pytest.mark.parametrize("command", [["legal", START], ["cage", "8/8/8/8/8/6P1/5PPB/8"],
                                     ["spg", START, "--moves", "1.0"]])
def test_a_file_given_as_certificate_directory_is_a_usage_error(capsys, tmp_path, command):
    """--certificate-dir naming a file (or a path through one, or /dev/null) is refused before
    anything is solved: exit 2, one line naming the option and the file in the way (fuzz seed
    2919 found an internal error, exit 5, for `cage ... --certificate-dir /dev/null`)."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    for where, culprit in [(afile, afile), (afile / "sub", afile), (Path("/dev/null"), None)]:
        with pytest.raises(SystemExit) as stop:
            main([*command, "--certificate-dir", str(where)])
        err = capsys.readouterr().err.rstrip("\n").split("\n")
        assert stop.value.code == 2 and len(err) == 1, err
        assert "--certificate-dir" in err[0] and "not a directory" in err[0]
        assert str(culprit or where) in err[0]


def test_a_certificate_the_system_will_not_write_is_bad_input(capsys, tmp_path, monkeypatch):
    """A certificate the system refuses to write once the question is answered (here a full
    disk) is one line naming --certificate-dir and the directory, exit 3, no traceback."""
    from retrologic import files

    def full(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files, "atomic_write_text", full)
    bad(capsys, ["legal", START, "--certificate-dir", str(tmp_path / "certs")],
        "--certificate-dir", str(tmp_path / "certs"), "No space left on device")


def test_a_certificate_directory_that_cannot_be_made_is_refused_before_solving(capsys):
    """Found in review (2026-11-30): `--certificate-dir /proc/x` solved the problem, then
    threw the answer away on the write; the directory is now made while the options are read."""
    with pytest.raises(SystemExit) as stop:
        main(["spg", START, "--moves", "1.0", "--certificate-dir", "/proc/retrologic-x"])
    err = capsys.readouterr()
    assert stop.value.code == 2 and err.out == ""
    assert "cannot make this directory" in err.err and "/proc/retrologic-x" in err.err
    assert err.err.startswith("retrologic spg: error:")         # the subcommand's usage line


def test_a_dangling_link_as_certificate_directory_says_so(capsys, tmp_path):
    """A --certificate-dir that is a link to nothing said "cannot make this directory (File
    exists)": it is named for what it is, a usage error before solving."""
    link = tmp_path / "certs"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(SystemExit) as stop:
        main(["legal", START, "--certificate-dir", str(link)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "symbolic link to nothing" in err and "File exists" not in err


def test_outputs_through_links_and_into_fifos_keep_them(tmp_path):
    """Found in review (2026-11-30): the atomic rename replaced a device or FIFO given as an
    output (as root, `--csv /dev/null` would replace the system's /dev/null by a regular file)
    and a symbolic link by a file; a stream is written into, a link written through."""
    import os
    import stat
    from retrologic.files import atomic_write_text
    target = tmp_path / "target.svg"
    target.write_text("old")
    link = tmp_path / "link.svg"
    link.symlink_to(target)
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError):                # nobody reads: refused at once, no wait
        atomic_write_text(fifo, "lost")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        atomic_write_text(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    loop = tmp_path / "loop1"                   # a loop stays a loop: an error, not a file
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    with pytest.raises(OSError):
        atomic_write_text(loop, "x")
    assert loop.is_symlink()
    # an open descriptor (/dev/stdout redirected to a file): appended to, the text kept
    with open(tmp_path / "redirected.txt", "w") as shell:
        shell.write("the answer\n")
        shell.flush()
        atomic_write_text(f"/proc/self/fd/{shell.fileno()}", "the csv\n")
    assert (tmp_path / "redirected.txt").read_text() == "the answer\nthe csv\n"
    fds = tmp_path / "fds"                      # the same descriptor through a link into /proc
    fds.symlink_to("/proc/self/fd")
    with open(tmp_path / "again.txt", "w") as shell:
        shell.write("the answer\n")
        shell.flush()
        atomic_write_text(fds / str(shell.fileno()), "the svg\n")
    assert (tmp_path / "again.txt").read_text() == "the answer\nthe svg\n"


def test_bad_output_paths_are_one_line_not_internal_errors(capsys, tmp_path):
    """Found in review (2026-11-30): `convert --out`, `spg --svg ... --svg-steps` and
    `tablebase build --plot` on a path the system refuses were internal errors (exit 5)."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    pop = tmp_path / "p.pop"
    pop.write_text("BeginProblem\nPieces White Ke1 Black Ke8\nStipulation dia1.0\n"
                   "EndProblem\n")
    bad(capsys, ["convert", "--to", "toml", "--out", str(afile), str(pop)], "--out",
        "Not a directory")
    after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"   # 1.e4 e5
    bad(capsys, ["spg", after, "--moves", "1.0", "--svg", str(afile / "x.html"),
                 "--svg-steps"], "--svg", "Not a directory")


def test_expect_tables_of_the_wrong_type_are_bad_input(capsys, tmp_path):
    """Found in review (2026-11-30): `verdict = 3` or "maybe" in [expect] read as "not met"
    (exit 1), not as the typing error it is."""
    for value in ("3", '"maybe"'):
        path = problem(tmp_path, 'format = "retrologic/1"\n'
                       f'position = {{ fen = "{BRANDIS}" }}\n'
                       'question = { kind = "retractions" }\n'
                       f"expect = {{ verdict = {value} }}\n")
        bad(capsys, ["solve", path], "expect.verdict", "proved, refuted, unknown")


def test_a_restriction_that_does_not_parse_names_its_field(capsys):
    """`cage --restrict 'foo('` said only the value: a string restriction's syntax error now
    names the field as its other faults do (`cages.rules.restrictions_from`)."""
    for engine in ("fast", "sat"):
        bad(capsys, ["cage", "8/8/8/8/8/8/PPkPP3/KR1b4", "--restrict", "foo(", "--engine",
                     engine], "field 'constraint'", "syntax error")


def test_check_refuses_nodes_for_certificates(capsys, tmp_path):
    """Limits review of 2026-11-30: `check CERT --nodes 100` was accepted and limited nothing
    (a 9 MB cage proof ran on past 10 s); only --spg claims count nodes."""
    bad(capsys, ["check", str(tmp_path / "any.json"), "--nodes", "100"], "--nodes",
        "--spg claims only")


@pytest.mark.parametrize("table, field, words", [
    ("expect = {}", "expect", "checks nothing"),
    ("expect = { includes = [] }", "expect.includes", "non-empty"),
    ('expect = { excludes = [["a2-a3+"]] }', "expect.excludes", "non-empty"),
    ("expect = { answer = [1979-05-27] }", "expect.answer", "date"),
    ("expect = { answer = true }", "expect.answer", "a string, a number or an array"),
    ("expect = { count = inf }", "expect.count", "inf and nan"),
    ("expect = { includes = [nan] }", "expect.includes", "inf and nan"),
])
def test_expect_tables_that_check_nothing_or_no_fact_are_bad_input(capsys, tmp_path, table,
                                                                   field, words):
    """Review of 2026-11-30: an empty table or list was "met" with nothing checked, a list
    item no answer can hold was never matched (so always "excluded"), a TOML date was an
    internal error (exit 5)."""
    path = problem(tmp_path, 'format = "retrologic/1"\n'
                   f'position = {{ fen = "{BRANDIS}" }}\n'
                   'question = { kind = "retractions" }\n' + table + "\n")
    bad(capsys, ["solve", path], field, words)


@pytest.mark.parametrize("fen, needle", [
    ("KKKKKKKK/8/8/8/8/8/8/k6K w - - 0 1", "white has 9 kings"),
    ("8/8/8/8/8/8/8/8 w - - 0 1", "no king"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank: a1"),
    ("4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", "9 pawns"),
    ("4k3/8/8/8/8/8/8/4K2R b Q - 0 1", "castling right without its king and rook at home"),
    ("k7/8/8/8/8/8/8/K6R w H - 0 1", "castling right without its king and rook at home"),
    ("4k3/8/8/8/4P3/8/8/4K3 b - d3 0 1", "no double step can have passed d3"),
])
def test_retractions_of_a_position_no_game_reaches_are_refused(capsys, fen, needle):
    """Found in review (2026-11-30): nine white kings gave "proved, 3 retraction(s)", each
    predecessor with nine kings too; python-chess agrees these are no positions of chess.
    Likewise (review of 2026-12-06) a right of a1 with no rook there, or of h1 with the king on
    a1: "proved", each predecessor keeping the impossible right."""
    assert chess.Board(fen).status() != chess.STATUS_VALID
    bad(capsys, ["retract", fen], "no game reaches this position", needle)


def test_census_outputs_the_system_refuses_are_one_line(capsys, tmp_path):
    """Found in review (2026-11-30): a shard or summary.json the system refused to write (here a
    FIFO nobody reads in its place) was an internal error (exit 5)."""
    import os
    out = tmp_path / "census"
    assert main(["puzzle4x4", "census", "--sample", "20", "--workers", "1", "--engine", "python",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    shard = next(p for p in out.iterdir() if p.name != "summary.json")
    shard.unlink()
    os.mkfifo(shard)
    bad(capsys, ["puzzle4x4", "census", "--sample", "20", "--workers", "1", "--engine", "python",
                 "--out", str(out)], "--out", "cannot write the shard")


def test_a_lemma_path_too_long_is_bad_input(capsys, tmp_path):
    """Found in review (2026-11-30): a 5,000-character lemma path was an internal error (exit 5,
    'OSError: File name too long'): it is one line of bad input naming the field."""
    path = tmp_path / "long-lemma.toml"
    path.write_text(f'format = "retrologic/1"\nlemmas = ["{"a" * 5000}"]\n'
                    'position = { fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1" }\n'
                    'question = { kind = "last-move" }\n')
    bad(capsys, ["solve", str(path)], "lemmas", "cannot read this path")


@pytest.mark.parametrize("name", ["\x00", "y" * 300])
def test_a_tablebase_directory_the_system_cannot_name_is_one_line(capsys, tmp_path, name):
    """Audit of 2026-12-05: a `dir` with a NUL byte or a 300-letter name ended in a traceback
    (exit 5), from the problem file and from `tablebase probe --dir` alike."""
    path = tmp_path / "t.toml"
    path.write_text('format = "retrologic/1"\nquestion = { kind = "tablebase", table = "KQK", '
                    f'dir = {json.dumps(name)} }}\n')
    bad(capsys, ["solve", str(path)], "question.dir", "cannot use this path")
    bad(capsys, ["tablebase", "probe", "8/8/8/8/8/8/8/K1k5 w - - 0 1", "--dir",
                 str(tmp_path / name)], "--dir", "cannot use this path")
    assert list(tmp_path.iterdir()) == [path]


def test_a_negative_strategy_count_is_one_line(capsys):
    bad(capsys, ["spg", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "--moves", "0.5",
                 "--list-strategies", "-1"], "--list-strategies", "-1")
