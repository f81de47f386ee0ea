"""The scripted model server's knowledge: what it answers (:mod:`.script`), how agents find it (:mod:`.config`).

The HTTP server itself is :class:`rpcspy.pump.commands.model_server.ModelServer`; the command is
``rpcspy model-server``.
"""
