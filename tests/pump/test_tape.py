"""The tape path for the agent's bulk output: pipe -> tape -> client inside the kernel, small chunks copied."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rpcspy.events import Note
from rpcspy.pump import tape as tape_module
from rpcspy.pump.spawn import F_SETPIPE_SZ
from rpcspy.pump.splice import SMALL, AgentRelay
from rpcspy.pump.tape import RELEASE_STEP, Tape

pytestmark = pytest.mark.skipif(not tape_module.AVAILABLE, reason="splice/sendfile are Linux-only")


class TapeSink:
    """Stands in for PipeSink: keeps what the relay announced, in order."""

    def __init__(self, tape: Tape, *, dead: bool = False) -> None:
        self.tape = tape
        self.dead = dead
        self.stalled = False
        self.order: list[tuple[str, object]] = []
        self.warnings: list[str] = []

    def publish_tape(self, direction: str, t: float, length: int) -> None:
        self.order.append(("tape", length))

    def publish(self, direction: str, t: float, chunk: bytes, injected: bool = False) -> None:
        self.order.append(("data", chunk))

    def publish_gap(self, direction: str, t: float, length: int, reason: str) -> None:
        self.order.append(("gap", length))

    def publish_eof(self, direction: str, t: float) -> None:
        self.order.append(("eof", None))

    def publish_event(self, event: object) -> None:
        self.order.append(("event", event))

    def observed(self) -> bytes:
        """The stream as the observers rebuild it: inline chunks and tape ranges, in order."""
        out, offset = bytearray(), 0
        for kind, what in self.order:
            if kind == "data":
                out += what  # type: ignore[operator]
            elif kind == "tape":
                out += self.tape.read(offset, what)  # type: ignore[arg-type]
                offset += what  # type: ignore[operator]
        return bytes(out)

    def kinds(self) -> set[str]:
        return {k for k, _ in self.order}


def _run(tmp_path: Path, dst: int, data: bytes, tape: Tape | None = None, dead: bool = False,
         stall_after: float | None = None) -> TapeSink:
    src_r, src_w = os.pipe()
    fcntl.fcntl(src_w, F_SETPIPE_SZ, 1 << 20)  # as the proxy's pipes: bulk writes wait there whole
    sink = TapeSink(tape or Tape(str(tmp_path)), dead=dead)
    relay = AgentRelay("a2c", src_r, dst, sink, lambda: 0.0, warn=sink.warnings.append)  # type: ignore[arg-type]
    if stall_after is not None:
        relay.stall_after = stall_after
    relay.start()
    _write_all(src_w, data)
    os.close(src_w)
    relay.join(10)
    assert not relay.is_alive()
    return sink


def test_bulk_output_travels_by_tape_small_chunks_inline(tmp_path: Path) -> None:
    out_r, out_w = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r)))
    reader.start()
    data = b"".join(b'{"n":%d,"t":"\xe2\x80\xa8"}\n' % i for i in range(100_000))
    sink = _run(tmp_path, out_w, data)
    os.close(out_w)
    reader.join(10)
    assert bytes(got) == data
    assert sink.observed() == data
    assert "tape" in sink.kinds()
    assert sink.order[-1] == ("eof", None)


def test_a_reply_smaller_than_SMALL_is_copied_not_taped(tmp_path: Path) -> None:
    out_r, out_w = os.pipe()
    line = b'{"id":"x","type":"response","command":"get_state","success":true}\n'
    assert len(line) < SMALL
    sink = _run(tmp_path, out_w, line)
    os.close(out_w)
    assert os.read(out_r, 1 << 16) == line
    assert sink.order == [("data", line), ("eof", None)]


def test_client_file_that_refuses_sendfile_gets_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # sendfile into O_APPEND: EINVAL
    data = (b"line one\nline two\n" * 1000) * 20
    sink = _run(tmp_path, fd, data)
    os.close(fd)
    assert path.read_bytes() == data and sink.observed() == data
    assert "tape" in sink.kinds()


def test_a_failing_tape_falls_back_to_the_pipe_and_says_so(tmp_path: Path) -> None:
    broken = Tape(str(tmp_path))
    os.close(broken.fd)
    broken.fd = os.open(os.devnull, os.O_RDONLY)  # splice onto it fails, as on a full disk
    out_r, out_w = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r)))
    reader.start()
    data = b"x" * 500_000 + b"\n"
    sink = _run(tmp_path, out_w, data, tape=broken)
    os.close(out_w)
    reader.join(10)
    assert bytes(got) == data
    assert b"".join(c for k, c in sink.order if k == "data") == data  # type: ignore[misc]
    notes = [e for k, e in sink.order if k == "event" and isinstance(e, Note)]
    assert len(notes) == 1 and "the tape failed" in notes[0].text
    assert sink.warnings == [notes[0].text]  # and once on stderr


def test_no_tape_once_the_observers_are_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    data = b"z" * 3_000_000 + b"\n"
    sink = _run(tmp_path, fd, data, dead=True)
    os.close(fd)
    assert path.read_bytes() == data
    assert sink.tape.size() == 0 and "tape" not in sink.kinds()


def test_release_gives_read_bytes_back(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    src_r, src_w = os.pipe()
    chunk = b"y" * 65536
    total = 0
    while total < 3 * RELEASE_STEP:
        os.write(src_w, chunk)
        total += tape.append_from(src_r, len(chunk))
    before = os.fstat(tape.fd).st_blocks
    assert tape.read(total - 3, 3) == b"yyy" and tape.size() == total
    tape.forwarded = total  # the client has it all
    tape.release(RELEASE_STEP - 1)  # under a step: kept
    assert tape.released == 0
    tape.release(2 * RELEASE_STEP)
    assert tape.released == 2 * RELEASE_STEP
    assert os.fstat(tape.fd).st_blocks < before
    assert tape.read(2 * RELEASE_STEP, 4) == b"yyyy" and tape.size() == total  # offsets stay valid


def test_release_waits_for_the_client(tmp_path: Path) -> None:
    """The observers are past two steps, the client only past one: only the client's part goes."""
    tape = Tape(str(tmp_path))
    src_r, src_w = os.pipe()
    chunk = b"z" * 65536
    while tape.written < 3 * RELEASE_STEP:
        os.write(src_w, chunk)
        tape.append_from(src_r, len(chunk))
    tape.forwarded = RELEASE_STEP + 5
    tape.release(2 * RELEASE_STEP)
    assert tape.released == RELEASE_STEP + 5 and tape.consumed == 2 * RELEASE_STEP
    assert tape.read(RELEASE_STEP + 5, 4) == b"zzzz"  # what the client has yet to get is still there
    tape.forwarded = tape_module.CLIENT_GONE
    tape.release(3 * RELEASE_STEP)
    assert tape.released == 3 * RELEASE_STEP


