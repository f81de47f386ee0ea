"""`rpcspy schema`: prints a JSON Schema a validator accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rpcspy.cli import main
from rpcspy.cli.schema_cmd import DIALECT_CHOICES
from rpcspy.protocol import DIALECTS


def test_choices_match_the_dialects() -> None:
    assert DIALECT_CHOICES == DIALECTS


def test_prints_a_valid_schema_that_validates_a_prompt() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    result = CliRunner().invoke(main, ["schema", "--dialect", "pi-0.73", "--direction", "c2a"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(doc)
    validator = jsonschema.Draft202012Validator(doc)
    assert validator.is_valid({"id": "1", "type": "prompt", "message": "hi"})
    assert not validator.is_valid({"type": "set_steering_mode", "mode": "bogus"})
    assert "AgentFrame" not in doc["$defs"]


def test_writes_a_file(tmp_path: Path) -> None:
    out = tmp_path / "omp.json"
    result = CliRunner().invoke(main, ["schema", "--dialect", "omp", "-o", str(out), "--indent", "0"])
    assert result.exit_code == 0
    assert "wrote the omp schema" in result.output
    doc = json.loads(out.read_text())
    assert {"Ready", "HostToolCall", "SetHostTools"} <= set(doc["$defs"])


def test_writes_into_new_directories_and_says_why_it_cannot(tmp_path: Path) -> None:
    out = tmp_path / "schemas" / "pi.json"
    assert CliRunner().invoke(main, ["schema", "-o", str(out)]).exit_code == 0
    assert json.loads(out.read_text())["$defs"]
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(main, ["schema", "-o", str(tmp_path / "file" / "pi.json")])
    assert result.exit_code == 4 and "cannot write" in result.output and "Traceback" not in result.output


def test_list_and_bad_dialect() -> None:
    result = CliRunner().invoke(main, ["schema", "--list"])
    assert result.exit_code == 0 and all(d in result.output for d in DIALECTS)
    result = CliRunner().invoke(main, ["schema", "--dialect", "pi-9"])
    assert result.exit_code == 2 and "pi-9" in result.output
