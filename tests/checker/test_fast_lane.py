"""The fast lane (``Checker.feed_many``, ``Checker.feed_block``, ``RecordingCheck``) gives the verdicts of ``feed``.

Every frame stream is checked four ways: one ``feed`` per frame, ``feed_many`` in batches,
``RecordingCheck`` over the frame entries a recording holds (the JSON as ``msgspec.Raw``, as the
reader gives it), and ``RecordingCheck`` over a recording file read as ``rpcspy check`` reads it
(blocks of various sizes, short frames' JSON decoded in the reader's call as the checker asks:
``Checker.feed_block``). The findings, and the audit's counts, must be the same.
"""

from __future__ import annotations

import glob
import json
import os
import tempfile
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.checker import Checker, detect_dialect
from rpcspy.checker.decoding import FrameDecoder
from rpcspy.checker.offline import RecordingCheck
from rpcspy.checker.recording import RecordingAudit
from rpcspy.events import Finding, Frame, Note
from rpcspy.protocol import validation
from rpcspy.recording import open_recording, reader
from rpcspy.recording.decode import TypedBlock, decode_entry
from rpcspy.recording.format import encode_entry, encode_frame
from rpcspy.recording.writer import make_header
from tests.paths import DATA

GOLDEN_INPUTS = os.path.join(os.path.dirname(DATA), "golden", "inputs")


def _key(f: Finding) -> tuple[Any, ...]:
    return (f.rule, f.severity, f.group, f.frame, f.dir, f.path, f.related, f.message, sorted(f.extra.items()))


def one_by_one(frames: list[Frame], **kw: Any) -> list[tuple[Any, ...]]:
    checker = Checker(**kw)
    out: list[Finding] = []
    for frame in frames:
        out += checker.feed(frame)
    out += checker.finish(frames[-1].t + 10 if frames else 0.0)
    return [_key(f) for f in out]


def batched(frames: list[Frame], size: int, **kw: Any) -> list[tuple[Any, ...]]:
    checker = Checker(**kw)
    out: list[Finding] = []
    for i in range(0, len(frames), size):
        out += checker.feed_many(frames[i:i + size])
    out += checker.finish(frames[-1].t + 10 if frames else 0.0)
    return [_key(f) for f in out]


def from_entries(frames: list[Frame], **kw: Any) -> list[tuple[Any, ...]]:
    """As ``rpcspy check`` reads a recording: frame entries, the JSON embedded where the writer embeds it."""
    checker = Checker(**kw)
    entries: list[Any] = []
    notes = []
    for n, f in enumerate(frames):
        entries.append(decode_entry(encode_frame(f)))
        if n % 5 == 2:  # other entries between the frames come back, in order
            notes.append(Note(seq=0, t=0.0, level="info", text=f"after {f.seq}"))
            entries.append(notes[-1])
    audit = RecordingAudit("rpcspy")
    run = RecordingCheck(checker, audit)
    assert list(run.others([entries[:7], entries[7:8], entries[8:]])) == notes
    expected = RecordingAudit("rpcspy")
    for frame in frames:
        expected.feed(frame)
    assert (audit.frames, audit.last_seq, audit.last_t) == (expected.frames, expected.last_seq, expected.last_t)
    assert (audit.frames, run.last_t) == (len(frames), frames[-1].t if frames else 0.0)
    out = run.findings + checker.finish(frames[-1].t + 10 if frames else 0.0)
    return [_key(f) for f in out]


