"""Replay's decisions, without I/O: a recording played as the agent (``rpcspy replay``) or as the client.

* :mod:`~rpcspy.replay.engine` with :mod:`~rpcspy.replay.matcher`, :mod:`~rpcspy.replay.ids`,
  :mod:`~rpcspy.replay.rpc` and :mod:`~rpcspy.replay.model`: the fake agent's answers;
* :mod:`~rpcspy.replay.source`: a recording read as exchanges, lazily;
* :mod:`~rpcspy.replay.client`: the fake client's plan;
* :mod:`~rpcspy.replay.chaos` and :mod:`~rpcspy.replay.scenarios`: fault injection, the torture kit.

The pump executes them (:mod:`rpcspy.pump.commands.fake_agent`, :mod:`rpcspy.pump.commands.fake_client`). Matching
normalises with :mod:`rpcspy.normalise` and measures with :mod:`rpcspy.diff.jsondiff`.
"""
