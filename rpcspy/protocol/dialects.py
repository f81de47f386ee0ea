"""Each dialect's assembled schemas, built lazily and cached (omp's modules only for omp's family).

The dialects themselves (names, descriptions, capabilities) are :mod:`rpcspy.protocol.spec`'s.

A :class:`Protocol` maps each frame ``type`` of a direction to the msgspec type that
validates it, and each command to the type of its success ``data``.
"""

import functools
from dataclasses import dataclass, field
from typing import Any, Union

from rpcspy.protocol.base import tag_of
from rpcspy.protocol.commands import ExtensionUIResponse, build_commands
from rpcspy.protocol.events import build_events
from rpcspy.protocol.messages import MessageTypes, build_messages
from rpcspy.protocol.responses import (
    DataSpec,
    OmpResponse,
    Response,
    build_response_data,
    compaction_result,
    session_entry_union,
)
from rpcspy.protocol.spec import DIALECTS, SPECS, Spec
from rpcspy.protocol.streaming import build_streaming
from rpcspy.protocol.ui import ui_requests


@dataclass(frozen=True)
class Protocol:
    """One dialect's schemas."""

    dialect: str
    spec: Spec
    messages: MessageTypes
    c2a: dict[str, Any]
    """Client frame ``type`` -> msgspec type (commands, extension_ui_response, omp host frames)."""
    a2c: dict[str, Any]
    """Agent frame ``type`` -> msgspec type; ``extension_ui_request`` is a union on ``method``."""
    commands: dict[str, type]
    """Command ``type`` -> its class (the subset of ``c2a`` that gets a response)."""
    data: dict[str, DataSpec]
    """Command ``type`` -> the type of its success ``data``."""
    ui_requests: dict[str, type]
    """``extension_ui_request`` method -> class."""
    message_update: type
    assistant_message_event: Any
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Per-protocol memo for derived objects (decoders, schemas)."""

    def frames(self, direction: str) -> dict[str, Any]:
        if direction == "c2a":
            return self.c2a
        if direction == "a2c":
            return self.a2c
        raise ValueError(f"direction must be 'c2a' or 'a2c', not {direction!r}")


def _by_tag(classes: list[Any]) -> dict[str, Any]:
    """Tag -> class; a later class replaces an earlier one with the same tag."""
    return {tag_of(cls): cls for cls in classes}


@functools.cache
def get_protocol(dialect: str) -> Protocol:
    """The schemas of ``dialect`` (one of :data:`DIALECTS`), built on first use."""
    try:
        spec = SPECS[dialect]
    except KeyError:
        raise ValueError(f"unknown dialect {dialect!r} (expected one of {', '.join(DIALECTS)})") from None
    if spec.jsonrpc:
        raise ValueError(f"{dialect} is a JSON-RPC dialect: its types are rpcspy.protocol.acp_types, "
                         "its rules rpcspy.protocol.acp")
    m = build_messages(spec)
    update, ame = build_streaming(spec, m)
    compaction = compaction_result(spec, m)
    if spec.omp_family:
        from rpcspy.protocol.omp import omp_client_frames, omp_commands, omp_events, omp_response_data
        from rpcspy.protocol.omp_session import omp_entry_union

        entry = omp_entry_union(m)
    else:
        entry = session_entry_union(m)
    events = build_events(spec, m, update, compaction, entry)
    commands = build_commands(spec, m)
    data = build_response_data(spec, m, entry, compaction)
    client: list[Any] = [ExtensionUIResponse]
    if spec.omp_family:
        events += omp_events(spec, compaction)
        commands += omp_commands(spec, m)
        data.update(omp_response_data(m))
        client += omp_client_frames(m)
    requests = _by_tag(ui_requests(spec))
    a2c = _by_tag(events)
    a2c["response"] = OmpResponse if spec.omp_family else Response
    a2c["extension_ui_request"] = Union[tuple(requests.values())]
    cmds = _by_tag(commands)
    return Protocol(
        dialect=dialect, spec=spec, messages=m, c2a={**cmds, **_by_tag(client)}, a2c=a2c,
        commands=cmds, data=data, ui_requests=requests, message_update=update,
        assistant_message_event=ame,
    )
