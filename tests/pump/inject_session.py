"""A proxy in observer-process mode whose observer injects a command: run as a script by tests.

Usage: python inject_session.py REC -- AGENT...   (stdin/stdout are the client's)
When the client's frame with id "go" is seen, the observer (in the observer
process) diverts "rpcspy-inject-" ids and injects a get_state (or the lines in
$INJECT_LINES, one by one).
"""

import os
import sys

from rpcspy.events import Frame
from rpcspy.pump.proxy import ProxyConfig, ProxySession


class Injector:
    name = "injector"

    def __init__(self, session) -> None:  # noqa: ANN001
        self.session = session
        self.done = False

    def handle(self, event, emit) -> None:  # noqa: ANN001
        if isinstance(event, Frame) and event.dir == "c2a" and b'"id":"go"' in event.data and not self.done:
            self.done = True
            if not self.session.divert_ids(b"rpcspy-inject-", 60):
                raise RuntimeError("the divert was not armed")
            lines = os.environ.get("INJECT_LINES", '{"id":"rpcspy-inject-1","type":"get_state"}')
            for line in lines.splitlines():
                self.session.inject(line.encode() + b"\n")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


if __name__ == "__main__":
    rec, agent = sys.argv[1], sys.argv[3:]
    config = ProxyConfig(argv=agent, record_path=rec, observer_process=True,
                         observers=[lambda session: [Injector(session)]])
    sys.exit(ProxySession(config).run())
