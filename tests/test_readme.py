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


def test_readme_commands_name_what_exists() -> None:
    """`pip install . && rpcspy demo`: the package installs an `rpcspy` script that has `demo`;
    `scripts/test`: installs the `test` extra and the agents with files that exist."""
    import tomllib

    from rpcspy.cli import COMMANDS

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["rpcspy"] == "rpcspy.cli:main" and "demo" in COMMANDS
    assert "test" in project["optional-dependencies"]
    script = (ROOT / "scripts" / "test").read_text()
    assert "-e '.[test]'" in script and "scripts/install-agents" in script
    assert (ROOT / "scripts" / "install-agents").stat().st_mode & 0o111


def test_readme_says_what_a_fresh_machine_needs() -> None:
    intro = (ROOT / "README.md").read_text().split("\n## ", 1)[0]
    for need in ("Python 3.11", "venv", "root", "npm", "chromium"):
        assert need in intro, need


_FOLDER = "sha" + "red"
OUTSIDE = re.compile("|".join([re.escape("../" + _FOLDER), "RPCSPY_" + _FOLDER.upper(),
                               r"parents?(\[\d\])? / \"" + _FOLDER + '"']))
"""References to the material folder beside the checkout, in any of the forms the old tests used."""


def test_nothing_outside_the_checkout_is_read() -> None:
    """Tests, scripts and CI carry their own inputs (tests/data): nothing reads the material folder
    beside the checkout, nor the old environment variable that pointed at it. The pattern is built
    from pieces so that this file does not match it (and so needs no exception)."""
    offenders = []
    for folder in ("tests", "scripts", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if not path.is_file() or path.suffix == ".jsonl":
                continue
            text = path.read_text(errors="replace")
            if OUTSIDE.search(text):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_scripts_test_lints_before_the_suite() -> None:
    """`scripts/test` runs `scripts/lint` (ruff over the tree, mypy over rpcspy) before pytest, and fails with it."""
    import tomllib

    script = (ROOT / "scripts" / "test").read_text()
    lines = [ln.strip() for ln in script.splitlines()]
    assert "set -euo pipefail" in lines and "scripts/lint" in lines
    assert lines.index("scripts/lint") < next(i for i, ln in enumerate(lines) if "-m pytest" in ln)
    lint = (ROOT / "scripts" / "lint").read_text()
    assert lint_runs(lint, "ruff check rpcspy tests scripts bench") and lint_runs(lint, "mypy rpcspy")
    assert (ROOT / "scripts" / "lint").stat().st_mode & 0o111
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert {re.split(r"[<>=]", dep)[0] for dep in extras} >= {"ruff", "mypy"}


def lint_runs(script: str, command: str) -> bool:
    """Whether a non-comment line of `script` ends by running `command`."""
    return any(ln.rstrip().endswith(command) and not ln.lstrip().startswith("#") for ln in script.splitlines())
