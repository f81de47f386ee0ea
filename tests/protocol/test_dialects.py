"""The dialect table: every dialect builds, and its parts are consistent."""

from __future__ import annotations

import msgspec
import pytest

from rpcspy.protocol import get_protocol
from rpcspy.protocol.base import tag_of
from rpcspy.protocol.spec import JSONL_DIALECTS


def test_dialect_names() -> None:
    from rpcspy.protocol import DIALECTS

    assert DIALECTS == ("pi-0.73", "pi-0.84", "pi-0.99", "pi-feb2026", "omp", "acp-v1")
    assert JSONL_DIALECTS == DIALECTS[:-1]


def test_a_jsonrpc_dialect_has_no_pi_protocol() -> None:
    with pytest.raises(ValueError, match="JSON-RPC dialect"):
        get_protocol("acp-v1")


@pytest.mark.parametrize("dialect", JSONL_DIALECTS)
def test_every_command_has_a_response_data_entry(dialect: str) -> None:
    proto = get_protocol(dialect)
    assert set(proto.commands) == set(proto.data)
    assert set(proto.commands) <= set(proto.c2a)
    assert "extension_ui_response" in proto.c2a and "extension_ui_response" not in proto.commands


@pytest.mark.parametrize("dialect", JSONL_DIALECTS)
def test_frame_tables_are_keyed_by_their_tags(dialect: str) -> None:
    proto = get_protocol(dialect)
    for table in (proto.c2a, proto.a2c):
        for tag, tp in table.items():
            if tag != "extension_ui_request":
                assert tag_of(tp) == tag
    assert {tag_of(c) for c in proto.ui_requests.values()} == set(proto.ui_requests)


@pytest.mark.parametrize("dialect", JSONL_DIALECTS)
def test_every_schema_type_builds_a_decoder(dialect: str) -> None:
    proto = get_protocol(dialect)
    for tp in [*proto.c2a.values(), *proto.a2c.values(), *(s.type for s in proto.data.values() if s.type)]:
        msgspec.json.Decoder(tp)


def test_dialects_share_unchanged_structs() -> None:
    a, b = get_protocol("pi-0.73"), get_protocol("pi-0.84")
    assert a.a2c["turn_start"] is b.a2c["turn_start"]
    assert a.ui_requests["notify"] is b.ui_requests["notify"]
    assert a.a2c["message_update"] is not b.a2c["message_update"]


def test_get_protocol_is_cached() -> None:
    assert get_protocol("omp") is get_protocol("omp")
