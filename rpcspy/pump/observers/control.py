"""The control socket every proxy offers: list, watch and inject into a live session.

:func:`start_control` (called by the proxy with its session) binds
``<runtime dir>/<proxy pid>.sock`` (owner-only, in an owner-only directory),
writes ``<pid>.json`` beside it and returns the :class:`ControlServer` observer.
Clients speak JSONL; see docs/control-protocol.md. In short:

* ``{"op":"info"}``: the session's metadata and live frame counts;
* ``{"op":"subscribe","backlog":N}``: from then on, every recording entry line,
  the same bytes as the recording (the last N events first);
* ``{"op":"inject","command":{...}}``: the command goes to the agent between the
  client's frames with an id of our own (``rpcspy-inject-<n>``); its response is
  kept from the client and comes back here only, with the injector's id restored;
* ``{"op":"why"}``: what is outstanding in the session now, and why
  (:mod:`rpcspy.diagnose`, fed every event as it passes).

Every message the server sends is one line; control messages start with
``{"op":``, entry lines with ``{"kind":``. The observer side (``handle``) only
appends to per-connection queues: a slow client never slows the session; one
that falls too far behind is disconnected.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import threading
import time
from typing import Any

from rpcspy.events import Direction, Eof, Event, Exit, Frame, Start, frames_of
from rpcspy.framing import DECODE_ERRORS
from rpcspy.injection.ledger import ARM_WITHIN, Ledger, Push, refusal
from rpcspy.pump.forward.hub import Emit
from rpcspy.pump.forward.session import Session
from rpcspy.pump.observers.control_backlog import BACKLOG_EVENTS, Backlog, Chunk
from rpcspy.pump.observers.control_conn import Connection, dumps
from rpcspy.recording.writer import event_line, lines_entries

MAX_CLIENTS = 16
"""Connections served at once (two threads each); one more is told so and closed."""
_MARKS = (Start, Exit, Eof)
"""Events the control server acts on besides frames (an observer's findings and notes only pass through)."""


class ControlError(Exception):
    """The control socket cannot be offered (unsafe or unusable runtime directory)."""


def runtime_dir(create: bool = True) -> str:
    """``$XDG_RUNTIME_DIR/rpcspy`` or ``/tmp/rpcspy-$UID``: a directory only this user can enter."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    path = os.path.join(base, "rpcspy") if base else f"/tmp/rpcspy-{os.getuid()}"
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ControlError(f"cannot create {path}: {exc.strerror}") from None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if create:
            raise ControlError(f"{path} vanished") from None
        return path
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise ControlError(f"{path} is not a directory owned by this user; refusing to use it")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def socket_path(directory: str, pid: int) -> str:
    return os.path.join(directory, f"{pid}.sock")


def meta_path(directory: str, pid: int) -> str:
    return os.path.join(directory, f"{pid}.json")




class ControlServer:
    """The observer side of the control socket, plus its listener thread."""

    name = "control"

    def __init__(self, session: Session, directory: str | None = None) -> None:
        self.session = session
        self.pid = session.proxy_pid
        self.argv = list(session.argv)
        self.record_path = session.record_path
        self.mode = session.mode
        self.started = session.started
        self.dir = directory or runtime_dir()
        self.sock_path = socket_path(self.dir, self.pid)
        self.meta_path = meta_path(self.dir, self.pid)
        self.frames = {"c2a": 0, "a2c": 0, "err": 0}
        self.injected = {"c2a": 0, "a2c": 0}
        self.agent_pid: int | None = None
        self.exit_code: int | None = None
        self.input_closed = False
        self._lock = threading.Lock()
        self._inject_lock = threading.Lock()
        self._conns: set[Connection] = set()
        self._subs: list[Connection] = []
        self._backlog = Backlog()
        self._ledger: Ledger[Connection] = Ledger()
        self._closed = False
        from rpcspy.diagnose.tracker import Tracker

        self._why = Tracker()
        self._why_lock = threading.Lock()
        self._listener = self._listen()
        self._write_meta()
        self._thread = threading.Thread(target=self._accept_loop, name="rpcspy-control", daemon=True)
        self._thread.start()

    # --- socket and registry ---------------------------------------------------------
    def _listen(self) -> socket.socket:
        """Listen on a socket bound beside its path, then rename it into place: a client that finds the path
        can connect (bound at the path itself, a connect between bind and listen was refused, and the
        client would say that nothing listens there)."""
        binding = self.sock_path.removesuffix(".sock") + ".new"  # no longer than the path: sun_path's limit
        for path in (self.sock_path, binding):  # our pid: leftovers of a dead process that had it before
            if os.path.lexists(path):
                os.unlink(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(binding)
            os.chmod(binding, 0o600)  # the directory is 0700 already: nobody else got in between
            sock.listen(16)
            os.rename(binding, self.sock_path)
        except OSError:
            sock.close()
            with contextlib.suppress(OSError):
                os.unlink(binding)
            raise
        return sock

    def metadata(self) -> dict[str, Any]:
        from rpcspy import __version__

        return {
            "pid": self.pid, "agent_pid": self.agent_pid, "argv": self.argv, "cwd": os.getcwd(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)), "started_unix": self.started,
            "record_path": os.path.abspath(self.record_path) if self.record_path else None,
            "mode": self.mode, "socket": self.sock_path, "rpcspy": __version__,
        }

    def _write_meta(self) -> None:
        tmp = f"{self.meta_path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(dumps(self.metadata()))
        os.replace(tmp, self.meta_path)

    def _accept_loop(self) -> None:
        while True:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return  # closed
            conn = Connection(sock, self.request, self.forget)
            with self._lock:
                if self._closed:
                    sock.close()
                    return
                full = len(self._conns) >= MAX_CLIENTS
                if not full:
                    self._conns.add(conn)
            if full:
                _refuse(sock, f"too many control clients ({MAX_CLIENTS}); try again later")
                continue
            conn.start()

    def forget(self, conn: Connection) -> None:
        with self._lock:
            self._conns.discard(conn)
            if conn in self._subs:
                self._subs.remove(conn)

    # --- observer ----------------------------------------------------------------------
    def handle(self, event: Event, emit: Emit) -> None:
        self.handle_batch([event])

    def handle_lines(self, direction: Direction, t: float, first: int, lines: list[bytes], injected: bool) -> None:
        """A chunk's frames as their lines (the dispatcher's :class:`~rpcspy.pump.forward.hub.Lines` path): the same
        as :meth:`handle_batch` of ``frames_of(first, t, direction, lines, injected)``, with no object per
        frame: the why tracker skips message updates by the chunk, the backlog holds the chunk itself."""
        if not lines:
            return
        with self._why_lock:
            self._why.feed_lines(direction, t, first, lines, injected)
        self.frames[direction] += len(lines)
        if injected and direction != "err":
            self._injected(frames_of(first, t, direction, lines, injected))
        with self._lock:
            self._backlog.add_chunk(Chunk(direction, t, first, lines, injected))
            if self._subs:
                data = b"".join(lines_entries(direction, t, first, lines, injected))
                for conn in self._subs:
                    conn.push(data)

    def handle_batch(self, events: list[Event]) -> None:
        """Events in order: the why tracker, counts and answers to injections, the backlog, watchers."""
        frames = [e for e in events if type(e) is Frame]
        if len(frames) == len(events) or not any(type(e) in _MARKS for e in events):
            self._frames(frames)  # nothing in between that the frames' order matters to
        else:
            for event in events:
                if type(event) is Frame:
                    self._frames([event])
                else:
                    self._mark(event)
        with self._lock:
            self._backlog.add_events(events)
            for event in events if self._subs else ():
                line = event_line(event)
                for conn in self._subs:
                    conn.push(line)

    def backlog(self, n: int) -> list[Event]:
        """The last ``n`` events at most (the lock is held; :meth:`Backlog.last`)."""
        return self._backlog.last(n)

    def _frames(self, frames: list[Frame]) -> None:
        """Frames in order: the why tracker, the counts, answers to injections."""
        with self._why_lock:
            self._why.feed_many(frames)
        dirs: list[str] = [f.dir for f in frames]
        counts = self.frames
        for direction in counts:
            counts[direction] += dirs.count(direction)
        self._injected([f for f in frames if f.injected and f.dir != "err"])

    def _injected(self, frames: list[Frame]) -> None:
        """Injected frames: counted; a diverted answer goes to its injector only."""
        for frame in frames:
            self.injected[frame.dir] += 1
            if frame.dir == "a2c":
                with self._lock:
                    self._execute(self._ledger.answer(frame.data))

    def _mark(self, event: Event) -> None:
        """Any other event: the start, the exit, EOFs (the rest only pass through)."""
        with self._why_lock:
            self._why.observe(event)
        if isinstance(event, Start):
            self.agent_pid = event.pid
            try:
                self._write_meta()
            except OSError:
                pass
        elif isinstance(event, Exit):
            self.exit_code = event.code
            with self._lock:
                self._execute(self._ledger.fail_all("the agent exited before answering"))
        elif isinstance(event, Eof) and event.dir == "c2a":
            self.input_closed = True

    def flush(self) -> None:
        pass

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns = list(self._conns)
            self._execute(self._ledger.fail_all("the session ended before the agent answered"))
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        for path in (self.sock_path, self.meta_path):
            try:
                os.unlink(path)
            except OSError:
                pass
        for conn in conns:
            conn.finish()
        deadline = time.monotonic() + 2.0
        for conn in conns:
            conn.writer.join(max(0.0, deadline - time.monotonic()))

    # --- requests ----------------------------------------------------------------------
    def request(self, conn: Connection, line: bytes) -> None:
        """One request line from a client (its reader thread)."""
        try:
            req = json.loads(line)
        except DECODE_ERRORS as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
            conn.push(dumps({"op": "error", "ok": False, "error": f"not JSON: {reason}"}))
            return
        if not isinstance(req, dict):
            conn.push(dumps({"op": "error", "ok": False, "error": "a request is a JSON object"}))
            return
        op, ref = req.get("op"), req.get("ref")
        if op == "info":
            conn.push(dumps({"op": "info", "ref": ref, "ok": True, **self.info()}))
        elif op == "subscribe":
            self._subscribe(conn, ref, req.get("backlog", 0))
        elif op == "inject":
            self._inject(conn, ref, req.get("command"))
        elif op == "why":
            conn.push(dumps({"op": "why", "ref": ref, "ok": True, "why": self.why(req.get("client_timeout"))}))
        else:
            conn.push(dumps({"op": str(op), "ref": ref, "ok": False, "error": f"unknown op {op!r}"}))

    def info(self) -> dict[str, Any]:
        with self._lock:
            subscribers = len(self._subs)
        return {**self.metadata(), "frames": dict(self.frames), "injected": dict(self.injected),
                "subscribers": subscribers, "exit_code": self.exit_code, "input_closed": self.input_closed}

    def why(self, client_timeout: Any = None) -> dict[str, Any]:
        """The diagnosis of the session now (recording time), as JSON."""
        from rpcspy.diagnose.explain import explain

        with self._why_lock:
            if isinstance(client_timeout, (int, float)) and client_timeout > 0:
                self._why.client_timeout = float(client_timeout)
            now = max(self._why.t, time.time() - self.started) if self.exit_code is None else None
            return explain(self._why, now).to_json()

    def _subscribe(self, conn: Connection, ref: Any, backlog: Any) -> None:
        if backlog is True:
            backlog = BACKLOG_EVENTS
        n = backlog if isinstance(backlog, int) and not isinstance(backlog, bool) else 0
        with self._lock:
            events = self.backlog(n) if n > 0 else []
            conn.push(dumps({"op": "subscribe", "ref": ref, "ok": True, "backlog": len(events)}))
            for event in events:
                conn.push(event_line(event))
            if conn not in self._subs:
                self._subs.append(conn)

    def _inject(self, conn: Connection, ref: Any, command: Any) -> None:
        """Execute the ledger's decisions: divert (until armed; not armed in time: refused, nothing
        sent), send the line, acknowledge."""
        error = refusal(command, exited=self.exit_code is not None, input_closed=self.input_closed)
        if error is None:
            with self._inject_lock:
                with self._lock:
                    injection = self._ledger.register(conn, ref, command)
                try:
                    if injection.divert is not None:
                        if self.session.divert_ids(injection.divert, ARM_WITHIN):
                            self._ledger.diverted()  # register() reads it under _inject_lock too
                        else:
                            with self._lock:
                                error = self._ledger.unarmed(injection, ARM_WITHIN)
                    if error is None:
                        self.session.inject(dumps(injection.command))
                except (OSError, RuntimeError, ValueError) as exc:
                    error = f"cannot inject: {exc}"
                    with self._lock:
                        self._ledger.withdraw(injection)
        if error is not None:
            conn.push(dumps({"op": "inject", "ref": ref, "ok": False, "error": error}))
            return
        with self._lock:
            self._execute(self._ledger.acknowledge(conn, ref, injection))

    def _execute(self, pushes: list[Push[Connection]]) -> None:
        for push in pushes:
            push.to.push(dumps(push.message))


def _refuse(sock: socket.socket, error: str) -> None:
    try:
        sock.send(dumps({"op": "error", "ok": False, "error": error}), socket.MSG_DONTWAIT)
    except OSError:
        pass
    sock.close()


def start_control(session: Session) -> ControlServer:
    """Offer the control socket for ``session``; the returned observer cleans up at ``close()``."""
    return ControlServer(session)


def unregister(pid: int, directory: str | None = None) -> None:
    """Remove the socket and metadata files of proxy ``pid``: the proxy does so at its exit, in case its
    observer process (which serves the socket and removes them at its end) was killed first."""
    try:
        directory = directory or runtime_dir(create=False)
    except ControlError:  # not ours to clean: nothing of ours can be there
        return
    meta = meta_path(directory, pid)
    try:  # a metadata file being rewritten when its observer process was killed or stopped: NAME.PID.tmp
        partial = [os.path.join(directory, n) for n in os.listdir(directory)
                   if n.startswith(os.path.basename(meta) + ".") and n.endswith(".tmp")]
    except OSError:
        partial = []
    for path in (socket_path(directory, pid), meta, *partial):
        try:
            os.unlink(path)
        except OSError:
            pass

