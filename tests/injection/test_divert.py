"""The diverter decides from bytes alone (h11-style, no pipes): the same routes however the stream is cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rpcspy.injection.divert import DIVERT, DIVERT_WINDOW, PASS, Diverter, InjectedIds, Route, classify
from rpcspy.injection.ledger import PREFIX, injected_id
from tests.injection.chunking import cut

IDS = InjectedIds((PREFIX.encode(),))
ANSWER = b'{"id":"rpcspy-inject-1","type":"response","command":"get_state","success":true}\n'
BIG_ANSWER = b'{"id":"rpcspy-inject-2","type":"response","command":"get_messages","data":"' + b"m" * 9000 + b'"}\n'
CLIENTS = b'{"id":"c1","type":"response","command":"get_state","success":true}\n'
DELTA = b'{"type":"message_update","delta":"' + b"d" * 10_000 + b'"}\n'
LATE_ID = b'{"type":"response","command":"x","pad":"' + b"p" * DIVERT_WINDOW + b'","id":"rpcspy-inject-3"}\n'
STREAM = CLIENTS + ANSWER + DELTA + BIG_ANSWER + LATE_ID + b'{"type":"agent_end"}\r\n' + ANSWER + b'{"partial'


def routes(chunks: list[bytes], window: int = DIVERT_WINDOW, prefix: bytes = PREFIX.encode()) -> list[Route]:
    """The route of every byte of the stream (the held tail at EOF goes to the client)."""
    d = Diverter(window)
    d.divert(prefix)
    out: list[Route] = []
    for chunk in chunks:
        for route, piece in d.feed(chunk):
            out += [route] * len(piece)
    return out + [PASS] * len(d.finish())


def diverted(stream: bytes, chunks: list[bytes] | None = None) -> bytes:
    r = routes(chunks or [stream])
    return bytes(b for b, route in zip(stream, r, strict=True) if route == DIVERT)


def test_answers_to_injections_are_diverted_and_everything_else_passes() -> None:
    assert diverted(STREAM) == ANSWER + BIG_ANSWER + ANSWER


def test_a_split_at_every_byte_position_routes_every_byte_the_same() -> None:
    whole = routes([STREAM])
    for i in range(1, len(STREAM)):
        assert routes([STREAM[:i], STREAM[i:]]) == whole, i


def test_byte_by_byte_routes_the_same() -> None:
    assert routes([STREAM[i:i + 1] for i in range(len(STREAM))]) == routes([STREAM])


LINES = st.sampled_from([
    ANSWER, CLIENTS, b'{"type": "response", "id" : "rpcspy-inject-9"}\r\n', b'{"id":"rpcspy-inject-1x","type":"response"}\n',
    b'{"type":"response","id":"rpcspy-inject-4","pad":"' + b"q" * 60 + b'"}\n', b"\n", b"\r\n", b"not json\n",
    b'{"type":"response","id":"c","data":{"id":"rpcspy-inject-5"}}\n', b'{"type":"message_update"}\n',
])


@given(st.lists(LINES, max_size=8), st.binary(max_size=20), st.lists(st.integers(0, 2000), max_size=12))
def test_any_cuts_route_the_same_with_a_small_window(lines: list[bytes], tail: bytes, at: list[int]) -> None:
    stream = b"".join(lines) + tail.replace(b"\n", b"")
    whole = routes([stream], window=64)
    assert routes(cut(stream, at), window=64) == whole


@given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=10))
def test_no_byte_is_lost_reordered_or_invented(stream: bytes, at: list[int]) -> None:
    d = Diverter(32)
    d.divert(b"x")
    out = b"".join(piece for chunk in cut(stream, at) for _, piece in d.feed(chunk))
    assert out + d.finish() == stream


def test_lines_longer_than_the_window_pass_whole_unless_they_start_as_an_answer() -> None:
    assert diverted(DELTA + BIG_ANSWER) == BIG_ANSWER
    assert classify(DELTA[:DIVERT_WINDOW], IDS) == PASS  # decided without the rest of the line


def test_a_response_whose_id_is_past_the_window_reaches_the_client() -> None:
    assert diverted(LATE_ID) == b""
    short = b'{"type":"response","pad":"' + b"p" * 100 + b'","id":"rpcspy-inject-3"}\n'
    assert diverted(short) == short  # the id's place in the line does not matter within the window


def test_json_whitespace_around_the_colons_is_allowed() -> None:
    for line in (b'{"type": "response", "id": "rpcspy-inject-1"}\n', b'{"id" :\t"rpcspy-inject-1" , "type" : "response"}\n'):
        assert diverted(line) == line
        long = line[:-2] + b', "pad": "' + b"p" * DIVERT_WINDOW + b'"}\n'
        assert diverted(long) == long


def test_ids_that_merely_share_the_prefix_pass() -> None:
    for rid in (b"rpcspy-inject-", b"rpcspy-inject-1x", b"rpcspy-inject-me", b"rpcspy-injected-1", b"xrpcspy-inject-1"):
        line = b'{"id":"' + rid + b'","type":"response"}\n'
        assert diverted(line) == b"", rid
    assert IDS.matches(injected_id(12)) and not IDS.matches("rpcspy-inject-12 ") and not IDS.matches(12)


def test_an_injected_looking_id_nested_in_a_clients_response_passes() -> None:
    nested = b'{"id":"c1","type":"response","data":{"id":"rpcspy-inject-5"}}\n'
    events = b'{"type":"message_end","message":{"type":"response","id":"rpcspy-inject-5"}}\n'
    assert diverted(nested + events) == b""
    # a line longer than the window cannot be decoded: the markers in its window decide
    padded = nested[:-3] + b',"pad":"' + b"p" * DIVERT_WINDOW + b'"}}\n'
    assert classify(padded, IDS) == DIVERT


def test_the_window_boundary_is_exact() -> None:
    nested = b'{"type":"response","id":"c","data":{"id":"rpcspy-inject-5"},"pad":"'

    def line(total: int) -> bytes:
        return nested + b"p" * (total - len(nested) - 3) + b'"}\n'

    assert classify(line(DIVERT_WINDOW), IDS) == PASS  # its LF within the window: decoded
    assert classify(line(DIVERT_WINDOW + 1), IDS) == DIVERT  # one byte longer: the byte rule
    assert classify(line(DIVERT_WINDOW)[:-1], IDS) is None  # the window is not full and the line has not ended


def test_crlf_lines_keep_their_cr_and_a_lone_cr_ends_nothing() -> None:
    crlf = ANSWER[:-1] + b"\r\n"
    assert diverted(CLIENTS + crlf + CLIENTS) == crlf
    assert diverted(b'{"type":"x"}\r' + ANSWER) == b""  # one line: not a response


def test_eof_mid_line_gives_the_held_bytes_to_the_client() -> None:
    d = Diverter()
    d.divert(PREFIX.encode())
    assert d.feed(ANSWER[:-1]) == []  # a complete answer but no LF yet: undecided
    assert d.finish() == ANSWER[:-1]
    assert d.finish() == b""


def test_before_any_divert_chunks_pass_whole_and_the_line_position_is_kept() -> None:
    d = Diverter()
    chunk = ANSWER + ANSWER[:10]
    assert d.feed(chunk) == [(PASS, chunk)] and d.feed(chunk)[0][1] is chunk
    assert not d.at_line_start
    d.divert(PREFIX.encode())
    assert d.feed(ANSWER[10:] + ANSWER) == [(PASS, ANSWER[10:]), (DIVERT, ANSWER)]  # the line it joined is the client's


def test_adjacent_pieces_of_one_route_come_out_joined() -> None:
    d = Diverter()
    d.divert(PREFIX.encode())
    assert d.feed(CLIENTS + CLIENTS + ANSWER + ANSWER + CLIENTS[:5]) == [(PASS, CLIENTS * 2), (DIVERT, ANSWER * 2)]
    assert d.feed(CLIENTS[5:]) == [(PASS, CLIENTS)]


def test_a_second_prefix_adds_to_the_first() -> None:
    d = Diverter()
    d.divert(b"a-")
    d.divert(b"b-")
    d.divert(b"a-")
    assert d.ids is not None and d.ids.prefixes == (b"a-", b"b-")
    lines = b'{"id":"a-1","type":"response"}\n{"id":"b-2","type":"response"}\n{"id":"c-3","type":"response"}\n'
    assert [r for r, _ in d.feed(lines)] == [DIVERT, PASS]


def test_an_answer_with_invalid_utf8_in_it_is_still_kept_from_the_client() -> None:
    line = b'{"id":"rpcspy-inject-1","type":"response","data":"\xff\xfe"}\n'
    assert diverted(CLIENTS + line) == line


def _joined_late(chunks: list[bytes], around: list[bool], k: int) -> list[Route]:
    """The routes of chunks[k:] as the agent relay gets them: before chunk ``k`` the chunks marked
    ``around`` went to the client by the tape (told once, before the next feed, as the relay does),
    and a prefix was asked for from another thread just before chunk ``k`` was fed."""
    d, out, tape_last = Diverter(), [], None
    for i, chunk in enumerate(chunks):
        if i < k and around[i % len(around)]:
            tape_last = chunk.endswith(b"\n")
            continue
        if i == k:
            d.divert(PREFIX.encode())
        if tape_last is not None:
            d.went_around(tape_last)
            tape_last = None
        routed = [r for route, piece in d.feed(chunk) for r in [route] * len(piece)]
        if i >= k:
            out += routed
    return out + [PASS] * len(d.finish())


@given(st.lists(st.integers(0, len(STREAM)), max_size=12), st.lists(st.booleans(), min_size=1, max_size=12),
       st.integers(0, 12))
def test_bytes_that_went_around_leave_the_line_position_right_for_a_divert_at_any_moment(
        at: list[int], around: list[bool], k: int) -> None:
    """A divert asked for while the stream flows (between any two chunks, any of them before it gone to
    the client by the tape) routes what follows as a diverter that saw every byte routes it."""
    chunks = cut(STREAM, at)
    k = min(k, len(chunks) - 1)
    start = sum(map(len, chunks[:k]))
    seen_all = Diverter()
    seen_all.feed(STREAM[:start])
    seen_all.divert(PREFIX.encode())
    expected = [r for route, piece in seen_all.feed(STREAM[start:]) for r in [route] * len(piece)]
    assert _joined_late(chunks, around, k) == expected + [PASS] * len(seen_all.finish())


def test_the_rest_of_a_line_begun_by_the_tape_is_the_clients_even_if_it_looks_like_an_answer() -> None:
    """A long line whose head went by the tape: its tail, injected-looking markers and all, is passed."""
    line = b'{"type":"update","content":["' + b"p" * 100 + b'",' + BIG_ANSWER[:-2] + b"]}\n"
    head, tail = line[:60], line[60:]
    d = Diverter()
    d.divert(PREFIX.encode())
    d.went_around(False)
    assert d.feed(tail) == [(PASS, tail)]
    d.went_around(True)  # a line that went around whole: the next one is decided from its head
    assert d.feed(ANSWER) == [(DIVERT, ANSWER)]
    assert classify(tail, IDS) == DIVERT and head  # what a diverter that lost track would have done
