"""The test suite's model server is rpcspy's own (``rpcspy model-server``): re-exported here."""

from rpcspy.modelserver.script import (  # noqa: F401
    DEFAULT_TEXT,
    MODELS,
    THINKING,
    TOOL_COMMAND,
    Reply,
    message_text,
    plan_reply,
    sse_chunks,
    tool_call_deltas,
)
from rpcspy.pump.commands.model_server import ModelServer as FakeLLM  # noqa: F401
from rpcspy.pump.commands.model_server import Request  # noqa: F401
