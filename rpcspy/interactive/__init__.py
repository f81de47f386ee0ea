"""Interactive use: the REPL (``rpcspy repl``/``inject``), its parser, completer, dialogs and live view.

Pure parts (no I/O): :mod:`~rpcspy.interactive.syntax` (short syntax and raw JSON
to command objects), :mod:`~rpcspy.interactive.schema` (what the protocol says
about commands, degrading gracefully), :mod:`~rpcspy.interactive.complete`
(completion candidates), :mod:`~rpcspy.interactive.dialogs` (extension UI
requests and their answers), :mod:`~rpcspy.interactive.live` (events to printable
renderables and a status line). The prompt-toolkit application and the backends
that connect it to an agent are in :mod:`~rpcspy.interactive.app` and
:mod:`~rpcspy.interactive.backends`.
"""
