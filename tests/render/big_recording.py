"""A large recording made quickly: pi 0.84-style runs (delta-only message_update frames), a finding now and then."""

from __future__ import annotations

import json
from pathlib import Path

from rpcspy.events import Exit, Finding, Frame
from rpcspy.recording.format import encode_entry, encode_frame
from rpcspy.recording.writer import event_line, make_header


def _j(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def write_big(path: Path, size: int, *, deltas: int = 200) -> tuple[int, int]:
    """Write a recording of at least ``size`` bytes; return (its size, the number of runs).

    Every run is a prompt, its response and a streamed reply; every tenth response
    carries a finding; the agent's exit ends it.
    """
    seq, t, run = 0, 0.0, 0
    with open(path, "wb") as f:
        f.write(encode_entry(make_header(["pi", "--mode", "rpc"], mode="proxy")))

        def frame(direction: str, data: bytes) -> int:
            nonlocal seq, t
            seq += 1
            t += 0.001
            f.write(encode_frame(Frame(seq, t, direction, data)))  # type: ignore[arg-type]
            return seq

        while f.tell() < size:
            pid = f"p{run}"
            frame("c2a", _j({"id": pid, "type": "prompt", "message": f"question {run} <b>"}))
            r = frame("a2c", _j({"id": pid, "type": "response", "command": "prompt", "success": True}))
            if run % 10 == 0:
                seq += 1
                f.write(event_line(Finding(seq, t, "schema.missing_field", "error", "schema", f"run {run}", frame=r,
                                           dir="a2c")))
            frame("a2c", b'{"type":"agent_start"}')
            frame("a2c", _j({"type": "message_start", "message": {"role": "assistant", "content": []}}))
            for i in range(deltas):
                frame("a2c", _j({"type": "message_update", "assistantMessageEvent": {
                    "type": "text_delta", "contentIndex": 0, "delta": f"word{i} of run {run}, "}}))
            frame("a2c", _j({"type": "message_end", "message": {"role": "assistant", "content": [
                {"type": "text", "text": "done"}], "stopReason": "stop"}}))
            frame("a2c", b'{"type":"agent_end","messages":[]}')
            run += 1
        f.write(event_line(Exit(seq + 1, t, 0)))  # a session seen to its end (else: recording.no_exit)
        return f.tell(), run
