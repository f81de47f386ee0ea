"""The README opens with exactly the two set-up commands, and CI runs the second one."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_starts_with_the_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert block and text.index(block.group(0)) < text.index("\n## ")
    commands = [ln.split("#")[0].strip() for ln in block.group(1).strip().splitlines()]
    assert commands == ["pip install . && rpcspy demo", "scripts/test"]


def test_ci_runs_the_readme_test_command() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec scripts/test\b", run, re.M)
    assert (ROOT / "scripts" / "test").stat().st_mode & 0o111
