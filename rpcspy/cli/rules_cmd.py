"""`rpcspy rules [ID]`: list the checker's rules, or explain one."""

from __future__ import annotations

import sys

import click


@click.command(
    "rules",
    epilog="""\b
Examples:
  rpcspy rules                          every rule, as a table
  rpcspy rules --group correlation      one group
  rpcspy rules misuse.null_frame        explain one rule and its fix
  rpcspy rules --format markdown        the catalogue as Markdown (docs/rules.md)""",
)
@click.argument("rule_id", required=False, metavar="[ID]")
@click.option("--group", "group", metavar="GROUP", help="Only rules of GROUP (framing, schema, correlation, ...).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]), default="table",
              show_default=True, help="Output format.")
def command(rule_id: str | None, group: str | None, fmt: str) -> None:
    """List the protocol rules `rpcspy check` applies, or explain rule ID.

    Every rule has a stable id (GROUP.NAME), a severity (error, warning, info)
    and an explanation that says how to fix the cause.
    """
    from rpcspy.checker.rules import GROUPS, RULES

    if group is not None and group not in GROUPS:
        raise click.BadParameter(f"unknown group {group!r} (one of {', '.join(GROUPS)})", param_hint="--group")
    if rule_id is not None:
        rule = RULES.get(rule_id)
        if rule is None:
            _unknown(rule_id, list(RULES))
        _explain(rule_id, fmt)
        return
    rules = [r for r in RULES.values() if group is None or r.group == group]
    if fmt == "markdown":
        from rpcspy.checker.catalogue_doc import to_markdown

        click.echo(to_markdown(), nl=False)
    elif fmt == "json":
        import json

        for r in rules:
            click.echo(json.dumps({"id": r.id, "severity": r.severity, "group": r.group,
                                   "summary": r.summary, "explanation": r.explanation}))
    else:
        _table(rules)


def _unknown(rule_id: str, known: list[str]) -> None:
    import difflib

    close = difflib.get_close_matches(rule_id, known, n=3, cutoff=0.5)
    close += [r for r in known if r.endswith("." + rule_id) and r not in close]
    hint = f"; did you mean {', '.join(close)}?" if close else "; `rpcspy rules` lists them"
    click.echo(f"rpcspy: error: no rule {rule_id!r}{hint}", err=True)
    sys.exit(2)


_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _table(rules: list) -> None:
    from rich.table import Table

    from rpcspy.cli.recfile import make_console

    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("id", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("summary")
    for r in rules:
        table.add_row(r.id, f"[{_STYLE[r.severity]}]{r.severity}[/]", r.summary)
    console = make_console()
    console.print(table)
    console.print(f"{len(rules)} rules; `rpcspy rules ID` explains one.", style="dim")


def _explain(rule_id: str, fmt: str) -> None:
    from rpcspy.checker.rules import RULES

    r = RULES[rule_id]
    if fmt == "json":
        import json

        click.echo(json.dumps({"id": r.id, "severity": r.severity, "group": r.group,
                               "summary": r.summary, "explanation": r.explanation}))
        return
    if fmt == "markdown":
        click.echo(f"### {r.id}\n\n**{r.severity}**: {r.summary}\n\n{r.explanation}")
        return
    from rich.markdown import Markdown

    from rpcspy.cli.recfile import make_console

    console = make_console()
    console.print(f"[bold]{r.id}[/]  [{_STYLE[r.severity]}]{r.severity}[/]  group: {r.group}", markup=True)
    console.print(r.summary)
    console.print()
    console.print(Markdown(r.explanation))
