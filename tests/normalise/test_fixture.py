"""Fixtures: normalised, stable, idempotent, and still replayable against a live client."""

from __future__ import annotations

import re

import msgspec

from rpcspy.events import Eof, Exit, Note
from rpcspy.normalise.fixture import (
    fixture_lines,
    parse_settings,
    read_fixture_options,
    settings_note,
)
from rpcspy.normalise.normaliser import NormaliseOptions
from rpcspy.recording.reader import open_recording
from tests.paths import DATA
from tests.replay.driver import LiveReplay
from tests.replay.helpers import Rec

T = str(DATA / "transcripts/structured")
SID = "01a20213-d398-77e8-928f-7e42015cc8a7"


def make_fixture(src, dst, **opts):
    rec = open_recording(src)
    with open(dst, "wb") as f:
        f.writelines(fixture_lines(rec.header, rec.entries(), NormaliseOptions(**opts), source=str(src),
                                  transcript=rec.kind != "rpcspy"))
    return dst


def session() -> Rec:
    r = Rec()
    r.at(1.0).c({"id": "a", "type": "switch_session", "sessionPath": f"/tmp/pytest-7/{SID}.jsonl"})
    r.a({"id": "a", "type": "response", "command": "switch_session", "success": True,
         "data": {"sessionId": SID, "key": "sk-abcdefghijklmnopqrstuv", "acct": "acct-12345"}})
    r.at(2.0).c({"id": "b", "type": "prompt", "message": "my account acct-12345"})
    r.a({"id": "b", "type": "response", "command": "prompt", "success": True})
    r.a({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "x", "partial": {"a": 1}},
         "message": {"a": 1, "timestamp": 1795331184161}})
    r.eof().exit(0)
    return r


def test_fixture_normalises_and_records_settings(tmp_path):
    src = session().write(tmp_path / "r.jsonl")
    fx = make_fixture(src, tmp_path / "f.jsonl", redact=(r"acct-\d+",), compact_partials=True)
    rec = open_recording(fx)
    assert rec.header.source == str(src) and rec.header.pid == 0 and rec.header.started.startswith("2000-01-01")
    frames = [f.data for f in rec.frames()]
    text = b"\n".join(frames)
    assert SID.encode() not in text and b"00000000-0000-4000-8000-000000000001" in text
    assert b"sk-abc" not in text and b"acct-12345" not in text and text.count(b"<redacted>") == 3
    assert b"partial" not in text and b"1700000000001" in text
    assert read_fixture_options(str(fx)) == NormaliseOptions(redact=(r"acct-\d+",), compact_partials=True)
    # same value, same placeholder: the session path and the sessionId agree. The tmp segment's number
    # depends on what came first: the header's cwd (the checkout, which may itself be under /tmp/tmpXYZ)
    assert re.search(rb'"/tmp/tmp\d+/00000000-0000-4000-8000-000000000001\.jsonl"', frames[0]), frames[0]


def test_fixture_is_idempotent(tmp_path):
    src = session().write(tmp_path / "r.jsonl")
    f1 = make_fixture(src, tmp_path / "f1.jsonl", usage=True)
    f2 = make_fixture(f1, tmp_path / "f2.jsonl", usage=True)
    lines1 = f1.read_bytes().split(b"\n")[1:]
    lines2 = f2.read_bytes().split(b"\n")[1:]
    assert lines1 == lines2


def test_fixture_replays_against_live_values(tmp_path):
    """Live frames get the same placeholders when matching: fresh uuids, tmp paths, secrets still match."""
    src = session().write(tmp_path / "r.jsonl")
    fx = make_fixture(src, tmp_path / "f.jsonl", redact=(r"acct-\d+",))
    opts = read_fixture_options(str(fx))
    live = LiveReplay(fx, options=opts)
    other = "7e57c0de-0000-4000-8000-123456789abc"
    live.send({"id": "L1", "type": "switch_session", "sessionPath": f"/tmp/pytest-99/{other}.jsonl"})
    assert live.read_json()["id"] == "L1"
    live.send({"id": "L2", "type": "prompt", "message": "my account acct-999"})
    assert live.read_json() == {"id": "L2", "type": "response", "command": "prompt", "success": True}
    code, _rest, err = live.finish()
    assert code == 0 and b"diverg" not in err and b"not consumed" not in err


def test_transcript_fixture_gets_eof_and_exit_entries(tmp_path):
    fx = make_fixture(f"{T}/05_null_frame_crash.jsonl", tmp_path / "f.jsonl")
    entries = list(open_recording(fx).entries())
    assert any(isinstance(e, Exit) and e.code == 1 for e in entries)
    assert not any(isinstance(e, Note) and e.text.startswith("exit code") for e in entries)
    fx2 = make_fixture(f"{T}/01_basic_text_prompt.jsonl", tmp_path / "f2.jsonl")
    assert any(isinstance(e, Eof) and e.dir == "c2a" for e in open_recording(fx2).entries())


def test_settings_note_round_trip():
    opts = NormaliseOptions(usage=True, redact=("a+",), compact_partials=True)
    assert parse_settings(settings_note(opts).text) == opts
    assert parse_settings("something else") is None
    assert parse_settings("rpcspy fixture: {broken") is None
    assert msgspec.json.decode(settings_note(opts).text.split(": ", 1)[1])["usage"] is True


HOSTILE = [b'{"id":"a","type":"prompt","message":"hi"}', b' {"type":"agent_start"} ', b'{"type":"x"}\t',
           b'{"at":"/tmp/pytest-7/x","ts":1795331184161}', b'not json /tmp/pytest-7/y', b'\xff\xfe{"a":1}',
           b'"caf\xc3\xa9"', b'{"s":"\xed\xa0\x80"}', b"[" * 3000 + b"]" * 3000, b"", b"  ", b"1", b"null",
           b'{"a":"sk-abcdefghijklmnopqrstuv"}']


def test_fixture_embeds_as_looking_would_without_a_second_decode(tmp_path, monkeypatch):
    """One pass: a frame the normaliser decoded is not decoded again to decide whether to embed it, and
    every frame (blanks around JSON, bad UTF-8, too deep, text, changed or not) is written as before."""
    import rpcspy.normalise.fixture as fixture_mod
    from rpcspy.events import Frame
    from rpcspy.recording import format as fmt
    from rpcspy.recording.format import encode_entry, encode_frame
    from rpcspy.recording.writer import make_header

    frames = [Frame(i + 1, float(i), "a2c", data, nl=True) for i, data in enumerate(HOSTILE * 2)]
    src = tmp_path / "r.jsonl"
    with open(src, "wb") as f:
        f.write(encode_entry(make_header(["pi", "--mode", "rpc"], mode="proxy")))
        f.writelines(encode_frame(fr) for fr in frames)
    looked = []
    embeddable = fmt._embeddable
    monkeypatch.setattr(fmt, "_embeddable", lambda data: looked.append(data) or embeddable(data))
    rec = open_recording(str(src))
    lines = list(fixture_lines(rec.header, rec.entries(), NormaliseOptions(), source="s"))
    assert not {b'{"type":"agent_start"}', b'{"id":"a","type":"prompt","message":"hi"}'} & set(looked)
    assert looked  # text, bad UTF-8 and too deep frames are still looked at
    monkeypatch.setattr(fixture_mod, "encode_frame", lambda frame, embed=None: encode_frame(frame))  # always look
    rec = open_recording(str(src))
    assert list(fixture_lines(rec.header, rec.entries(), NormaliseOptions(), source="s")) == lines
    assert len(lines) == 2 + len(frames)
