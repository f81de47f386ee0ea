"""docs/compat/: the published notes are what their recordings give with this rpcspy, and say nothing false."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rpcspy.diff.compat import compat, survey
from rpcspy.diff.differ import diff_recordings
from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
from rpcspy.recording.reader import read_frames

ROOT = Path(__file__).resolve().parents[2]
NOTES = ROOT / "docs" / "compat"


def report(old: str, new: str):  # type: ignore[no-untyped-def]
    a, b = (str(NOTES / "recordings" / f"{name}.jsonl") for name in (old, new))
    norm = Normaliser(NormaliseOptions(), stable=False)
    return compat(diff_recordings(a, b, norm), survey(read_frames(a), norm), survey(read_frames(b), norm))


def test_notes_are_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_compat.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_pi_1_6_changes_behaviour_not_fields() -> None:
    """pi 1.6.0 added, renamed or removed no command, event type or field (protocol notes section 12):
    its note shows the behaviour that changed, and no field or type gone, changed or added."""
    r = report("pi-1.5.2", "pi-1.6.0")
    kinds = {(g.kind, g.type, g.path) for g in r.groups if g.level != "timing"}
    assert not {k for k in kinds if k[0] in ("field gone", "type changed", "frame type gone")}, kinds
    assert ("new frame type", "extension_error", None) in kinds
    assert ("new field", "response/get_last_assistant_text", "$.data.text") in kinds, \
        "data was {} after a failed run: the field is there now, a behaviour of the command"
    assert ("new event", "entry_appended", None) in kinds
    assert r.count("timing") > 0
