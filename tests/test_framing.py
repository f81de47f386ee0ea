"""LF-only framing: any chunking of any byte stream gives back the same lines."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.framing import LineFramer, iter_lines, split_cr

SPECIAL = [b"\n", b"\r", b"\r\n", "\u2028".encode(), "\u2029".encode(), b"\x00", b"\xff", b"\xe2\x80", b"{}", b'"x"']
stream_st = st.lists(st.one_of(st.binary(max_size=40), st.sampled_from(SPECIAL)), max_size=60).map(b"".join)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@given(stream_st, st.lists(st.integers(min_value=0, max_value=10_000), max_size=20))
def test_any_chunking_yields_the_lf_split(data: bytes, cuts: list[int]) -> None:
    framer = LineFramer()
    lines = [line for chunk in chunked(data, cuts) for line in framer.feed(chunk)]
    last = framer.finish()
    expected = data.split(b"\n")
    assert lines == expected[:-1]
    assert last == (expected[-1] or None)
    rebuilt = b"\n".join(lines) + b"\n" * bool(lines) + (last or b"")
    assert rebuilt == data


long_lines_st = st.lists(st.tuples(st.integers(0, 5000), st.sampled_from([b"x", b"\r", b"\n"])), max_size=12).map(
    lambda parts: b"".join(b"y" * n + end for n, end in parts))


@settings(max_examples=300)
@given(long_lines_st, st.lists(st.integers(min_value=0, max_value=60_000), max_size=8))
def test_long_and_short_lines_in_any_chunking_yield_the_lf_split(data: bytes, cuts: list[int]) -> None:
    """Both ways of cutting a chunk (split for short lines, find for long ones) give the same lines."""
    framer = LineFramer()
    lines = [line for chunk in chunked(data, cuts) for line in framer.feed(chunk)]
    expected = data.split(b"\n")
    assert lines == expected[:-1] and framer.finish() == (expected[-1] or None)


def test_u2028_cr_and_nul_are_not_separators() -> None:
    data = "a\u2028b\rc\x00d\u2029e\n".encode()
    assert list(LineFramer().feed(data)) == [data[:-1]]


def test_huge_line_in_small_chunks_is_joined_once() -> None:
    line = b"x" * (5 << 20)
    framer = LineFramer()
    out = []
    for i in range(0, len(line), 65536):
        out += framer.feed(line[i:i + 65536])
        assert framer.pending == min(i + 65536, len(line)) or out
    out += framer.feed(b"\n")
    assert out == [line] and framer.pending == 0


def test_split_cr_strips_exactly_one() -> None:
    assert split_cr(b"{}\r\r") == (b"{}\r", True)
    assert split_cr(b"{}") == (b"{}", False)


@settings(max_examples=50)
@given(stream_st)
def test_iter_lines_marks_the_unterminated_last_line(data: bytes) -> None:
    pairs = list(iter_lines(data))
    assert all(had for _, had in pairs[:-1])
    if pairs:
        assert pairs[-1][1] == data.endswith(b"\n")
    assert b"".join(line + b"\n" * had for line, had in pairs) == data