def from_file(frames: list[Frame], block: int, **kw: Any) -> tuple[list[tuple[Any, ...]], int]:
    """As ``rpcspy check`` reads a recording file, in blocks of about ``block`` bytes; (findings, typed blocks)."""
    checker = Checker(**kw)
    lines = [encode_entry(make_header(["pi"]))]
    notes = []
    for n, f in enumerate(frames):
        lines.append(encode_frame(f))
        if n % 9 == 4:
            notes.append(Note(seq=0, t=0.0, level="info", text=f"after {f.seq}"))
            lines.append(encode_entry(notes[-1]))
    audit = RecordingAudit("rpcspy")
    run = RecordingCheck(checker, audit)
    typed = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.jsonl")
        with open(path, "wb") as f:
            f.write(b"".join(lines))
        old = reader.BLOCK
        reader.BLOCK = block
        try:
            blocks = list(open_recording(path).blocks(checker.frame_json))  # read lazily below, as check does
        finally:
            reader.BLOCK = old
        reader.BLOCK = block
        try:
            def counted() -> Any:
                nonlocal typed
                for b in open_recording(path).blocks(checker.frame_json):
                    typed += type(b) is TypedBlock
                    yield b
            assert list(run.others(counted())) == notes
        finally:
            reader.BLOCK = old
    assert sum(map(len, blocks)) == len(frames) + len(notes)
    assert (audit.frames, run.last_t) == (len(frames), frames[-1].t if frames else 0.0)
    out = run.findings + checker.finish(frames[-1].t + 10 if frames else 0.0)
    return [_key(f) for f in out], typed


def assert_same(frames: list[Frame], **kw: Any) -> list[tuple[Any, ...]]:
    want = one_by_one(frames, **kw)
    for size in (1, 7, len(frames) or 1):
        assert batched(frames, size, **kw) == want
    assert from_entries(frames, **kw) == want
    for block in (1, 700, 16 << 10):  # a line a block, a few, all (block edges everywhere)
        assert from_file(frames, block, **kw)[0] == want
    return want


CORPUS = sorted(glob.glob(os.path.join(DATA, "**", "*.jsonl"), recursive=True)
                + glob.glob(os.path.join(GOLDEN_INPUTS, "*.jsonl")))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, os.path.dirname(DATA)))
def test_the_corpus_gives_the_same_findings_both_ways(path: str) -> None:
    frames = list(open_recording(path).frames())
    assert_same(frames)
    found = detect_dialect(iter(frames))
    if found is not None:  # as `rpcspy check` runs: the dialect decided beforehand
        assert_same(frames, dialect=found[0], dialect_reason=found[1])
    assert_same(frames, unanswered_after=0.5)


# ---- generated streams: deltas, clean and not, around the blocks they extend --------------------------
USAGE = {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _dump(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}] if text else [],
            "api": "openai-completions", "provider": "fake", "model": "m", "usage": USAGE,
            "stopReason": "stop", "timestamp": 1795331184076}


def _update(event: dict[str, Any], **extra: Any) -> bytes:
    return _dump({"type": "message_update", "usage": USAGE, "assistantMessageEvent": event, **extra})


def _delta(kind: str, ci: Any, text: str, **extra: Any) -> bytes:
    return _update({"type": f"{kind}_delta", "contentIndex": ci, "delta": text, **extra})


PROMPT = [("c2a", _dump({"id": "p", "type": "prompt", "message": "hi"})),
          ("a2c", _dump({"id": "p", "type": "response", "command": "prompt", "success": True})),
          ("a2c", _dump({"type": "agent_start"})), ("a2c", _dump({"type": "turn_start"})),
          ("a2c", _dump({"type": "message_start", "message": {**_assistant(""), "stopReason": "pending"}})),
          ("a2c", _update({"type": "text_start", "contentIndex": 0}))]
texts = st.text(alphabet=st.sampled_from("ab \u2028\u2029\"\\\n\u00e9"), max_size=8)
pieces = st.one_of(
    texts.map(lambda s: ("a2c", _delta("text", 0, s))),  # clean, on the open block (most of them)
    texts.map(lambda s: ("a2c", _delta("text", 0, s))),
    texts.map(lambda s: ("a2c", _delta("thinking", 0, s))),  # the wrong kind for block 0
    texts.map(lambda s: ("a2c", _delta("text", 1, s))),  # no such block
    texts.map(lambda s: ("a2c", _delta("text", "0", s))),  # schema: contentIndex is a number
    texts.map(lambda s: ("a2c", _delta("text", 0, s, extra=1))),  # an unknown field
    texts.map(lambda s: ("a2c", _delta("text", 0, s)[:-1])),  # cut short: not JSON
    texts.map(lambda s: ("a2c-crlf", _delta("text", 0, s))),
    texts.map(lambda s: ("c2a", _dump({"id": s, "type": "get_state"}))),
    st.just(("a2c", _delta("text", 0, "x" * 70_000))),  # over 64 KiB
    st.just(("a2c", _update({"type": "text_start", "contentIndex": 1}))),
    st.just(("a2c", _update({"type": "text_end", "contentIndex": 0, "content": "ab"}))),
    st.just(("a2c", _dump({"type": "message_end", "message": _assistant("ab")}))),
    st.just(("a2c", _dump({"type": "message_start", "message": {**_assistant(""), "stopReason": "pending"}}))),
    st.just(("a2c", _dump({"type": "agent_end", "messages": [], "willRetry": False}))),
    st.just(("a2c", _dump({"id": "s", "type": "response", "command": "get_state", "success": True,
                           "data": {"nope": 1}}))),
    st.just(("err", b"some stderr \xff")),
    st.just(("a2c", _dump({"type": "get_state", "id": "g"}))),  # a client's type from the agent
)


