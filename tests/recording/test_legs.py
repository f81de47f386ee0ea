"""Merging an adapter's two legs (rpcspy/recording/legs.py) on synthetic frames: causes and observations."""

from __future__ import annotations

from rpcspy.frameinfo import label_of
from rpcspy.recording.legs import ACP, PI, Item, merge, render


def item(t: float, leg: str, direction: str, obj: dict) -> Item:
    return Item(t, leg, direction, obj, label_of(obj) or "?")


def test_a_dialog_the_adapter_answers_itself_and_a_request_it_never_answers() -> None:
    frames = [
        item(0.0, ACP, "c2a", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
        item(0.1, PI, "c2a", {"type": "prompt", "id": "p", "message": "x"}),
        item(0.2, PI, "a2c", {"type": "response", "id": "p", "command": "prompt", "success": True}),
        item(0.3, PI, "a2c", {"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "ok?"}),
        item(0.4, PI, "c2a", {"type": "extension_ui_response", "id": "d1", "confirmed": True}),
        item(0.5, PI, "a2c", {"type": "response", "command": "bash", "success": False, "error": "no"}),
        item(0.6, ACP, "a2c", {"jsonrpc": "2.0", "method": "session/update", "params": {}}),
    ]
    legs = merge("f.jsonl", ["f.back.1.jsonl"], frames)
    assert legs.caused == [("session/prompt #1", ["prompt", "extension_ui_response"])]
    assert legs.observations == [
        "0.400: pi dialog confirm #d1 answered by the adapter itself: the ACP client was never asked",
        "0.500: pi refused bash: no",
        "0.000: ACP session/prompt #1 never answered by the adapter",
    ]
    assert legs.items[-1].note == "from pi response +100 ms"
    assert "→ prompt #p   [for ACP session/prompt #1 +100 ms]" in render(legs)


def test_a_dialog_turned_into_a_permission_request_is_said() -> None:
    frames = [
        item(0.0, ACP, "c2a", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
        item(0.1, PI, "a2c", {"type": "extension_ui_request", "id": "d1", "method": "select", "options": []}),
        item(0.2, ACP, "a2c", {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {}}),
        item(0.3, ACP, "c2a", {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}),
        item(0.4, PI, "c2a", {"type": "extension_ui_response", "id": "d1", "cancelled": True}),
        item(0.5, PI, "a2c", {"type": "tool_execution_start", "toolName": "bash", "toolCallId": "c"}),
        item(0.6, ACP, "a2c", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
    ]
    assert merge("f.jsonl", [], frames).observations == [
        "0.200: pi dialog select #d1 translated to ACP session/request_permission #0 +100 ms"]


def test_a_turn_times_the_adapter_s_share() -> None:
    frames = [
        item(0.0, ACP, "c2a", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
        item(0.010, PI, "c2a", {"type": "prompt", "id": "p", "message": "x"}),
        item(0.100, PI, "a2c", {"type": "message_update", "assistantMessageEvent": {"type": "text_delta"}}),
        item(0.400, ACP, "a2c", {"jsonrpc": "2.0", "method": "session/update",
                                 "params": {"update": {"sessionUpdate": "agent_message_chunk"}}}),
        item(0.500, PI, "a2c", {"type": "agent_end", "messages": []}),
        item(0.520, ACP, "a2c", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
    ]
    [turn] = merge("f.jsonl", [], frames).turns
    assert turn.describe() == ("session/prompt #1 at 0.000: pi prompt +10 ms; first text: pi +100 ms, ACP +400 ms "
                               "(adapter +300 ms); pi agent_end +500 ms, ACP stopReason +520 ms (adapter +20 ms)")


def test_only_a_leg_s_header_names_its_leg(tmp_path) -> None:
    """Every other recording's header stays as it was (older readers and golden files see no change); a leg's
    header reads back with its two fields, and an older header without them reads as no leg."""
    import msgspec

    from rpcspy.recording import open_recording
    from rpcspy.recording.writer import make_header

    plain = msgspec.json.decode(msgspec.json.encode(make_header(["pi"])))
    assert "leg" not in plain and "front" not in plain
    back = make_header(["pi"], leg="back", front="/r/s.jsonl")
    path = tmp_path / "s.back.1.jsonl"
    path.write_bytes(msgspec.json.encode(back) + b"\n")
    header = open_recording(path).header
    assert (header.leg, header.front) == ("back", "/r/s.jsonl")
    old = tmp_path / "old.jsonl"
    old.write_bytes(msgspec.json.encode(plain) + b"\n")
    assert getattr(open_recording(old).header, "leg", None) is msgspec.UNSET


def test_a_tool_gated_by_a_pi_dialog_after_its_start_was_asked() -> None:
    """pi announces tool_execution_start before its tool_call hooks run: a gate extension's confirm comes after
    it. Only a tool that ends with nothing asked of the ACP client is said to run unasked."""
    frames = [
        item(0.0, ACP, "c2a", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}),
        item(0.1, PI, "a2c", {"type": "tool_execution_start", "toolName": "bash", "toolCallId": "gated"}),
        item(0.2, PI, "a2c", {"type": "extension_ui_request", "id": "d1", "method": "confirm", "title": "run?"}),
        item(0.3, ACP, "a2c", {"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {}}),
        item(0.4, ACP, "c2a", {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}),
        item(0.5, PI, "c2a", {"type": "extension_ui_response", "id": "d1", "confirmed": False}),
        item(0.6, PI, "a2c", {"type": "tool_execution_end", "toolName": "bash", "toolCallId": "gated"}),
        item(0.7, ACP, "c2a", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {}}),
        item(0.8, PI, "a2c", {"type": "tool_execution_start", "toolName": "bash", "toolCallId": "free"}),
        item(0.9, PI, "a2c", {"type": "tool_execution_end", "toolName": "bash", "toolCallId": "free"}),
        item(1.0, ACP, "a2c", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
        item(1.1, ACP, "a2c", {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}),
    ]
    legs = merge("f.jsonl", ["f.back.1.jsonl"], frames)
    assert legs.observations == [
        "0.300: pi dialog confirm #d1 translated to ACP session/request_permission #0 +100 ms",
        "0.800: pi ran tool bash (free) with no session/request_permission asked of the ACP client",
    ]
