"""The client side of the control socket: find live proxies, ask them, watch them, inject.

Used by ``rpcspy sessions``, ``rpcspy inject`` and ``rpcspy watch``. The server
and the protocol are in :mod:`rpcspy.pump.observers.control` and docs/control-protocol.md.
"""

from __future__ import annotations

import errno
import glob
import json
import os
import queue
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from rpcspy.framing import DECODE_ERRORS
from rpcspy.pump.observers.control import ControlError, meta_path, runtime_dir, socket_path, unregister

__all__ = ["ControlClient", "ControlError", "ControlGone", "SessionEntry", "Subscription", "find_session",
           "list_sessions"]


class ControlGone(ConnectionError):
    """The session's control socket is gone: its file was removed, or nothing listens on it any more."""


def gone(path: str, exc: OSError) -> ControlGone:
    """What a client that cannot reach the control socket at ``path`` is told (``exc``: why connect failed)."""
    stem = os.path.basename(path).removesuffix(".sock")
    who = f"session {stem}" if stem.isdigit() else "the session"
    if exc.errno == errno.ENOENT:
        why = f"{path} does not exist (the session ended, or runs with --no-control)"
    else:
        why = (f"nothing listens on {path} (its observer process died: the session may still be forwarding, "
               "but cannot be watched, asked or injected into)")
    return ControlGone(f"{who}'s control socket is gone: {why}")


