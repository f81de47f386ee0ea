"""The vocabulary sets agree with the dialects' schemas (their one source of truth)."""

from __future__ import annotations

import importlib
import pkgutil
import typing

import msgspec

from rpcspy import protocol
from rpcspy.protocol import get_protocol
from rpcspy.protocol.spec import JSONL_DIALECTS
from rpcspy.protocol.ui import ANSWER_FIELDS
from rpcspy.protocol.vocabulary import (
    AGENT_CANCEL_TYPES,
    AGENT_REQUEST_TYPES,
    ANSWER_TYPES,
    DIALOG_METHODS,
    DIALOGS,
    ECHO_TYPES,
    FIRE_AND_FORGET_METHODS,
    HOST_REQUEST_TYPES,
    RESPONSE_TYPE,
)

PROTOCOLS = [get_protocol(d) for d in JSONL_DIALECTS]
AGENT_TYPES = set().union(*(p.a2c for p in PROTOCOLS))


def _fields(frame_type: str) -> set[str]:
    """Field names of an agent frame type in every dialect that has it (a union: every member's)."""
    names: set[str] = set()
    for p in PROTOCOLS:
        tp = p.a2c.get(frame_type)
        members = getattr(tp, "__args__", (tp,)) if tp is not None else ()
        for cls in members:
            names |= {f.encode_name for f in msgspec.structs.fields(cls)}
    return names


def test_answer_types_are_the_client_frames_that_are_not_commands() -> None:
    assert ANSWER_TYPES == set().union(*(set(p.c2a) - set(p.commands) for p in PROTOCOLS))


def test_agent_requests_and_echoes_are_agent_frames_with_an_id() -> None:
    for t in AGENT_REQUEST_TYPES | ECHO_TYPES | AGENT_CANCEL_TYPES:
        assert t in AGENT_TYPES, t
        assert "id" in _fields(t), t
    assert {t for t in AGENT_CANCEL_TYPES if "targetId" not in _fields(t)} == set()
    assert HOST_REQUEST_TYPES < AGENT_REQUEST_TYPES and all(t.startswith("host_") for t in HOST_REQUEST_TYPES)
    # every other agent frame with an id is one of these (so no copy can miss one)
    with_id = {t for t in AGENT_TYPES if "id" in _fields(t)}
    assert with_id == AGENT_REQUEST_TYPES | ECHO_TYPES | AGENT_CANCEL_TYPES


def test_dialog_methods_are_the_ui_requests_that_take_an_answer() -> None:
    methods = set().union(*(p.ui_requests for p in PROTOCOLS))
    assert set(DIALOG_METHODS) | set(FIRE_AND_FORGET_METHODS) == methods
    assert not set(DIALOG_METHODS) & set(FIRE_AND_FORGET_METHODS)
    assert DIALOGS == set(DIALOG_METHODS) == set(ANSWER_FIELDS)


def _reach(tp: object, seen: set[type]) -> None:
    """Every Struct class ``tp`` uses: itself, its bases, its fields' types, recursively."""
    for arg in typing.get_args(tp):
        if isinstance(arg, type) or typing.get_origin(arg) is not None:
            _reach(arg, seen)
    cls = typing.get_origin(tp) or tp
    if isinstance(cls, type) and issubclass(cls, msgspec.Struct) and cls not in seen:
        seen.add(cls)
        seen.update(b for b in cls.__mro__[1:] if issubclass(b, msgspec.Struct) and b is not msgspec.Struct)
        for f in msgspec.structs.fields(tp):  # type: ignore[arg-type]
            _reach(f.type, seen)


def test_every_schema_class_belongs_to_some_dialect() -> None:
    used: set[type] = set()
    for p in PROTOCOLS:
        for tp in [*p.c2a.values(), *p.a2c.values(), *p.ui_requests.values(),
                   *(spec.type for spec in p.data.values() if spec.type is not None)]:
            _reach(tp, used)
    defined = set()
    for info in pkgutil.iter_modules(protocol.__path__):
        if info.name == "acp_types":  # generated: every definition of ACP's schema, reached or not
            continue
        module = importlib.import_module(f"rpcspy.protocol.{info.name}")
        defined |= {obj for obj in vars(module).values() if isinstance(obj, type)
                    and issubclass(obj, msgspec.Struct) and obj.__module__ == module.__name__}
    stray = {f"{c.__module__}.{c.__name__}" for c in defined - used}
    assert stray == {"rpcspy.protocol.validation._UIEnvelope"}  # the bytes decoder's stand-in, not a schema


def test_the_diagnosis_knows_which_dialects_settle() -> None:
    from rpcspy.diagnose.knowledge import SETTLED
    from rpcspy.protocol.spec import SETTLING_DIALECTS

    assert SETTLING_DIALECTS == {p.dialect for p in PROTOCOLS if SETTLED in p.a2c and not p.spec.omp_family}


