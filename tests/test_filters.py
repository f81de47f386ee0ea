"""The shared filter model and its click options."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.cli.filter_opts import filter_options
from rpcspy.events import Eof, Exit, Finding, Frame, Note
from rpcspy.filters import FrameFilter, build_filter, flagged_seqs, frame_keys, parse_range

MISUSE = Path(__file__).resolve().parents[1] / "recordings" / "pi-0.73.1-misuse.jsonl"


def fr(seq: int, t: float, direction: str, data: bytes) -> Frame:
    return Frame(seq, t, direction, data)  # type: ignore[arg-type]


PROMPT = fr(1, 1.0, "c2a", b'{"id":"p","type":"prompt","message":"Hello World"}')
RESP = fr(2, 1.5, "a2c", b'{"id":"p","type":"response","command":"prompt","success":true}')
DELTA = fr(3, 2.0, "a2c", b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}')
ERR = fr(4, 3.0, "err", b"boom")
ALL = [PROMPT, RESP, DELTA, ERR]


def kept(f: FrameFilter, frames=ALL, flagged=None) -> list[int]:
    return [x.seq for x in frames if f.match_frame(x, flagged=flagged)]


def test_default_keeps_everything() -> None:
    f = FrameFilter()
    assert not f.active and kept(f) == [1, 2, 3, 4]
    assert f.match_event(Exit(9, 9.0, 0)) and f.describe() == ""


def test_direction_with_aliases() -> None:
    assert kept(build_filter(dirs=["agent"])) == [2, 3]
    assert kept(build_filter(dirs=["client,stderr"])) == [1, 4]
    with pytest.raises(ValueError, match="unknown direction"):
        build_filter(dirs=["sideways"])


def test_type_matches_command_response_event_and_globs() -> None:
    assert kept(build_filter(types=["prompt"])) == [1, 2]
    assert kept(build_filter(types=["response"])) == [2]
    assert kept(build_filter(types=["text_*"])) == [3]
    assert kept(build_filter(types=["stderr", "message_update"])) == [3, 4]


def test_time_and_seq_ranges() -> None:
    assert kept(build_filter(time="1.5..2")) == [2, 3]
    assert kept(build_filter(time="..1.2")) == [1]
    assert kept(build_filter(time="2.5")) == [4]  # a single time means "from"
    assert kept(build_filter(seq="2..3")) == [2, 3]
    assert kept(build_filter(seq="3")) == [3]  # a single seq is that seq
    assert kept(build_filter(seq="3..")) == [3, 4]


def test_bad_ranges_say_what_to_write() -> None:
    with pytest.raises(ValueError, match="FROM..TO"):
        build_filter(time="soon")
    for bad, said in (("abc", "'abc' is not a number"), ("1..x", "'x' is not a number"),
                      ("nan", "'nan' is not a number")):
        with pytest.raises(ValueError) as err:
            build_filter(time=bad)
        assert said in str(err.value) and "could not convert" not in str(err.value)
    with pytest.raises(ValueError, match="'2.5' is not a whole number"):
        build_filter(seq="2.5")
    with pytest.raises(ValueError, match="empty range"):
        build_filter(seq="5..2")
    assert parse_range("..", int, single_is_point=True) == (None, None)


def test_grep_is_smart_case() -> None:
    assert kept(build_filter(grep="hello world")) == [1]
    assert kept(build_filter(grep="Hello world")) == []
    assert kept(build_filter(grep="^boom$")) == [4]
    with pytest.raises(ValueError, match="bad --grep"):
        build_filter(grep="(")


def test_only_findings_needs_the_flagged_seqs() -> None:
    f = build_filter(only_findings=True)
    assert kept(f, flagged={2, 4}) == [2, 4]
    assert kept(f) == [1, 2, 3, 4]  # without the set, the caller applies it (the timeline does, per item)
    findings = [Finding(5, 1.6, "r", "error", "g", "m", frame=2), Finding(6, 1.7, "r", "error", "g", "m")]
    assert flagged_seqs([*ALL, *findings]) == {2}


def test_other_entries() -> None:
    note = Note(10, 5.0, "info", "closing stdin")
    assert build_filter(grep="stdin").match_event(note)
    assert not build_filter(grep="nothing").match_event(note)
    assert not build_filter(grep="x").match_event(Exit(11, 6.0, 0))
    assert build_filter(types=["exit"]).match_event(Exit(11, 6.0, 0))
    assert not build_filter(types=["prompt"]).match_event(Exit(11, 6.0, 0))
    assert not build_filter(dirs=["c2a"]).match_event(Eof(12, 6.0, "a2c"))
    assert build_filter(dirs=["c2a"]).match_event(Exit(11, 6.0, 0))
    assert not build_filter(only_findings=True).match_event(note)
    assert not build_filter(time="..4").match_event(note)


def test_findings_on_their_own() -> None:
    f = Finding(7, 2.0, "framing.crlf", "warning", "framing", "CR LF", frame=1, dir="c2a")
    assert build_filter(types=["framing.*"]).match_finding(f)
    assert build_filter(types=["warning"]).match_finding(f)
    assert not build_filter(types=["prompt"]).match_finding(f)
    assert build_filter(seq="1").match_finding(f)  # the frame's seq counts
    assert not build_filter(dirs=["a2c"]).match_finding(f)
    assert build_filter(grep="cr lf").match_finding(f)


def test_findings_by_the_type_of_their_frame() -> None:
    f = Finding(7, 2.0, "correlation.idless_error", "warning", "correlation", "no id", frame=2, dir="a2c")
    keys = frame_keys(ALL, {2, 99})
    assert keys == {2: ("response", "prompt")}
    assert build_filter(types=["prompt"]).match_finding(f, keys[2])  # the response's command
    assert build_filter(types=["resp*"]).match_finding(f, keys[2])
    assert build_filter(types=["correlation"]).match_finding(f, keys[2])  # rules still match
    assert not build_filter(types=["agent_start"]).match_finding(f, keys[2])


def _check(*args: str) -> list[dict]:
    res = CliRunner().invoke(main, ["check", "--format", "json", str(MISUSE), *args])
    assert res.exit_code in (0, 1), res.output
    return [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]


@pytest.mark.skipif(not MISUSE.exists(), reason="recordings/ is not in this checkout")
def test_check_type_matches_the_frame_a_finding_is_about() -> None:
    assert [(f["frame"], f["rule"]) for f in _check("--type", "prompt")] == [(24, "misuse.prompt_while_streaming")]
    assert {f["frame"] for f in _check("--type", "no_such_command")} == {8, 10}  # command and its response
    assert {f["rule"] for f in _check("--type", "schema.*")} == {"schema.unknown_type", "schema.bad_enum"}
    assert _check("--type", "agent_end") == []


def test_click_options_give_one_filter_argument() -> None:
    @click.command()
    @click.argument("rec")
    @filter_options
    def cmd(rec: str, frame_filter: FrameFilter) -> None:
        click.echo(f"{rec} {frame_filter.describe()}")

    runner = CliRunner()
    res = runner.invoke(cmd, ["r.jsonl", "--dir", "agent", "--type", "prompt", "--time", "1..2", "--seq", "4",
                              "--grep", "x", "--with-findings"])
    assert res.exit_code == 0, res.output
    assert res.output == "r.jsonl --dir a2c --type prompt --time 1..2 --seq 4..4 --grep 'x' --with-findings\n"
    bad = runner.invoke(cmd, ["r.jsonl", "--seq", "x"])
    assert bad.exit_code == 2 and "bad --seq" in bad.output
    assert "--with-findings" in runner.invoke(cmd, ["--help"]).output
