"""A minimal agent for round-trip timing: answers each line at once with a pi-style response."""

import sys

out = sys.stdout.buffer
for _line in sys.stdin.buffer:
    out.write(b'{"id":"x","type":"response","command":"get_state","success":true}\n')
    out.flush()
