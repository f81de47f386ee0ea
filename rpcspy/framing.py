"""Splitting a byte stream into LF-terminated lines, with no size limit.

Only ``\\n`` separates records. A ``\\r`` before the ``\\n`` is reported separately
(``cr``) so consumers can parse the line while the exact bytes stay recoverable.
U+2028, U+2029, lone ``\\r`` and NUL are ordinary bytes here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

DECODE_ERRORS: tuple[type[Exception], ...] = (ValueError, RecursionError)
"""What decoding one line's JSON can raise on hostile bytes: msgspec's DecodeError and
ValidationError and UnicodeDecodeError (invalid UTF-8) are ValueErrors; msgspec and the
stdlib give up with RecursionError near 1000 levels of nesting, even for a value skipped
or kept raw. Code that decodes a frame catches these, never a narrower set."""


SPLIT_BELOW = 2048
"""Lines up to this long are split with ``bytes.split``; longer ones are found with ``bytes.find``."""


class LineFramer:
    """Incremental LF framer: ``feed()`` chunks, get complete lines back.

    Partial lines are kept as a list of pieces and joined once, so a 100 MB line
    arriving in 64 KiB chunks costs linear, not quadratic, time.
    """

    __slots__ = ("_pieces", "_pending")

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._pending = 0

    @property
    def pending(self) -> int:
        """Bytes held for an unfinished line."""
        return self._pending

    def feed(self, chunk: bytes) -> list[bytes]:
        """The complete lines (without their LF) that ``chunk`` finishes.

        Short lines are split in one call; long ones are found with ``find`` (memchr), which
        skips a long line about 3x faster than ``split``'s byte loop.
        """
        find = chunk.find
        nl = find(b"\n")
        if nl < 0:
            lines: list[bytes] = []
            rest = chunk
        elif 0 <= find(b"\n", nl + 1) - nl <= SPLIT_BELOW:  # the next line is short: most likely all are
            lines = chunk.split(b"\n")
            rest = lines.pop()
        else:
            lines = []
            append = lines.append
            start = 0
            while nl >= 0:
                append(chunk[start:nl])
                start = nl + 1
                nl = find(b"\n", start)
            rest = chunk[start:]
        if self._pieces and lines:  # the first line began in earlier chunks
            self._pieces.append(lines[0])
            lines[0] = b"".join(self._pieces)
            self._pieces.clear()
            self._pending = 0
        if rest:
            self._pieces.append(rest)
            self._pending += len(rest)
        return lines

    def finish(self) -> bytes | None:
        """At EOF: the last line if it had no LF, else None."""
        if not self._pieces:
            return None
        line = b"".join(self._pieces)
        self._pieces.clear()
        self._pending = 0
        return line


def split_cr(line: bytes) -> tuple[bytes, bool]:
    """Strip one trailing CR; report whether there was one."""
    if line.endswith(b"\r"):
        return line[:-1], True
    return line, False


def read_lines(read: Callable[[int], bytes], size: int = 1 << 20) -> Iterator[tuple[bytes, bool]]:
    """The lines of a stream as ``(line, had_lf)``: ``read(size)`` until it returns nothing.

    The one line-reading loop: files (``f.read``), ranges read with ``os.pread``, buffers.
    """
    framer = LineFramer()
    while chunk := read(size):
        for line in framer.feed(chunk):
            yield line, True
    last = framer.finish()
    if last is not None:
        yield last, False


def iter_lines(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """All lines of a complete buffer as ``(line, had_lf)``; LF is the only separator."""
    chunks = iter((data,))
    return read_lines(lambda _size: next(chunks, b""))
