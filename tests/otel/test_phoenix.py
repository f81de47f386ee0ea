"""End to end against Arize Phoenix (opt-in: Phoenix is large and slow to start, so not in the test extra).

RPCSPY_PHOENIX=/path/to/phoenix (pip install arize-phoenix, best in a venv of its own) starts one for the test;
RPCSPY_PHOENIX=http://host:6006 uses a running one. Unset, the test skips and says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.otel.receiver import free_port
from tests.paths import REPO

OPT_IN = os.environ.get("RPCSPY_PHOENIX", "")
SAMPLE = REPO / "recordings" / "pi-1.5.2-basic.jsonl"
pytestmark = pytest.mark.skipif(not OPT_IN, reason="opt-in: set RPCSPY_PHOENIX to a phoenix executable "
                                "(pip install arize-phoenix) or a running Phoenix's URL")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def phoenix() -> Iterator[str]:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    if OPT_IN.startswith(("http://", "https://")):
        yield OPT_IN.rstrip("/")
        return
    if not os.access(OPT_IN, os.X_OK):
        pytest.skip(f"RPCSPY_PHOENIX={OPT_IN} is not an executable")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="rpcspy-phoenix-") as tmp:
        env = {**os.environ, "PHOENIX_WORKING_DIR": tmp, "PHOENIX_PORT": str(port), "PHOENIX_HOST": "127.0.0.1",
               "PHOENIX_GRPC_PORT": str(free_port())}
        proc = subprocess.Popen([OPT_IN, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300  # a hang guard: its first start migrates a database
            while True:
                if proc.poll() is not None:
                    pytest.skip(f"phoenix serve exited with status {proc.returncode}")
                try:
                    urllib.request.urlopen(url + "/healthz", timeout=5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        pytest.skip("phoenix did not come up within 300 s")
                    time.sleep(1)
            yield url
        finally:
            proc.terminate()
            proc.wait(30)


def test_a_recorded_pi_session_shows_in_phoenix(phoenix: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and k != "TRACEPARENT"}
    done = subprocess.run([sys.executable, "-m", "rpcspy", "export", str(SAMPLE), "--format", "otlp", "--content",
                           "--endpoint", phoenix], capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    trace = done.stderr.split("trace ")[1].split()[0]
    deadline = time.monotonic() + 120
    while True:
        spans = [s for s in _get(f"{phoenix}/v1/projects/default/spans?limit=1000")["data"]
                 if s["context"]["trace_id"] == trace]
        if len(spans) >= 14 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert len(spans) == 14
    kinds = {s["name"]: s["span_kind"] for s in spans}
    assert kinds["invoke_agent pi"] == "AGENT" and kinds["chat fake-model"] == "LLM"
    assert kinds["execute_tool bash"] == "TOOL"
    by_id = {s["context"]["span_id"]: s for s in spans}
    tool = next(s for s in spans if s["name"] == "execute_tool bash")
    assert by_id[tool["parent_id"]]["name"] == "invoke_agent pi"
    chat = next(s for s in spans if s["name"] == "chat fake-model")
    assert chat["attributes"]["gen_ai.usage.input_tokens"] == 12
