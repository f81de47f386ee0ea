"""check, show, stats, export and why pair responses with commands the same way (issue 11's example).

A client sends ``get_commands`` with an id, then one without; the agent answers the id-less one
first. Every command must see both commands answered, each by its own response.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli import main
from tests.cli.test_check_cmd import write_recording
from tests.render.html_data import items

FRAMES = [
    ("c2a", b'{"id":"a","type":"get_commands"}', False),
    ("c2a", b'{"type":"get_commands"}', False),
    ("a2c", b'{"type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False),
    ("a2c", b'{"id":"a","type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False),
]


def _run(*args: str) -> str:
    res = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    return res.stdout


def test_idless_answer_first_agrees_everywhere(tmp_path: Path) -> None:
    rec = str(write_recording(tmp_path / "pairs.jsonl", FRAMES))
    assert _run("check", rec, "--dialect", "pi-0.84", "--format", "json").strip() == ""
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["get_commands"]["count"] == 2
    assert stats["commands"]["get_commands"]["responses"] == 2
    assert stats["commands"]["get_commands"]["unanswered"] == 0 and stats["unmatched_responses"] == 0
    assert (stats["commands"]["get_commands"]["p50_ms"], stats["commands"]["get_commands"]["max_ms"]) == (500, 1500)
    show = _run("show", rec, "--frames", "--color", "never")
    assert "another response" not in show and "no command waiting" not in show and "not echoed" not in show
    answers = [line for line in show.splitlines() if "← ✓ get_commands" in line]
    assert "(500 ms)" in answers[0] and "#a (1.50 s)" in answers[1]  # #3 answers #2, #4 answers #1
    html = _run("export", rec, "-o", "-")
    rows = [json.dumps(r) for r in items(html)]
    assert rows and not any("another response" in r or "no command waiting" in r or "not echoed" in r for r in rows)


def _why(rec: str, *args: str) -> dict:
    res = CliRunner().invoke(main, ["why", rec, "--format", "json", *args])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)


def _correlation(rec: str, dialect: str = "pi-0.84") -> list[tuple[str, int]]:
    res = CliRunner().invoke(main, ["check", rec, "--dialect", dialect, "--format", "json"])
    assert res.exit_code in (0, 1), res.output
    found = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    return [(f["rule"], f["frame"]) for f in found if f["group"] == "correlation"]


def test_why_agrees_on_the_idless_answer_first(tmp_path: Path) -> None:
    """Nothing waits, no pitfall; and with a 1 s client timeout only the command with the id was
    answered late (1.5 s by frame 4): each answer went to its own command, not the oldest."""
    rec = str(write_recording(tmp_path / "pairs.jsonl", FRAMES))
    plain = _why(rec)
    assert plain["outstanding"] == [] and plain["pitfalls"] == []
    late = _why(rec, "--client-timeout", "1.0")["pitfalls"]
    assert [(p["kind"], p["frames"]) for p in late] == [("pitfall.late_response", [1, 4])]
    assert "(id 'a', frame 1) was answered after 1.5 s" in late[0]["text"]


REUSED = [  # the same id twice, one after the other, each answered
    ("c2a", b'{"id":"r","type":"get_commands"}', False),
    ("a2c", b'{"id":"r","type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False),
    ("c2a", b'{"id":"r","type":"get_messages"}', False),
    ("a2c", b'{"id":"r","type":"response","command":"get_messages","success":true,"data":{"messages":[]}}', False),
]
REUSED_WAITING = [REUSED[0], REUSED[2], REUSED[1]]  # reused before the first answer: the second waits
IDLESS_SUCCESS = REUSED[:1] + [  # a success without id answers no command with an id
    ("a2c", b'{"type":"response","command":"get_commands","success":true,"data":{"commands":[]}}', False)]


def test_an_id_reused_after_its_answer_pairs_twice_everywhere(tmp_path: Path) -> None:
    rec = str(write_recording(tmp_path / "reused.jsonl", REUSED))
    assert _run("check", rec, "--dialect", "pi-0.84", "--format", "json").strip() == ""
    stats = json.loads(_run("stats", rec, "--format", "json"))
    for name in ("get_commands", "get_messages"):
        assert (stats["commands"][name]["responses"], stats["commands"][name]["unanswered"]) == (1, 0)
    assert stats["unmatched_responses"] == 0
    show = _run("show", rec, "--frames", "--color", "never")
    assert "another response" not in show and "no command waiting" not in show
    assert "← ✓ get_commands #r (500 ms)" in show and "← ✓ get_messages #r (500 ms)" in show
    why = _why(rec)
    assert why["outstanding"] == [] and why["pitfalls"] == []


def test_an_id_reused_while_waiting_leaves_the_second_command_waiting_everywhere(tmp_path: Path) -> None:
    rec = str(write_recording(tmp_path / "reused.jsonl", REUSED_WAITING))
    assert _correlation(rec) == [("correlation.reused_id", 2), ("correlation.unanswered", 2)]
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["get_commands"]["responses"] == 1 and stats["commands"]["get_messages"]["unanswered"] == 1
    assert "← ✓ get_commands #r (1.00 s)" in _run("show", rec, "--frames", "--color", "never")
    assert [i["frames"] for i in _why(rec)["outstanding"]] == [[2]]


def test_an_idless_success_answers_no_command_with_an_id_everywhere(tmp_path: Path) -> None:
    rec = str(write_recording(tmp_path / "idless.jsonl", IDLESS_SUCCESS))
    assert _correlation(rec) == [("correlation.unexpected_response", 2), ("correlation.unanswered", 1)]
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["get_commands"]["unanswered"] == 1 and stats["unmatched_responses"] == 1
    assert "no command waiting" in _run("show", rec, "--frames", "--color", "never")
    assert [i["frames"] for i in _why(rec)["outstanding"]] == [[1]]


PARSE_ERROR = b'{"type":"response","command":"parse","success":false,"error":"%s"}'
OMP_BLANK = [(d, data, False) for d, data in (  # the parse error answers `xx`, the next error `{"type":"parse"}`
    ("a2c", b'{"type":"ready"}'), ("c2a", b""), ("c2a", b"xx"), ("a2c", PARSE_ERROR % b"Failed to parse"),
    ("c2a", b'{"type":"parse"}'), ("a2c", PARSE_ERROR % b"Unknown command: parse"))]


def test_omp_skips_a_blank_client_line_everywhere(tmp_path: Path) -> None:
    """The dialect is detected first (omp's `ready`), as check does: the blank line waits for nothing, so
    each error answers the line after it, 500 ms later, and nothing is left waiting."""
    rec = str(write_recording(tmp_path / "omp.jsonl", OMP_BLANK))
    assert _correlation(rec, "auto") == []
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["(invalid)"] == {"count": 1, "responses": 1, "errors": 1, "unanswered": 0,
                                              "p50_ms": 500.0, "p95_ms": 500.0, "max_ms": 500.0}
    assert (stats["commands"]["parse"]["responses"], stats["commands"]["parse"]["unanswered"]) == (1, 0)
    assert stats["unmatched_responses"] == 0 and stats["types"]["c2a"]["invalid"]["count"] == 2
    answers = [line for line in _run("show", rec, "--frames", "--color", "never").splitlines() if "← ✗ parse" in line]
    assert len(answers) == 2 and all("(500 ms)" in line for line in answers)
    rows = items(_run("export", rec, "-o", "-"))
    assert [(r[5], r[7]) for r in rows if r[3] == "response"] == [("✗ parse", "500 ms")] * 2  # (summary, latency)
    why = _why(rec)
    assert why["dialect"] == "omp" and why["outstanding"] == [] and why["pitfalls"] == []


OMP_EARLY_BLANK = [OMP_BLANK[1], OMP_BLANK[0], *OMP_BLANK[2:]]  # the blank line comes before omp's `ready`


def test_omp_blank_line_before_ready_agrees_everywhere(tmp_path: Path) -> None:
    """`why` detects the dialect in a first pass too: the blank line sent before `ready` waits for no
    answer, so `{"type":"parse"}` (frame 5) is answered by frame 6, as check, stats and show say."""
    rec = str(write_recording(tmp_path / "omp_early.jsonl", OMP_EARLY_BLANK))
    assert _correlation(rec, "auto") == []
    stats = json.loads(_run("stats", rec, "--format", "json"))
    assert stats["commands"]["parse"]["unanswered"] == 0 and stats["unmatched_responses"] == 0
    answers = [line for line in _run("show", rec, "--frames", "--color", "never").splitlines() if "← ✗ parse" in line]
    assert len(answers) == 2 and all("(500 ms)" in line for line in answers)
    why = _why(rec)
    assert why["dialect"] == "omp" and why["outstanding"] == [] and why["pitfalls"] == []
