"""``rpcspy browse``: a full-screen recording browser.

:mod:`~rpcspy.browse.model` is the view model (pure: rows, folding, filter,
search, the detail text); :mod:`~rpcspy.browse.app` is the thin prompt-toolkit
application around it; :mod:`~rpcspy.browse.keys` lists the keys, for the
in-app help and ``--help``.
"""
