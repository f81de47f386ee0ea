"""``rpcspy replay --scenario``: list, errors, and a scenario served to a live client."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.replay.scenarios import SCENARIOS, recording_path


def test_list_names_every_scenario_with_what_it_catches() -> None:
    res = CliRunner().invoke(main, ["replay", "--scenario", "list"])
    assert res.exit_code == 0
    for s in SCENARIOS:
        assert s.name in res.output and s.catches in res.output
        assert recording_path(s).is_file()
    assert len(SCENARIOS) >= 8


def test_unknown_scenario_and_conflicts_are_usage_errors(tmp_path) -> None:
    r = CliRunner()
    assert r.invoke(main, ["replay", "--scenario", "nope"]).exit_code == 2
    rec = recording_path(SCENARIOS[0])
    assert r.invoke(main, ["replay", "--scenario", "clean", str(rec)]).exit_code == 2
    assert r.invoke(main, ["replay"]).exit_code == 2
    res = r.invoke(main, ["replay", "--chaos", "drop=7", str(rec)])
    assert res.exit_code == 2 and "not within 0..1" in res.output


def test_scenario_answers_any_client_by_type_and_reports_its_faults(tmp_path) -> None:
    report = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--report", str(report),
                        "--scenario", "idless-errors", "--chaos", "dup=1"],
                       input=b'{"id":"mine","type":"get_state"}\n', capture_output=True, timeout=60)
    lines = [json.loads(x) for x in p.stdout.split(b"\n") if x]
    responses = [x for x in lines if x.get("type") == "response"]
    assert [r.get("id") for r in responses] == ["mine", "mine", None]  # dup, then the id-less error
    rep = json.loads(report.read_text())
    assert rep["chaos"] == "seed=1,idless-error=1,dup=1" and rep["match"] == "type"
    assert [f["fault"] for f in rep["faults"]] == ["dup", "idless-error"]


def test_a_clean_client_eof_exits_0_in_every_scenario_but_the_crash() -> None:
    """The bundled recordings end as a client's EOF ends pi (exit 0), not with the SIGTERM (143) of the
    client that recorded them; only agent-crash exits as its agent did (1)."""
    for s in SCENARIOS:
        done = subprocess.run([sys.executable, "-m", "rpcspy", "replay", "--speed", "0", "--no-stderr",
                               "--scenario", s.name], stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        assert done.returncode == (1 if s.name == "agent-crash" else 0), (s.name, done.stderr[-500:])
