"""Generate a pi-like agent stdout stream: whole agent runs with growing `message_update` lines.

Each run is what pi 0.73.1 writes for one prompt (agent_start, turn_start, the user
message, the assistant message streamed delta by delta, message_end, turn_end,
agent_end). Every `message_update` carries the whole partial message twice
(`message` and `assistantMessageEvent.partial`), so lines grow, and the text holds
raw U+2028, as real pi output does. The frames are schema-valid, so the checker is
quiet on them. Deterministic for a given size.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

U2028 = "\u2028"
USAGE = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _line(obj: dict) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _assistant(text: str, run: int) -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
            "provider": "fake", "model": "fake-model", "usage": USAGE, "stopReason": "stop",
            "timestamp": 1795331184161 + run, "responseId": f"chatcmpl-{run}", "responseModel": "fake"}


def run_lines(run: int, deltas: int, delta_len: int) -> Iterator[bytes]:
    user = {"role": "user", "content": [{"type": "text", "text": f"prompt {run}"}], "timestamp": 1795331184000 + run}
    yield _line({"type": "agent_start"})
    yield _line({"type": "turn_start"})
    yield _line({"type": "message_start", "message": user})
    yield _line({"type": "message_end", "message": user})
    text = ""
    yield _line({"type": "message_start", "message": _assistant(text, run)})
    yield _line({"type": "message_update", "assistantMessageEvent": {"type": "text_start", "contentIndex": 0,
                 "partial": _assistant(text, run)}, "message": _assistant(text, run)})
    for i in range(deltas):
        delta = (f"r{run}d{i} " + "lorem ipsum " * delta_len)[:delta_len] + U2028
        text += delta
        msg = _assistant(text, run)
        event = {"type": "text_delta", "contentIndex": 0, "delta": delta, "partial": msg}
        yield _line({"type": "message_update", "assistantMessageEvent": event, "message": msg})
    msg = _assistant(text, run)
    yield _line({"type": "message_update", "assistantMessageEvent": {"type": "text_end", "contentIndex": 0,
                 "content": text, "partial": msg}, "message": msg})
    yield _line({"type": "message_end", "message": msg})
    yield _line({"type": "turn_end", "message": msg, "toolResults": []})
    yield _line({"type": "agent_end", "messages": [user, msg]})


def small_lines(run: int, deltas: int) -> Iterator[bytes]:
    """One clean pi >= 0.84 run of delta-only `message_update` frames (~280 bytes each), as the agent writes it.

    The agent's side of bench_check.run_frames (the prompt's response left out: no prompt is sent).
    """
    from bench_check import run_frames

    for direction, data in run_frames(run, deltas, 4, True):
        if direction == "a2c" and b'"type":"response"' not in data:
            yield data + b"\n"


def generate(path: str, size: int, deltas: int = 200, delta_len: int = 40, small: bool = False) -> int:
    """Write at least ``size`` bytes of stream to ``path``; return the size written.

    ``small``: delta-only frames of about 280 bytes (pi >= 0.84), not growing ones.
    """
    written = 0
    run = 0
    with open(path, "wb") as f:
        while written < size:
            for line in (small_lines(run, deltas) if small else run_lines(run, deltas, delta_len)):
                f.write(line)
                written += len(line)
            run += 1
    return written


if __name__ == "__main__":
    print(generate(sys.argv[1], int(float(sys.argv[2]))))
