"""Rendering recordings: a pure timeline model and its text (rich) and HTML views.

* :mod:`~rpcspy.render.timeline`: ``Timeline().feed(event) -> [Item]``, incremental;
* :mod:`~rpcspy.render.text`: rich renderables (``ItemView``, ``finding_text``);
* :mod:`~rpcspy.render.html`: a self-contained HTML page.

Recordings become events in :mod:`rpcspy.recording.entries`; a fresh checker run over them is
:mod:`rpcspy.checker.offline`.
"""

from rpcspy.render.items import Block, Item
from rpcspy.render.timeline import Timeline

__all__ = ["Block", "Item", "Timeline"]
