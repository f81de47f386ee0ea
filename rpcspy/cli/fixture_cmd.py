"""``rpcspy fixture REC -o FILE``: a recording turned into a stable regression fixture."""

from __future__ import annotations

import os

import click

from rpcspy.cli.record_opt import overwrite_option, refuse_existing_output


@click.command(
    "fixture",
    epilog="""\b
Examples:
  rpcspy fixture rec.jsonl -o tests/fixtures/basic.jsonl
  rpcspy fixture rec.jsonl -o f.jsonl --usage --compact-partials --redact 'acct-[0-9]+'
  rpcspy replay --speed 0 tests/fixtures/basic.jsonl      still answers the live client""",
)
@click.argument("recording", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The fixture file to write.")
@click.option("--usage", is_flag=True, help="Also zero token usage/cost numbers.")
@click.option("--redact", multiple=True, metavar="REGEX",
              help="Replace matches with <redacted> (repeatable); replay applies the same to live frames.")
@click.option("--compact-partials", is_flag=True,
              help="Drop pi 0.73's redundant assistantMessageEvent.partial copy from message_update frames.")
@overwrite_option
def command(recording: str, output: str, usage: bool, redact: tuple[str, ...], compact_partials: bool,
            overwrite: bool) -> None:
    """Write a normalised copy of RECORDING: a stable fixture for tests.

    Volatile values become numbered placeholders of the same shape (UUIDs and
    session ids stay UUIDs, millisecond timestamps stay integers, ISO times
    keep their layout, temp paths and loopback ports get stable names),
    consistently, so the same value always gets the same placeholder.
    API-key-like strings, values of keys such as apiKey, DB_PASSWORD or
    client_secret, NAME=value pairs whose name says password, secret, token or
    key (as `env` prints them), Authorization headers, .netrc passwords,
    passwords said in prose, private keys, and what detect-secrets' plugins
    recognise (AWS secret keys, JWTs, passwords in URLs, service tokens) become
    <redacted>, and so does every other occurrence of a value found once;
    replay redacts live frames the same way, so they still match (what is and
    is not caught: docs/replay.md). Timing is kept, so replay paces the fixture as recorded.
    The fixture is an ordinary recording (header source set to RECORDING).
    """
    import re

    from rpcspy.cli.exits import freeze_at_exit
    from rpcspy.cli.recfile import atomic_output, open_or_fail
    from rpcspy.normalise.fixture import fixture_lines, known_secrets
    from rpcspy.normalise.normaliser import NormaliseOptions

    freeze_at_exit()  # the process ends with the command: no teardown of its modules

    try:
        for p in redact:
            re.compile(p)
    except re.error as exc:
        raise click.BadParameter(f"bad --redact pattern: {exc}") from None
    rec = open_or_fail(recording)
    from rpcspy.pump.commands.outfile import is_special

    if os.path.exists(output) and not is_special(output):  # a FIFO or /dev/null is written in place, not replaced
        if os.path.samefile(output, recording):
            raise click.BadParameter("OUTPUT must not be the recording itself", param_hint="-o")
        refuse_existing_output(output, overwrite)
    options = NormaliseOptions(usage=usage, redact=redact, compact_partials=compact_partials, secrets=True)
    transcript = rec.kind != "rpcspy"
    known = known_secrets(rec.header, rec.entries(), options, transcript=transcript)  # then every occurrence
    lines = 0
    with atomic_output(output, make_dirs=True) as f:
        buf: list[bytes] = []
        for line in fixture_lines(rec.header, rec.entries(), options, source=os.path.abspath(recording),
                                  transcript=transcript, known=known):
            buf.append(line)
            lines += 1
            if len(buf) >= 512:
                f.write(b"".join(buf))
                buf.clear()
        f.write(b"".join(buf))
    from rpcspy.inert import inert_line

    for problem in rec.problems:
        click.echo(f"rpcspy fixture: skipped {inert_line(str(problem))}", err=True)
    click.echo(f"rpcspy fixture: wrote {output} ({lines} lines)", err=True)
