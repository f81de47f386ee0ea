"""The pytest plugin's fixture paths and record modes (none, once, new, all), in inner pytest runs (pytester)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from rpcspy.recording import open_recording

pytest_plugins = ["pytester"]

CLIENT = '''
import os, subprocess

def test_client(rpcspy_replay):
    argv = rpcspy_replay("fixtures/client.jsonl")
    command = os.environ.get("CLIENT_COMMAND", "get_state")
    p = subprocess.run(argv, input=('{"id":"c1","type":"%s"}\\n' % command).encode(), capture_output=True, timeout=60)
    assert b'"id":"c1","type":"response","command":"%s","success":true' % command.encode() in p.stdout, p.stdout
'''

AGENT = '''
import json, sys, time
for line in sys.stdin:
    c = json.loads(line)
    data = {"apiKey": "sk-live-0123456789abcdefghijklmnop", "at": int(time.time() * 1000),
            "log": "my password is Hunter2-xyz9", "echo": "typed Hunter2-xyz9"}
    print(json.dumps({"id": c.get("id"), "type": "response", "command": c.get("type"), "success": True,
                      "data": data}, separators=(",", ":")), flush=True)
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A client test in ``sub/`` (run from the project root) and a fake agent script beside it."""
    (pytester.path / "sub").mkdir()
    (pytester.path / "sub" / "test_client.py").write_text(CLIENT)
    (pytester.path / "agent.py").write_text(AGENT)
    return pytester.path


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "sub/test_client.py", *args, timeout=180)


def agent_option(project: Path) -> str:
    return "--rpcspy-agent=" + shlex.join([sys.executable, str(project / "agent.py")])


def test_none_fails_clearly_when_the_fixture_is_missing(pytester: pytest.Pytester, project: Path) -> None:
    result = run(pytester)  # the default mode is none
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    # resolved against the test file's directory, not the directory pytest runs in
    assert f"rpcspy fixture {project / 'sub' / 'fixtures' / 'client.jsonl'} does not exist" in out
    assert "--rpcspy-record=once" in out and "assert" not in out.split("does not exist", 1)[1].split("\n")[0]


def test_once_records_a_missing_fixture_then_replays_it(pytester: pytest.Pytester, project: Path) -> None:
    fixture = project / "sub" / "fixtures" / "client.jsonl"
    first = run(pytester, "--rpcspy-record=once", agent_option(project))
    first.assert_outcomes(passed=1)
    assert f"recorded {fixture}" in first.stdout.str()
    text = fixture.read_text()
    assert "sk-live-0123456789" not in text and "<redacted>" in text  # redacted like `rpcspy fixture`
    assert "Hunter2-xyz9" not in text, "secrets in prose, and their every occurrence, as `rpcspy fixture` finds them"
    header = open_recording(fixture).header
    assert header.started == "2000-01-01T00:00:00.000000Z" and header.mode == "proxy"  # normalised
    (project / "agent.py").unlink()  # from now on no agent exists: only the fixture can answer
    run(pytester, "--rpcspy-record=once", agent_option(project)).assert_outcomes(passed=1)
    run(pytester).assert_outcomes(passed=1)
    assert fixture.read_text() == text


def test_the_agent_comes_from_the_ini_file(pytester: pytest.Pytester, project: Path) -> None:
    pytester.makeini(f"[pytest]\nrpcspy_record = once\nrpcspy_agent = {sys.executable} {project / 'agent.py'}\n")
    run(pytester).assert_outcomes(passed=1)
    assert (project / "sub" / "fixtures" / "client.jsonl").is_file()


def test_recording_without_an_agent_says_what_is_missing(pytester: pytest.Pytester, project: Path) -> None:
    result = run(pytester, "--rpcspy-record=once")
    result.assert_outcomes(failed=1)
    assert "needs the agent to record" in result.stdout.str() and "--rpcspy-agent" in result.stdout.str()


def test_a_failing_test_writes_no_fixture(pytester: pytest.Pytester, project: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLIENT_COMMAND", "x\\u0022")  # a command the agent echoes differently: the assert fails
    run(pytester, "--rpcspy-record=once", agent_option(project)).assert_outcomes(failed=1)
    assert not (project / "sub" / "fixtures" / "client.jsonl").exists()


def test_new_rerecords_a_fixture_the_client_strays_from_and_all_records_again(
        pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixture = project / "sub" / "fixtures" / "client.jsonl"
    run(pytester, "--rpcspy-record=once", agent_option(project)).assert_outcomes(passed=1)
    monkeypatch.setenv("CLIENT_COMMAND", "get_messages")  # the client now sends what the fixture lacks
    run(pytester, "--rpcspy-record=once", agent_option(project)).assert_outcomes(failed=1)  # once only replays
    result = run(pytester, "--rpcspy-record=new", agent_option(project))
    result.assert_outcomes(passed=1)
    assert f"recorded {fixture}" in result.stdout.str()
    sent = [json.loads(f.data)["type"] for f in open_recording(fixture).frames() if f.dir == "c2a"]
    assert sent == ["get_messages"]
    run(pytester, "--rpcspy-record=none").assert_outcomes(passed=1)
    monkeypatch.setenv("CLIENT_COMMAND", "get_state")
    result = run(pytester, "--rpcspy-record=all", agent_option(project))
    result.assert_outcomes(passed=1)
    assert [json.loads(f.data)["type"] for f in open_recording(fixture).frames() if f.dir == "c2a"] == ["get_state"]


def test_once_records_the_real_pi(pytester: pytest.Pytester, pi_agent) -> None:  # noqa: ANN001 (conftest type)
    """The real agent behind the proxy writes the fixture; the next run replays it with no agent."""
    import os

    (pytester.path / "sub").mkdir()
    (pytester.path / "sub" / "test_client.py").write_text(CLIENT)
    env = [f"{k}={v}" for k, v in pi_agent.env.items() if os.environ.get(k) != v]
    agent = shlex.join(["env", "-C", str(pi_agent.cwd), *env, *pi_agent.argv])
    run(pytester, "--rpcspy-record=once", "--rpcspy-agent", agent).assert_outcomes(passed=1)
    fixture = pytester.path / "sub" / "fixtures" / "client.jsonl"
    frames = list(open_recording(fixture).frames())
    assert any(b'"command":"get_state"' in f.data for f in frames if f.dir == "a2c")
    assert str(pi_agent.home) not in fixture.read_text()  # the temporary HOME is normalised away
    run(pytester, "--rpcspy-record=none").assert_outcomes(passed=1)
