"""What pi 1.5.2 and 1.6.0 do with extensions (`-e`, loaded with jiti) and the verdicts on it: events of
`session_start` handlers before a command's response, `extension_error` from a throwing `pi.events` handler
(1.6.0), a tool call whose arguments did not parse (`argumentsError`), an aborted sequential batch (1.6.0 closes
every call "Operation aborted"), and a steer sent while idle (protocol-notes 12). Nothing above info, no unknown
field, and `why` says what is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rpcspy.diagnose.explain import diagnose_entries
from rpcspy.recording import open_recording
from rpcspy.recording.format import FrameEntry
from tests.checker.test_agents import check_recording, proxied
from tests.paths import DATA
from tests.support.driver import is_response

pytestmark = pytest.mark.agents

EXTENSION = DATA / "extensions" / "pi160.js"


def _with_extension(name: str, specs, home: Path):  # type: ignore[no-untyped-def]
    from tests.conftest import RunnableAgent, _installed, _runnable

    agent = _runnable(_installed(name, specs), home)
    return RunnableAgent(agent.spec, [*agent.argv, "-e", str(EXTENSION)], agent.env, agent.home, agent.cwd)


@pytest.fixture(params=["pi-1.5.2", "pi-1.6.0"])
def ext_agent(request: pytest.FixtureRequest, _agent_specs, agent_home: Path):  # type: ignore[no-untyped-def]
    return _with_extension(request.param, _agent_specs, agent_home)


@pytest.fixture
def pi160(_agent_specs, agent_home: Path):  # type: ignore[no-untyped-def]
    """pi 1.6.0 only: 1.5.2 asks a session_start dialog twice per session operation."""
    return _with_extension("pi-1.6.0", _agent_specs, agent_home)


def _agent_frames(rec: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(f.data) for f in open_recording(rec).frames() if f.dir == "a2c"]


def test_extension_session_is_clean_and_why_names_the_idle_steer(ext_agent, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rec = tmp_path / "ext.jsonl"
    with proxied(ext_agent, rec) as ap:
        ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        ap.request({"id": "ns", "type": "new_session"}, timeout=60)
        ap.request({"id": "b", "type": "prompt", "message": "/boom"}, timeout=60)
        ap.send({"id": "p1", "type": "prompt", "message": "badargs:"})
        ap.read_until(lambda m: m.get("type") == "agent_settled", timeout=60)
        ap.send({"id": "p2", "type": "prompt", "message": "calls:3 slow_step"})
        ap.read_until(lambda m: m.get("type") == "tool_execution_start", timeout=60)
        ap.send({"id": "a", "type": "abort"})
        ap.read_until(is_response("a"), timeout=60)
        ap.request({"id": "st", "type": "steer", "message": "idle steer"}, timeout=60)
        assert ap.finish(timeout=60) == 0
    checker, findings, _ = check_recording(rec)
    assert checker.dialect == "pi-0.99"
    assert [(f.rule, f.frame, f.message) for f in findings if f.severity != "info"] == []
    assert [f.path for f in findings if f.rule.startswith("schema.")] == []
    assert [f.rule for f in findings if f.rule == "misuse.queued_while_idle"] == ["misuse.queued_while_idle"]
    frames = _agent_frames(rec)
    calls = [f["assistantMessageEvent"]["toolCall"] for f in frames if f.get("type") == "message_update"
             and f["assistantMessageEvent"]["type"] == "toolcall_end" and f["assistantMessageEvent"]["toolCall"]
             ["name"] == "bash"]
    assert calls and calls[0]["arguments"] == {} and "Received arguments:" in calls[0]["argumentsError"]
    ends = [f for f in frames if f.get("type") == "tool_execution_end" and f["toolName"] == "slow_step"]
    aborted = [e["result"]["content"][0]["text"] for e in ends[1:]]
    if ext_agent.name == "pi-1.6.0":  # every call of the batch is closed; 1.5.2 stopped after the first
        assert aborted == ["Operation aborted", "Operation aborted"]
        assert any(f.get("type") == "extension_error" and f["event"] == "events:rpcspy:boom" for f in frames)
        assert all(f["message"]["content"] == [] for f in frames
                   if f.get("type") == "message_start" and f["message"]["role"] == "assistant")
    else:
        assert aborted == []
    entries = list(open_recording(rec).entries())
    d = diagnose_entries(entries, dialect="pi-0.99")
    assert [i.kind for i in d.outstanding] == ["queued"]
    assert "no run is active" in d.outstanding[0].text


def test_a_session_start_dialog_holds_the_session_operation(pi160, fake_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The dialog a `session_start` handler opens comes before `new_session`'s response, which waits for it;
    answered with an id the agent never asked for, it stays open and `why` says so."""
    pi160.env["RPCSPY_ASK_ON_START"] = "1"
    rec = tmp_path / "ask.jsonl"
    with proxied(pi160, rec) as ap:
        ap.send({"id": "ns", "type": "new_session"})
        (dialog,) = [m for m in ap.read_until(lambda m: m.get("method") == "confirm", timeout=60)
                     if m.get("method") == "confirm"]
        ap.send({"type": "extension_ui_response", "id": "not-" + dialog["id"], "confirmed": True})
        ap.request({"id": "s", "type": "get_state"}, timeout=60)  # other commands are still answered
        ap.send({"type": "extension_ui_response", "id": dialog["id"], "confirmed": True})
        ap.read_until(is_response("ns"), timeout=60)
        assert ap.finish(timeout=60) == 0
    entries = list(open_recording(rec).entries())
    answer = max(e.seq for e in entries if isinstance(e, FrameEntry) and e.dir == "c2a" and b"extension_ui_response" in bytes(e.json))
    d = diagnose_entries(entries, dialect="pi-0.99", frame=answer - 1)  # just before the right answer
    text = " ".join(i.text for i in d.outstanding)
    assert "`new_session` (id 'ns'" in text and "session_start handlers" in text
    assert f"answered id 'not-{dialog['id']}', which the agent never asked for" in text
    assert diagnose_entries(entries, dialect="pi-0.99").outstanding == []
    _, findings, _ = check_recording(rec)
    assert [f.rule for f in findings if f.severity != "info"] == ["correlation.ui_unknown_id"]
