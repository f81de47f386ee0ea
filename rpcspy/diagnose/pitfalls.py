"""Client pitfalls the frames show, each worded as one plain sentence with the frames it rests on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rpcspy.diagnose.items import Item

if TYPE_CHECKING:
    from rpcspy.diagnose.state import Cmd, Waiting


def seconds(s: float) -> str:
    return f"{s:.1f} s"


def label(cmd: "Cmd") -> str:
    """`prompt` (id "p1", frame 12)."""
    name = f"`{cmd.type}`" if cmd.type else "a command without type"
    shown = "" if cmd.id is None else f" (id {cmd.id!r}, frame {cmd.seq})"
    return name + (shown or f" (frame {cmd.seq})")


def late_response(cmd: "Cmd", timeout: float) -> Item:
    return Item("pitfall.late_response",
                f"{label(cmd)} was answered after {seconds(cmd.resp_t - cmd.t)} (frame {cmd.resp}), later than a "
                f"client timeout of {seconds(timeout)} (pi's RpcClient gives every command 30 s): such a client "
                "has given up and may take this late response for another command's",
                (cmd.seq, cmd.resp or cmd.seq), cmd.t)


def settle_passed(cmd: "Cmd", settle: int, event: str) -> Item:
    return Item("pitfall.settle_passed",
                f"{label(cmd)} was answered (frame {cmd.resp}) after the {event} that ended the run (frame {settle}): "
                f"a client that waits for {event} after this response waits forever",
                (cmd.seq, settle, cmd.resp or cmd.seq), cmd.t)


def success_then_error(first: "Cmd", seq: int, obj: dict[str, Any]) -> Item:
    error = obj.get("error")
    why = f": {error}" if isinstance(error, str) else ""
    return Item("pitfall.success_then_error",
                f"{label(first)} was answered twice: success (frame {first.resp}), then an error (frame {seq}){why}; "
                "a client that drops the id at its first response never sees the failure",
                (first.seq, first.resp or first.seq, seq), first.t)


def jsonrpc(seq: int, obj: dict[str, Any]) -> Item:
    method = obj.get("method")
    hint = f' (`"type": "{method}"`)' if isinstance(method, str) else ""
    return Item("pitfall.jsonrpc",
                f"client frame {seq} is shaped like JSON-RPC (`jsonrpc`/`method`): pi and omp read a command's "
                f"`type`{hint}, not `method`, and answer it with an error",
                (seq,))


def over_cap(seq: int, what: Any, cap: int) -> Item:
    shown = f"a `{what}` frame" if what else "a frame"
    return Item("pitfall.over_cap",
                f"omp shrank or replaced {shown} over its {cap} byte cap (frame {seq}) because the client did not "
                "negotiate protocol v2 (`negotiate_protocol` with protocolVersion 2 sends it whole, in rpc_chunk pieces)",
                (seq,))


def handled_then_silent(cmd: "Cmd", idle: float) -> Item:
    return Item("pitfall.handled_wait",
                f"{label(cmd)} was answered `handled` (frame {cmd.resp}): an extension or input handler consumed it "
                f"and no run starts, yet the client has sent nothing since ({seconds(idle)}): a client that waits "
                "for agent_end or agent_settled after it waits forever",
                (cmd.seq, cmd.resp or cmd.seq), cmd.t)


def dropped(cmd: "Cmd", settle: int) -> Item:
    return Item("pitfall.dropped_prompt",
                f"{label(cmd)} was accepted (frame {cmd.resp}) but no run of its own started before the agent "
                f"settled (frame {settle}): sent before the previous prompt's run started, it was dropped; a client "
                "waiting for its run waits forever (send prompts after agent_start, or with streamingBehavior)",
                (cmd.seq, cmd.resp or cmd.seq, settle), cmd.t)


def null_frame(seq: int) -> Item:
    return Item("pitfall.null_frame",
                f"client frame {seq} is `null`: pi crashes on it (exit 1, no response to it or to anything "
                "after it); omp answers a parse error", (seq,))


def stray_answer(seq: int, rid: Any, waiting: "Waiting | None") -> Item:
    shown = f"id {rid!r}" if rid is not None else "no id"
    text = (f"client frame {seq} answers a dialog with {shown}, which the agent never asked for: the agent ignores "
            "it without a word (no response, no error)")
    frames: tuple[int, ...] = (seq,)
    if waiting is not None:
        text += (f"; the {waiting.what} it waits on has id {waiting.id!r} (frame {waiting.seq}): copy the id from "
                 "the extension_ui_request you answer")
        frames = (waiting.seq, seq)
    return Item("pitfall.stray_dialog_answer", text, frames)
