"""rpcspy.offline.check: check's one loop over a Reading (the shell opens, prints and sets the exit status)."""

from __future__ import annotations

from pathlib import Path

from rpcspy.offline import open_reading
from rpcspy.offline.check import CheckOptions, check_reading
from tests.paths import DATA
from tests.render.sample import write_sample


def test_findings_are_fresh_and_numbered_with_the_files_own_last(tmp_path: Path) -> None:
    result = check_reading(open_reading(write_sample(tmp_path / "s.jsonl")), CheckOptions())
    rules = [f.rule for f in result.findings]
    assert "framing.crlf" in rules and "stream.partial_ahead" not in rules  # not the recorded ones
    assert [f.seq for f in result.findings] == list(range(1, len(rules) + 1))
    assert result.native and result.frames > 0 and result.dialect != "auto"
    ignored = check_reading(open_reading(tmp_path / "s.jsonl"), CheckOptions(ignore=frozenset({"framing.crlf"})))
    assert "framing.crlf" not in {f.rule for f in ignored.findings}


def test_a_transcript_is_checked_as_a_recording_is() -> None:
    result = check_reading(open_reading(f"{DATA}/transcripts/05_null_frame_crash.jsonl"), CheckOptions())
    assert not result.native and "misuse.null_frame" in {f.rule for f in result.findings}
