"""The scripted model server: an OpenAI-compatible streaming chat-completions endpoint on loopback.

What it answers is decided by :func:`rpcspy.modelserver.script.plan_reply`; this module
only speaks HTTP (stdlib ``http.server``, one thread per connection). Every request is
kept in :attr:`ModelServer.requests`, so tests can assert what the agent sent.
"""

from __future__ import annotations

import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rpcspy.modelserver.script import MODELS, Reply, error_body, plan_reply, sse_chunks


@dataclass(slots=True)
class Request:
    """One HTTP request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any = None

    @property
    def is_chat(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/").endswith("/chat/completions")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _record(self, body: Any) -> None:
        req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with self.server.owner._lock:
            self.server.owner.requests.append(req)

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        self._record(None)
        if self.path.rstrip("/").endswith("/models"):
            data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"} for m in MODELS]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        self._record(body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        owner = self.server.owner
        with owner._lock:
            reply = owner.plan(body, owner._seen_errors, owner.slow_delay)
            owner._responses += 1
            response_id = f"chatcmpl-{owner._responses}"
        if reply.status != 200:
            self._send_json(reply.status, error_body(reply), reply.headers)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for chunk in sse_chunks(reply, str(body.get("model", "fake-model")), response_id):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
                if reply.delay:
                    time.sleep(reply.delay)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the agent aborted the stream


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "ModelServer"
    handlers: "dict[threading.Thread, Any]"

    def process_request(self, request: Any, client_address: Any) -> None:
        """One thread per connection, remembered so :meth:`ModelServer.stop` can wait for them: no handler
        is left inside a socket call when the interpreter shuts down."""
        th = threading.Thread(target=self._handle, args=(request, client_address), name="model-server-conn",
                              daemon=True)
        self.handlers[th] = request
        th.start()

    def _handle(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            self.handlers.pop(threading.current_thread(), None)

    def handle_error(self, request: object, client_address: Any) -> None:
        """A client that went away mid-request (an agent killed while streaming, at every ``conform``
        case's end) is no error; anything else is one line on stderr, never socketserver's traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        where = ":".join(map(str, client_address)) if isinstance(client_address, tuple) else client_address
        sys.stderr.write(f"rpcspy model-server: a request from {where} failed: {type(exc).__name__}: {exc}\n")


class ModelServer:
    """The scripted server; use as a context manager or call :meth:`start`/:meth:`stop`."""

    def __init__(self, *, slow_delay: float = 0.05, host: str = "127.0.0.1", port: int = 0,
                 plan: Callable[[dict[str, Any], dict[str, int], float], Reply] = plan_reply) -> None:
        """``plan``: what to answer a chat request (body, the ``error:`` prompts already failed, the slow
        delay); the script's :func:`~rpcspy.modelserver.script.plan_reply` unless a caller wraps it."""
        self.plan = plan
        self.slow_delay = slow_delay
        self.host = host
        self.requested_port = port
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._seen_errors: dict[str, int] = {}
        self._responses = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``baseUrl`` for models.json: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def chat_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.is_chat]

    def reset(self) -> None:
        """Forget recorded requests and which ``error:`` prompts already failed."""
        with self._lock:
            self.requests.clear()
            self._seen_errors.clear()

    def start(self) -> "ModelServer":
        self._server = _Server((self.host, self.requested_port), _Handler)
        self._server.owner = self
        self._server.handlers = {}
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="model-server", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Block until :meth:`stop` is called from another thread (or KeyboardInterrupt)."""
        assert self._thread is not None, "server not started"
        while self._thread.is_alive():
            self._thread.join(0.2)

    def serve_until_signalled(self, announce: Callable[[str], None] | None = None,
                              ready: Callable[[], None] | None = None) -> None:
        """Serve until Ctrl-C or SIGTERM (a handler is set: call from the main thread), then stop.

        ``ready`` runs once the SIGTERM handler is in place: print the URL there, so a caller that
        signals as soon as it has read it cannot kill the process before the handler exists.
        """
        def stop(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        try:
            if ready is not None:
                ready()
            if announce is not None:
                announce("serving (Ctrl-C to stop)")
            self.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self, grace: float = 2.0) -> None:
        """Stop serving, then give open connections ``grace`` seconds to end (their agents are gone
        by then, so each handler sees its socket close), shutting down the sockets of any left."""
        if self._server is None:
            return
        server, self._server = self._server, None
        server.shutdown()
        server.server_close()
        deadline = time.monotonic() + grace
        for th in list(server.handlers):
            th.join(max(0.0, deadline - time.monotonic()))
        for th, sock in list(server.handlers.items()):  # a client still connected: cut it, let the handler end
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            th.join(0.5)

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
