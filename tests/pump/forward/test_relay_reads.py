"""The relay's reads: small requests for small chunks (no MiB allocation per frame), big ones for bulk,
and every byte forwarded and published in order whatever the sizes."""

from __future__ import annotations

import fcntl
import os
import random
import threading
import time

import pytest

from rpcspy.pump.forward import relay as relay_module
from rpcspy.pump.forward.relay import CHUNK, FIRST_READ, Relay, next_read_size, write_all
from rpcspy.pump.forward.spawn import F_SETPIPE_SZ


class ListSink:
    tape = None

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.eof = False

    def publish(self, direction: str, t: float, chunk: bytes, injected: bool = False) -> None:
        self.chunks.append(chunk)

    def publish_eof(self, direction: str, t: float) -> None:
        self.eof = True

    def publish_event(self, event: object) -> None:
        pass


@pytest.mark.parametrize(("asked", "got", "next_ask"), [
    (FIRST_READ, 300, FIRST_READ),  # a frame: stay small
    (FIRST_READ, FIRST_READ, CHUNK),  # the request was filled: more is waiting, ask for a MiB
    (CHUNK, CHUNK, CHUNK),
    (CHUNK, 200_000, CHUNK),  # still bulk
    (CHUNK, 100, FIRST_READ),  # back to frames
    (CHUNK, FIRST_READ - 1, FIRST_READ),
])
def test_next_read_size(asked: int, got: int, next_ask: int) -> None:
    assert next_read_size(asked, got) == next_ask


REAL_READ = os.read


def _spy_reads(monkeypatch: pytest.MonkeyPatch, src: int) -> list[int]:
    """Patch os.read to note every size asked of ``src``; the list it fills."""
    asked: list[int] = []

    def spy(fd: int, n: int) -> bytes:
        if fd == src:
            asked.append(n)
        return REAL_READ(fd, n)

    monkeypatch.setattr(relay_module.os, "read", spy)
    return asked


def _relay_reads(monkeypatch: pytest.MonkeyPatch, writes: list[bytes], pace: bool = False,
                 ) -> tuple[list[int], bytes, ListSink]:
    """Run a Relay over a pipe fed with ``writes`` (``pace``: each once the last was forwarded);
    (sizes asked of the source, bytes out, sink)."""
    src_r, src_w = os.pipe()
    fcntl.fcntl(src_w, F_SETPIPE_SZ, 1 << 20)
    out_r, out_w = os.pipe()
    asked = _spy_reads(monkeypatch, src_r)
    real_read = REAL_READ
    sink = ListSink()
    relay = Relay("a2c", src_r, out_w, sink, lambda: 0.0)  # type: ignore[arg-type]
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r, real_read)))
    reader.start()
    relay.start()
    sent = 0
    for data in writes:
        write_all(src_w, data)
        sent += len(data)
        while pace and sum(len(c) for c in sink.chunks) < sent:
            time.sleep(0.001)
    os.close(src_w)
    relay.join(10)
    assert not relay.is_alive()
    os.close(out_w)
    reader.join(10)
    os.close(src_r)
    os.close(out_r)
    return asked, bytes(got), sink


def _read_all(fd: int, read=os.read) -> bytes:  # type: ignore[no-untyped-def]
    out = bytearray()
    while chunk := read(fd, 1 << 20):
        out += chunk
    return bytes(out)


def test_small_frames_are_read_with_small_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    frames = [b'{"id":"%d","type":"get_state"}\n' % i for i in range(50)]
    asked, out, sink = _relay_reads(monkeypatch, frames, pace=True)
    assert out == b"".join(frames) and b"".join(sink.chunks) == out and sink.eof
    assert set(asked) == {FIRST_READ}  # never a MiB request for a frame


def test_bulk_is_read_in_big_requests_and_frames_after_it_small_again(monkeypatch: pytest.MonkeyPatch) -> None:
    bulk = bytes(random.Random(1).randbytes(900_000))
    frames = [b'{"n":%d}\n' % i for i in range(5)]
    asked, out, sink = _relay_reads(monkeypatch, [bulk, *frames], pace=True)
    assert out == bulk + b"".join(frames) and b"".join(sink.chunks) == out
    assert CHUNK in asked  # the bulk was met with MiB reads
    assert asked[-1] == FIRST_READ  # and the frames (and EOF) after it with small ones again


