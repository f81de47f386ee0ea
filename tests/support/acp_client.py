"""An ACP client built with the official Python SDK (PyPI ``agent-client-protocol``), for recording sessions.

    python3 -m tests.support.acp_client [--permission allow|deny] [--fs] [--cancel-on-tool] \\
        [--permission-delay S] --prompt TEXT [--prompt TEXT ...] -- AGENT ARGS...

It spawns AGENT (e.g. ``rpcspy run -o rec.jsonl -- omp acp``), initializes (with the ``fs``
capabilities when ``--fs``), opens a session in the current directory, sends each prompt in turn,
answers permission requests with the first option of the wanted kind, serves ``fs/*`` from disk,
and with ``--cancel-on-tool`` sends ``session/cancel`` when the first tool call of a prompt whose text
starts with ``cancel`` starts. It prints one
line per prompt, ``stopReason=...``, and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)


class Recorder:
    """The client side: what the agent asks of it."""

    def __init__(self, permission: str, cancel_on_tool: bool, permission_delay: float = 0.0) -> None:
        self.permission = permission
        self.permission_delay = permission_delay
        self.cancel_on_tool = cancel_on_tool
        self.conn: Any = None
        self.cancelled = False
        self.cancel_this = False

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any,
                                 **kwargs: Any) -> RequestPermissionResponse:
        await asyncio.sleep(self.permission_delay)
        if self.cancelled:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        wanted = "allow" if self.permission == "allow" else "reject"
        for option in options:
            if option.kind.startswith(wanted):
                return RequestPermissionResponse(outcome=AllowedOutcome(option_id=option.option_id,
                                                                        outcome="selected"))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self.cancel_this and not self.cancelled and getattr(update, "session_update", "") == "tool_call":
            self.cancelled = True
            await self.conn.cancel(session_id=session_id)

    async def read_text_file(self, path: str, session_id: str, line: int | None = None, limit: int | None = None,
                             **kwargs: Any) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(self, content: str, path: str, session_id: str, **kwargs: Any) -> WriteTextFileResponse:
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


async def run(args: argparse.Namespace) -> int:
    client = Recorder(args.permission, args.cancel_on_tool, args.permission_delay)
    fs = FileSystemCapabilities(read_text_file=args.fs, write_text_file=args.fs)
    async with spawn_agent_process(client, args.agent[0], *args.agent[1:], env=dict(os.environ)) as (conn, proc):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities(fs=fs),
                              client_info=Implementation(name="rpcspy-tests", version="1"))
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        for text in args.prompt:
            client.cancelled = False
            client.cancel_this = args.cancel_on_tool and text.startswith("cancel")
            response = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[text_block(text)]),
                                              args.timeout)
            print(f"stopReason={response.stop_reason}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompt", action="append", default=[])
    ap.add_argument("--permission", choices=["allow", "deny"], default="allow")
    ap.add_argument("--fs", action="store_true", help="advertise fs.readTextFile and fs.writeTextFile")
    ap.add_argument("--cancel-on-tool", action="store_true")
    ap.add_argument("--permission-delay", type=float, default=0.0, help="seconds before answering a permission")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("agent", nargs="+")
    args = ap.parse_args()
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
