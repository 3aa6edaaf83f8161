"""The certificate size knob (retrologic.certsize, `--certificate-mib`): `check` reads a file over
the default cap only when asked, the spg-listing writer's caps follow the knob, and bad values
are usage errors (issue 22 item 3)."""

from __future__ import annotations

import json

import chess
import pytest

from retrologic import certsize
from retrologic.certformat import Destination
from retrologic.cli import main
from retrologic.errors import InputError
from retrologic.spg import certify as writer

MIB = 1 << 20


def _listing(tmp_path) -> str:
    """A real 2-ply spg-listing certificate (1.e4 e5: unique), written by the writer."""
    board = chess.Board()
    moves = [chess.Move.from_uci(u) for u in ("e2e4", "e7e5")]
    for m in moves:
        board.push(m)
    path, line = writer.certify(Destination(tmp_path, "t"), board, 2, [moves], None)
    assert path is not None, line
    return path


def test_the_caps_scale_with_the_knob() -> None:
    assert (certsize.read_bytes(), certsize.write_bytes()) == (40 * MIB, 39 * MIB)
    assert (certsize.unpacked_bytes(), certsize.log_bytes()) == (512 * MIB, 1024 * MIB)
    with certsize.allowing(120):
        assert certsize.mib() == 120 and certsize.read_bytes() == 120 * MIB
        assert certsize.write_bytes() == 117 * MIB and certsize.log_bytes() == 3072 * MIB
        with certsize.allowing(None):           # None leaves the knob as it is
            assert certsize.unpacked_bytes() == 1536 * MIB
    assert certsize.mib() == certsize.DEFAULT_MIB
    for bad in (0, -1, 4097, 1.5, True, "40", None):
        with pytest.raises(InputError):
            certsize.check_mib(bad)


@pytest.mark.parametrize("argv", [["check", "x.json"], ["spg", "8/8/8/8/8/8/8/8", "--moves",
                                                        "1.0"], ["solve", "x.toml"]])
@pytest.mark.parametrize("value", ["0", "4097", "1.5", "lots"])
def test_a_bad_knob_is_a_usage_error(argv, value, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--certificate-mib", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--certificate-mib" in err and "from 1 to 4096" in err and len(err.splitlines()) == 1


def test_check_reads_a_larger_file_only_when_asked(tmp_path, capsys) -> None:
    """A valid certificate padded past 1 MiB (JSON whitespace) is refused under a 1 MiB knob,
    with one line naming the knob, and accepted under 2 MiB and by default."""
    path = _listing(tmp_path)
    with open(path) as fh:
        cert = json.load(fh)
    with open(path, "w") as fh:
        fh.write(json.dumps(cert) + " " * (MIB + 1000))
    assert main(["check", path, "--certificate-mib", "1"]) == 3
    err = capsys.readouterr().err.strip()
    assert "too large" in err and "--certificate-mib 1 reads at most 1 MiB" in err, err
    assert len(err.splitlines()) == 1
    assert main(["check", path, "--certificate-mib", "2"]) == 0
    assert "accepted" in capsys.readouterr().out
    assert main(["check", path]) == 0


def test_the_unpacked_cap_follows_the_knob(tmp_path, monkeypatch) -> None:
    """`check` unpacks a packed field (here the core) to at most the knob's share (patched small
    here: 12.8x the file cap otherwise) and says which knob it read under."""
    from retrologic.certificate import check_file
    path = _listing(tmp_path)
    with open(path) as fh:
        cert = json.load(fh)
    entry = cert["lengths"][0]
    text = entry.pop("core")            # the core's clause ids, packed as `check` unpacks them
    entry["core_xz"] = writer.pack(text)
    packed = tmp_path / "packed.json"
    packed.write_text(json.dumps(cert))
    assert check_file(packed).ok
    monkeypatch.setattr(certsize, "UNPACKED_AT_DEFAULT", 40 * (len(text) // 2))
    with certsize.allowing(1):
        verdict = check_file(packed)
    assert not verdict.ok and "(--certificate-mib 1)" in verdict.reason, verdict.reason
    with certsize.allowing(3):
        assert check_file(packed).ok


def test_solve_hands_the_knob_to_the_writer(tmp_path, capsys, monkeypatch) -> None:
    """`solve --certificate-mib N` writes the listing under N: with the log's share patched to
    one byte per MiB, the writer stops and its reason names the knob it was given."""
    monkeypatch.setattr(certsize, "LOG_AT_DEFAULT", 40)
    assert main(["solve", "problems/spg/f4-f5-nf3.toml", "--certificate-dir", str(tmp_path),
                 "--certificate-mib", "7", "--json"]) == 0
    out = capsys.readouterr().out
    assert "proof log passed 0 MiB (--certificate-mib 7)" in out, out[-2000:]
    assert not list(tmp_path.glob("**/*.spg-listing.json"))


def test_the_largest_knob_reads_a_small_file_without_allocating_the_cap(tmp_path) -> None:
    """Fuzz seed 2974: `check big.txt --certificate-mib 4096` died of a MemoryError under the
    fuzz run's memory cap: the file was read with `read(cap + 1)`, which allocates 4 GiB first.
    Under a 3 GiB address-space limit it is now one line of bad input (exit 3)."""
    import subprocess
    import sys
    path = tmp_path / "big.txt"
    path.write_text("a = 1\n" * 40_000)
    script = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
              "from retrologic.cli import main; "
              "sys.exit(main(['check', sys.argv[1], '--certificate-mib', '4096']))")
    run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 3, run.stderr[-500:]
    assert "malformed JSON" in run.stderr and "Traceback" not in run.stderr
    # and a file this memory cannot hold (/dev/zero: 4 GiB of zeros) is one line too
    run = subprocess.run([sys.executable, "-c", script, "/dev/zero"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 3, run.stderr[-500:]
    assert "not enough memory" in run.stderr and "Traceback" not in run.stderr


def test_a_check_that_runs_out_of_memory_is_unknown_not_rejected(tmp_path, monkeypatch) -> None:
    """Memory is a limit of the machine, like time: a valid certificate whose check runs out
    of it is *unknown* (exit 4), never *rejected* (it read "malformed certificate: MemoryError"
    before)."""
    from retrologic.spg import proof_checker
    path = _listing(tmp_path)

    def starved(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(proof_checker, "_text", starved)
    assert main(["check", path]) == 4


def test_a_writer_that_runs_out_of_memory_loses_only_the_certificate(tmp_path, monkeypatch,
                                                                      capsys):
    """The verdict stands and the answer says why the listing is missing (it crashed the
    question before, exit 5)."""
    def starved(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(writer, "certificate", starved)
    assert main(["solve", "problems/spg/f4-f5-nf3.toml", "--certificate-dir", str(tmp_path),
                 "--certificate-mib", "3"]) == 0
    assert "not written, out of memory (--certificate-mib 3)" in capsys.readouterr().out
    assert not list(tmp_path.glob("**/*.spg-listing.json"))