@pytest.mark.parametrize("seed", range(4))
def test_any_mix_of_sizes_passes_byte_for_byte(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    writes = [rng.randbytes(rng.choice((1, 7, 300, FIRST_READ - 1, FIRST_READ, FIRST_READ + 1, 300_000,
                                        CHUNK + 5))) for _ in range(40)]
    asked, out, sink = _relay_reads(monkeypatch, writes)
    assert out == b"".join(writes) and b"".join(sink.chunks) == out and sink.eof


def test_write_all_finishes_on_a_slow_non_blocking_reader() -> None:
    r, w = os.pipe()
    os.set_blocking(w, False)
    data = random.Random(2).randbytes(3 * 65536 + 17)  # more than the pipe holds: partial writes, EAGAIN
    got = bytearray()

    def slow() -> None:
        while chunk := os.read(r, 4096):
            got.extend(chunk)

    reader = threading.Thread(target=slow)
    reader.start()
    write_all(w, data)
    write_all(w, memoryview(b"tail\n"))
    os.close(w)
    reader.join(10)
    os.close(r)
    assert bytes(got) == data + b"tail\n"


def test_client_relay_stops_polling_the_commands_of_a_gone_observer_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the observer process's command pipe ends, it leaves the poll set: a pipe at EOF is
    always ready, and polling it would spin the relay until the client's next byte."""
    from rpcspy.pump.forward import inject_relays

    polls: list[int] = []
    real_poll_for = inject_relays._poll_for

    class Counting:
        def __init__(self, poll) -> None:  # type: ignore[no-untyped-def]
            self.poll_set = poll

        def poll(self) -> list[tuple[int, int]]:
            polls.append(1)
            return self.poll_set.poll()

        def unregister(self, fd: int) -> None:
            self.poll_set.unregister(fd)

    monkeypatch.setattr(inject_relays, "_poll_for", lambda *fds: Counting(real_poll_for(*fds)))
    src_r, src_w = os.pipe()
    out_r, out_w = os.pipe()
    cmd_r, cmd_w = os.pipe()
    os.close(cmd_w)  # the observer process is gone from the start
    sink = ListSink()
    relay = inject_relays.ClientRelay("c2a", src_r, out_w, sink, lambda: 0.0, commands=cmd_r)  # type: ignore[arg-type]
    relay.start()
    time.sleep(0.2)  # idle client: a relay polling an ended pipe would go round thousands of times here
    frames = [b'{"id":"%d","type":"get_state"}\n' % i for i in range(3)]
    for frame in frames:
        write_all(src_w, frame)
        assert os.read(out_r, 1 << 16) == frame
    os.close(src_w)
    relay.join(10)
    assert not relay.is_alive()
    assert sink.chunks == frames
    assert len(polls) <= 2 * (len(frames) + 2)



def _inject_while_the_client_ends() -> tuple[list[bytes], list[bytes]]:
    """One round: a thread injects without pause while the client's input ends; (accepted, sent)."""
    from rpcspy.pump.forward import inject_relays

    src_r, src_w = os.pipe()
    out_r, out_w = os.pipe()
    fcntl.fcntl(out_w, F_SETPIPE_SZ, 1 << 20)
    relay = inject_relays.ClientRelay("c2a", src_r, out_w, ListSink(), lambda: 0.0,  # type: ignore[arg-type]
                               close_dst=lambda: os.close(out_w))
    accepted: list[bytes] = []
    received: list[bytes] = []
    started = threading.Event()

    def injector() -> None:
        n = 0
        while True:
            line = b'{"id":"rpcspy-inject-%d","type":"get_state"}\n' % n
            try:
                relay.inject(line)
            except BrokenPipeError:
                started.set()
                return
            accepted.append(line)
            n += 1
            if n == 3:
                started.set()

    def agent() -> None:  # reads the agent's stdin until the relay closes it
        while chunk := os.read(out_r, 1 << 20):
            received.append(chunk)

    threads = [threading.Thread(target=injector), threading.Thread(target=agent)]
    relay.start()
    for thread in threads:
        thread.start()
    started.wait(10)
    os.close(src_w)  # the client ends while lines are being injected
    relay.join(30)
    for thread in threads:
        thread.join(30)
    assert not relay.is_alive() and not any(thread.is_alive() for thread in threads)
    os.close(out_r)
    os.close(src_r)
    return accepted, b"".join(received).splitlines(keepends=True)


def test_injections_racing_the_clients_eof_are_sent_or_refused_never_lost() -> None:
    """Every line ``inject`` accepts reaches the agent; once it cannot, ``inject`` raises (BrokenPipeError
    only: it never writes a wake byte into a pipe the relay closed, whose number may be reused)."""
    lost_rounds = 0
    for _ in range(150):
        accepted, sent = _inject_while_the_client_ends()
        assert sent == accepted[:len(sent)], "injected lines arrive whole and in order"
        lost_rounds += len(sent) != len(accepted)
    assert lost_rounds == 0, f"{lost_rounds} round(s) lost an accepted injection"
