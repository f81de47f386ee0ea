"""Injection decided in the core: which agent lines answer an injection (:mod:`.divert`), where injected
lines may enter the client's stream (:mod:`.gate`), and the injected-id table (:mod:`.ledger`).

No sockets, threads or file descriptors: bytes and requests in, decisions out (the way h11 decides
for a socket it never touches). The pump's relays (``pump/forward/inject_relays.py``) and control server
(``pump/observers/control.py``) only execute the decisions.
"""
