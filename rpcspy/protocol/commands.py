"""Commands (client -> agent stdin), a tagged union on ``type`` (protocol-notes 2.1, 3, 10.4).

Every command takes an optional string ``id``; pi echoes any JSON value, but a schema
requires a string. omp-only commands live in :mod:`rpcspy.protocol.omp`.
"""

from typing import Any, Literal

import msgspec
from msgspec import UNSET

from rpcspy.protocol.base import Base, Checked, Getter, Opt, Problem, lit
from rpcspy.protocol.messages import MessageTypes
from rpcspy.protocol.payloads import QueueMode
from rpcspy.protocol.spec import Spec


class Command(Base, tag_field="type", kw_only=True):
    """Base of every command: ``{id?: string, type: <command>, …fields}``."""

    id: Opt[str] = UNSET


def simple(name: str, doc: str) -> type:
    """A command with no fields besides ``id`` (class ``GetState`` for ``get_state``)."""
    cls = msgspec.defstruct("".join(w.capitalize() for w in name.split("_")), [], bases=(Command,), tag=name)
    cls.__doc__ = doc
    return cls


class ExtensionUIResponse(Checked, tag_field="type", tag="extension_ui_response"):
    """Answer to a dialog ``extension_ui_request``: ``value``, ``confirmed`` or ``cancelled:true``.

    Never answered by the agent; an unknown id is silently ignored (protocol-notes 5.2).
    """

    id: str
    value: Opt[str] = UNSET
    confirmed: Opt[bool] = UNSET
    cancelled: Opt[Literal[True]] = UNSET

    @staticmethod
    def __rpcspy_check__(get: Getter) -> list[Problem]:
        if all(get(k) is UNSET for k in ("value", "confirmed", "cancelled")):
            return [("missing_field", "$.value",
                     "extension_ui_response needs one of 'value', 'confirmed' or 'cancelled'")]
        return []


def build_commands(spec: Spec, m: MessageTypes) -> list[Any]:
    """Every pi command of the dialect, as tagged Struct classes (omp adds its own)."""
    Images = Opt[list[m.Image]]  # type: ignore[name-defined]  # runtime-built msgspec type
    Level = lit(spec.thinking_levels)

    class Prompt(Command, tag="prompt"):
        """Send a user message; while streaming, ``streamingBehavior`` says how to queue it."""

        message: str
        images: Images = UNSET
        streamingBehavior: Opt[Literal["steer", "followUp"]] = UNSET

    class Steer(Command, tag="steer"):
        """Queue a steering message, delivered after the current turn's tool calls."""

        message: str
        if not spec.doc_shapes:
            images: Images = UNSET

    class FollowUp(Command, tag="follow_up"):
        """Queue a message delivered when the agent would otherwise stop."""

        message: str
        if not spec.doc_shapes:
            images: Images = UNSET

    class NewSession(Command, tag="new_session"):
        parentSession: Opt[str] = UNSET

    class SetModel(Command, tag="set_model"):
        provider: str
        modelId: str

    class SetThinkingLevel(Command, tag="set_thinking_level"):
        level: Level  # type: ignore[valid-type]  # runtime-built msgspec type

    class SetSteeringMode(Command, tag="set_steering_mode"):
        mode: QueueMode

    class SetFollowUpMode(Command, tag="set_follow_up_mode"):
        mode: QueueMode

    class Compact(Command, tag="compact"):
        customInstructions: Opt[str] = UNSET

    class SetAutoCompaction(Command, tag="set_auto_compaction"):
        enabled: bool

    class SetAutoRetry(Command, tag="set_auto_retry"):
        enabled: bool

    class Bash(Command, tag="bash"):
        """Run a shell command; its output is recorded as a bashExecution message."""

        command: str
        if spec.delta_updates:
            excludeFromContext: Opt[bool] = UNSET

    class ExportHtml(Command, tag="export_html"):
        outputPath: Opt[str] = UNSET

    class SwitchSession(Command, tag="switch_session"):
        sessionPath: str
        if spec.omp_family:
            provider: Opt[str] = UNSET
            modelId: Opt[str] = UNSET

    class SetSessionName(Command, tag="set_session_name"):
        name: str

    out: list[Any] = [
        Prompt, Steer, FollowUp, simple("abort", "Abort the current run (answered after its agent_end)."),
        NewSession, simple("get_state", "Session state."), simple("get_messages", "Every message."),
        SetModel, simple("cycle_model", "Switch to the next model."),
        simple("get_available_models", "Models with configured auth."),
        SetThinkingLevel, simple("cycle_thinking_level", "Switch to the next thinking level."),
        SetSteeringMode, SetFollowUpMode, Compact, SetAutoCompaction, SetAutoRetry,
        simple("abort_retry", "Cancel a pending auto-retry."), Bash,
        simple("abort_bash", "Cancel the running bash command."),
        simple("get_session_stats", "Token usage and cost."), ExportHtml, SwitchSession,
        simple("get_last_assistant_text", "Text of the last assistant message."), SetSessionName,
    ]
    if not spec.omp_family:

        class Fork(Command, tag="fork"):
            entryId: str

        out += [Fork, simple("get_fork_messages", "User messages that can be forked from."),
                simple("get_commands", "Extension commands, prompt templates and skills.")]
        if not spec.doc_shapes:
            out.append(simple("clone", "Copy the active branch into a new session."))
    if spec.delta_updates or spec.omp_family:

        class GetEntries(Command, tag="get_entries"):
            since: Opt[str] = UNSET

        out += [GetEntries, simple("get_tree", "The session entry tree."),
                simple("get_available_thinking_levels", "Levels the current model supports.")]
    if spec.delta_updates:
        out.append(simple("clear_queue", "Drop every queued steering and follow-up message."))
    return out
