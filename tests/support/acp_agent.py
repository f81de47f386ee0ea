"""A deterministic ACP agent built with the official Python SDK (PyPI ``agent-client-protocol``).

    python3 -m tests.support.acp_agent

It does what real agents do not on demand, chosen by the prompt's text:

    deny            a tool call that asks permission; a rejection fails the call
    tool: CMD       the same (what ``rpcspy conform``'s permission cases send)
    slow:N          a message chunk, then nothing until ``session/cancel``: ``stopReason: cancelled``
    fs: PATH        reads PATH through the client (``fs/read_text_file``), whatever was negotiated
    cancel          a tool call in progress until ``session/cancel``, then ``stopReason: cancelled``
    cancel-ignore   the same, but it ends the turn ``end_turn`` (a cancel not honoured)
    wrong-id        writes a response to a request id the client never used
    backwards       a tool call completed, then updated to in_progress
    perm-then-end   asks permission and ends the turn without waiting for the answer
    (anything else) one message chunk, ``end_turn``
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from acp import PROTOCOL_VERSION, run_agent, start_tool_call, update_agent_message_text, update_tool_call
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)

OPTIONS = [PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
           PermissionOption(option_id="reject", name="Reject", kind="reject_once")]


class TestAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cancelled = asyncio.Event()
        self.sessions = 0
        self.calls = 0
        self.background: set[asyncio.Task[Any]] = set()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities(),
                                  agent_info=Implementation(name="rpcspy-acp-test-agent", version="1"))

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        self.sessions += 1
        return NewSessionResponse(session_id=f"test-session-{self.sessions}")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.set()

    async def say(self, sid: str, text: str) -> None:
        await self.conn.session_update(session_id=sid, update=update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt).strip()
        sid = session_id
        if text == "deny" or text.startswith("tool:"):
            self.calls += 1
            call = f"t-deny-{self.calls}"
            await self.conn.session_update(session_id=sid, update=start_tool_call(call, "rm -rf build",
                                                                                  kind="execute", status="pending"))
            answer = await self.conn.request_permission(session_id=sid, options=OPTIONS,
                                                        tool_call=ToolCallUpdate(tool_call_id=call, title="rm -rf build"))
            chosen = getattr(answer.outcome, "option_id", None)
            status = "completed" if chosen == "allow" else "failed"
            await self.conn.session_update(session_id=sid, update=update_tool_call(call, status=status))
            await self.say(sid, f"permission: {chosen or 'cancelled'}")
        elif text.startswith("fs:"):
            read = await self.conn.read_text_file(session_id=sid, path=text[3:].strip())
            await self.say(sid, f"read {len(read.content)} characters")
        elif text.startswith("slow:"):
            self.cancelled.clear()
            await self.say(sid, "tick ")
            await asyncio.wait_for(self.cancelled.wait(), 30)
            return PromptResponse(stop_reason="cancelled")
        elif text in ("cancel", "cancel-ignore"):
            self.cancelled.clear()
            await self.conn.session_update(session_id=sid, update=start_tool_call("t-long", "sleep", kind="execute",
                                                                                  status="in_progress"))
            await asyncio.wait_for(self.cancelled.wait(), 30)
            if text == "cancel":
                await self.conn.session_update(session_id=sid, update=update_tool_call("t-long", status="failed"))
                return PromptResponse(stop_reason="cancelled")
        elif text == "wrong-id":
            await self.conn._conn._transport.send({"jsonrpc": "2.0", "id": 4242, "result": {}})
        elif text == "backwards":
            await self.conn.session_update(session_id=sid, update=start_tool_call("t-b", "ls", status="completed"))
            await self.conn.session_update(session_id=sid, update=update_tool_call("t-b", status="in_progress"))
        elif text == "perm-then-end":
            task = asyncio.create_task(self.conn.request_permission(
                session_id=sid, options=OPTIONS, tool_call=ToolCallUpdate(tool_call_id="t-late", title="late")))
            self.background.add(task)
            await asyncio.sleep(0.2)  # the request is on the wire before the turn ends
        else:
            await self.say(sid, "hello from the test agent")
        return PromptResponse(stop_reason="end_turn")

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def main() -> int:
    asyncio.run(run_agent(TestAgent()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
