"""The proxy's last word in a recording whose writer did not finish it (its observer process died or stopped).

The observer process writes the recording; when it ends badly the proxy, which has the same file
open, cuts a torn last line (the writer died inside it), and appends a ``note`` saying from where
and why the recording is incomplete, then the agent's ``exit`` entry. Entries only: the format is
unchanged, so every reader reads it (docs/recording-format.md, "notes").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from rpcspy.events import Exit, Note
from rpcspy.recording.format import encode_entry

_TAIL = 1 << 16
_SEQ = re.compile(rb'"seq":(\d+)')


def incomplete_text(why: str, forwarded: Mapping[str, int]) -> str:
    """The note: what happened, and what is missing (everything forwarded after the entries above)."""
    sent = ", ".join(f"{d} {n} bytes" for d, n in forwarded.items())
    return (f"the recording is incomplete from here: {why}, so what was forwarded after the entries above is "
            f"missing (forwarded in the whole session: {sent}; the client and the agent got every byte)")


def append_end(fd: int, header: Callable[[], bytes], t: float, text: str, code: int, signum: int | None) -> bool:
    """Cut a torn last line off the recording open at ``fd``, then append the note and the exit entry (after
    ``header()``, the first line, if the writer never wrote it); False if the file could not be written
    (a full disk: nothing more can be said there)."""
    try:
        end, seq = _last_line(fd)
        os.ftruncate(fd, end)
        lines = header() if end == 0 else b""
        lines += (encode_entry(Note(seq=seq + 1, t=round(t, 6), level="error", text=text))
                  + encode_entry(Exit(seq=seq + 2, t=round(t, 6), code=code, signal=signum)))
        os.pwrite(fd, lines, end)
        return True
    except OSError:
        return False


def _last_line(fd: int) -> tuple[int, int]:
    """Where the last complete line ends, and the ``seq`` of the entry on it (0: the header, or none)."""
    size = os.fstat(fd).st_size
    pos, tail = size, b""
    while pos > 0:  # find the last LF (a frame line may be long)
        step = min(_TAIL, pos)
        pos -= step
        tail = os.pread(fd, step, pos) + tail
        if b"\n" in tail:
            break
    last_nl = tail.rfind(b"\n")
    if last_nl < 0:
        return 0, 0
    end = pos + last_nl + 1
    start = end - 1
    while start > 0:  # the start of that line: the LF before it
        step = min(_TAIL, start)
        chunk = os.pread(fd, step, start - step)
        nl = chunk.rfind(b"\n")
        if nl >= 0:
            start = start - step + nl + 1
            break
        start -= step
    head = os.pread(fd, 64, start)
    found = _SEQ.search(head)
    return end, int(found.group(1)) if found else 0
