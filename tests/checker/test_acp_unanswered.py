"""``check --unanswered-after`` on ACP: requests overdue both ways, through the one pairing model."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rpcspy.cli import main
from tests.checker.helpers import A, C, check
from tests.checker.test_acp_rules import note, opening, prompt, req, res, upd

DATA = Path(__file__).parents[1] / "data" / "acp"
HANG = DATA / "test-agent-unanswered.jsonl"
"""The SDK test agent behind `rpcspy run`, driven by raw JSON lines: two sessions; in the first a prompt
(`deny`) makes the agent ask a permission nobody answers; in the second a prompt (`slow:1`) streams one
chunk, then waits for a cancel that never comes; 2 s later one more `session/new`; then EOF."""


def overdue(*frames, after: float = 1.0, finish: bool = False) -> list[tuple[int | None, str]]:
    return [(f.frame, f.message) for f in check(*frames, unanswered_after=after, finish=finish)
            if f.rule == "acp.unanswered"]


def test_an_agent_request_the_client_never_answers() -> None:
    frames = [*opening(), C(req(2, "session/prompt", sessionId="s1", prompt=[])),
              A(req(0, "fs/read_text_file", sessionId="s1", path="/etc/hosts"), t=1.0),
              C(note("session/cancel", sessionId="s1"), t=2.5)]
    found = overdue(*frames)
    assert len(found) == 1 and found[0][0] == 6
    assert "`fs/read_text_file` (id 0) from the agent not answered after 1.5 s: the client owes" in found[0][1]


def test_a_prompt_is_overdue_only_when_its_session_is_silent() -> None:
    busy = [*opening(), prompt(), *(A(upd("s1", sessionUpdate="agent_message_chunk",
                                              content={"type": "text", "text": "x"}), t=0.5 * i) for i in range(1, 8))]
    assert overdue(*busy) == []  # 3.5 s of streaming: a long turn, not a hang
    silent = [*busy, C(req(9, "session/new", cwd="/", mcpServers=[]), t=5.0)]
    found = overdue(*silent)
    assert len(found) == 1 and found[0][0] == 5
    assert "not answered after 5.0 s, its session silent for 1.5 s: the agent owes" in found[0][1]


def test_a_prompt_waiting_on_the_client_is_not_the_agent_s_fault() -> None:
    frames = [*opening(), prompt(), A(req(0, "session/request_permission", sessionId="s1",
                                          toolCall={"toolCallId": "t"}, options=[]), t=0.1),
              C(req(9, "session/new", cwd="/", mcpServers=[]), t=5.0)]
    assert [frame for frame, _ in overdue(*frames)] == [6]  # the permission, not the prompt


def test_reported_once_then_not_again_at_the_end() -> None:
    frames = [*opening(), prompt(), C(req(9, "session/new", cwd="/", mcpServers=[]), t=3.0),
              C(req(10, "session/new", cwd="/", mcpServers=[]), t=6.0)]
    found = overdue(*frames, finish=True)
    assert [frame for frame, _ in found] == [5, 6, 7]  # each once: no second finding at the end
    assert "not answered after 3.0 s" in found[1][1] and "never answered" in found[2][1]


def test_an_answer_in_time_is_nothing() -> None:
    assert overdue(*opening(), prompt(), A(res(2, {"stopReason": "end_turn"}), t=0.5),
                   C(req(9, "session/new", cwd="/", mcpServers=[]), t=5.0)) == []


def test_check_on_a_real_recording_both_directions() -> None:
    res_ = CliRunner().invoke(main, ["check", "--unanswered-after", "1", str(HANG)])
    lines = [line for line in res_.output.splitlines() if "acp.unanswered" in line]
    assert res_.exit_code == 1  # acp.prompt_during_permission: the agent gave up at EOF
    assert len(lines) == 2
    assert ":10 ← warning acp.unanswered: `session/request_permission` (id 0) from the agent not answered after " \
        "2.0 s: the client owes the answer" in lines[0]
    assert ":11 → warning acp.unanswered: `session/prompt` (id 3) not answered after 2.0 s, its session silent " \
        "for 2.0 s: the agent owes" in lines[1]
    # without the option, the same two are reported at the end, as never answered
    plain = CliRunner().invoke(main, ["check", str(HANG)]).output
    assert plain.count("never answered") == 2 and "not answered after" not in plain
    # a limit longer than the wait: only the end's
    late = CliRunner().invoke(main, ["check", "--unanswered-after", "5", str(HANG)]).output
    assert late.count("never answered") == 2 and "not answered after" not in late


def test_a_clean_real_session_stays_clean() -> None:
    """omp acp's real session: initialize took 8 s (no frame in between), turns stream: nothing overdue."""
    res_ = CliRunner().invoke(main, ["check", "--unanswered-after", "0.5", str(DATA / "omp-18.2.3-acp-permission.jsonl")])
    assert "acp.unanswered" not in res_.output and res_.exit_code == 0, res_.output
