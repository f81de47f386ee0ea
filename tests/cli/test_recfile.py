"""Plumbing of the recording commands: consoles, progress, opening errors."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import click
import pytest

from rpcspy.cli import recfile
from rpcspy.recording import open_recording
from tests.render.sample import write_sample


def test_console_is_plain_and_100_wide_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()
    console = recfile.make_console(out)
    console.print("[bold]x[/bold]", style="red")  # no colour in a pipe, and recorded text is not markup
    assert console.width == 100 and out.getvalue() == "[bold]x[/bold]\n"
    coloured = io.StringIO()
    recfile.make_console(coloured, color="always").print("x", style="red")
    assert "\x1b[" in coloured.getvalue()
    monkeypatch.setenv("COLUMNS", "72")
    assert recfile.make_console(io.StringIO()).width == 72


def test_progress_reads_every_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_sample(tmp_path / "s.jsonl")
    rec = open_recording(path)
    monkeypatch.setattr(recfile, "PROGRESS_MIN_BYTES", 0)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    reading = recfile.open_or_fail(str(path), progress=True)
    assert reading.progress is recfile.progress_bar
    assert list(reading.entries()) == list(rec.entries())
    assert recfile.want_progress() is False  # stderr is not a terminal here


def test_open_or_fail_gives_the_readers_reason(tmp_path: Path) -> None:
    with pytest.raises(click.ClickException, match="is a directory"):
        recfile.open_or_fail(str(tmp_path))


def test_check_replaces_recorded_findings(tmp_path: Path) -> None:
    rec = recfile.open_or_fail(str(write_sample(tmp_path / "s.jsonl")))
    recorded = [e for e in rec.events() if type(e).__name__ == "Finding"]
    fresh = [e for e in rec.events(check=True) if type(e).__name__ == "Finding"]
    assert [f.rule for f in recorded] == ["stream.partial_ahead", "correlation.idless_error", "framing.not_json"]
    rules = {f.rule for f in fresh}
    assert {"framing.crlf", "framing.not_json", "correlation.idless_error"} <= rules
    assert "stream.partial_ahead" not in rules  # recorded findings are replaced, not kept


def test_atomic_output_replaces_whole_or_fails_cleanly(tmp_path) -> None:  # noqa: ANN001
    import click
    import pytest as _pytest

    from rpcspy.cli.recfile import atomic_output

    out = tmp_path / "out.txt"
    out.write_text("old")
    with atomic_output(str(out), "w") as f:
        f.write("new")
    assert out.read_text() == "new" and (out.stat().st_mode & 0o777) == 0o600
    with _pytest.raises(click.ClickException, match="cannot write"):
        with atomic_output(str(tmp_path / "missing" / "x.txt")) as f:
            f.write(b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_first_pass_reads_the_start_of_a_long_recording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening (the header) and the dialect's detection (up to its deciding frame) read the start of a long
    recording, not a MiB each: a file's first read is ``FIRST_READ``, each next one twice the last."""
    from rpcspy.events import Frame
    from rpcspy.recording import reader
    from rpcspy.recording.format import encode_entry, encode_frame
    from rpcspy.recording.writer import make_header

    delta = b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"hi"}}'
    path = tmp_path / "long.jsonl"
    with path.open("wb") as f:
        f.write(encode_entry(make_header(["omp", "--mode", "rpc"], mode="proxy")))
        f.write(encode_frame(Frame(1, 0.0, "a2c", b'{"type":"agent_end","messages":[],"isTerminal":true}')))
        for seq in range(2, 20_000):  # about 3 MiB
            f.write(encode_frame(Frame(seq, 0.0, "a2c", delta)))
    sizes: list[int] = []

    class Counted:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Counted:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.f, name)

        def read(self, size: int = -1) -> bytes:
            data = self.f.read(size)
            sizes.append(len(data))
            return bytes(data)

    monkeypatch.setattr(reader, "open", lambda *a, **k: Counted(open(*a, **k)), raising=False)
    rec = recfile.open_or_fail(str(path))
    assert sum(sizes) <= 64 << 10
    sizes.clear()
    assert rec.dialect()[0] == "omp"
    assert 0 < sum(sizes) <= 64 << 10
    sizes.clear()
    assert sum(1 for _ in rec.frames()) == 19_999  # the whole pass reads it all
    assert sum(sizes) == path.stat().st_size and max(sizes) == reader.CHUNK
