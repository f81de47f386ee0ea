"""The control server's tests' fake session, event feeding and raw line client (fixtures ``rundir`` and
``server``: tests/pump/conftest.py)."""

from __future__ import annotations

import json
import os
import socket

from rpcspy.events import Frame


class FakeSession:
    """What the control server needs of a session; records what it is asked to do."""

    def __init__(self, on_inject=None) -> None:
        self.argv = ["pi", "--mode", "rpc"]
        self.record_path = "rec.jsonl"
        self.mode = "proxy"
        self.proxy_pid = os.getpid()
        self.started = 1_700_000_000.0
        self.injected: list[bytes] = []
        self.diverted: list[bytes] = []
        self.on_inject = on_inject
        self.arms = True
        """Whether divert_ids says the divert is armed."""

    def inject(self, line: bytes) -> None:
        self.injected.append(line)
        if self.on_inject is not None:
            self.on_inject(line)

    def divert_ids(self, prefix: bytes, within: float) -> bool:
        self.diverted.append(prefix)
        return self.arms




def feed(srv, *events) -> None:
    for e in events:
        srv.handle(e, lambda _e: None)
    srv.flush()


def frame(seq: int, direction: str, obj, injected: bool = False) -> Frame:
    return Frame(seq, seq / 10, direction, json.dumps(obj, separators=(",", ":")).encode(), injected=injected)


class Lines:
    """A raw client: send request lines, read reply lines."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(path)
        self.f = self.sock.makefile("rb")

    def send(self, obj) -> None:
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def line(self) -> bytes:
        return self.f.readline()

    def close(self) -> None:
        self.f.close()
        self.sock.close()
