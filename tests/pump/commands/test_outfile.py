"""Whole-file outputs (export -o, fixture -o, schema -o, replay --report) never replace what is not a file."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.pump.commands.outfile import output_fd, write_whole
from tests.render.sample import write_sample

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def rec(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_sample(tmp_path_factory.mktemp("outfile") / "s.jsonl"))


def _char_device(path: Path, minor: int) -> Path:
    """A private copy of /dev/null (minor 3) or /dev/full (minor 7): testing on the machine's own is
    what the bug did (as root it replaced /dev/full)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")
    return path


class _FifoReader:
    """Reads a FIFO until its writer closes it."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.data = b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with open(self.path, "rb") as f:
            self.data = f.read()

    def join(self) -> bytes:
        self._thread.join(30)
        assert not self._thread.is_alive()
        return self.data


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[_FifoReader]:
    yield _FifoReader(tmp_path / "fifo")


def test_a_regular_file_is_replaced_atomically(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("old")
    before = out.stat().st_ino
    with output_fd(str(out)) as fd:
        os.write(fd, b"new")
        assert out.read_text() == "old"  # a reader sees the old file until the end
    assert out.read_text() == "new" and out.stat().st_ino != before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failure_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("old")
    with pytest.raises(RuntimeError), output_fd(str(out)) as fd:
        os.write(fd, b"half")
        raise RuntimeError
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_symlink_stays_a_link_to_the_new_content(tmp_path: Path) -> None:
    target, link = tmp_path / "target", tmp_path / "link"
    target.write_text("old")
    link.symlink_to(target)
    write_whole(str(link), b"new")
    assert link.is_symlink() and target.read_text() == "new"


def test_a_planted_temporary_name_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    out = tmp_path / "out"
    (tmp_path / f"out.{os.getpid()}.tmp").symlink_to(victim)
    write_whole(str(out), b"new")
    assert victim.read_text() == "keep" and out.read_text() == "new" and not out.is_symlink()


def test_a_fifo_is_written_in_place(fifo: _FifoReader) -> None:
    write_whole(str(fifo.path), b"through the pipe")
    assert fifo.join() == b"through the pipe"
    assert stat.S_ISFIFO(os.lstat(fifo.path).st_mode)


def test_a_device_is_written_in_place_and_its_errors_reported(tmp_path: Path) -> None:
    null = _char_device(tmp_path / "null", 3)
    write_whole(str(null), b"gone")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    full = _char_device(tmp_path / "full", 7)
    with pytest.raises(OSError) as exc:
        write_whole(str(full), b"x")
    assert exc.value.errno == 28 and stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full", "null"]


def test_export_and_fixture_and_schema_write_into_a_fifo(rec: str, tmp_path: Path) -> None:
    for n, args in enumerate((["export", rec, "-o"], ["fixture", rec, "-o"], ["schema", "-o"])):
        reader = _FifoReader(tmp_path / f"fifo{n}")
        res = CliRunner().invoke(main, [*args, str(reader.path)])
        assert res.exit_code == 0, res.output
        assert len(reader.join()) > 100 and stat.S_ISFIFO(os.lstat(reader.path).st_mode)


def test_export_to_a_full_device_fails_and_keeps_the_device(rec: str, tmp_path: Path) -> None:
    full = _char_device(tmp_path / "full", 7)
    for args in (["export", rec, "-o"], ["fixture", rec, "-o"]):
        res = CliRunner().invoke(main, [*args, str(full)])
        assert res.exit_code == 4 and "No space left on device" in res.output, res.output
        assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_replay_report_into_a_device_stays_a_device_and_is_said_once(rec: str, tmp_path: Path) -> None:
    full = _char_device(tmp_path / "full", 7)
    p = subprocess.run([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--report", str(full), rec],
                       input=b"", capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert stat.S_ISCHR(os.lstat(full).st_mode)
    assert p.stderr.count(b"cannot write the report") == 1, p.stderr
    assert b"Traceback" not in p.stderr
