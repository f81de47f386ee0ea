"""`rpcspy why` on ACP sessions (tests/data/acp/): who owes which answer, since when; a cancel never honoured."""

from __future__ import annotations

import subprocess
import sys

from rpcspy.diagnose.explain import diagnose_entries
from rpcspy.recording import open_recording
from tests.paths import DATA

ACP = DATA / "acp"


def why(name: str, **kw: object):  # type: ignore[no-untyped-def]
    return diagnose_entries(open_recording(ACP / name).entries(), dialect="acp-v1", **kw)  # type: ignore[arg-type]


def test_a_finished_session_has_nothing_outstanding() -> None:
    d = why("omp-18.2.3-acp-permission.jsonl")
    assert not d.stuck and d.dialect == "acp-v1"


def test_a_prompt_waiting_on_a_permission_dialog() -> None:
    d = why("omp-18.2.3-acp-permission.jsonl", frame=19)
    prompt, request = d.outstanding
    assert prompt.kind == "prompt" and "the agent owes its `stopReason`" in prompt.text
    assert "waits for the client's answer to `session/request_permission` (frame 19)" in prompt.text
    assert request.kind == "request" and "the client owes a permission dialog" in request.text
    assert request.frames == (19,)


def test_a_cancel_never_honoured() -> None:
    (item,) = why("test-agent-cancel-ignored.jsonl", frame=8).outstanding
    assert "`session/cancel` at frame 8" in item.text and "never honoured" in item.text
    assert item.frames == (6, 8) and "'t-long' (sleep) is still in_progress" in item.text


def test_the_cli_exits_1_when_the_client_owes_an_answer() -> None:
    proc = subprocess.run([sys.executable, "-m", "rpcspy", "why", str(ACP / "test-agent-perm-then-end.jsonl")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "the client owes a permission dialog" in proc.stdout and "dialect acp-v1" in proc.stdout


def test_a_live_tracker_learns_acp_from_the_first_message() -> None:
    """`rpcspy why PID` asks the proxy's tracker, which was not told the dialect: the client's
    `initialize` turns it to ACP, and it answers as the recording's diagnosis does."""
    from rpcspy.diagnose.explain import explain
    from rpcspy.diagnose.tracker import Tracker

    tr = Tracker()
    for entry in open_recording(ACP / "omp-18.2.3-acp-permission.jsonl").entries():
        if getattr(entry, "seq", 0) > 19:
            break
        tr.feed_entry(entry)
    live = explain(tr)
    assert tr.acp is not None and live.dialect == "acp-v1"
    assert [i.text for i in live.outstanding] == [i.text for i in why("omp-18.2.3-acp-permission.jsonl",
                                                                        frame=19).outstanding]
