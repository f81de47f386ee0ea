"""A divert asked for after the agent's output went by tape: what follows is routed from where the taped
bytes really ended (rpcspy.injection.divert decides, the relay tells it), also when divert_ids lands
between the tape loop's check and the next small chunk."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rpcspy.injection.ledger import PREFIX
from rpcspy.pump import tape as tape_module
from rpcspy.pump.spawn import F_SETPIPE_SZ
from rpcspy.pump.splice import SMALL, AgentRelay
from rpcspy.pump.tape import RELEASE_STEP, Tape
from tests.pump.test_tape import TapeSink, _read_all, _write_all

pytestmark = pytest.mark.skipif(not tape_module.AVAILABLE, reason="splice/sendfile are Linux-only")

ANSWER = b'{"id":"rpcspy-inject-1","type":"response","command":"get_state","success":true}\n'


class LateDivert(AgentRelay):
    """Once armed, divert_ids lands exactly between the tape loop's check and the next small chunk:
    what divert_ids does before it wakes the relay, done at the worst moment."""

    late = False

    def _copy_small(self) -> None:
        if self.late:
            self.late = False
            self._markers = (PREFIX.encode(),)
            self._lines.divert(PREFIX.encode())
        super()._copy_small()


def _taped(sink: TapeSink) -> int:
    return sum(n for k, n in sink.order if k == "tape")  # type: ignore[misc]


def _wait_for(cond, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60  # a hang guard, not a speed check
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.002)


def _relay_through(tmp_path: Path, head: bytes, bulk: bytes, tail: bytes,
                   divert: Callable[[LateDivert], None] | None = None) -> tuple[bytes, TapeSink]:
    """``head`` copied small, ``bulk`` by the tape, then ``divert`` (default: divert_ids lands at the worst
    moment, when the relay copies ``tail``) and ``tail`` (small). What the client got, and the sink."""
    assert len(head) < SMALL <= len(bulk) and 0 < len(tail) < SMALL
    src_r, src_w = os.pipe()
    fcntl.fcntl(src_w, F_SETPIPE_SZ, 1 << 20)  # one write of the bulk waits there whole
    out_r, out_w = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(_read_all(out_r)))
    reader.start()
    sink = TapeSink(Tape(str(tmp_path)))
    relay = LateDivert("a2c", src_r, out_w, sink, lambda: 0.0)  # type: ignore[arg-type]
    relay.start()
    if head:
        _write_all(src_w, head)
        _wait_for(lambda: ("data", head) in sink.order, "the head was not copied")
    _write_all(src_w, bulk)
    _wait_for(lambda: _taped(sink) == len(bulk), "the bulk did not go by the tape")
    if divert is None:
        relay.late = True
    else:
        divert(relay)
    _write_all(src_w, tail)
    os.close(src_w)
    relay.join(60)
    os.close(out_w)
    reader.join(60)
    assert not relay.is_alive() and not relay.late
    return bytes(got), sink


@pytest.mark.parametrize("ended", [True, False])
def test_leaving_the_tape_path_knows_whether_a_line_just_ended(tmp_path: Path, ended: bool) -> None:
    """After bulk output on the tape, an injection needs to know where lines start: a reply to it
    is kept from the client only if it is a line of its own, never the end of a taped line."""
    bulk = b'{"type":"x","pad":"' + b"p" * 300_000 + (b'"}\n' if ended else b'",')
    rest = b'{"type":"response","id":"rpcspy-inject-1","success":true}\n'
    got, sink = _relay_through(tmp_path, b"", bulk, rest, divert=lambda relay: relay.divert_ids(PREFIX.encode()))
    assert got == (bulk if ended else bulk + rest)
    assert sink.observed() == bulk + rest


def test_the_tail_of_a_line_the_tape_began_reaches_the_client(tmp_path: Path) -> None:
    """The tape ended mid-line; the line's tail looks like an answer in its first 4 KiB. A diverter
    that thought a line started there kept the client's tail from it."""
    bulk = b'{"type":"message_update","content":["' + b"p" * 300_000 + b'",'
    tail = ANSWER[:-2] + b',"pad":"' + b"q" * 6000 + b'"}]}\n'
    got, sink = _relay_through(tmp_path, b"", bulk, tail)
    assert got == bulk + tail
    assert sink.observed() == bulk + tail  # and the observers got every byte, in order


def test_an_answer_right_after_a_line_the_tape_ended_is_kept_from_the_client(tmp_path: Path) -> None:
    """A small chunk ended mid-line, the tape ended that line: the next line is an answer to an
    injection. A diverter that thought it was still inside the copied line passed it to the client."""
    head = b'{"type":"message_update","pad":"'
    bulk = b"p" * 300_000 + b'"}\n'
    got, sink = _relay_through(tmp_path, head, bulk, ANSWER)
    assert got == head + bulk
    assert sink.observed() == head + bulk + ANSWER



def _release_then_divert(relay: LateDivert) -> None:
    """The client and the observers are both past the tape's end: its last byte is punched out."""
    tape = relay.hub.tape
    assert tape is not None
    _wait_for(lambda: tape.forwarded == tape.written, "the client was not sent the bulk")
    tape.release(tape.written)  # what the observers' TapeReader does when it reads the last chunk
    assert tape.released == tape.written
    relay.divert_ids(PREFIX.encode())


@pytest.mark.parametrize("ended", [True, False])
def test_where_the_tape_ended_is_known_after_it_was_released(tmp_path: Path, ended: bool) -> None:
    """More than a release step went by the tape and both readers passed its end, so its last byte is a
    hole. A relay that read it back (a zero: no LF) took the answer for the rest of the client's line and
    passed it to the client."""
    line = b'{"type":"x","pad":"' + b"p" * 1000 + b'"}\n'
    bulk = line * (RELEASE_STEP // len(line) + 100) + (b"" if ended else b'{"type":"x","pad":')
    got, sink = _relay_through(tmp_path, b"", bulk, ANSWER, divert=_release_then_divert)
    assert got == (bulk if ended else bulk + ANSWER), got[-120:]
    assert sink.order[-2] == ("data", ANSWER)  # the observers get it either way
