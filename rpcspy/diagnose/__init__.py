"""Why is a client stuck: what is outstanding in a session, and the client pitfalls its frames show.

Pure core: :class:`Tracker` is fed frames (live or from a recording), :func:`explain`
puts its state into sentences (:class:`Diagnosis`). ``rpcspy why`` is the shell over it.
"""

from rpcspy.diagnose.explain import diagnose_entries, explain
from rpcspy.diagnose.items import Diagnosis, Item
from rpcspy.diagnose.tracker import Tracker

__all__ = ["Tracker", "explain", "diagnose_entries", "Diagnosis", "Item"]
