"""`rpcspy schema`: print the JSON Schema of the protocol, for client authors in other languages."""

from __future__ import annotations

import click

from rpcspy.cli.record_opt import overwrite_option, refuse_existing_output
from rpcspy.protocol.spec import DIALECTS, SCHEMA_DEFAULT

DIALECT_CHOICES = DIALECTS
"""Every dialect (:mod:`rpcspy.protocol.spec` imports nothing heavy, so `--help` stays quick)."""


@click.command(
    "schema",
    epilog="""\b
Examples:
  rpcspy schema                           pi >= 0.84, both directions
  rpcspy schema --dialect omp -o omp.json
  rpcspy schema --direction c2a           only what a client may send
  rpcspy schema --list                    the dialects and how they differ""",
)
@click.option("--dialect", "dialect", type=click.Choice(DIALECT_CHOICES), default=SCHEMA_DEFAULT, show_default=True,
              help="Protocol dialect.")
@click.option("--direction", type=click.Choice(["c2a", "a2c"]), default=None,
              help="c2a: client -> agent frames; a2c: agent -> client frames. Default: both.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write to FILE instead of stdout (an existing file is kept unless --overwrite).")
@overwrite_option
@click.option("--indent", type=click.IntRange(0, 8), default=2, show_default=True,
              help="Indentation (0: one line).")
@click.option("--list", "list_", is_flag=True, help="List the dialects and exit.")
def command(dialect: str, direction: str | None, output: str | None, overwrite: bool, indent: int,
            list_: bool) -> None:
    """Print the JSON Schema (draft 2020-12) of the RPC frames of DIALECT.

    The top level is `oneOf` ClientFrame / AgentFrame; every frame type, command,
    response (one per command) and event is a named definition under `$defs`.
    Client frames forbid unknown keys; agent frames allow them, since agents add
    fields over time.
    """
    import json

    from rpcspy.protocol import json_schema
    from rpcspy.protocol.spec import DESCRIPTIONS

    if list_:
        for name, text in DESCRIPTIONS.items():
            click.echo(f"{name:<11} {text}")
        return
    if output is not None:
        refuse_existing_output(output, overwrite)
    doc = json_schema(dialect, direction)
    text = json.dumps(doc, indent=indent or None, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    from rpcspy.cli.recfile import atomic_output

    with atomic_output(output, "w", make_dirs=True, encoding="utf-8") as f:
        f.write(text)
    click.echo(f"rpcspy: wrote the {dialect} schema ({len(doc['$defs'])} definitions) to {output}", err=True)
