"""One client of the control socket: a reader thread for its requests, a writer thread for its stream.

The session's side only ever appends to the connection's queue (:meth:`Connection.push`
never blocks); the writer thread sends. Limits (docs/control-protocol.md): a client that lets
more than :data:`OUT_LIMIT` bytes pile up is sent an error and disconnected; one that takes no
byte for :data:`SEND_TIMEOUT` seconds is disconnected; a request line longer than
:data:`LINE_LIMIT` is answered with an error and the connection closed. Nothing a client sends
makes a thread print a traceback.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable

OUT_LIMIT = 16 << 20
"""Bytes queued for one client before it is disconnected as too slow (twice the subscribe backlog)."""
LINE_LIMIT = 16 << 20
"""The longest request line read; a longer one (or one without end) closes the connection."""
SEND_TIMEOUT = 10
"""Seconds a client may take no byte of what it is sent before it is disconnected."""
DISCARD_SECONDS = 2.0
"""After a line too long: how long what the client still sends is read and dropped before closing."""


def dumps(obj: dict) -> bytes:
    """One control message line."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class Connection:
    """One client: a reader thread for its requests, a writer thread for what it is sent."""

    def __init__(self, sock: socket.socket, on_request: Callable[[Connection, bytes], None],
                 on_gone: Callable[[Connection], None]) -> None:
        self.sock = sock
        self.on_request = on_request
        self.on_gone = on_gone
        self._out: deque[bytes] = deque()
        self._size = 0
        self._cond = threading.Condition()
        self._closing = False
        self.closed = False
        self.writer = threading.Thread(target=self._write_loop, name="rpcspy-control-out", daemon=True)
        self.reader = threading.Thread(target=self._read_loop, name="rpcspy-control-in", daemon=True)

    def start(self) -> None:
        try:  # a client that never reads frees its writer thread after SEND_TIMEOUT
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", SEND_TIMEOUT, 0))
        except OSError:
            pass
        self.writer.start()
        self.reader.start()

    def push(self, data: bytes) -> None:
        """Queue bytes for the client (never blocks)."""
        with self._cond:
            if self._closing:
                return
            if self._size + len(data) > OUT_LIMIT:
                self._out.clear()
                self._out.append(dumps({"op": "error", "error": "too far behind the session; disconnected"}))
                self._closing = True
            else:
                self._out.append(data)
                self._size += len(data)
            self._cond.notify()

    def finish(self) -> None:
        """Send what is queued, then close."""
        with self._cond:
            self._closing = True
            self._cond.notify()

    def _write_loop(self) -> None:
        try:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._out or self._closing)
                    batch = list(self._out)
                    self._out.clear()
                    self._size = 0
                    last = self._closing and not batch
                if last:
                    break
                self.sock.sendall(b"".join(batch))
        except OSError:
            pass
        finally:
            self._shut()

    def _read_loop(self) -> None:
        try:
            with self.sock.makefile("rb") as f:
                while line := f.readline(LINE_LIMIT + 1):
                    if len(line) > LINE_LIMIT:
                        self.push(dumps({"op": "error", "ok": False, "error": f"request line longer than "
                                         f"{LINE_LIMIT >> 20} MiB; disconnected"}))
                        self._discard(DISCARD_SECONDS)
                        break
                    if line.strip():
                        self._request(line)
        except (OSError, ValueError):
            pass
        self.finish()  # the client is gone (or half-closed: that ends the connection too)

    def _discard(self, seconds: float) -> None:
        """Read and drop what the client still sends, for a while: closing on unread bytes would
        reset the connection before it reads why."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready or not self.sock.recv(1 << 16):
                return

    def _request(self, line: bytes) -> None:
        try:
            self.on_request(self, line)
        except Exception as exc:  # noqa: BLE001 - a bug answered to its client, never a traceback on the terminal
            self.push(dumps({"op": "error", "ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}))

    def _shut(self) -> None:
        with self._cond:
            self._closing = True
            self.closed = True
        self.on_gone(self)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
