"""The recording path: no symlink followed, no file truncated unless asked, one rpcspy per file."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from rpcspy.recording import open_recording
from rpcspy.recording.claim import RecordingRefused, open_recording_file
from rpcspy.recording.writer import RecordingWriter, make_header
from tests.pump.proxyrun import RPCSPY, fake, run


def test_a_new_file_is_created_owner_only_and_locked(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "r.jsonl"
    fd = open_recording_file(str(path))
    try:
        assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o600
        with pytest.raises(RecordingRefused, match="being recorded by another rpcspy"):
            open_recording_file(str(path), overwrite=True)
    finally:
        os.close(fd)
    os.close(open_recording_file(str(path), overwrite=True))  # the lock went with the descriptor


def test_a_symlink_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    victim.chmod(0o644)
    link = tmp_path / "r.jsonl"
    link.symlink_to(victim)
    for overwrite in (False, True):
        with pytest.raises(RecordingRefused, match="symbolic link"):
            open_recording_file(str(link), overwrite=overwrite)
    assert victim.read_text() == "keep me" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(RecordingRefused, match="symbolic link"):
        open_recording_file(str(dangling))
    assert not (tmp_path / "nowhere").exists()


def test_an_existing_file_is_kept_unless_asked(tmp_path: Path) -> None:
    old = tmp_path / "r.jsonl"
    old.write_text("someone's file")
    old.chmod(0o644)
    with pytest.raises(RecordingRefused, match="--overwrite"):
        open_recording_file(str(old))
    assert old.read_text() == "someone's file" and stat.S_IMODE(old.stat().st_mode) == 0o644
    fd = open_recording_file(str(old), overwrite=True)
    os.close(fd)
    assert old.read_text() == "" and stat.S_IMODE(old.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.jsonl"]  # no temporary name left


def test_overwrite_replaces_a_hard_linked_file_and_another_users_file(tmp_path: Path) -> None:
    """--overwrite puts a new file in place: the other name of a hard link keeps its content, and a file
    someone else planted (their owner, mode 0666) does not pass its owner on to the recording."""
    precious = tmp_path / "precious"
    precious.write_text("keep me")
    rec = tmp_path / "r.jsonl"
    os.link(precious, rec)
    os.chown(rec, 65534, 65534)
    rec.chmod(0o666)
    fd = open_recording_file(str(rec), overwrite=True)
    try:
        os.write(fd, b"new")
    finally:
        os.close(fd)
    assert precious.read_text() == "keep me"
    assert rec.read_text() == "new"
    st = rec.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode), st.st_nlink) == (os.geteuid(), 0o600, 1)


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_fifo_or_a_device_is_refused(tmp_path: Path, overwrite: bool) -> None:
    """A FIFO someone planted at a predictable -o path would receive the whole session: refused, at once
    (no reader needed: the open must not hang), and left as it is."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RecordingRefused, match="is a FIFO: a recording is a regular file"):
        open_recording_file(str(fifo), overwrite=overwrite)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(RecordingRefused, match="is a FIFO"):
            open_recording_file(str(fifo), overwrite=overwrite)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    before = os.stat("/dev/null").st_mode
    with pytest.raises(RecordingRefused, match="is a device"):
        open_recording_file("/dev/null", overwrite=overwrite)
    assert os.stat("/dev/null").st_mode == before
    with pytest.raises(RecordingRefused, match="is a directory"):
        open_recording_file(str(tmp_path), overwrite=overwrite)


@pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's files needs root")
def test_a_recordings_link_another_user_planted_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    link = tmp_path / "recordings"
    link.symlink_to(theirs)
    os.lchown(link, 65534, 65534)
    with pytest.raises(RecordingRefused, match="symbolic link owned by another user"):
        open_recording_file(str(link / "r.jsonl"))
    assert list(theirs.iterdir()) == []
    os.lchown(link, os.geteuid(), os.getegid())  # a link of mine is followed
    os.close(open_recording_file(str(link / "r.jsonl")))
    assert [p.name for p in theirs.iterdir()] == ["r.jsonl"]


@pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's files needs root")
def test_another_users_directory_costs_a_warning(tmp_path: Path) -> None:
    os.chown(tmp_path, 65534, 65534)
    warnings: list[str] = []
    os.close(open_recording_file(str(tmp_path / "r.jsonl"), warn=warnings.append))
    assert len(warnings) == 1 and "belongs to another user (uid 65534)" in warnings[0]


def test_the_writer_warns_instead_of_following_a_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (tmp_path / "r.jsonl").symlink_to(victim)
    warnings: list[str] = []
    writer = RecordingWriter(str(tmp_path / "r.jsonl"), make_header(["x"]), warn=warnings.append)
    writer.close()
    assert victim.read_text() == "keep me"
    assert len(warnings) == 1 and "symbolic link" in warnings[0] and "forwarding continues" in warnings[0]


def test_the_proxy_refuses_a_planted_link_and_starts_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    victim.chmod(0o644)
    (tmp_path / "r.jsonl").symlink_to(victim)
    marker = tmp_path / "agent-ran"
    done = run(tmp_path / "r.jsonl", ["sh", "-c", f"touch {marker}"])
    assert done.returncode == 2 and b"symbolic link" in done.stderr and b"Traceback" not in done.stderr
    assert victim.read_text() == "keep me" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not marker.exists()


def test_the_proxy_keeps_an_existing_file_without_overwrite(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    rec.write_text("old")
    done = run(rec, fake("echo"), b'{"a":1}\n')
    assert done.returncode == 2 and b"--overwrite" in done.stderr and rec.read_text() == "old"
    done = run(rec, fake("echo"), b'{"a":1}\n', "--overwrite")
    assert done.returncode == 0 and done.stdout == b'{"a":1}\n'
    assert [f.data for f in open_recording(rec).frames()] == [b'{"a":1}', b'{"a":1}']


def test_the_proxy_refuses_a_fifo_and_starts_nothing(tmp_path: Path) -> None:
    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    marker = tmp_path / "agent-ran"
    done = run(fifo, ["sh", "-c", f"touch {marker}"])
    assert done.returncode == 2 and b"is a FIFO: a recording is a regular file" in done.stderr
    assert b"Traceback" not in done.stderr and not marker.exists()


def test_a_second_proxy_on_the_same_file_refuses_and_writes_nothing(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    first = subprocess.Popen([*RPCSPY, "-o", str(rec), "--", *fake("echo")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert first.stdin is not None and first.stdout is not None
        first.stdin.write(b'{"n":1}\n')
        first.stdin.flush()
        assert first.stdout.readline() == b'{"n":1}\n'  # the first proxy is recording
        second = run(rec, fake("echo"), b'{"n":2}\n', "--overwrite")
        assert second.returncode == 2 and b"being recorded by another rpcspy" in second.stderr
        assert second.stdout == b""
        first.stdin.write(b'{"n":3}\n')
        first.stdin.close()
        assert first.wait(timeout=60) == 0
    finally:
        if first.poll() is None:
            first.kill()
    assert [f.data for f in open_recording(rec).frames()] == [b'{"n":1}', b'{"n":1}', b'{"n":3}', b'{"n":3}']
    assert rec.read_bytes().count(b'"format":"rpcspy-recording"') == 1  # one header: nothing of the second
