"""The I/O ring: processes, pipes, signals, threads and sockets, in three wings and two assemblers.

- :mod:`rpcspy.pump.forward`: the forwarding path (the agent process, the relays) and the hand-off of
  what they forward to observers (the message pipe, the observer process, the dispatcher).
- :mod:`rpcspy.pump.observers`: what watches a session (the recorder, the live check, the control
  socket, the OTLP exporter).
- :mod:`rpcspy.pump.commands`: the processes one command drives (fake agent, fake client, conform
  runner, model server, drive, demo) and a command's output file and worker pool.
- The assemblers above them: :mod:`rpcspy.pump.proxy` (``rpcspy run``: relays here, observers in a
  forked process) and :mod:`rpcspy.pump.inprocess` (the proxy in a thread, for ``repl`` and ``drive``).

Imports run one way (``tests/test_rings.py``): forward imports neither observers nor commands nor an
assembler; observers import no command and no assembler; commands import no observer.
"""
