"""Write one small session with the rpcspy on ``sys.path`` (an older checkout's, to make a fixture).

    git archive COMMIT rpcspy | tar -x -C /tmp/old   # rpcspy as it was at COMMIT
    PYTHONPATH=/tmp/old python3 tests/data/recordings/versions/write_session.py OUT.jsonl

Uses only what every rpcspy had: the event classes built positionally, ``make_header``,
``event_line`` and ``encode_entry``. The header's clock, host and process are fixed, so the
file depends on the writer's version alone.
"""

from __future__ import annotations

import sys

from rpcspy.events import Eof, Exit, Finding, Frame, Note, Start
from rpcspy.recording.format import encode_entry
from rpcspy.recording.writer import event_line, make_header

PROMPT = b'{"id":"p1","type":"prompt","message":"hi"}'
EVENTS = [
    Start(1, 0.0, 4242, ["pi", "--mode", "rpc"]),
    Frame(2, 0.010001, "c2a", PROMPT),
    Frame(3, 0.020002, "a2c", b'{"id":"p1","type":"response","command":"prompt","success":true}'),
    Frame(4, 0.030003, "a2c", b'{"type":"agent_start"}'),
    Frame(5, 0.040004, "a2c", b'{"type":"message_update","assistantMessageEvent":{"type":"text_delta",'
                              b'"contentIndex":0,"delta":"hello"}}'),
    Frame(6, 0.050005, "a2c", b'{"type":"agent_end","messages":[]}', True, True),  # CR LF
    Frame(7, 0.060006, "err", b"warning: something on stderr"),  # not JSON: text
    Frame(8, 0.070007, "a2c", b"\xff\xfe not utf-8"),  # not UTF-8: base64
    Note(9, 0.080008, "warning", "a note from rpcspy"),
    Finding(10, 0.080008, "framing.not_json", "error", "framing", "not JSON", 8, "a2c"),
    Eof(11, 0.090009, "c2a"),
    Frame(12, 0.100010, "a2c", b'{"type":"agent_end","messages":[]}', False),  # cut by EOF
    Exit(13, 0.110011, 0),
]


def main(out: str) -> None:
    header = make_header(["pi", "--mode", "rpc"])
    header.cwd, header.pid = "/home/user/project", 4242
    header.started, header.started_unix = "2026-11-22T08:00:00.000000Z", 1795334400.0
    with open(out, "wb") as f:
        f.write(encode_entry(header))
        for event in EVENTS:
            f.write(event_line(event))


if __name__ == "__main__":
    main(sys.argv[1])
