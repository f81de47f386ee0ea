"""Volatile values and secrets: what differs between two runs of one session, and what a fixture redacts.

* :mod:`~rpcspy.normalise.normaliser`: :class:`~rpcspy.normalise.normaliser.Normaliser`, shared by
  ``fixture``, replay matching, ``diff`` and the otel exporter's content;
* :mod:`~rpcspy.normalise.volatile` and :mod:`~rpcspy.normalise.secrets`: the detection rules;
* :mod:`~rpcspy.normalise.fixture`: a recording made a stable regression fixture.

Pure, the bottom of the replay family: it imports neither :mod:`rpcspy.diff` nor :mod:`rpcspy.replay`.
"""
