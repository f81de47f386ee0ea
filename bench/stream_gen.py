"""Generate a pi-like agent stdout stream: runs of growing `message_update` lines.

Each run streams a reply delta by delta; every `message_update` carries the whole
partial message twice (pi 0.73 style), so lines grow, and the text holds raw
U+2028, as real pi output does. Deterministic for a given size.
"""

from __future__ import annotations

import json
import sys

U2028 = "\u2028"


def run_lines(run: int, deltas: int, delta_len: int):
    text = ""
    yield json.dumps({"type": "agent_start"}).encode() + b"\n"
    for i in range(deltas):
        delta = (f"r{run}d{i} " + "lorem ipsum " * delta_len)[:delta_len] + U2028
        text += delta
        msg = {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
               "provider": "fake", "model": "fake-model", "stopReason": "stop", "timestamp": 1700000000000 + i}
        event = {"type": "text_delta", "contentIndex": 0, "delta": delta, "partial": msg}
        line = {"type": "message_update", "assistantMessageEvent": event, "message": msg}
        yield json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    yield json.dumps({"type": "agent_end", "messages": []}).encode() + b"\n"


def generate(path: str, size: int, deltas: int = 200, delta_len: int = 40) -> int:
    """Write at least ``size`` bytes of stream to ``path``; return the size written."""
    written = 0
    run = 0
    with open(path, "wb") as f:
        while written < size:
            for line in run_lines(run, deltas, delta_len):
                f.write(line)
                written += len(line)
            run += 1
    return written


if __name__ == "__main__":
    print(generate(sys.argv[1], int(float(sys.argv[2]))))
