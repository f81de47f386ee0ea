"""Damaged recordings against every reading command: the in-process runners (mutations: fuzz_mutations.py).

Shared by the hypothesis fuzz in the suite (tests/cli/test_fuzz_readers.py) and the long run in
bench/fuzz_readers.py. A run *fails* when a command raises anything but a clean exit (a Python
traceback) or takes longer than the time limit (a hang); a clear error and a non-zero status are
fine: that is what damaged input should get.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from tests.support.fuzz_mutations import MUTATORS, mutate  # noqa: F401  (callers import them from here)

REPO = Path(__file__).resolve().parents[2]
SEEDS = [REPO / "rpcspy" / "data" / "demo.jsonl", *sorted((REPO / "recordings").glob("*.jsonl")),
         *sorted((REPO / "rpcspy" / "data" / "scenarios").glob("*.jsonl")),
         REPO / "tests" / "data" / "transcripts" / "structured" / "01_basic_text_prompt.jsonl",
         REPO / "tests" / "data" / "transcripts" / "60_extension_ui.jsonl"]
COMMANDS = ("check", "show", "show-raw", "stats", "export", "fixture", "diff", "replay", "why", "watch", "browse",
            "replay-client")


# --- running the commands -----------------------------------------------------------------------
class Hang(Exception):
    pass


@dataclass
class Outcome:
    command: str
    exit_code: int | None
    traceback: str | None
    """The Python traceback of an exception that escaped the command, or None."""

    @property
    def ok(self) -> bool:
        return self.traceback is None


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _cli(args: list[str]) -> tuple[int | None, str | None]:
    from rpcspy.cli import main

    res = CliRunner().invoke(main, args, catch_exceptions=True)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        if isinstance(res.exception, Hang):
            raise res.exception
        tb = "".join(traceback.format_exception(res.exception))
        return res.exit_code, tb
    if "Traceback (most recent call last)" in res.output:
        return res.exit_code, res.output
    return res.exit_code, None


def _replay(path: str, workdir: Path) -> tuple[int | None, str | None]:
    """The fake agent in process, its client's frames (those recorded, if readable) on a pipe."""
    from rpcspy.cli.replay_cmd import _fake_agent

    try:
        from rpcspy.recording import open_recording

        client = b"".join(f.raw() for f in open_recording(path).frames() if f.dir == "c2a")[:1 << 16]
    except Exception:  # noqa: BLE001 - the reader's own robustness is fuzzed by the other commands
        client = b'{"type":"get_state","id":"1"}\n'
    r, w = os.pipe()
    os.write(w, client)
    os.close(w)
    out = os.open(os.devnull, os.O_WRONLY)
    try:
        code = _fake_agent(path, match="exact", reuse=False, speed=0, strict=False,
                           report=str(workdir / "report.json"), record=None, redact=(), usage=False, no_stderr=False,
                           stdio=(r, out, out))
        return code, None
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1, None
    except Hang:
        raise
    except Exception as exc:  # noqa: BLE001 - click errors are clean exits; anything else is a crash
        import click

        if isinstance(exc, click.ClickException):
            return exc.exit_code, None
        return None, "".join(traceback.format_exception(exc))
    finally:
        os.close(r)
        os.close(out)


def _client(path: str, workdir: Path) -> tuple[int | None, str | None]:
    """``replay --client`` in process against ``cat`` (an agent that echoes), paced a million times fast."""
    from rpcspy.cli.replay_cmd import _fake_client

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # its "still waiting" lines, expected against cat
            code = _fake_client(path, ["cat"], speed=1e6, timeout=0.1, record=str(workdir / "client.jsonl"), diff=False,
                                usage=False, redact=())
        return code, None
    except Hang:
        raise
    except Exception as exc:  # noqa: BLE001 - anything but a clean exit is a crash
        import click

        if isinstance(exc, (click.ClickException, SystemExit)):
            return getattr(exc, "exit_code", 1), None
        return None, "".join(traceback.format_exception(exc))


def _browse(path: str) -> tuple[int | None, str | None]:
    """The browser's model over the whole recording, every row unfolded and its frame pane shown."""
    from rpcspy.browse.model import BrowseModel
    from rpcspy.events import Frame
    from rpcspy.recording import RecordingError, open_recording
    from rpcspy.recording.entries import events

    try:
        try:
            rec = open_recording(path)
        except RecordingError:
            return 2, None
        frames: dict[int, Frame] = {}
        model = BrowseModel(frames.get)
        for event in events(rec.entries()):
            if isinstance(event, Frame):
                frames[event.seq] = event
            model.feed([event])
        model.feed([], end=True)
        for i in range(min(len(model.lines), 400)):
            model.cursor = i
            model.toggle(True)
            model.detail()
        model.window(40)
        return 0, None
    except Hang:
        raise
    except Exception as exc:  # noqa: BLE001 - anything escaping is a crash
        return None, "".join(traceback.format_exception(exc))


def run_command(command: str, path: str, workdir: Path, *, seed: str, limit: float = 20.0) -> Outcome:
    """Run one reading command on ``path`` in this process, within ``limit`` seconds."""
    args = {
        "check": ["check", "--fail-on", "info", path],
        "show": ["show", "--full", path],
        "show-raw": ["show", "--raw", path],
        "stats": ["stats", "--format", "json", path],
        "export": ["export", path, "-o", str(workdir / "out.html")],
        "fixture": ["fixture", path, "-o", str(workdir / "fixture.jsonl"), "--force"],
        "diff": ["diff", seed, path],
        "why": ["why", path],
        "watch": ["watch", "--no-follow", path],
    }
    try:
        with _time_limit(limit):
            if command == "replay":
                code, tb = _replay(path, workdir)
            elif command == "replay-client":
                code, tb = _client(path, workdir)
            elif command == "browse":
                code, tb = _browse(path)
            else:
                code, tb = _cli(args[command])
    except Hang as exc:
        return Outcome(command, None, f"HANG: {exc}")
    return Outcome(command, code, tb)
