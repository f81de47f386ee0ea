"""Why is a client stuck: what is outstanding in a session, and the client pitfalls its frames show.

Pure core: :class:`rpcspy.diagnose.tracker.Tracker` is fed frames (live or from a recording),
:func:`rpcspy.diagnose.explain.explain` puts its state into sentences
(:class:`rpcspy.diagnose.items.Diagnosis`). ``rpcspy why`` is the shell over it.

Import from the modules, not from this package: it imports nothing, so that a light module
(``knowledge``, which ``rpcspy why --help`` reads) does not load the tracker and the checker.
"""
