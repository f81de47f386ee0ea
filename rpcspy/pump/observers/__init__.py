"""What watches a session: the recorder, the live check, the control socket (both ends), the OTLP exporter.

Each is a :class:`~rpcspy.pump.forward.hub.Observer` (or serves one); none starts a session (``tests/test_rings.py``).
"""
