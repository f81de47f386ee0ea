"""Drive scripts: steps, their options and defaults, and clear errors for bad lines."""

from __future__ import annotations

import pytest

from rpcspy.drive.script import ScriptError, Wait, parse_script


def test_defaults_by_command() -> None:
    steps = parse_script('\n# a comment\n{"id":"s","type":"get_state"}\n{"id":"p","type":"prompt","message":"hi"}\n'
                         '{"type":"extension_ui_response","id":"d","cancelled":true}\n')
    assert [(s.lineno, s.wait) for s in steps] == [(3, Wait("response")), (4, Wait("settle")), (5, Wait("none"))]
    assert steps[1].line == b'{"id":"p","type":"prompt","message":"hi"}\n'


def test_options_are_stripped_and_read() -> None:
    (step, wait) = parse_script(
        '{"id":"p","type":"prompt","message":"x\u2028y","rpcspy":{"wait":{"deltas":3},"timeout":5,'
        '"answer":{"confirm":true}}}\n{"rpcspy":{"wait":{"event":"agent_start","count":2}}}')
    assert step.obj == {"id": "p", "type": "prompt", "message": "x\u2028y"}
    assert (step.wait, step.timeout, step.answers) == (Wait("deltas", 3), 5.0, {"confirm": True})
    assert wait.obj is None and wait.line is None and wait.wait == Wait("event", 2, "agent_start")
    assert parse_script('{"rpcspy":{}}')[0].wait == Wait("settle"), "a bare wait line waits for the settle"


@pytest.mark.parametrize("line, message", [
    ("not json", "line 1: not JSON"),
    ("[1]", "line 1: a step is a JSON object"),
    ('{"id":1}', 'line 1: a command needs a string "type"'),
    ('{"type":"get_state","rpcspy":{"wait":"later"}}', "line 1: wait must be one of"),
    ('{"type":"get_state","rpcspy":{"wait":{"deltas":0}}}', "line 1: wait must be one of"),
    ('{"type":"get_state","rpcspy":{"timeout":-1}}', "line 1: timeout must be a positive number"),
    ('{"type":"get_state","rpcspy":{"retry":1}}', "line 1: unknown step option(s) retry"),
    ('{"type":"get_state","rpcspy":{"answer":{"pick":1}}}', "line 1: answer must be an object"),
    ('{"type":"get_state","rpcspy":3}', 'line 1: "rpcspy" must be an object'),
    ("", "the script has no steps"),
])
def test_bad_lines(line: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_script(line)
