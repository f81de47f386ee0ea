"""Older recording formats: a fixture of each version reads through show, check and stats, and the
upgrade steps (rpcspy.recording.migrate) run from a file's version up, one at a time."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.recording import migrate, reader
from rpcspy.recording.format import FORMAT_VERSION
from rpcspy.recording.reader import RecordingError, open_recording
from tests.paths import DATA

VERSIONS = DATA / "recordings" / "versions"
FIXTURES = sorted(VERSIONS.glob("v*.jsonl"))
FIRST = VERSIONS / "v1-first-writer.jsonl"


def _version(path: Path) -> int:
    m = re.match(r"v(\d+)-", path.name)
    assert m is not None, path.name
    return int(m.group(1))


def test_every_version_has_a_fixture_and_every_older_one_a_step() -> None:
    assert {_version(p) for p in FIXTURES} == set(range(migrate.FIRST_VERSION, FORMAT_VERSION + 1))
    assert sorted(migrate.STEPS) == list(range(migrate.FIRST_VERSION, FORMAT_VERSION))
    for path in FIXTURES:
        assert json.loads(path.read_bytes().split(b"\n", 1)[0])["version"] == _version(path)


def test_todays_writer_writes_the_first_writers_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The format on disk has not changed since rpcspy's first writer (one event hierarchy or not)."""
    monkeypatch.syspath_prepend(str(VERSIONS))
    import write_session

    out = tmp_path / "now.jsonl"
    write_session.main(str(out))
    sys.modules.pop("write_session", None)
    assert out.read_bytes() == FIRST.read_bytes()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_reads_through_show_check_and_stats(path: Path) -> None:
    runner = CliRunner()
    show = runner.invoke(main, ["show", "--width", "120", str(path)])
    assert show.exit_code == 0, show.output
    assert "hello" in show.stdout and "warning" not in show.stderr
    check = runner.invoke(main, ["check", "--format", "json", str(path)])
    assert check.exit_code == 1, check.output  # the frame that is not UTF-8 is an error
    rules = {json.loads(line)["rule"] for line in check.stdout.splitlines()}
    assert "framing.crlf" in rules and "recording.unreadable_line" not in rules
    stats = runner.invoke(main, ["stats", "--format", "json", str(path)])
    assert stats.exit_code == 0, stats.output
    assert json.loads(stats.stdout)["exit"]["code"] == 0


def _older(obj: dict[str, msgspec.Raw], old: str, new: str, kind: bytes) -> dict[str, msgspec.Raw]:
    """``obj`` with its field ``old`` renamed ``new`` if it is an entry of ``kind``."""
    if obj.get("kind") == msgspec.Raw(b'"%s"' % kind) and old in obj:
        return {(new if k == old else k): v for k, v in obj.items()}
    return obj


def test_steps_upgrade_an_older_file_one_version_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's format as version 3 of a made-up history: version 1 spelled a frame's ``dir`` as ``direction``,
    version 2 a note's ``level`` as ``lvl``. A version 1 file reads as the same entries, its frames' bytes kept."""
    steps = {1: migrate.Step(2, lambda h: h, lambda o: [_older(o, "direction", "dir", b"frame")], "dir"),
             2: migrate.Step(3, lambda h: h, lambda o: [_older(o, "lvl", "level", b"note")], "level")}
    monkeypatch.setattr(migrate, "STEPS", steps)
    monkeypatch.setattr(migrate, "FORMAT_VERSION", 3)
    monkeypatch.setattr(reader, "FORMAT_VERSION", 3)
    today = list(open_recording(FIRST).entries())
    for version, upgrades in ((1, [2, 3]), (2, [3])):
        rec = open_recording(_made_up(FIRST, version, tmp_path / f"v{version}.jsonl"))
        assert [s.to for s in rec.steps] == upgrades and rec.header.version == 3
        assert list(rec.entries()) == today and rec.problems == []


def _made_up(path: Path, version: int, out: Path) -> Path:
    """The recording at ``path`` as the made-up ``version`` spelled it."""
    head, *lines = path.read_bytes().split(b"\n")
    old = [head.replace(b'"version":1', b'"version":%d' % version)]
    for line in lines:
        if line.startswith(b'{"kind":"frame"') and version < 2:
            line = line.replace(b'"dir":', b'"direction":', 1)
        elif line.startswith(b'{"kind":"note"'):
            line = line.replace(b'"level":', b'"lvl":', 1)
        old.append(line)
    out.write_bytes(b"\n".join(old))
    return out


def test_a_version_no_step_leads_from_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head, rest = FIRST.read_bytes().split(b"\n", 1)
    path = tmp_path / "v0.jsonl"
    path.write_bytes(head.replace(b'"version":1', b'"version":0') + b"\n" + rest)
    with pytest.raises(RecordingError, match="version 0 is older than any rpcspy wrote"):
        open_recording(path)
    monkeypatch.setattr(migrate, "FORMAT_VERSION", 2)
    monkeypatch.setattr(reader, "FORMAT_VERSION", 2)
    with pytest.raises(RecordingError, match="version 1: no upgrade to version 2"):
        open_recording(FIRST)
