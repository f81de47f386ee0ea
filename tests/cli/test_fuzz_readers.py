"""Damaged recordings against every reading command: no traceback, no hang, a reason with a line number.

The hypothesis fuzz runs a few hundred mutated recordings in the suite; bench/fuzz_readers.py runs
the same mutations by the ten thousand (figures in docs/reliability.md).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rpcspy.cli import main
from rpcspy.recording import open_recording
from tests.support.fuzz_readers import COMMANDS, SEEDS, mutate, run_command

HEADER = (b'{"format":"rpcspy-recording","version":1,"rpcspy":"t","argv":["a"],"cwd":"/","started":"",'
          b'"started_unix":0,"pid":1}\n')
GOOD = b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"get_state","id":"1"}}\n'
EXIT = b'{"kind":"exit","seq":9,"t":1.0,"code":0}\n'


def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


HOSTILE = {
    "deep entry": HEADER + GOOD + b'{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","json":' + _deep(100_000) + b"}\n" + EXIT,
    "deep at the limit": HEADER + b'{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","json":' + _deep(1000) + b"}\n" + GOOD,
    "deep text frame": HEADER + GOOD + b'{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","text":"' + _deep(50_000) + b'"}\n',
    "deep header": b'{"format":"rpcspy-recording","version":1,"argv":' + _deep(5000) + b"}\n" + GOOD,
    "invalid UTF-8 in the header": HEADER[:20] + b"\xff\xfe" + HEADER[20:] + GOOD,
    "invalid UTF-8 in an entry": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2\xff","json":{}}\n' + GOOD,
    "invalid UTF-8 in a frame": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":"\xc0\xaf"}\n' + GOOD,
    "type is a list": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","json":{"type":["response"],"id":1}}\n'
                      + b'{"kind":"frame","seq":2,"t":0.1,"dir":"c2a","json":{"type":[1],"id":[2]}}\n' + EXIT,
    "b64 of bad UTF-8": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","b64":"/////w=="}\n' + EXIT,
    "bad structured transcript": b'{"t":0,"dir":"in","raw":"{}"}\n{"t":"x","dir":1,"raw":5}\n[1]\n{"t":1,"dir":"out","raw":"'
                                 + _deep(3000) + b'"}\n',
    "NUL bytes": b"\x00" * 100_000,
    "command is an object": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","json":{"type":"response",'
                            b'"success":true,"command":{"a":1}}}\n{"kind":"frame","seq":2,"t":0.2,"dir":"a2c",'
                            b'"json":{"type":"agent_end","messages":7}}\n' + EXIT,
    "dialog method is a list": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"a2c","json":{"type":'
                               b'"extension_ui_request","id":"d1","method":["select"],"timeout":5}}\n' + EXIT,
    "t is no number": HEADER + b'{"kind":"frame","seq":1,"t":1e.5,"dir":"a2c","json":{"type":"x"}}\n'
                      b'{"kind":"frame","seq":2,"t":-.-,"dir":"c2a","json":{"type":"x"}}\n' + GOOD + EXIT,
    # the six causes of issue 21's 78 tracebacks
    "lone surrogate in a transcript": b'{"t":0,"dir":"in","raw":"{\\"type\\":\\"get_state\\",\\"id\\":\\"1\\"}"}\n'
                                      b'{"t":0.5,"dir":"out","raw":"\\ud800"}\n{"t":0.6,"dir":"err","raw":"a\\udfff\\ud800b"}\n',
    "ids beyond 64 bits and out of range": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"get_state",'
                                           b'"id":123456789012345678901234567890}}\n{"kind":"frame","seq":2,"t":0.2,"dir":"a2c",'
                                           b'"json":{"type":"response","command":"get_state","success":true,"id":1e400}}\n'
                                           b'{"kind":"frame","seq":3,"t":0.3,"dir":"c2a","json":{"type":"get_state","id":1e308}}\n'
                                           b'{"kind":"frame","seq":4,"t":0.4,"dir":"a2c","json":{"type":"response",'
                                           b'"command":"get_state","success":true,"id":123456789012345678901234567890}}\n' + EXIT,
    "a response command that is not UTF-8": HEADER + GOOD + b'{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","json":{"type":'
                                            b'"response","command":"get_\xff\xfestate","success":true,"id":"1"}}\n' + EXIT,
    "a pause that overflows": HEADER + b'{"kind":"frame","seq":1,"t":-1e308,"dir":"c2a","json":{"type":"get_state","id":"1"}}\n'
                              b'{"kind":"frame","seq":2,"t":1e308,"dir":"c2a","json":{"type":"get_state","id":"2"}}\n',
    "a transcript exit code that is no number": b'{"t":0,"dir":"in","raw":"{}"}\n{"t":1,"dir":"note","raw":"exit code: abc"}\n',
    "duplicate keys": HEADER + b'{"kind":"frame","kind":"exit","seq":1,"t":0.1,"dir":"c2a","json":{"type":"prompt","type":[1],'
                      b'"id":"1","id":{"a":1}}}\n{"kind":"exit","seq":2,"seq":"x","t":1,"code":0,"code":"x"}\n',
    # found by the structured fuzz after them
    "a seq beyond 64 bits": HEADER + b'{"kind":"frame","seq":9223372036854775808,"t":0.1,"dir":"c2a","json":{"type":"x"}}\n'
                            b'{"kind":"frame","t":0.2,"dir":"c2a","seq":18446744073709551615,"json":{"type":"x"}}\n'
                            b'{"kind":"frame","seq":3,"t":1e999,"dir":"c2a","json":{"type":"x"}}\n' + GOOD + EXIT,
    "a transcript t beyond float range": b'{"t":0,"dir":"in","raw":"{}"}\n{"t":' + b"9" * 400 + b',"dir":"out","raw":"{}"}\n'
                                         b'{"t":1e999,"dir":"out","raw":"{}"}\n{"t":NaN,"dir":"out","raw":"{}"}\n',
    "deep frames that decode": HEADER + b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"prompt","id":"1",'
                               b'"message":' + _deep(900) + b'}}\n{"kind":"frame","seq":2,"t":0.2,"dir":"a2c","json":'
                               b'{"type":"response","id":"1","command":"prompt","success":true,"data":'
                               + _deep(900) + b'}}\n' + EXIT,
}


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.parametrize("command", COMMANDS)
def test_hostile_recordings(name: str, command: str, tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(HOSTILE[name])
    outcome = run_command(command, str(path), tmp_path, seed=str(SEEDS[0]))
    assert outcome.ok, outcome.traceback


def test_diff_of_two_deep_recordings(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(HOSTILE["deep frames that decode"])
    b.write_bytes(HOSTILE["deep frames that decode"].replace(b"[]", b"[1]"))
    for args in (["diff", str(a), str(b)], ["diff", "--format", "json", str(a), str(b)], ["diff", str(a), str(a)]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code in (0, 1) and res.exception is None or isinstance(res.exception, SystemExit), res.output


def test_the_reader_goes_on_past_bad_lines_and_names_them(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(HOSTILE["deep entry"])
    rec = open_recording(path)
    assert [f.seq for f in rec.frames()] == [1]
    assert [(p.line, p.reason) for p in rec.problems] == [(3, "unreadable line: nested too deeply to decode")]
    path.write_bytes(HOSTILE["invalid UTF-8 in an entry"])
    rec = open_recording(path)
    assert [f.seq for f in rec.frames()] == [1] and "invalid UTF-8" in str(rec.problems[0])
    res = CliRunner().invoke(main, ["check", str(path)])
    assert "recording.unreadable_line: line 2 skipped: unreadable line: bad frame: invalid UTF-8 at byte" in res.output


def test_two_entries_glued_on_one_line_are_found_even_when_a_split_value_evens_the_count(tmp_path: Path) -> None:
    a = b'{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":"get_state","id":"1"}}'
    b = b'{"kind":"frame","seq":2,"t":0.2,"dir":"c2a","json":{"type":"get_state","id":"2"}}'
    split = b'{"kind":"frame","seq":3,"t":0.3,"dir":"c2a","json":[[1\n2]]}'  # ],[ where the LF was: [[1],[2]]
    for glue in (b"],[", b"] , [", b"],\t["):
        path = tmp_path / "rec.jsonl"
        path.write_bytes(HEADER + a + glue + b + b"\n" + split + b"\n" + EXIT)
        rec = open_recording(path)
        assert [e.seq for e in rec.entries()] == [9]
        assert [p.line for p in rec.problems] == [2, 3, 4], rec.problems


def test_replay_client_does_not_wait_out_a_damaged_pause(tmp_path: Path) -> None:
    from rpcspy.pump.commands.fake_client import ClientRun
    from rpcspy.recording.writer import RecordingWriter, make_header
    from rpcspy.replay.client import plan

    path = tmp_path / "rec.jsonl"
    path.write_bytes(HOSTILE["a pause that overflows"])
    said: list[str] = []
    writer = RecordingWriter(str(tmp_path / "out.jsonl"), make_header(["cat"], mode="client"), warn=said.append)
    try:
        ClientRun(plan(open_recording(path).entries()), ["cat"], recorder=writer, speed=1.0, timeout=0.5,
                  warn=said.append).run()
    finally:
        writer.close()
    assert any("pause of inf s before frame 2 is not reproduced" in s for s in said), said


def test_a_device_or_a_pipe_is_refused_at_once() -> None:
    for command in (["show"], ["check"], ["stats"], ["fixture", "-o", "/nonexistent/x"]):
        res = CliRunner().invoke(main, [command[0], "/dev/zero", *command[1:]])
        assert res.exit_code == 2 and "not a regular file" in res.output, res.output


def test_a_first_line_without_end_is_not_read_forever(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rpcspy.recording.reader as reader

    monkeypatch.setattr(reader, "FIRST_LINE_MAX", 1 << 20)
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"{" * (3 << 20))
    with pytest.raises(reader.RecordingError, match="no line break in the first 1 MiB"):
        open_recording(path)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), source=st.sampled_from(SEEDS))
@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "replay-client"])
def test_fuzz_every_reading_command(command: str, seed: int, source: Path, tmp_path_factory: pytest.TempPathFactory
                                    ) -> None:
    _fuzz_one(command, seed, source, tmp_path_factory)


@settings(max_examples=8)  # each case runs an agent process (cat): a few here, thousands in bench/
@given(seed=st.integers(0, 2**32 - 1), source=st.sampled_from(SEEDS))
def test_fuzz_replay_client(seed: int, source: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    _fuzz_one("replay-client", seed, source, tmp_path_factory)


def _fuzz_one(command: str, seed: int, source: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    work = tmp_path_factory.mktemp("fuzz")
    path = work / "mutated.jsonl"
    path.write_bytes(mutate(source.read_bytes(), random.Random(seed)))
    outcome = run_command(command, str(path), work, seed=str(source))
    assert outcome.ok, f"seed {seed} on {source.name}:\n{outcome.traceback}"


def test_replay_client_survives_a_live_agent_frame_with_a_list_type() -> None:
    from rpcspy.replay.client import Said

    said = Said()
    for frame in (b'{"type":["response"],"id":"1"}', b'{"type":"extension_ui_request","id":"d","method":["select"]}',
                  b'{"type":{"a":1}}', b"[" * 5000 + b"]" * 5000):
        said.add(frame)
    assert not said.responses and not said.requests