def test_the_tape_remembers_whether_its_last_byte_ended_a_line(tmp_path: Path) -> None:
    """Known at append time and kept: once the client and the observers are both past the tape's end,
    release punches that byte out (it reads as zero), and the relay still needs to know (the diverter)."""
    tape = Tape(str(tmp_path))
    src_r, src_w = os.pipe()
    chunk = b"y" * 65536
    while tape.written < RELEASE_STEP + (1 << 20):
        os.write(src_w, chunk)
        tape.append_from(src_r, len(chunk))
        assert not tape.ends_line
    os.write(src_w, b'"}\n')
    tape.append_from(src_r, 3)
    assert tape.ends_line
    tape.forwarded = tape.written
    tape.release(tape.written)  # what the observers do when they read the last chunk
    assert tape.released == tape.written and tape.read(tape.written - 1, 1) == b"\x00"  # the byte is gone
    assert tape.ends_line  # what was appended is still known
    os.write(src_w, b'{"a"')
    tape.append_from(src_r, 4)
    assert not tape.ends_line


def test_the_client_position_is_seen_across_fork(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    pid = os.fork()
    if pid == 0:
        tape.forwarded = 123456789012
        os._exit(0)
    os.waitpid(pid, 0)
    assert tape.forwarded == 123456789012


def test_messages_the_observer_process_dispatches_are_progress_seen_across_fork(tmp_path: Path) -> None:
    tape = Tape(str(tmp_path))
    tape.consumed = 1000
    pid = os.fork()
    if pid == 0:
        for _ in range(3):
            tape_module.count_dispatched(tape)
        os._exit(0)
    os.waitpid(pid, 0)
    assert tape.dispatched == 3 and tape.consumed == 1000 and tape.progress == 1003
    tape_module.count_dispatched(None)  # no tape: nothing to count, no error


@pytest.mark.parametrize(("forwarded", "consumed", "released", "expected"), [
    (10, 20, 0, 10), (20, 10, 0, 10), (5, 20, 0, None), (20, 20, 15, None), (30, 40, 15, 30)])
def test_release_point_is_the_slower_reader(forwarded: int, consumed: int, released: int,
                                            expected: int | None) -> None:
    assert tape_module.release_point(forwarded, consumed, released, step=10) == expected


def test_pipe_holds_counts_waiting_bytes() -> None:
    r, w = os.pipe()
    assert tape_module.pipe_holds(r) == 0
    os.write(w, b"abc")
    assert tape_module.pipe_holds(r) == 3


def _read_all(fd: int) -> bytes:
    out = bytearray()
    while chunk := os.read(fd, 1 << 16):
        out += chunk
    return bytes(out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _past_a_small_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stall_after: float,
                        observers: Callable[[Tape, threading.Event], None] | None = None) -> tuple[TapeSink, Tape, bytes]:
    """16 MiB of agent output against a 4 MiB tape bound; ``observers(tape, done)`` plays them (None: nobody reads)."""
    monkeypatch.setattr(tape_module, "BACKLOG_BOUND", 4 << 20)
    out_r, out_w = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r)))
    reader.start()
    data = os.urandom(16 << 20)
    tape = Tape(str(tmp_path))
    done = threading.Event()
    playing = threading.Thread(target=observers, args=(tape, done)) if observers else None
    if playing is not None:
        playing.start()
    try:
        sink = _run(tmp_path, out_w, data, tape=tape, stall_after=stall_after)
    finally:
        done.set()
        if playing is not None:
            playing.join(10)
    os.close(out_w)
    reader.join(10)
    assert bytes(got) == data  # the client got everything
    return sink, tape, data


