"""A toy RPC agent for conform tests: ``python toy_agent.py [crash-on-null]``.

Answers every object line with a response echoing its id (unknown types: an error with
the id); blank lines are skipped; invalid JSON gets an id-less parse error; ``null``
gets an error, or exits 1 with ``crash-on-null``; ``prompt`` starts a run of five text
deltas 0.05 s apart (``abort`` ends it); EOF ends the process with status 0.
"""

import json
import os
import sys
import threading
import time

crash_on_null = "crash-on-null" in sys.argv
lock = threading.Lock()
aborted = threading.Event()


def out(obj):
    with lock:
        os.write(1, (json.dumps(obj) + "\n").encode())


def respond(cmd, **extra):
    r = {"type": "response", "command": cmd.get("type"), **extra}
    if "id" in cmd:
        r = {"id": cmd["id"], **r}
    out(r)


def run():
    out({"type": "agent_start"})
    out({"type": "turn_start"})
    out({"type": "message_start", "message": {"role": "assistant", "content": []}})
    reason = "stop"
    for i in range(5):
        if aborted.is_set():
            reason = "aborted"
            break
        out({"type": "message_update", "assistantMessageEvent": {"type": "text_delta", "delta": f"t{i}"}})
        time.sleep(0.05)
    msg = {"role": "assistant", "content": [], "stopReason": reason}
    out({"type": "message_end", "message": msg})
    out({"type": "turn_end", "message": msg, "toolResults": []})
    out({"type": "agent_end", "messages": [msg]})


def main():
    buf = b""
    while chunk := os.read(0, 1 << 16):
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            line = line.rstrip(b"\r")
            if not line.strip():
                continue
            try:
                cmd = json.loads(line)
            except ValueError:
                out({"type": "response", "command": "parse", "success": False, "error": "bad json"})
                continue
            if cmd is None and crash_on_null:
                sys.exit(1)
            if not isinstance(cmd, dict):
                out({"type": "response", "command": "parse", "success": False, "error": "not an object"})
            elif cmd.get("type") == "get_state":
                respond(cmd, success=True, data={})
            elif cmd.get("type") == "prompt" and "message" in cmd:
                respond(cmd, success=True)
                threading.Thread(target=run).start()
            elif cmd.get("type") == "abort":
                aborted.set()
                respond(cmd, success=True)
            else:
                respond(cmd, success=False, error=f"Unknown command: {cmd.get('type')}")
    time.sleep(0.3)


main()
