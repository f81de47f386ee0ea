"""`rpcspy fixture`: writes a normalised recording, refuses to clobber, reports bad input."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli.fixture_cmd import command
from rpcspy.recording.reader import open_recording
from tests.paths import DATA

T = str(DATA / "transcripts/structured")


def test_writes_fixture(tmp_path: Path):
    out = tmp_path / "f.jsonl"
    r = CliRunner().invoke(command, [f"{T}/30_session_ops_no_session.jsonl", "-o", str(out), "--usage",
                                     "--compact-partials", "--redact", "secret-[0-9]+"])
    assert r.exit_code == 0, r.output
    assert "wrote" in r.output
    rec = open_recording(out)
    assert rec.header.source.endswith("30_session_ops_no_session.jsonl")
    text = out.read_bytes()
    assert b'"partial"' not in text
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    original = Path(f"{T}/30_session_ops_no_session.jsonl").read_bytes()
    assert b"sessionId" in original and text.count(b"00000000-0000-4000-8000-0000000000") > 0


def test_creates_missing_directories(tmp_path: Path):
    """The README's step 5, in a fresh directory: tests/fixtures/ does not exist yet."""
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        r = runner.invoke(command, [f"{T}/01_basic_text_prompt.jsonl", "-o", "tests/fixtures/basic.jsonl"])
        assert r.exit_code == 0, r.output
        assert open_recording("tests/fixtures/basic.jsonl").header.source.endswith("01_basic_text_prompt.jsonl")
        assert sorted(p.name for p in Path("tests/fixtures").iterdir()) == ["basic.jsonl"]  # no temporary left


def test_refuses_existing_and_self(tmp_path: Path):
    out = tmp_path / "f.jsonl"
    out.write_text("x")
    r = CliRunner().invoke(command, [f"{T}/01_basic_text_prompt.jsonl", "-o", str(out)])
    assert r.exit_code == 2 and "exists (--overwrite replaces it)" in r.output
    assert CliRunner().invoke(command, [f"{T}/01_basic_text_prompt.jsonl", "-o", str(out), "--force"]).exit_code == 0
    r = CliRunner().invoke(command, [str(out), "-o", str(out), "--force"])
    assert r.exit_code == 2 and "must not be the recording itself" in r.output


def test_bad_input(tmp_path: Path):
    r = CliRunner().invoke(command, [str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o")])
    assert r.exit_code == 2 and "no such file" in r.output
    r = CliRunner().invoke(command, [f"{T}/01_basic_text_prompt.jsonl", "-o", str(tmp_path / "o"), "--redact", "["])
    assert r.exit_code == 2
