"""Temporary agent homes: rpcspy's own model-server configuration, re-exported for the tests."""

from rpcspy.modelserver.config import (  # noqa: F401
    MODEL,
    PROVIDER,
    REASONER,
    RETRY_DELAY_MS,
    agent_args,
    agent_env,
    make_home,
    provider_config,
    settings,
)
