"""One client of the control socket: a reader thread for its requests, a writer thread for its stream.

The session's side only ever appends to the connection's queue (:meth:`Connection.push`
never blocks); the writer thread sends. A client that lets more than
:data:`OUT_LIMIT` bytes pile up is sent an error and disconnected.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable

OUT_LIMIT = 32 << 20
"""Bytes queued for one client before it is disconnected as too slow."""


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
                for line in f:
                    if line.strip():
                        self.on_request(self, line)
        except (OSError, ValueError):
            pass
        self.finish()  # the client is gone (or half-closed: that ends the connection too)

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
