"""``rpcspy watch [SESSION|REC]``: follow a live session, or a recording as it is written."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import click

from rpcspy.cli.recfile import color_option

POLL_SECONDS = 0.2


@click.command(
    "watch",
    epilog="""\b
Examples:
  rpcspy watch                    the only live session (see `rpcspy sessions`)
  rpcspy watch 12345              session 12345, from its last 200 events on
  rpcspy watch rec.jsonl          a recording, followed as it grows (like tail -f)
  rpcspy watch --no-follow rec.jsonl
  rpcspy watch --info rec.jsonl   info findings too (unknown fields, ...)""",
)
@click.argument("target", required=False, metavar="[SESSION|REC]")
@click.option("--backlog", type=click.IntRange(min=0), default=200, show_default=True,
              help="Live session: start with this many recent events.")
@click.option("--follow/--no-follow", default=True, show_default=True,
              help="Recording: keep reading as it grows, until the session's exit is in it or no rpcspy "
                   "writes it any more (a finished or abandoned recording is shown once, then watch ends).")
@click.option("--full", is_flag=True, help="Do not clip long tool output and stderr.")
@click.option("--info", "show_info", is_flag=True, help="Also show findings of severity info (hidden by default).")
@click.option("--width", type=click.IntRange(40, 10000), default=None, help="Line width (default: the terminal's).")
@click.option("--why/--no-why", "why", default=True, show_default=True,
              help="When the session goes quiet, and at its end, show what it waits on (as `rpcspy why`).")
@color_option
def command(target: str | None, backlog: int, follow: bool, full: bool, show_info: bool, width: int | None,
            why: bool, color: str) -> None:
    """Show a session as it happens: the timeline of `rpcspy show`, live.

    The proxy's stdout belongs to its client (an IDE, a script), so this is how
    a person watches: from another terminal, with assistant text as it streams,
    tool calls, responses with their latency, dialogs and the findings of the
    live checker. SESSION is a proxy's pid (default: the only live one); REC a
    recording file, shown from its start. When the session has been quiet for a
    few seconds and something is outstanding (a command without response, a run
    without settle, a dialog the agent waits on...), a "why" panel says what and
    why, as `rpcspy why` does; and once more at the end.
    """
    from rpcspy.cli.recfile import make_console
    from rpcspy.interactive.live import LiveView
    from rpcspy.interactive.why_watch import WhyWatch, why_panel
    from rpcspy.render.text import TextOptions

    console = make_console(color=color, width=width)
    view = LiveView(TextOptions(full=full), wrap=max(console.width - 22, 20), show_info=show_info)
    waits = WhyWatch() if why else None
    try:
        if target is not None and os.path.isfile(target):
            batches = _recording(target, follow, lambda text: console.print(text, style="dim", highlight=False))
        else:
            batches = _session(target, backlog, console)
        for batch in batches:
            for renderable in view.feed_all(batch):
                console.print(renderable)
            if waits is not None:
                waits.feed(batch)
                if (due := waits.due()) is not None:
                    console.print(why_panel(due))
        for renderable in view.finish():
            console.print(renderable)
        if waits is not None and (end := waits.now()).outstanding:
            console.print(why_panel(end))
    except KeyboardInterrupt:  # what was shown stays; the status is every command's for Ctrl-C
        console.print("stopped watching", style="dim")
        sys.stdout.flush()
        from rpcspy.cli.exits import INTERRUPTED

        sys.exit(INTERRUPTED)
    except BrokenPipeError:
        from rpcspy.cli.recfile import quiet_broken_pipe

        quiet_broken_pipe()
    sys.stdout.flush()


def _session(spec: str | None, backlog: int, console: Any) -> Iterator[list[Any]]:
    """Batches of events from a live session's control socket, until it ends."""
    from rpcspy.pump.observers.control_client import ControlError, Subscription, find_session
    from rpcspy.recording.entries import entry_to_event

    try:
        target = find_session(spec)
    except (LookupError, ControlError) as exc:
        raise click.ClickException(str(exc)) from None
    try:
        sub = Subscription(target.socket, backlog)
    except (OSError, TimeoutError, ConnectionError) as exc:
        raise click.ClickException(f"cannot watch session {target.pid}: {exc}") from None
    if not sub.reply.get("ok"):
        sub.client.close()
        raise click.ClickException(f"cannot watch session {target.pid}: {sub.reply.get('error')}")
    from rpcspy.inert import inert_line

    console.print(inert_line(f"watching session {target.pid}: {' '.join(target.argv)}"
                             + (f" (recording to {target.meta['record_path']})" if target.meta.get("record_path")
                                else "")), style="bold", highlight=False)
    try:
        for batch in sub.batches(POLL_SECONDS * 5):  # an empty batch when quiet: a chance to show what it waits on
            yield [entry_to_event(entry) for entry in batch]
    finally:
        sub.client.close()
    if sub.ended:
        console.print("── the session ended", style="dim", highlight=False)


def _being_written(fd: int) -> bool:
    """An rpcspy is recording to this file: its writer holds an exclusive ``flock`` until it closes it."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # a file system without locks: cannot tell, keep following as before
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def _recording(path: str, follow: bool, say: Any = None) -> Iterator[list[Any]]:
    """Batches of events from a recording file, read as it grows (rpcspy recordings) or once (transcripts).

    Followed until its exit entry, or until no rpcspy writes it any more (a proxy that was killed, a
    finished recording without an exit entry): then ``say`` tells why it stopped."""
    from rpcspy.cli.recfile import open_or_fail
    from rpcspy.events import Exit, SpawnFailed
    from rpcspy.recording.entries import entry_to_event, events
    from rpcspy.recording.follow import Tail

    rec = open_or_fail(path).rec
    if rec.kind != "rpcspy":
        yield list(events(rec.entries()))
        return
    tail = Tail(rec)
    try:
        last_look = False
        while True:
            got = tail.poll(1 << 20)
            if got.read:
                if got.entries:
                    yield [entry_to_event(e) for e in got.entries]
                if any(isinstance(e, (Exit, SpawnFailed)) for e in got.entries):
                    return
                continue
            if not follow:
                return
            if last_look:
                if say is not None:
                    say("── the recording ends here without the session's exit: no rpcspy is writing it")
                return
            if not _being_written(tail.fileno()):
                last_look = True  # one more read: the writer may have added its last lines, then closed
                continue
            yield []
            time.sleep(POLL_SECONDS)
    finally:
        tail.close()
