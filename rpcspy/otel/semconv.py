"""The attribute and operation names rpcspy's spans use: the GenAI semantic conventions and its own.

The GenAI conventions are in development; these names follow OpenTelemetry semantic conventions
v1.41.0 (``docs/gen-ai/``, since continued in open-telemetry/semantic-conventions-genai). rpcspy's
own names (commands, dialogs, findings, the session) live under ``rpcspy.``.
"""

from __future__ import annotations

SEMCONV_VERSION = "1.41.0"
SCHEMA_URL = f"https://opentelemetry.io/schemas/{SEMCONV_VERSION}"
SCOPE = "rpcspy"
"""The instrumentation scope's name."""

# operations (gen_ai.operation.name) and span names
INVOKE_AGENT = "invoke_agent"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"

# GenAI attributes
OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
AGENT_VERSION = "gen_ai.agent.version"
CONVERSATION_ID = "gen_ai.conversation.id"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
TIME_TO_FIRST_CHUNK = "gen_ai.response.time_to_first_chunk"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
CACHE_CREATION_TOKENS = "gen_ai.usage.cache_creation.input_tokens"
REASONING_TOKENS = "gen_ai.usage.reasoning.output_tokens"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
ERROR_TYPE = "error.type"

# rpcspy's own
SESSION = "rpcspy.session"
COMMAND = "rpcspy.command"
DIALOG = "rpcspy.dialog"
FINDING = "rpcspy.finding"
UI = "rpcspy.ui"
"""A fire-and-forget ``extension_ui_request`` (notify, setStatus...): an event on the span it happened in."""
ARGV = "rpcspy.agent.argv"
EXIT_CODE = "rpcspy.exit_code"
DIALECT_SETTLE = "rpcspy.run.settled_by"
RUN_TRIGGER = "rpcspy.run.command"
TURN = "rpcspy.turn"
UNFINISHED = "rpcspy.unfinished"
"""True on a span the session ended before it closed (cut at the session's end)."""
SEQ = "rpcspy.seq"
"""The recording seq of the frame that opened the span."""
