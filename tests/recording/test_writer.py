"""The writer: owner-only files, names, and failures that never raise."""

import os
import stat
from pathlib import Path

import pytest

from rpcspy.events import Exit, Frame, Note
from rpcspy.recording import open_recording
from rpcspy.recording.naming import agent_name, default_path
from rpcspy.recording.writer import FLUSH_AT, RecordingWriter, make_header


def test_file_is_owner_only_and_directory_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "r.jsonl"
    writer = RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail)
    writer.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_existing_file_is_overwritten_and_tightened(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("old content that is longer than a header would be " * 100)
    os.chmod(path, 0o644)
    RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert open_recording(path).header.argv == ["pi"]


def test_a_write_error_warns_once_and_goes_quiet() -> None:
    warnings: list[str] = []  # /dev/full as the descriptor: every write fails (ENOSPC), as on a full disk
    writer = RecordingWriter("/dev/full", make_header(["pi"]), warn=warnings.append,
                             fd=os.open("/dev/full", os.O_WRONLY))
    for i in range(3):
        writer.write_event(Frame(i, 0.0, "a2c", b"{}"))
        writer.flush()
    writer.close()
    assert len(warnings) == 1 and "/dev/full" in warnings[0] and "forwarding continues" in warnings[0]


def test_unopenable_path_warns(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    warnings: list[str] = []
    writer = RecordingWriter(str(tmp_path / "file" / "r.jsonl"), make_header(["pi"]), warn=warnings.append)
    writer.write_event(Frame(1, 0.0, "c2a", b"{}"))
    writer.close()
    assert len(warnings) == 1 and "file/r.jsonl" in warnings[0] and "Not a directory" in warnings[0]


def test_non_frame_events_are_entries(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    writer = RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail)
    writer.write_event(Note(1, 0.5, "warning", "hello", dir="a2c", dropped_bytes=3))
    writer.write_event(Exit(2, 1.0, 143, 15))
    writer.close()
    note, exit_ = open_recording(path).entries()
    assert isinstance(note, Note) and note.dropped_bytes == 3 and note.dir == "a2c"
    assert isinstance(exit_, Exit) and (exit_.code, exit_.signal) == (143, 15)


def test_a_big_batch_is_written_without_waiting_for_flush(tmp_path: Path) -> None:
    """Memory stays bounded even if nobody calls flush between frames (a backlog worked through at once)."""
    path = tmp_path / "r.jsonl"
    writer = RecordingWriter(str(path), make_header(["pi"]), warn=pytest.fail)
    line = b'{"type":"message_update","pad":"' + b"x" * 100_000 + b'"}'
    frames = FLUSH_AT // len(line) + 2
    for i in range(frames):
        writer.write_event(Frame(i, float(i), "a2c", line))
    on_disk = path.stat().st_size
    assert on_disk >= FLUSH_AT  # written already, not held
    writer.close()
    assert [f.data for f in open_recording(path).frames()] == [line] * frames


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["pi", "--mode", "rpc"], "pi"),
        (["/usr/bin/node", "/x/dist/cli.js", "--mode", "rpc"], "cli"),
        (["bun", "/x/omp.ts"], "omp"),
        (["env", "A=1", "omp"], "omp"),
        ([], "agent"),
    ],
)
def test_agent_name(argv: list[str], name: str) -> None:
    assert agent_name(argv) == name


def test_default_path_is_sortable_utc() -> None:
    import datetime as dt

    when = dt.datetime(2026, 11, 22, 8, 53, 37, 123456, tzinfo=dt.timezone.utc)
    assert default_path("recordings", ["pi"], when) == "recordings/20261122T085337.123456Z-pi.jsonl"


def test_a_device_is_refused_and_keeps_its_mode() -> None:
    """Recording to /dev/null (as root, too) is refused (a recording is a regular file) and must not chmod it."""
    before = os.stat("/dev/null").st_mode
    warnings: list[str] = []
    RecordingWriter("/dev/null", make_header(["pi"]), warn=warnings.append).close()
    assert os.stat("/dev/null").st_mode == before
    assert len(warnings) == 1 and "is a device" in warnings[0]
