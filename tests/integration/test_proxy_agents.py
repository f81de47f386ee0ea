"""rpcspy in front of the real pi (0.73.1 and 0.87.1): transparent, and recorded exactly.

A scripted client runs text, tool, bad-input and abort traffic through
``python -m rpcspy -o REC -- pi --mode rpc ...`` and checks that what it received is,
byte for byte and frame for frame, what the recording says the agent wrote; that the
recording's client->agent frames are what it sent; and that rpcspy exits with the
agent's exit code.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from rpcspy.events import Exit, Frame, Start
from rpcspy.recording import open_recording
from tests.support.agents import REPO_ROOT
from tests.support.driver import AgentProcess, is_response
from tests.support.scenarios import joined_deltas, last_assistant, of_type, prompt


def spawn_proxied(agent, rec: Path) -> AgentProcess:
    env = dict(agent.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    argv = [sys.executable, "-m", "rpcspy", "-o", str(rec), "--", *agent.argv]
    return AgentProcess(argv, env=env, cwd=agent.cwd)


def recorded(rec: Path) -> dict[str, list[Frame]]:
    frames: dict[str, list[Frame]] = {"c2a": [], "a2c": [], "err": []}
    for frame in open_recording(rec).frames():
        frames[frame.dir].append(frame)
    return frames


def exit_code(rec: Path) -> int:
    (entry,) = [e for e in open_recording(rec).entries() if isinstance(e, Exit)]
    return entry.code


def assert_transparent(ap: AgentProcess, rec: Path) -> dict[str, list[Frame]]:
    """Client view == recording, in both directions, byte for byte and frame for frame."""
    frames = recorded(rec)
    a2c = frames["a2c"]
    assert [f.data for f in a2c] == ap.frames
    assert b"".join(f.raw() for f in a2c) == bytes(ap.stdout)
    assert b"".join(f.raw() for f in frames["c2a"]) == b"".join(ap.sent)
    seqs = [f.seq for d in frames.values() for f in d]
    assert len(set(seqs)) == len(seqs)
    return frames


def test_session_through_proxy(pi_agent, fake_llm, tmp_path: Path) -> None:
    rec = tmp_path / "session.jsonl"
    with spawn_proxied(pi_agent, rec) as ap:
        state = ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        assert state["data"]["model"]["baseUrl"] == fake_llm.base_url

        run = prompt(ap, pi_agent.dialect, "hello", "p1")
        assert joined_deltas(run, "text_delta") == "Hello \u2028world!"

        run = prompt(ap, pi_agent.dialect, "tool: printf 'a\\r\\nb'", "p2")
        assert len(of_type(run, "tool_execution_end")) == 1

        # input the agent rejects, sent raw: not JSON, then a CRLF-terminated command
        ap.send(b"not json\n")
        ap.read_until(lambda m: m.get("type") == "response" and m.get("command") == "parse")
        ap.send(b'{"id":"crlf","type":"get_last_assistant_text"}\r\n')
        ap.read_until(is_response("crlf"))

        ap.send({"id": "p3", "type": "prompt", "message": "slow: 400"})
        ap.read_until(lambda m: m.get("assistantMessageEvent", {}).get("type") == "text_delta", timeout=60)
        ap.send({"id": "a1", "type": "abort"})
        run = ap.read_until(is_response("a1"))
        assert last_assistant(run)["stopReason"] == "aborted"

        code = ap.finish(timeout=30)
    assert code == 0 == exit_code(rec)
    frames = assert_transparent(ap, rec)
    assert any(f.cr for f in frames["c2a"]), "the CRLF line keeps its CR flag"
    assert any("\u2028".encode() in f.data for f in frames["a2c"])
    (start,) = [e for e in open_recording(rec).entries() if isinstance(e, Start)]
    assert start.argv == pi_agent.argv
    assert len(fake_llm.chat_requests) == 4


def test_agent_crash_exit_code_through_proxy(pi_agent, fake_llm, tmp_path: Path) -> None:
    """A ``null`` line crashes pi (TypeError, exit 1): rpcspy exits 1 and records stderr."""
    rec = tmp_path / "crash.jsonl"
    with spawn_proxied(pi_agent, rec) as ap:
        ap.request({"id": "s1", "type": "get_state"}, timeout=60)
        ap.send(b"null\n")
        ap.read_rest(timeout=30)
        code = ap.wait(timeout=30)
    assert code == 1 == exit_code(rec)
    frames = assert_transparent(ap, rec)
    err = b"\n".join(f.data for f in frames["err"])
    assert b"TypeError" in err
    assert "TypeError" in ap.stderr  # passed through to the client too