class ControlClient:
    """A connection to one proxy's control socket.

    A reader thread takes every line the server sends: entry lines go to
    ``on_entry`` (decoded), responses to injections to ``on_response`` (and to
    :meth:`wait_response`), replies to requests to the call waiting for them.
    ``on_close`` is called once when the server closes the connection.
    """

    def __init__(self, path: str, *, on_entry: Callable[[Any], None] | None = None,
                 on_response: Callable[[dict[str, Any]], None] | None = None,
                 on_close: Callable[[], None] | None = None, timeout: float = 5.0) -> None:
        self.path = path
        self.on_entry = on_entry
        self.on_response = on_response
        self.on_close = on_close
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except OSError as exc:
            self.sock.close()
            if exc.errno in (errno.ENOENT, errno.ECONNREFUSED):
                raise gone(path, exc) from None
            raise
        self.sock.settimeout(None)
        self._ref = 0
        self._lock = threading.Lock()
        self._waiting: dict[Any, queue.Queue[dict[str, Any]]] = {}
        self._responses: dict[Any, queue.Queue[dict[str, Any]]] = {}
        self.errors: list[str] = []
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._read_loop, name="rpcspy-control-client", daemon=True)
        self._thread.start()

    # --- requests ----------------------------------------------------------------------
    def call(self, op: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """Send one request and wait for its reply (``ok`` false replies are returned, not raised)."""
        with self._lock:
            self._ref += 1
            ref = self._ref
            waiter: queue.Queue[dict[str, Any]] = queue.Queue()
            self._waiting[ref] = waiter
            if op == "inject":
                self._responses[ref] = queue.Queue()
        self.sock.sendall(json.dumps({"op": op, "ref": ref, **fields}, ensure_ascii=False).encode() + b"\n")
        try:
            reply = waiter.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no reply to {op} within {timeout} s") from None
        finally:
            with self._lock:
                self._waiting.pop(ref, None)
        if reply.get("op") == "closed":
            raise ConnectionError("the session closed the control connection")
        reply["ref"] = ref
        return reply

    def info(self, timeout: float = 5.0) -> dict[str, Any]:
        return self.call("info", timeout)

    def subscribe(self, backlog: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        """Start the stream of entries (the last ``backlog`` events first)."""
        return self.call("subscribe", timeout, backlog=backlog)

    def inject(self, command: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Inject one command; the reply says whether it was sent and under which id."""
        return self.call("inject", timeout, command=command)

    def wait_response(self, ref: Any, timeout: float) -> dict[str, Any]:
        """The ``response`` message for the inject request ``ref`` (TimeoutError if none in time)."""
        with self._lock:
            q = self._responses.get(ref)
        if q is None:
            raise KeyError(ref)
        try:
            msg = q.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no response within {timeout} s") from None
        if msg.get("op") == "closed":
            raise ConnectionError("the session ended before the agent answered")
        return msg

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self._thread.join(2.0)

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the reader --------------------------------------------------------------------
    def _read_loop(self) -> None:
        try:
            with self.sock.makefile("rb") as f:
                for line in f:
                    self._dispatch(line)
        except (OSError, ValueError):
            pass
        finally:
            self.closed.set()
            with self._lock:
                waiters = list(self._waiting.values()) + list(self._responses.values())
            for q in waiters:
                q.put({"op": "closed"})
            if self.on_close is not None:
                self.on_close()

    def _dispatch(self, line: bytes) -> None:
        if not line.startswith(b'{"op":'):
            if self.on_entry is not None:
                from rpcspy.recording.decode import entry_or_none

                entry = entry_or_none(line)
                if entry is not None:
                    self.on_entry(entry)
            return
        try:
            msg = json.loads(line)
        except DECODE_ERRORS:
            return
        if not isinstance(msg, dict):
            return
        op, ref = msg.get("op"), msg.get("ref")
        if op == "response":
            with self._lock:
                q = self._responses.get(ref)
            if q is not None:
                q.put(msg)
            if self.on_response is not None:
                self.on_response(msg)
            return
        with self._lock:
            waiter = self._waiting.get(ref)
        if waiter is not None:
            waiter.put(msg)
        elif op == "error":
            self.errors.append(str(msg.get("error")))


# --- finding sessions ------------------------------------------------------------------
class Subscription:
    """A live session's entry lines from its control socket, read by the client's thread, handed out in batches.

    Raises what :class:`ControlClient` and :meth:`ControlClient.subscribe` raise; ``reply`` is the
    server's answer to the subscription (``ok`` false: refused, and nothing will come).
    """

    def __init__(self, path: str, backlog: int) -> None:
        self._inbox: queue.Queue[Any] = queue.Queue()
        self.client = ControlClient(path, on_entry=self._inbox.put, on_close=lambda: self._inbox.put(None))
        try:
            self.reply = self.client.subscribe(backlog)
        except BaseException:
            self.client.close()
            raise
        self.ended = False
        """True once the session ended (the server closed the connection)."""

    def batches(self, idle: float) -> Iterator[list[Any]]:
        """Lists of decoded entries as they come; an empty list after ``idle`` seconds of quiet. Closes at the end."""
        try:
            while True:
                try:
                    entry = self._inbox.get(timeout=idle)
                except queue.Empty:
                    yield []
                    continue
                batch = []
                while entry is not None:
                    batch.append(entry)
                    try:
                        entry = self._inbox.get_nowait()
                    except queue.Empty:
                        break
                if batch:
                    yield batch
                if entry is None:
                    self.ended = True
                    return
        finally:
            self.client.close()


@dataclass
class SessionEntry:
    """One registered proxy: its metadata file, and what it said when asked (if alive)."""

    pid: int
    meta: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] | None = None
    state: str = "live"
    """live, not responding, control gone (the proxy runs, but nothing serves its socket: its observer
    process died), or stale (its process is gone; its files were removed)."""

    @property
    def socket(self) -> str:
        return str(self.meta.get("socket") or "")

    @property
    def argv(self) -> list[str]:
        return list((self.info or self.meta).get("argv") or [])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def list_sessions(*, clean: bool = True, timeout: float = 1.0, ask: bool = True) -> list[SessionEntry]:
    """Every proxy registered in the runtime directory, oldest first; stale ones are removed if ``clean``."""
    directory = runtime_dir(create=False)
    if not os.path.isdir(directory):
        return []
    pids = set()
    for path in glob.glob(os.path.join(directory, "*.json")) + glob.glob(os.path.join(directory, "*.sock")):
        stem = os.path.basename(path).rsplit(".", 1)[0]
        if stem.isdigit():
            pids.add(int(stem))
    out: list[SessionEntry] = []
    for pid in sorted(pids):
        entry = SessionEntry(pid)
        try:
            with open(meta_path(directory, pid), "rb") as f:
                entry.meta = json.loads(f.read())
        except (OSError, ValueError):
            entry.meta = {"pid": pid, "socket": socket_path(directory, pid)}
        entry.meta.setdefault("socket", socket_path(directory, pid))
        if not _alive(pid):
            entry.state = "stale"
            if clean:
                unregister(pid, directory)
        elif ask:
            try:
                with ControlClient(entry.socket, timeout=timeout) as client:
                    entry.info = client.info(timeout)
            except ControlGone:
                entry.state = "control gone"
            except (OSError, TimeoutError, ConnectionError):
                entry.state = "not responding"
        out.append(entry)
    out.sort(key=lambda e: float(e.meta.get("started_unix") or 0))
    return out


def find_session(spec: str | None) -> SessionEntry:
    """The live session named by ``spec`` (proxy pid, agent pid or socket path), or the only one.

    Raises LookupError with a message saying what to do.
    """
    if spec and os.sep in spec and spec.endswith(".sock"):
        return SessionEntry(pid=0, meta={"socket": spec})
    live = [s for s in list_sessions(ask=False) if s.state == "live"]
    if spec:
        if not spec.isdigit():
            raise LookupError(f"{spec!r} is not a session: give the pid shown by `rpcspy sessions` (or a socket path)")
        pid = int(spec)
        for s in live:
            if pid in (s.pid, s.meta.get("agent_pid")):
                return s
        raise LookupError(f"no live rpcspy session with pid {pid} (see `rpcspy sessions`)")
    if not live:
        raise LookupError("no live rpcspy session (start one with `rpcspy -- AGENT...`; see `rpcspy sessions`)")
    if len(live) > 1:
        pids = ", ".join(f"{s.pid} ({' '.join(s.argv)[:40]})" for s in live)
        raise LookupError(f"{len(live)} live sessions: say which one: {pids}")
    return live[0]
