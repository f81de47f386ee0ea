"""A tiny stand-in agent for pump tests: `python fake_agent.py MODE [ARG]`.

Modes:
  echo            copy stdin to stdout (like cat), exit 0 at EOF
  exit N          write a frame and a stderr line, exit N
  selfkill N      write a partial line, then kill itself with signal N
  trap            print {"ready":true}, then on SIGINT/SIGTERM/SIGHUP print the signal and exit 10+N
  grandchild      start a sleeping child that keeps stdout open, print its pid, exit 0
  soak PATH N     write the file's lines N times over, in ~1 MiB writes that end on a line; answer each
                  JSON line on stdin with a response (between those writes, never inside a line)
  family          start a sleeping child (same process group), print both pids, wait for stdin EOF
  flood N         write N bytes of frames to stdout, then exit 0
  pid             print own pid, then wait for stdin EOF
  deaf            ignore SIGINT/SIGTERM/SIGHUP, print {"ready":true}, then wait forever
  file PATH [W]   write the file's bytes to stdout in writes of W bytes (default 1 MiB), then exit 0
  serve PATH      per stdin line: {"type":"go"} gets the file's bytes (1 MiB writes); a short JSON command
                  whose id starts "rpcspy-inject" gets a response; any other line is echoed back
  respond         answer each JSON line with an event and a response echoing its id, like pi
  logged PATH     append each stdin line to PATH at once, then answer it like respond, but from a writer
                  thread (stdin is read even while stdout is blocked); a "flood" command gets N bytes
                  (its "bytes") of big lines in 1 MiB writes before its response
"""

import json
import os
import signal
import subprocess
import sys
import time

out = sys.stdout.buffer


def main() -> None:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else "0"
    if mode == "echo":
        while chunk := os.read(0, 65536):
            os.write(1, chunk)
    elif mode == "exit":
        out.write(b'{"type":"bye"}\n')
        out.flush()
        sys.stderr.write("agent says goodbye\n")
        sys.exit(int(arg))
    elif mode == "selfkill":
        out.write(b'{"type":"partial"')
        out.flush()
        os.kill(os.getpid(), int(arg))
    elif mode == "trap":
        def handler(signum: int, _frame: object) -> None:
            out.write(json.dumps({"signal": signum}).encode() + b"\n")
            out.flush()
            os._exit(10 + signum)

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, handler)
        out.write(b'{"ready":true}\n')
        out.flush()
        while True:
            time.sleep(0.05)
    elif mode == "deaf":
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        out.write(b'{"ready":true}\n')
        out.flush()
        while True:
            time.sleep(0.05)
    elif mode == "grandchild":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        out.write(json.dumps({"grandchild": child.pid}).encode() + b"\n")
        out.flush()
    elif mode == "soak":
        import queue
        import threading

        answers: queue.Queue[bytes] = queue.Queue()

        def answer() -> None:
            for line in sys.stdin.buffer:
                try:
                    cmd = json.loads(line)
                except ValueError:
                    continue
                reply = {"id": cmd.get("id"), "type": "response", "command": cmd.get("type"), "success": True}
                answers.put(json.dumps(reply, separators=(",", ":")).encode() + b"\n")

        threading.Thread(target=answer, daemon=True).start()
        with open(arg, "rb") as f:
            body = f.read()
        cuts, pos = [], 0
        while pos < len(body):
            end = body.find(b"\n", pos + (1 << 20))
            end = len(body) if end < 0 else end + 1
            cuts.append(body[pos:end])
            pos = end
        for _ in range(int(sys.argv[3])):
            for piece in cuts:
                while not answers.empty():
                    out.write(answers.get())
                out.write(piece)
                out.flush()
        time.sleep(0.5)
        while not answers.empty():
            out.write(answers.get())
        out.flush()
        os._exit(0)  # the answering thread may be inside a read of stdin
    elif mode == "family":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], stdout=subprocess.DEVNULL)
        out.write(json.dumps({"agent": os.getpid(), "child": child.pid}).encode() + b"\n")
        out.flush()
        while os.read(0, 65536):
            pass
    elif mode == "flood":
        line = b'{"type":"message_update","x":"' + b"y" * 1000 + b'"}\n'
        left = int(arg)
        while left > 0:
            out.write(line)
            left -= len(line)
        out.flush()
    elif mode == "file":
        size = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
        with open(arg, "rb") as f:
            while chunk := f.read(size):
                out.write(chunk)
                out.flush()
    elif mode == "respond":
        for line in sys.stdin.buffer:
            cmd = json.loads(line)
            out.write(json.dumps({"type": "seen", "of": cmd.get("type")}).encode() + b"\n")
            reply = {"id": cmd.get("id"), "type": "response", "command": cmd.get("type"), "success": True}
            out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
            out.flush()
    elif mode == "serve":
        serve(arg)
    elif mode == "logged":
        logged(arg)
    elif mode == "pid":
        out.write(json.dumps({"pid": os.getpid()}).encode() + b"\n")
        out.flush()
        while os.read(0, 65536):
            pass


def serve(path: str) -> None:
    for line in sys.stdin.buffer:
        if line == b'{"type":"go"}\n':
            with open(path, "rb") as f:
                while chunk := f.read(1 << 20):
                    out.write(chunk)
                    out.flush()
            continue
        if line.startswith(b'{"id":"rpcspy-inject') and len(line) < 400:
            cmd = json.loads(line)
            reply = {"id": cmd["id"], "type": "response", "command": cmd.get("type"), "success": True}
            line = json.dumps(reply, separators=(",", ":")).encode() + b"\n"
        out.write(line)
        out.flush()


def logged(path: str) -> None:
    import queue
    import threading

    todo: queue.Queue[bytes | None] = queue.Queue()

    def writer() -> None:
        while (data := todo.get()) is not None:
            out.write(data)
            out.flush()

    thread = threading.Thread(target=writer)
    thread.start()
    with open(path, "ab", buffering=0) as log:
        for line in sys.stdin.buffer:
            log.write(line)
            cmd = json.loads(line)
            if cmd.get("type") == "flood":
                big = b'{"type":"message_update","x":"' + b"y" * 1000 + b'"}\n'
                for _ in range(cmd["bytes"] // (1 << 20)):
                    todo.put(big * ((1 << 20) // len(big)))
            reply = {"id": cmd.get("id"), "type": "response", "command": cmd.get("type"), "success": True}
            todo.put(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
    todo.put(None)
    thread.join()


if __name__ == "__main__":
    main()
