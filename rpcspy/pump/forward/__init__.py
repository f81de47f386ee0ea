"""The forwarding path and the hand-off to observers: agent process, relays, message pipe, observer process.

It knows no particular observer: it hands numbered events to whatever :class:`~rpcspy.pump.forward.hub.Observer`
list it is given (``tests/test_rings.py``).
"""
