"""Comparing recordings: the semantic diff (``rpcspy diff``) and the upgrade classification (``--compat``).

* :mod:`~rpcspy.diff.differ`: two recordings, per direction, frame by frame, volatile values ignored;
* :mod:`~rpcspy.diff.align`: aligning the two frame sequences in near-linear time;
* :mod:`~rpcspy.diff.jsondiff`: structural differences between two JSON values, as JSON paths;
* :mod:`~rpcspy.diff.shapes` and :mod:`~rpcspy.diff.compat`: each side's frame shapes, and what an agent
  upgrade changes for clients.

Pure, below replay (it imports :mod:`rpcspy.normalise`, never :mod:`rpcspy.replay`); its views are
:mod:`rpcspy.render.diff` and :mod:`rpcspy.render.compat`.
"""
