"""The conform runner executes steps against a process and hands the judges a faithful transcript."""

from __future__ import annotations

import sys
from pathlib import Path

from rpcspy.conform.cases import BY_ID, Case
from rpcspy.conform.script import Await, Close, Kill, Send, passed, send
from rpcspy.pump.commands.conform_runner import run_battery, run_case

TOY = Path(__file__).parents[2] / "conform" / "toy_agent.py"
ARGV = [sys.executable, str(TOY)]


def _case(*steps) -> Case:
    return Case("x.y", "t", "d", tuple(steps), lambda t: passed("-"))


def test_split_writes_are_recorded_as_one_client_frame_and_answered(tmp_path: Path) -> None:
    t, _ = run_case(_case(Send((b'{"id":"s",', b'"type":"get_state"}\n'), gap=0.05), Await("response", "s")),
                    ARGV, {}, tmp_path)
    assert [f.data for f in t.frames if f.dir == "c2a"] == [b'{"id":"s","type":"get_state"}']
    assert t.responses("s")[0]["success"] is True
    assert t.timeouts == [] and t.exit_code is None  # torn down by the runner, not exited on its own


def test_a_wait_that_times_out_stops_the_case_and_is_reported(tmp_path: Path) -> None:
    t, _ = run_case(_case(send({"id": "a", "type": "get_state"}), Await("response", "never", timeout=0.3),
                          send({"id": "b", "type": "get_state"})), ARGV, {}, tmp_path)
    assert t.timeouts == ["step 2: response 'never' not seen within 0.3 s"]
    assert not t.responses("b")  # the step after the timeout never ran


def test_exit_after_eof_and_signals_are_seen(tmp_path: Path) -> None:
    t, _ = run_case(_case(Close(), Await("exit", timeout=10)), ARGV, {}, tmp_path)
    assert t.exit_code == 0
    t, _ = run_case(_case(Kill(15), Await("exit", timeout=10)), ARGV, {}, tmp_path)
    assert t.exit_code == 128 + 15


def test_a_crash_ends_waits_at_once_and_the_judge_says_failed(tmp_path: Path) -> None:
    case = BY_ID["framing.null"]
    t, _ = run_case(case, [*ARGV, "crash-on-null"], {}, tmp_path)
    assert t.exit_code == 1
    assert t.timeouts == ["step 3: response 'probe' the agent closed stdout first"]  # given up at EOF, reported
    assert case.judge(t).status == "failed"
    t, _ = run_case(case, ARGV, {}, tmp_path)
    assert case.judge(t).status == "passed"
    assert "misuse.null_frame" in t.rules()  # the checker ran over the transcript


def test_battery_against_the_toy_agent() -> None:
    ids = ["framing.lf", "framing.crlf", "framing.blank_line", "framing.split", "id.unknown_command",
           "id.parse_error", "errors.bad_enum", "lifecycle.abort", "shutdown.eof_idle"]
    results = run_battery([BY_ID[i] for i in ids], ARGV, jobs=2, agent_args=False)
    got = {r.case.id: r.verdict.status for r in results}
    assert [r.case.id for r in results] == ids
    assert got == {**{i: "passed" for i in ids}, "errors.bad_enum": "passed"}, {r.case.id: r.verdict.detail for r in results}
