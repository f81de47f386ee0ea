"""Where injected lines enter the client's stream, decided over chunks split anywhere (no pipes)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.injection.gate import LineGate
from tests.injection.chunking import cut

INJECTED = b'{"id":"rpcspy-inject-1","type":"get_state"}\n'


def splice(chunks: list[bytes], queued_before: int) -> tuple[bytes, bool]:
    """Run the gate the way the client relay does: one injection waits from before chunk
    ``queued_before`` on. Returns the agent's input and whether the injection went in."""
    gate, out, waiting = LineGate(), b"", False
    for i, chunk in enumerate(chunks):
        waiting = waiting or i == queued_before
        k = gate.cut(chunk, waiting)
        if k is None:
            out += chunk
            continue
        out += chunk[:k] + INJECTED + chunk[k:]
        waiting = False
    return out, not waiting


def expected(stream: bytes, start: int) -> int | None:
    """The first line boundary at or after ``start`` (the start of the stream is one)."""
    for p in range(start, len(stream) + 1):
        if p == 0 or stream[p - 1:p] == b"\n":
            return p
    return None


@given(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"{}"]), max_size=40), st.lists(st.integers(0, 80), max_size=8),
       st.integers(0, 9))
def test_an_injection_enters_at_the_first_line_end_after_it_was_queued(parts: list[bytes], at: list[int],
                                                                        when: int) -> None:
    stream = b"".join(parts)
    chunks = cut(stream, at)
    when = min(when, len(chunks) - 1)
    start = sum(len(c) for c in chunks[:when])
    out, went_in = splice(chunks, when)
    p = expected(stream, start)
    if p is None:
        assert not went_in and out == stream
    else:
        assert went_in and out == stream[:p] + INJECTED + stream[p:]


def test_splits_at_every_byte_position_put_it_after_the_clients_line() -> None:
    """Queued while the client's first line is half sent, whatever the chunks after that."""
    stream = b'{"id":"c1","type":"get_state"}\r\n{"id":"c2","type":"prompt","message":"hi"}\n'
    first = stream.index(b"\n") + 1
    for i in range(1, first):
        for j in range(i, len(stream) + 1):
            out, went_in = splice([stream[:i], stream[i:j], stream[j:]], 1)
            assert went_in and out == stream[:first] + INJECTED + stream[first:], (i, j)


def test_at_a_boundary_it_goes_first_and_inside_a_line_after_its_lf() -> None:
    gate = LineGate()
    assert gate.cut(b'{"a":1}\n{"b"', True) == 0  # nothing of the client's is pending: before the chunk
    assert not gate.at_boundary
    assert gate.cut(b':2}\n{"c":3}\n', True) == 4  # after the partial line's LF, before the next line
    assert gate.at_boundary
    assert gate.cut(b'{"d"', False) is None and not gate.at_boundary
    assert gate.cut(b":4}\n", True) == 4  # the chunk ends the line: right after it


def test_cr_is_part_of_a_line_and_empty_chunks_change_nothing() -> None:
    gate = LineGate()
    assert gate.cut(b'{"a":1}\r', True) == 0
    assert gate.cut(b"", True) is None and not gate.at_boundary
    assert gate.cut(b"\n", True) == 1 and gate.at_boundary
    assert gate.cut(b"", True) == 0


def test_input_ending_inside_a_line_is_not_at_a_boundary() -> None:
    gate = LineGate()
    gate.cut(b'{"a":1}\n{"b":', False)
    assert not gate.at_boundary  # at EOF now: the relay drops what waits rather than merge it into this line
