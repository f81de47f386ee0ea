"""``rpcspy drive``: a JSONL script of client commands, sent to an agent step by step (pure core).

:mod:`rpcspy.drive.script` reads the script, :mod:`rpcspy.drive.driver` decides what
to send when from the session's events; the I/O loop is :mod:`rpcspy.pump.commands.drive`.
"""
