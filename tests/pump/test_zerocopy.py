"""The zero-copy agent path: tee into the side pipe, splice to the client, fall back when refused."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from rpcspy.pump import zerocopy
from rpcspy.pump.splice import AgentRelay

pytestmark = pytest.mark.skipif(not zerocopy.AVAILABLE, reason="tee/splice are Linux-only")


class SideSink:
    """Stands in for PipeSink: records what the relay announced, drains the side pipe."""

    def __init__(self) -> None:
        self.side_r, self.side_fd = os.pipe()
        self.announced: list[int] = []
        self.published: list[bytes] = []
        self.side_bytes = b""
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self) -> None:
        while chunk := os.read(self.side_r, 1 << 16):
            self.side_bytes += chunk

    def publish_side(self, direction: str, t: float, length: int) -> None:
        self.announced.append(length)

    def publish(self, direction: str, t: float, chunk: bytes, injected: bool = False) -> None:
        self.published.append(chunk)

    def publish_eof(self, direction: str, t: float) -> None:
        os.close(self.side_fd)

    def wait_side_writable(self) -> bool:
        return True


def _relay(dst: int) -> tuple[AgentRelay, SideSink, int]:
    src_r, src_w = os.pipe()
    sink = SideSink()
    relay = AgentRelay("a2c", src_r, dst, sink, lambda: 0.0)  # type: ignore[arg-type]
    relay.start()
    return relay, sink, src_w


def test_agent_output_goes_to_client_and_side_pipe_without_publishing_copies() -> None:
    out_r, out_w = os.pipe()
    relay, sink, src_w = _relay(out_w)
    data = b"".join(b'{"n":%d,"t":"\xe2\x80\xa8"}\n' % i for i in range(50_000))
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(iter_read(out_r)))
    reader.start()
    _write_all(src_w, data)
    os.close(src_w)
    relay.join(10)
    os.close(out_w)
    reader.join(10)
    sink._drainer.join(10)
    assert bytes(got) == data
    assert sink.side_bytes == data and sum(sink.announced) == len(data)
    assert sink.published == []  # nothing went through Python


def test_client_file_that_refuses_splice_gets_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)  # splice into O_APPEND: EINVAL
    relay, sink, src_w = _relay(fd)
    data = b"line one\nline two\n" * 1000
    _write_all(src_w, data)
    os.close(src_w)
    relay.join(10)
    os.close(fd)
    sink._drainer.join(10)
    assert path.read_bytes() == data and sink.side_bytes == data


def iter_read(fd: int):  # noqa: ANN201
    while chunk := os.read(fd, 1 << 16):
        yield from chunk


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
