"""Building small rpcspy recordings for replay tests."""

from __future__ import annotations

from pathlib import Path

import msgspec

from rpcspy.events import Eof, Exit, Frame, Note
from rpcspy.recording.writer import RecordingWriter, make_header


class Rec:
    """Append events with increasing seq; ``c``/``a``/``e`` add client, agent and stderr frames."""

    def __init__(self) -> None:
        self.events: list = []
        self.t = 0.0

    def _seq(self) -> int:
        return len(self.events) + 1

    def at(self, t: float) -> Rec:
        self.t = t
        return self

    def c(self, obj, *, raw: bytes | None = None) -> Rec:
        data = raw if raw is not None else msgspec.json.encode(obj)
        self.events.append(Frame(self._seq(), self.t, "c2a", data))
        return self

    def a(self, obj, *, raw: bytes | None = None, dt: float = 0.0) -> Rec:
        self.t += dt
        data = raw if raw is not None else msgspec.json.encode(obj)
        self.events.append(Frame(self._seq(), self.t, "a2c", data))
        return self

    def e(self, text: str) -> Rec:
        self.events.append(Frame(self._seq(), self.t, "err", text.encode()))
        return self

    def note(self, text: str) -> Rec:
        self.events.append(Note(self._seq(), self.t, "info", text))
        return self

    def eof(self) -> Rec:
        self.events.append(Eof(self._seq(), self.t, "c2a"))
        return self

    def exit(self, code: int) -> Rec:
        self.events.append(Eof(self._seq(), self.t, "a2c"))
        self.events.append(Exit(self._seq(), self.t, code))
        return self

    def write(self, path: Path, argv: list[str] | None = None) -> Path:
        w = RecordingWriter(str(path), make_header(argv or ["pi", "--mode", "rpc"]), warn=print)
        for ev in self.events:
            w.write_event(ev)
        w.close()
        return path


def basic_session() -> Rec:
    """get_state, a prompt with a short run, EOF, exit 0; an omp-like ready frame first."""
    r = Rec()
    r.at(0.01).a({"type": "ready", "protocolVersion": 1})
    r.at(1.0).c({"id": "s1", "type": "get_state"})
    r.a({"id": "s1", "type": "response", "command": "get_state", "success": True,
         "data": {"sessionId": "01a20213-d398-77e8-928f-7e42015cc8a7"}}, dt=0.01)
    r.at(2.0).c({"id": "p1", "type": "prompt", "message": "hi"})
    r.a({"id": "p1", "type": "response", "command": "prompt", "success": True}, dt=0.001)
    r.a({"type": "agent_start"}, dt=0.001)
    r.a({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": "Hel\u2028lo"}}, dt=0.1)
    r.e("some warning")
    r.a({"type": "agent_end", "messages": []}, dt=0.1)
    r.at(3.0).eof()
    r.at(3.1).a({"type": "extension_ui_request", "id": "bye", "method": "notify", "message": "bye"})
    r.exit(0)
    return r
