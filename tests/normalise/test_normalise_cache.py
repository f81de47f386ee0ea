"""The normaliser's caches (short strings, small frames, key kinds) change no result."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.normalise import normaliser as normaliser_mod
from rpcspy.normalise import text as text_mod
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser

VOLATILE = st.sampled_from([
    "01a20213-d398-77e8-928f-7e42015cc8a7", "89bf6fa8-af91-410d-90cb-29e458611070", "2026-11-23T10:00:00.123Z",
    "/tmp/tmpab12/x.py", "http://127.0.0.1:40123/v1", "sk-ant-abcdefghijklmnop1234", "plain", "call_1", "",
])
KEYS = st.sampled_from(["type", "id", "toolCallId", "timestamp", "durationMs", "apiKey", "usage", "text", "partial"])
VALUES = st.recursive(
    st.one_of(VOLATILE, st.integers(0, 4_000_000_000_000), st.floats(allow_nan=False), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
FRAMES = st.lists(st.builds(lambda v, t: {"type": t, "v": v}, VALUES,
                            st.sampled_from(["message_update", "toolCall", "extension_ui_request", "x"])),
                  min_size=1, max_size=8)
OPTIONS = st.builds(NormaliseOptions, usage=st.booleans(), ignore=st.sampled_from([(), ("partial",)]),
                    compact_partials=st.booleans(), redact=st.sampled_from([(), ("plain",)]))


def run(frames: list[bytes], options: NormaliseOptions, stable: bool) -> list[tuple[bytes, bool]]:
    norm = Normaliser(options, stable=stable)
    out = []
    for data in frames:
        got = norm.frame(data)
        out.append((got, norm.changed, got is data))
    return out


@given(FRAMES, OPTIONS, st.booleans())
@settings(max_examples=150, deadline=None)
def test_cached_and_uncached_agree(objs, options, stable):
    frames = [msgspec.json.encode(o) for o in objs]
    frames += [bytes(bytearray(f)) for f in frames]  # every frame and string seen again, as new objects
    frames += [b"not json " + f for f in frames[:2]]
    cached = run(frames, options, stable)
    saved = text_mod._CACHE_TEXT, normaliser_mod._CACHE_FRAME
    text_mod._CACHE_TEXT = normaliser_mod._CACHE_FRAME = -1  # nothing cached
    try:
        uncached = run(frames, options, stable)
    finally:
        text_mod._CACHE_TEXT, normaliser_mod._CACHE_FRAME = saved
    assert cached == uncached


def test_caches_are_bounded(monkeypatch):
    monkeypatch.setattr(text_mod, "_CACHE_ENTRIES", 10)
    monkeypatch.setattr(normaliser_mod, "_CACHE_ENTRIES", 10)
    norm = Normaliser(stable=False)
    for i in range(100):
        norm.frame(msgspec.json.encode({"type": "x", "text": f"s{i}"}))
    assert len(norm._frames) <= 10 and len(norm._texts) <= 10


PIECES = st.sampled_from(["lorem ", "ipsum\u2028", "sk", "-ant-abcdefghijklmnop", "/t", "mp/tmpx1/a.py ", "01a20213",
                          "-d398-77e8-928f-7e42015cc8a7 ", "2026-11", "-23T10:00:00Z ", "http://local", "host:4012 ",
                          "Bea", "rer abcdefghijklmnopqrstu ", "a-b ", "/", "x"])


@given(st.lists(PIECES, min_size=1, max_size=40))
@settings(max_examples=200, deadline=None)
def test_a_growing_long_string_normalises_as_if_seen_alone(pieces):
    """pi 0.73 repeats the reply text, longer each frame: only the new end is searched, same results."""
    norm = Normaliser(stable=False)
    text = "w" * 300
    for piece in pieces:
        text += piece
        norm.changed = False
        got = norm.text(text)
        alone = Normaliser(stable=False)
        assert (got, norm.changed) == (alone.text(text), alone.changed)
