"""Every real frame of the transcripts in tests/data against its dialect's schemas.

Clean frames must have no issue above ``unknown_field``; each deliberate misuse (and each
agent frame that merely echoes it back) must be flagged with the issue listed here.
Frames that are not JSON at all are framing problems, the checker's business.
"""

from __future__ import annotations

import pytest

from rpcspy.protocol import validate, validate_bytes
from tests.protocol.corpus import CORPORA, NOT_JSON, dialect_of, frames

# (corpus, scenario) -> {seq: (kind, path) of one expected hard issue}; seq is the line of
# the structured transcript. Comments say what the client did.
_T04 = {
    14: ("unknown_type", "$.type"),        # {"id":"unk","type":"nope"}
    16: ("unknown_type", "$.type"),        # {"type":"nope2"}
    18: ("missing_field", "$.type"),       # {"id":"notype"}
    20: ("invalid", "$"),                  # 42
    22: ("invalid", "$"),                  # "just a string"
    24: ("invalid", "$"),                  # []
    26: ("invalid", "$"),                  # true
    30: ("wrong_type", "$.id"),            # "id":5
    32: ("wrong_type", "$.id"),            # "id":null
    57: ("missing_field", "$.message"),    # prompt without message
    59: ("wrong_type", "$.message"),       # prompt with message:123
    61: ("missing_field", "$.provider"),   # set_model without fields
    63: ("missing_field", "$.name"),       # set_session_name without name
    65: ("missing_field", "$.command"),    # bash without command
}
MISUSE: dict[tuple[str, str], dict[int, tuple[str, str]]] = {
    ("pi-0.73.1", "04_framing_and_errors"): {
        **_T04,
        67: ("bad_enum", "$.mode"),                   # set_steering_mode "bogus"
        69: ("bad_enum", "$.mode"),                   # set_follow_up_mode 42
        71: ("bad_enum", "$.level"),                  # set_thinking_level "ultra"
        73: ("wrong_type", "$.enabled"),              # set_auto_compaction "yes"
        76: ("bad_enum", "$.data.steeringMode"),      # get_state echoes the persisted "bogus"
        78: ("missing_field", "$.id"),                # extension_ui_response without id
        80: ("unknown_type", "$.type"),               # the client sent a "response"
        83: ("bad_enum", "$.data.steeringMode"),      # get_state echoes "bogus" again
    },
    ("pi-0.73.1", "05_null_frame_crash"): {4: ("invalid", "$")},
    ("pi-0.73.1", "10_streaming_steer_followup_queue"): {27: ("bad_enum", "$.streamingBehavior")},
    ("pi-0.73.1", "70_images"): {
        17: ("missing_field", "$.images[0].data"),                   # old `source` image form
        21: ("missing_field", "$.message.content[1].data"),          # ... stored verbatim (message_start)
        22: ("missing_field", "$.message.content[1].data"),          # ... message_end
        31: ("missing_field", "$.messages[0].content[1].data"),      # ... agent_end
        32: ("wrong_type", "$.images"),                              # images:"nope"
        36: ("wrong_type", "$.message.content[1]"),                  # ... spread into content as "n","o",...
        37: ("wrong_type", "$.message.content[1]"),
        46: ("wrong_type", "$.messages[0].content[1]"),
        50: ("missing_field", "$.data.messages[2].content[1].data"),  # get_messages holds both
    },
    ("pi-0.87.1", "04_framing_and_errors"): {
        **_T04,
        68: ("bad_enum", "$.mode"),
        70: ("bad_enum", "$.mode"),
        72: ("bad_enum", "$.level"),
        74: ("wrong_type", "$.enabled"),
        77: ("bad_enum", "$.data.steeringMode"),
        79: ("missing_field", "$.id"),
        81: ("unknown_type", "$.type"),
        83: ("unknown_type", "$.type"),               # {"id":7,"type":"nope3"}
        87: ("wrong_type", "$.excludeFromContext"),   # bash excludeFromContext:"yes"
        91: ("bad_enum", "$.data.steeringMode"),
    },
    ("pi-0.87.1", "05_null_frame_crash"): {4: ("invalid", "$")},
    ("pi-0.87.1", "10_streaming_steer_followup_queue"): {29: ("bad_enum", "$.streamingBehavior")},
    ("pi-0.87.1", "40_models_and_thinking"): {28: ("bad_enum", "$.level")},   # level "bogus"
    ("pi-0.87.1", "70_images"): {
        20: ("missing_field", "$.images[0].data"),       # old `source` form: rejected by 0.87 itself
        22: ("wrong_type", "$.images"),
        72: ("missing_field", "$.images[0].mimeType"),   # image without mimeType
        106: ("missing_field", "$.images[0].data"),      # steer with the old form: accepted by 0.87 ...
        165: ("missing_field", "$.message.content[1].data"),      # ... and delivered verbatim
        166: ("missing_field", "$.message.content[1].data"),
        175: ("missing_field", "$.messages[4].content[1].data"),
        178: ("missing_field", "$.data.messages[15].content[1].data"),
    },
    ("omp-18.2.3", "O1_omp_18.2.3_basic"): {
        10: ("unknown_type", "$.type"),
        14: ("invalid", "$"),
        91: ("invalid", "$"),     # null (omp answers with a parse error instead of crashing)
    },
}


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_clean_frames_have_no_hard_issue_and_misuse_is_flagged(corpus: str) -> None:
    dialect = dialect_of(corpus)
    wrong_clean, missed = [], []
    checked = 0
    for f in frames(corpus):
        if f.obj is NOT_JSON:
            continue
        checked += 1
        hard = {(i.kind, i.path) for i in validate(f.obj, f.dir, dialect) if i.hard}
        expected = MISUSE.get((corpus, f.file), {}).get(f.seq)
        if expected is None and hard:
            wrong_clean.append((f.file, f.seq, f.dir, sorted(hard)))
        elif expected is not None and expected not in hard:
            missed.append((f.file, f.seq, f.dir, expected, sorted(hard)))
    assert checked > 80
    assert wrong_clean == [], "clean frames with hard issues"
    assert missed == [], "misuse not flagged as expected"


def test_misuse_table_points_at_real_frames() -> None:
    for (corpus, scenario), entries in MISUSE.items():
        seqs = {f.seq for f in frames(corpus) if f.file == scenario and f.obj is not NOT_JSON}
        assert set(entries) <= seqs, (corpus, scenario, sorted(set(entries) - seqs))


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_validate_bytes_agrees_with_validate(corpus: str) -> None:
    dialect = dialect_of(corpus)
    for f in frames(corpus):
        value, issues = validate_bytes(f.data, f.dir, dialect)
        if f.obj is NOT_JSON:
            assert value is None and [i.kind for i in issues] == ["invalid"]
            continue
        assert issues == validate(f.obj, f.dir, dialect), (f.file, f.seq)
        if issues:
            assert value == f.obj


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_unknown_fields_in_clean_traffic_are_rare(corpus: str) -> None:
    """The schemas know the fields real agents send: only deliberate extras are unknown."""
    dialect = dialect_of(corpus)
    unknown = {(f.file, i.path) for f in frames(corpus) if f.obj is not NOT_JSON
               for i in validate(f.obj, f.dir, dialect) if i.kind == "unknown_field"}
    allowed = {"$.bogus", "$.images[0].source", "$.message.content[1].source",
               "$.messages[0].content[1].source", "$.messages[4].content[1].source",
               "$.data.messages[2].content[1].source", "$.data.messages[15].content[1].source"}
    assert {path for _, path in unknown} <= allowed
