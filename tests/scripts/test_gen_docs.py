"""docs/cli.md is generated from click and must be current for every command."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from rpcspy.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]


def _gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    # In a fresh interpreter: click caches each command's help option on first use, so
    # commands other tests invoked on their own would render without their `-h` alias.
    import subprocess
    import sys

    code = "import runpy, sys; m = runpy.run_path(sys.argv[1]); sys.stdout.write(m['render']())"
    expected = subprocess.run([sys.executable, "-c", code, str(ROOT / "scripts" / "gen_docs.py")],
                              capture_output=True, text=True, check=True, timeout=60).stdout
    current = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert current == expected, "docs/cli.md is stale: run `python scripts/gen_docs.py` and commit docs/cli.md"


def test_every_command_has_an_entry_with_its_help() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## `rpcspy (\S+)`$", text, flags=re.M)
    assert headings == list(COMMANDS), "docs/cli.md must have one section per command, in COMMANDS order"
    for name in COMMANDS:
        section = text.split(f"## `rpcspy {name}`", 1)[1].split("\n## ", 1)[0]
        assert f"Usage: rpcspy {name}" in section, f"the {name} section lacks its --help text"


def test_check_mode_detects_a_stale_file(tmp_path: Path, monkeypatch) -> None:
    gen = _gen_docs()
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(gen, "OUTPUT", stale)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0 and gen.main(["--check"]) == 0


def test_tutorial_uses_only_existing_commands_and_options() -> None:
    """docs/tutorial.md must not drift from the CLI: each `rpcspy CMD --opt` it shows exists."""
    import click

    from rpcspy.cli import main

    text = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    uses = re.findall(r"rpcspy ([a-z]+)((?: +(?:--?[a-z][\w-]*|[^\s`'|)]+))*)", text)
    assert len(uses) > 10
    root = click.Context(main, info_name="rpcspy")
    for name, rest in uses:
        if name not in COMMANDS:
            continue  # `rpcspy -- pi`, prose such as "rpcspy in front of"
        command = main.get_command(root, name)
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        own = re.split(r"(?<!\S)--(?!\S)", rest)[0]  # what follows a bare -- is the agent's
        for opt in re.findall(r"(?<!\S)(--?[a-z][\w-]*)", own):
            assert opt in known, f"docs/tutorial.md: `rpcspy {name} {opt}` is not an option of {name}"
