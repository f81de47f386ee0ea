"""Many recordings at once (pure): per-recording summaries that merge in constant memory.

:mod:`~rpcspy.fleet.sketch` holds quantiles in bounded memory, :mod:`~rpcspy.fleet.summary`
reduces one recording to what a fleet report needs, :mod:`~rpcspy.fleet.aggregate` merges
summaries by group and turns them into rows, (the agent and version a
recording's command line names come from :mod:`rpcspy.recording.naming`).
"""
