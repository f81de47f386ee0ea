"""Sources: offset-indexed recordings read lazily, transcripts in memory, the fast line parser."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.events import Frame
from rpcspy.recording.decode import fast_frame
from rpcspy.recording.format import FrameEntry, encode_frame
from rpcspy.recording.reader import open_recording
from rpcspy.replay.model import PlayItem
from rpcspy.replay.source import (
    FileSource,
    MemorySource,
    _Client,
    open_source,
    parse_line,
)
from tests.paths import DATA
from tests.replay.helpers import basic_session

TRANSCRIPTS = str(DATA / "transcripts")


def types(items) -> list:
    out = []
    for it in items:
        if it.dir == "a2c":
            out.append(msgspec.json.decode(it.data).get("type"))
        else:
            out.append(it.dir)
    return out


def test_file_source_exchanges(tmp_path):
    src = FileSource(str(basic_session().write(tmp_path / "r.jsonl")))
    assert not src.complete and src.commands == []
    assert types(src.prelude()) == ["ready"]
    first = src.commands[0]  # reading the prelude found the first command
    assert first.label == "get_state" and first.t == 1.0
    assert types(src.exchange(first)) == ["response"]
    second = src.commands[1]
    items = list(src.exchange(second))
    assert types(items) == ["response", "agent_start", "message_update", "err", "agent_end"]
    assert "\u2028".encode() in items[2].data
    assert items[3].data == b"some warning"
    assert src.complete  # the client EOF ended the last exchange
    assert types(src.epilogue()) == ["extension_ui_request", "eof", "exit"]
    assert src.exit_code == 0
    # exchanges can be read again (reuse) and out of order
    assert types(src.exchange(first)) == ["response"]


def test_file_source_index_ahead_while_playing(tmp_path):
    src = FileSource(str(basic_session().write(tmp_path / "r.jsonl")))
    assert src.index_next().label == "get_state"
    playing = src.exchange(src.commands[0])
    assert src.index_next().label == "prompt"  # indexes past the exchange being played
    assert types(playing) == ["response"]
    assert src.index_next() is None and src.complete
    assert len(src.commands) == 2


def test_file_source_offsets_bound_exchanges(tmp_path):
    src = FileSource(str(basic_session().write(tmp_path / "r.jsonl")))
    while src.index_next():
        pass
    a, b = src.commands
    assert a.start < a.end < b.start < b.end


def test_transcript_source_uses_notes_for_eof_and_exit():
    src = open_source(f"{TRANSCRIPTS}/structured/05_null_frame_crash.jsonl")
    assert isinstance(src, MemorySource)
    cmds = []
    while (c := src.index_next()) is not None:
        cmds.append(c)
    assert src.complete and src.exit_code == 1
    assert any(c.frame.kind == "non_object" for c in cmds)  # the null line


def test_open_source_native(tmp_path):
    assert isinstance(open_source(str(basic_session().write(tmp_path / "r.jsonl"))), FileSource)


def test_memory_source_equals_file_source(tmp_path):
    path = basic_session().write(tmp_path / "r.jsonl")
    mem = MemorySource(open_recording(path).entries())
    fil = FileSource(str(path))
    assert types(mem.prelude()) == types(fil.prelude())
    while (m := mem.index_next()) is not None:
        f = fil.commands[m.index] if m.index < len(fil.commands) else fil.index_next()
        assert m.frame.data == f.frame.data
        assert [(i.t, i.dir, i.data) for i in mem.exchange(m)] == [(i.t, i.dir, i.data) for i in fil.exchange(f)]
    assert types(mem.epilogue()) == types(fil.epilogue())


@settings(max_examples=120, deadline=None)
@given(
    data=st.one_of(st.binary(max_size=40), st.builds(lambda s: msgspec.json.encode(s), st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
        lambda x: st.one_of(st.lists(x, max_size=3), st.dictionaries(st.text(max_size=5), x, max_size=3)),
        max_leaves=8))),
    direction=st.sampled_from(["c2a", "a2c", "err"]), nl=st.booleans(), cr=st.booleans(), injected=st.booleans(),
)
def test_fast_parser_agrees_with_msgspec(data, direction, nl, cr, injected):
    line = encode_frame(Frame(7, 1.25, direction, data, nl, cr, injected)).rstrip(b"\n")
    entry = msgspec.json.decode(line, type=FrameEntry)
    got = parse_line(line)
    if b',"json":' in line[:80]:
        assert fast_frame(line) is not None, line  # rpcspy's own frame lines take the fast path
    if direction == "c2a" and injected:
        assert got is None
    elif direction == "c2a":
        assert isinstance(got, _Client) and got.data == entry.data()
    else:
        assert isinstance(got, PlayItem)
        assert (got.data, got.nl, got.cr, got.t) == (entry.data(), entry.nl, entry.cr, entry.t)


def _skewed():
    """A parse error the proxy stamped before the next command but wrote after it."""
    from tests.replay.helpers import Rec

    r = Rec()
    r.at(1.0).c({"id": "b", "type": "bash", "command": "x"})
    r.at(1.01).a({"id": "b", "type": "response", "command": "bash", "success": True})
    r.at(1.02).c(None, raw=b"not json")
    r.at(1.04).c({"id": "m", "type": "get_messages"})
    r.at(1.03).a({"type": "response", "command": "parse", "success": False, "error": "x"})
    r.at(1.05).a({"id": "m", "type": "response", "command": "get_messages", "success": True})
    r.at(1.06).e("late stderr")
    r.at(1.07).eof()
    r.at(1.065).a({"type": "agent_end"})
    r.at(1.08).exit(0)
    return r


def test_frames_stamped_before_a_client_line_belong_before_it(tmp_path):
    path = _skewed().write(tmp_path / "r.jsonl")
    for src in (FileSource(str(path)), MemorySource(open_recording(path).entries())):
        list(src.prelude())
        while src.index_next() is not None:
            pass
        got = [[(i.dir, i.t) for i in src.exchange(c)] for c in src.commands]
        assert got == [[("a2c", 1.01)], [("a2c", 1.03)], [("a2c", 1.05), ("err", 1.06), ("a2c", 1.065)]], type(src)
        assert [(i.dir, i.t) for i in src.epilogue()] == [("eof", 1.08), ("exit", 1.08)]


def test_injected_client_frames_are_not_exchange_boundaries(tmp_path):
    from rpcspy.events import Frame as F
    from tests.replay.helpers import Rec

    r = Rec()
    r.at(1.0).c({"id": "a", "type": "get_state"})
    r.a({"id": "a", "type": "response", "command": "get_state", "success": True})
    r.events.append(F(len(r.events) + 1, 1.1, "c2a", b'{"id":"repl1","type":"get_messages"}', injected=True))
    r.at(1.2).a({"id": "repl1", "type": "response", "command": "get_messages", "success": True})
    r.at(1.3).eof().exit(0)
    path = r.write(tmp_path / "r.jsonl")
    for src in (FileSource(str(path)), MemorySource(open_recording(path).entries())):
        list(src.prelude())
        while src.index_next() is not None:
            pass
        assert len(src.commands) == 1
        assert len(list(src.exchange(src.commands[0]))) == 2


def test_omp_late_ready_moves_to_the_prelude():
    """omp's ready was read after the client's first get_state: played at start, not again in that exchange."""
    from tests.paths import REPO

    path = REPO / "recordings/omp-18.2.3-basic.jsonl"
    for src in (FileSource(str(path)), MemorySource(open_recording(path).entries())):
        assert types(src.prelude()) == ["ready"], type(src)
        if not src.commands:
            src.index_next()
        assert types(src.exchange(src.commands[0])) == ["extension_ui_request", "available_commands_update",
                                                         "response"], type(src)
        while src.index_next() is not None:
            pass
        rest = [t for c in src.commands for t in types(src.exchange(c))] + types(src.epilogue())
        assert "ready" not in rest, type(src)


def test_ready_after_the_first_response_stays_where_it_is(tmp_path):
    from tests.replay.helpers import Rec

    r = Rec()
    r.at(1.0).c({"id": "s", "type": "get_state"})
    r.a({"id": "s", "type": "response", "command": "get_state", "success": True}, dt=0.01)
    r.a({"type": "ready"}, dt=0.01)
    path = r.at(2.0).eof().exit(0).write(tmp_path / "r.jsonl")
    for src in (FileSource(str(path)), MemorySource(open_recording(path).entries())):
        assert types(src.prelude()) == []
        assert types(src.exchange(src.commands[0] if src.commands else src.index_next())) == ["response", "ready"]
