"""Exit statuses: write errors on stdout, unreadable inputs, and the documented table (rpcspy.cli.exits)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import COMMANDS, exits, main
from tests.render.sample import write_sample

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rec(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(write_sample(tmp_path_factory.mktemp("exits") / "s.jsonl"))


def _rpcspy(args: list[str], **kwargs: object) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_RUNTIME_DIR": str(kwargs.pop("runtime"))}
    return subprocess.run([sys.executable, "-m", "rpcspy", *args], capture_output=kwargs.pop("capture", True),
                          env=env, timeout=60, **kwargs)  # type: ignore[call-overload]


STDOUT_COMMANDS = [
    ["check", "REC"], ["check", "--format", "json", "REC"], ["show", "REC"], ["show", "--raw", "REC"],
    ["stats", "REC"], ["stats", "--format", "json", "REC"], ["export", "REC", "-o", "-"], ["rules"],
    ["rules", "--format", "json"], ["rules", "framing.crlf"], ["schema"], ["diff", "REC", "REC"],
    ["diff", "--format", "json", "REC", "REC"], ["sessions"], ["sessions", "--json"],
]


@pytest.mark.parametrize("args", STDOUT_COMMANDS, ids=" ".join)
def test_a_full_stdout_is_one_line_and_its_own_status(args: list[str], rec: str) -> None:
    with open("/dev/full", "wb") as full:
        p = _rpcspy([rec if a == "REC" else a for a in args], stdout=full, stderr=subprocess.PIPE, capture=False,
                    runtime=Path(rec).parent)
    err = p.stderr.decode()
    assert p.returncode == exits.OUTPUT, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert [line for line in err.splitlines() if "cannot write" in line] == [
        "Error: cannot write output: No space left on device"]
    assert err.count("cannot write") == 1


def test_a_reader_that_goes_away_ends_quietly(rec: str) -> None:
    big = Path(rec).parent / "big.jsonl"
    big.write_bytes(Path(rec).read_bytes() + b"".join(
        b'{"kind":"frame","seq":%d,"t":1.0,"dir":"a2c","json":{"type":"x","n":%d}}\n' % (1000 + n, n)
        for n in range(50_000)))
    p = subprocess.Popen([sys.executable, "-m", "rpcspy", "show", "--raw", str(big)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.stdout is not None and p.stdout.read(10)
    p.stdout.close()
    assert p.wait(timeout=60) == exits.OK
    assert p.stderr is not None and b"Traceback" not in p.stderr.read()


@pytest.mark.parametrize("args", [["show", "MISSING"], ["stats", "MISSING"], ["export", "MISSING", "-o", "-"],
                                  ["check", "MISSING"], ["diff", "MISSING", "REC"], ["fixture", "MISSING", "-o", "OUT"],
                                  ["show", "DIR"], ["check", "DIR"]], ids=" ".join)
def test_an_unreadable_input_is_a_usage_status(args: list[str], rec: str, tmp_path: Path) -> None:
    names = {"MISSING": str(tmp_path / "missing.jsonl"), "REC": rec, "OUT": str(tmp_path / "o.jsonl"),
             "DIR": str(tmp_path)}
    res = CliRunner().invoke(main, [names.get(a, a) for a in args])
    assert res.exit_code == exits.USAGE, res.output
    assert ("no such file" in res.output or "is a directory" in res.output) and "Traceback" not in res.output


def test_an_unwritable_output_file_is_the_output_status(rec: str, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for args in (["export", rec, "-o"], ["fixture", rec, "-o"], ["schema", "-o"]):
        res = CliRunner().invoke(main, [*args, str(tmp_path / "file" / "x")])
        assert res.exit_code == exits.OUTPUT and "cannot write" in res.output, (args, res.output)


def test_check_uses_the_table_statuses(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"format":"rpcspy-recording","version":1,"rpcspy":"t","argv":[],"cwd":"","started":"",'
                    b'"started_unix":0,"pid":1}\n{"kind":"frame","seq":1,"t":0.1,"dir":"c2a","json":{"type":7}}\n')
    assert CliRunner().invoke(main, ["check", str(bad)]).exit_code == exits.FINDINGS


def test_every_command_has_its_statuses_documented() -> None:
    assert list(exits.TABLE) == list(COMMANDS)
    doc = (REPO / "docs" / "exit-codes.md").read_text(encoding="utf-8")
    import runpy

    render_exit_codes = runpy.run_path(str(REPO / "scripts" / "gen_docs.py"))["render_exit_codes"]
    assert doc == render_exit_codes(), "docs/exit-codes.md is stale: run python scripts/gen_docs.py"
    assert "docs/exit-codes.md" in (REPO / "README.md").read_text(encoding="utf-8")
    assert (exits.OK, exits.FINDINGS, exits.USAGE, exits.STRICT, exits.OUTPUT) == (0, 1, 2, 3, 4)


@pytest.mark.parametrize("args", [["check", "REC"], ["show", "REC"], ["show", "--raw", "REC"], ["stats", "REC"],
                                  ["diff", "REC", "REC"]], ids=" ".join)
def test_a_closed_stdout_is_the_output_status(args: list[str], rec: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    p = subprocess.run([sys.executable, "-m", "rpcspy", *[rec if a == "REC" else a for a in args]],
                       stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=60,
                       preexec_fn=lambda: os.close(1))  # like `>&-`: Python starts without sys.stdout
    err = p.stderr.decode()
    assert p.returncode == exits.OUTPUT and "Traceback" not in err, err
    assert "cannot write output: standard output is closed" in err


FREEZE_PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), file=sys.stderr))  # runs after the command's
sys.argv = ["rpcspy", *sys.argv[1:]]
from rpcspy.cli import main
main()
"""


@pytest.mark.parametrize("command", [["check", "--format", "json"], ["diff"], ["fixture", "--force", "-o"]])
def test_offline_commands_leave_their_modules_to_the_os_at_exit(rec: str, tmp_path: Path, command: list[str]) -> None:
    """check, diff and fixture freeze what is alive at the interpreter's exit (no teardown collection walks
    it); a test runner that invokes them in its own process is not frozen until it exits."""
    args = [*command, *([str(tmp_path / "f.jsonl")] if "-o" in command else []), rec, *([rec] if "diff" in command else [])]
    proc = subprocess.run([sys.executable, "-c", FREEZE_PROBE, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode in (0, 1), proc.stderr
    assert int(proc.stderr.split("frozen ")[1].split()[0]) > 10_000  # modules, classes, schemas
    for _ in range(2):
        assert CliRunner().invoke(main, args).exit_code in (0, 1)
    import gc

    assert gc.get_freeze_count() == 0