def _frames(items: list[tuple[str, bytes]], last_nl: bool) -> list[Frame]:
    out = []
    for i, (d, data) in enumerate(items, start=1):
        cr = d.endswith("-crlf")
        out.append(Frame(i, i * 0.25, d.removesuffix("-crlf"), data, True, cr))  # type: ignore[arg-type]
    if out and not last_nl:
        out[-1].nl = False
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(pieces, max_size=40), st.booleans(), st.sampled_from(["auto", "pi-0.84", "pi-0.99", "pi-0.73"]),
       st.sampled_from([None, 1.0]))
def test_generated_streams_give_the_same_findings_both_ways(body: list[tuple[str, bytes]], last_nl: bool,
                                                            dialect: str, after: float | None) -> None:
    assert_same(_frames(PROMPT + body, last_nl), dialect=dialect, unanswered_after=after)


def test_clean_deltas_take_the_fast_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the whole way (``FrameDecoder.__call__``) for them: what makes ``check`` faster on small frames."""
    calls = []
    whole = FrameDecoder.__call__
    monkeypatch.setattr(FrameDecoder, "__call__", lambda self, frame, *a: calls.append(frame.seq) or whole(self, frame, *a))
    body = [("a2c", _delta("text", 0, f"w{i} \u2028")) for i in range(50)]
    frames = _frames(PROMPT + body + [("a2c", _update({"type": "text_end", "contentIndex": 0, "content": "x"}))],
                     True)
    found = assert_same(frames, dialect="pi-0.84")
    assert {"framing.line_separator", "stream.text_mismatch"} <= {k[0] for k in found}
    calls.clear()
    Checker(dialect="pi-0.84").feed_many(frames)
    deltas = [f.seq for f in frames[len(PROMPT):-1]]
    assert deltas[0] in calls  # the first separator is reported with its frame
    assert not set(deltas[1:]) & set(calls)


def test_typed_blocks_decode_a_clean_delta_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read as ``rpcspy check`` reads a recording, a clean delta is decoded in the reader's block call only:
    not again by itself (the lane's own decode) nor the whole way, and its entry is not read again."""
    body = [("a2c", _delta("text", 0, f"w{i}")) for i in range(300)]
    frames = _frames(PROMPT + body + [("a2c", _update({"type": "text_end", "contentIndex": 0,
                                                       "content": "".join(f"w{i}" for i in range(300))}))], True)
    whole: list[int] = []
    call = FrameDecoder.__call__
    monkeypatch.setattr(FrameDecoder, "__call__", lambda self, frame, *a: whole.append(frame.seq) or call(self, frame, *a))
    again: list[int] = []
    entry = TypedBlock.entry
    monkeypatch.setattr(TypedBlock, "entry", lambda self, i: again.append(i) or entry(self, i))
    decodes: list[bytes] = []
    typed_decoder = validation.typed_decoder

    def counting(direction: str, dialect: str) -> Any:
        decode = typed_decoder(direction, dialect)
        return lambda data: decodes.append(bytes(data)) or decode(data)

    monkeypatch.setattr(validation, "typed_decoder", counting)
    found, typed = from_file(frames, 16 << 10, dialect="pi-0.84")
    assert typed >= 1 and "stream.text_mismatch" not in {k[0] for k in found}
    deltas = {f.seq for f in frames[len(PROMPT):-1]}
    assert not deltas & set(whole)
    others = len(frames) - len(deltas)
    assert len(again) <= others and len(decodes) <= others
