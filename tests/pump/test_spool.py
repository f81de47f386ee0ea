"""The spool: ordered bytes across threads, disk given back when caught up."""

import os
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.pump.spool import Spool


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=5000), max_size=50), st.integers(min_value=1, max_value=7000))
def test_producer_and_consumer_threads_keep_order(chunks: list[bytes], size: int) -> None:
    spool = Spool()

    def produce() -> None:
        for c in chunks:
            spool.put(c)
        spool.close()

    threading.Thread(target=produce).start()
    got = b""
    while data := spool.get(size):
        assert len(data) <= size
        got += data
    assert got == b"".join(chunks)
    spool.dispose()


def test_file_is_truncated_when_caught_up() -> None:
    spool = Spool()
    spool.put(b"x" * 100_000)
    assert spool.backlog == 100_000
    assert spool.get(60_000) == b"x" * 60_000
    assert os.fstat(spool._fd).st_size == 100_000
    assert spool.get() == b"x" * 40_000
    assert spool.backlog == 0 and os.fstat(spool._fd).st_size == 0
    assert spool.peak_backlog == 100_000
    spool.put(b"abc")
    spool.close()
    assert spool.get() == b"abc" and spool.get() == b""
    spool.dispose()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=70_000), max_size=12))
def test_fill_from_a_pipe_keeps_every_byte(chunks: list[bytes]) -> None:
    spool = Spool()
    r, w = os.pipe()

    def produce() -> None:
        for c in chunks:
            os.write(w, c)
        os.close(w)

    threading.Thread(target=produce).start()

    def drain() -> None:
        while spool.fill_from(r):
            pass
        spool.close()

    threading.Thread(target=drain).start()
    got = b""
    while data := spool.get():
        got += data
    assert got == b"".join(chunks)
    os.close(r)
    spool.dispose()