def test_the_tape_holds_no_more_than_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Observers that read nothing: the tape stops at BACKLOG_BOUND, and once they made no progress for the
    stall time the rest is forwarded and counted as a gap."""
    sink, tape, data = _past_a_small_bound(tmp_path, monkeypatch, stall_after=0.2)
    on_tape = sum(n for k, n in sink.order if k == "tape")  # type: ignore[misc]
    gaps = sum(n for k, n in sink.order if k == "gap")  # type: ignore[misc]
    assert tape.written == on_tape and (4 << 20) <= on_tape < (4 << 20) + (1 << 20)  # the bound, plus one chunk
    assert on_tape + gaps + sum(len(c) for k, c in sink.order if k == "data") == len(data)  # type: ignore[misc]
    assert gaps > 0


def test_at_the_bound_the_agent_waits_for_observers_that_progress(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Observers slower than the agent but moving: the relay stops reading the agent at the bound until they
    catch up, so everything goes on the tape and nothing becomes a gap (with stall_after=0: gaps)."""
    seen = bytearray()

    def slow_observers(tape: Tape, done: threading.Event) -> None:  # 256 KiB at a time, with a pause
        while not done.is_set() or tape.consumed < tape.written:
            upto = min(tape.written, tape.consumed + (256 << 10))
            seen.extend(tape.read(tape.consumed, upto - tape.consumed))
            tape.release(upto)
            time.sleep(0.005)

    sink, _, data = _past_a_small_bound(tmp_path, monkeypatch, stall_after=30.0, observers=slow_observers)
    assert "gap" not in sink.kinds()
    on_tape = sum(n for k, n in sink.order if k == "tape")  # type: ignore[misc]
    assert on_tape + sum(len(c) for k, c in sink.order if k == "data") == len(data)  # type: ignore[misc]
    assert bytes(seen) == b"".join(  # the observers read every taped byte, in order
        data[i:i + n] for i, n in _taped_ranges(sink))


def _taped_ranges(sink: TapeSink) -> list[tuple[int, int]]:
    """(offset in the stream, length) of each range the relay put on the tape."""
    out, pos = [], 0
    for kind, what in sink.order:
        if kind == "tape":
            out.append((pos, what))
            pos += what  # type: ignore[operator]
        elif kind == "data":
            pos += len(what)  # type: ignore[arg-type]
    return out  # type: ignore[return-value]