def test_run_queue_and_disposed_commands_are_commands() -> None:
    from rpcspy.protocol.vocabulary import DISPOSED_COMMANDS, QUEUE_COMMANDS, RUN_COMMANDS

    assert set(RUN_COMMANDS) <= {c for p in PROTOCOLS for c in p.commands}
    for p in PROTOCOLS:
        if not p.spec.omp_family:
            assert "prompt" in p.commands and set(QUEUE_COMMANDS | DISPOSED_COMMANDS) <= set(p.commands), p.dialect
    assert ["steer"] not in QUEUE_COMMANDS  # a hostile frame's list `type` is simply no name


def test_no_name_of_the_lazy_package_is_also_a_module_name() -> None:
    """Importing ``rpcspy.protocol.X`` binds the module as the package's attribute ``X``: a name the
    package offers lazily must never be a module's name, or ``from rpcspy.protocol import X`` gives
    the module once anything imported it (``validate`` did, until the module became ``validation``)."""
    modules = {info.name for info in pkgutil.iter_modules(protocol.__path__)}
    assert not set(protocol._HOMES) & modules
    for name in protocol._HOMES:
        importlib.import_module(f"rpcspy.protocol.{protocol._HOMES[name]}")
        assert not isinstance(getattr(protocol, name), type(protocol)), name


def test_the_response_type_is_the_response_schemas_tag() -> None:
    from rpcspy.protocol.responses import Response

    assert Response.__struct_config__.tag == RESPONSE_TYPE
    assert all(RESPONSE_TYPE in p.a2c for p in PROTOCOLS)
COMMANDS = {c for p in PROTOCOLS for c in p.commands}


def test_lifecycle_command_sets_name_commands() -> None:
    from rpcspy.protocol.vocabulary import SLOW_COMMANDS, STOP_COMMANDS, TEARDOWN_COMMANDS

    for group in (STOP_COMMANDS, TEARDOWN_COMMANDS, SLOW_COMMANDS):
        assert set(group) <= COMMANDS, set(group) - COMMANDS
    assert TEARDOWN_COMMANDS == STOP_COMMANDS - {"abort", "abort_and_prompt"}


def test_lifecycle_event_names_are_agent_events() -> None:
    from rpcspy.protocol import vocabulary as V

    single = {V.RUN_START, V.RUN_END, V.SETTLED, V.OMP_PROMPT_RESULT, V.OMP_SESSION_SETTLED, V.RETRY_START,
              V.RETRY_END, V.QUEUE_UPDATE, V.READY}
    for name in (single | V.RUN_BOUNDARIES | V.COMPACTION_START | V.COMPACTION_END | V.NOT_EMITTED_BY_OMP
                 | V.MESSAGE_EVENTS | V.OUTPUT_UPDATES | V.RUN_PROGRESS_EVENTS):
        assert name in AGENT_TYPES, name
    assert V.RUN_BOUNDARIES == {V.RUN_START, V.RUN_END, V.SETTLED} and V.MESSAGE_EDGES < V.MESSAGE_EVENTS
    assert "id" in _fields("bash_execution_update") and "toolCallId" in _fields("tool_execution_update")
    omp = {p.dialect: p for p in PROTOCOLS}["omp"]
    assert not set(V.NOT_EMITTED_BY_OMP) & set(omp.a2c)
    assert {V.OMP_PROMPT_RESULT, V.OMP_SESSION_SETTLED} <= set(omp.a2c)


def test_host_calls_and_cancels_pair_requests_with_answers() -> None:
    from rpcspy.protocol.vocabulary import HOST_CALLS, HOST_CANCELS

    assert set(HOST_CALLS) == HOST_REQUEST_TYPES and set(HOST_CALLS.values()) <= ANSWER_TYPES
    assert set(HOST_CANCELS) == AGENT_CANCEL_TYPES and set(HOST_CANCELS.values()) == HOST_REQUEST_TYPES


def test_delta_events_are_the_streamed_block_pieces() -> None:
    from rpcspy.protocol.streaming import FORWARDED_EVENTS
    from rpcspy.protocol.vocabulary import DELTA_EVENTS

    assert DELTA_EVENTS == {e for e in FORWARDED_EVENTS if e.endswith("_delta")}


def test_every_name_set_refuses_non_strings() -> None:
    from rpcspy.protocol import vocabulary as V

    sets = [v for k, v in vars(V).items() if k.isupper() and isinstance(v, frozenset)]
    assert len(sets) >= 15
    for s in sets:
        assert isinstance(s, V.Names), s
        assert ["x"] not in s and {"a": 1} not in s


def test_no_name_set_of_the_protocol_lives_outside_the_vocabulary() -> None:
    """A frozenset literal of quoted frame-type or command names anywhere else in rpcspy is a copy."""
    import ast
    from pathlib import Path

    import rpcspy

    known = AGENT_TYPES | COMMANDS | ANSWER_TYPES
    root = Path(rpcspy.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        if path.name == "vocabulary.py" or path.parent.name == "protocol":
            continue
        if path.relative_to(root).as_posix() == "conform/judges.py":  # EVERY: what one case sends, in order
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Set | ast.Tuple) and node.elts:
                strings = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if len(strings) >= 2 and strings <= known:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {sorted(strings)}")
    assert found == [], found
