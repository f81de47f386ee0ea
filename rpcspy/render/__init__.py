"""Rendering recordings: a pure timeline model and its text (rich) and HTML views.

* :mod:`~rpcspy.render.timeline`: ``Timeline().feed(event) -> [Item]``, incremental (items:
  :mod:`~rpcspy.render.items`);
* :mod:`~rpcspy.render.text`: rich renderables (``ItemView``, ``finding_text``);
* :mod:`~rpcspy.render.html`: a self-contained HTML page;
* :mod:`~rpcspy.render.diff` and :mod:`~rpcspy.render.compat`: ``rpcspy diff``'s views (rich; the
  ``--compat`` report as text lines).

Recordings become events in :mod:`rpcspy.recording.entries`; a fresh checker run over them is
:mod:`rpcspy.checker.offline`. The package imports none of its modules, so a command pays only for
the views it uses.
"""
