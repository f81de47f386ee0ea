"""``rpcspy model-server``: snippets, a written HOME, and a server that answers until SIGTERM."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli import main


def test_print_only_prints_the_chosen_snippet_and_writes_home(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["model-server", "--port", "8399", "--print-only", "--config", "omp",
                                    "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "# model server: http://127.0.0.1:8399/v1"
    assert lines[1].startswith("# ~/.omp/agent/models.yml")
    assert "models.json" not in res.output
    written = json.loads((tmp_path / "h/.pi/agent/models.json").read_text())
    assert written["providers"]["fake"]["baseUrl"] == "http://127.0.0.1:8399/v1"
    assert (tmp_path / "h/project").is_dir()


def test_print_only_without_port_is_a_usage_error() -> None:
    res = CliRunner().invoke(main, ["model-server", "--print-only"])
    assert res.exit_code == 2 and "--print-only needs --port" in res.output


def test_serves_chat_completions_until_sigterm() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "rpcspy", "model-server", "--config", "none"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()
        assert first.startswith("# model server: http://127.0.0.1:")
        port = int(first.rsplit(":", 1)[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = json.dumps({"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 200 and b"Hello" in resp.read()
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0


def test_the_url_is_printed_once_sigterm_is_handled() -> None:
    """A caller may SIGTERM the server as soon as it read the URL line: it still stops cleanly (exit 0)."""
    script = ("import os, signal, sys\nfrom rpcspy.cli import main\n"
              "class Out:\n"
              "    def __init__(self, out): self.out = out\n"
              "    def __getattr__(self, name): return getattr(self.out, name)\n"
              "    def write(self, text):\n"
              "        n = self.out.write(text)\n"
              "        if text.startswith('# model server:'): self.out.flush(); os.kill(os.getpid(), signal.SIGTERM)\n"
              "        return n\n"
              "sys.stdout = Out(sys.stdout)\n"
              "main(['model-server', '--config', 'none'])\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# model server: http://127.0.0.1:")
