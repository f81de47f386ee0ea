"""The pytest plugin, run in an inner pytest: argv factory, strict marker, unconsumed option."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rpcspy.pytest_plugin import ReplayFactory
from tests.paths import DATA

REC = str(DATA / "transcripts/structured/01_basic_text_prompt.jsonl")


INNER = f'''
import subprocess
import pytest

REC = {REC!r}

def run(argv, line):
    return subprocess.run(argv, input=line, capture_output=True, timeout=60)

@pytest.mark.rpcspy_strict
def test_matching_passes(rpcspy_replay):
    p = run(rpcspy_replay(REC), b'{{"id":"s","type":"get_state"}}\\n')
    assert b'"id":"s","type":"response","command":"get_state","success":true' in p.stdout

@pytest.mark.rpcspy_strict
def test_divergence_fails(rpcspy_replay):
    p = run(rpcspy_replay(REC), b'{{"id":"s","type":"bogus"}}\\n')
    assert b'"success":false' in p.stdout  # the test body passes: the marker fails it

def test_divergence_without_marker_passes(rpcspy_replay):
    p = run(rpcspy_replay(REC, match="type"), b'{{"id":"s","type":"bogus"}}\\n')
    assert p.returncode == 0

@pytest.mark.rpcspy_strict(unconsumed=True)
def test_unconsumed_fails(rpcspy_replay):
    run(rpcspy_replay(REC), b'{{"id":"s","type":"get_state"}}\\n')

@pytest.mark.rpcspy_strict
def test_a_client_waiting_after_a_divergence(rpcspy_replay):
    p = subprocess.Popen(rpcspy_replay(REC), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(b'{{"id":"p","type":"prompt","message":"never recorded"}}\\n')
    p.stdin.flush()
    try:
        p.wait(timeout=3)  # a client waiting for a run that never comes
    finally:
        p.kill()
        p.wait()
'''


def test_plugin_in_inner_pytest(tmp_path: Path):
    (tmp_path / "test_inner.py").write_text(INNER)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "test_inner.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = p.stdout
    assert "3 failed, 2 passed" in out, out
    waited = out.split("test_a_client_waiting_after_a_divergence", 1)[1]
    assert "rpcspy replay diverged from the recording:" in waited and "live line 1 prompt" in waited
    assert "(then the test failed: TimeoutExpired" in waited
    assert "FAILED test_inner.py::test_divergence_fails" in out
    assert "FAILED test_inner.py::test_unconsumed_fails" in out
    assert "rpcspy replay diverged from the recording" in out
    assert "no recorded match" not in out or "the recording has no bogus frame" in out
    assert "was never requested" in out


def test_factory_argv(tmp_path: Path):
    (tmp_path / "rec.jsonl").write_text("{}")
    f = ReplayFactory(tmp_path, base=tmp_path)
    argv = f("rec.jsonl", match="type", speed=2, strict=True, reuse=True, redact=["a+"], usage=True,
             record=tmp_path / "o.jsonl", no_stderr=True, python="py")
    assert argv == ["py", "-m", "rpcspy", "replay", "--speed", "2.0", "--report", str(tmp_path / "replay-1.json"),
                    "--match", "type", "--strict", "--reuse", "--usage", "--no-stderr", "--redact", "a+",
                    "-o", str(tmp_path / "o.jsonl"), str(tmp_path / "rec.jsonl")]
    assert f.problems() == []  # no report written yet: nothing to complain about


def test_factory_records_through_the_proxy_when_the_mode_says_so(tmp_path: Path):
    (tmp_path / "there.jsonl").write_text("{}")
    once = ReplayFactory(tmp_path, base=tmp_path, mode="once", agent=["pi", "--mode", "rpc"])
    assert once("there.jsonl", python="py")[:4] == ["py", "-m", "rpcspy", "replay"]  # present: replayed
    assert once("missing.jsonl", python="py") == ["py", "-m", "rpcspy", "run", "-o", str(tmp_path / "record-1.jsonl"),
                                                  "--no-control", "--", "pi", "--mode", "rpc"]
    every = ReplayFactory(tmp_path, base=tmp_path, mode="all", agent=["pi"])
    assert every("there.jsonl", python="py", agent=["omp"])[-2:] == ["--", "omp"]  # the call's agent wins
