"""A minimal agent for round-trip timing: answers each line at once with pi's response to `get_state`.

The answer is a whole pi `get_state` response (the session state as pi sends it), so the proxy's live
check passes it clean: the benchmark times a proxy checking protocol, not one reporting an error a frame.
"""

import sys

ANSWER = (b'{"id":"x","type":"response","command":"get_state","success":true,"data":{"thinkingLevel":"off",'
          b'"isStreaming":false,"isCompacting":false,"steeringMode":"one-at-a-time","followUpMode":"one-at-a-time",'
          b'"sessionId":"0b6f3c2e-8a41-4d7b-9c1e-5f2a7d3b9e10","autoCompactionEnabled":true,"messageCount":0,'
          b'"pendingMessageCount":0}}\n')

if __name__ == "__main__":
    out = sys.stdout.buffer
    for _line in sys.stdin.buffer:
        out.write(ANSWER)
        out.flush()
