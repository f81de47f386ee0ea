"""``rpcspy replay REC``: a recording becomes a fake agent (or, with --client, a fake client)."""

from __future__ import annotations

import sys

import click

from rpcspy.cli.record_opt import claim_recording, recording_options

MATCH_HELP = """How a live command finds its recorded answer.
exact (default): same payload apart from the id, volatile values normalised; a changed
command is reported (with the closest recorded one), never fed an answer meant for
another question, while independent commands may still come in another order.
type: the next unused recorded command of the same type, whatever its fields.
sequence: the next recorded command, in recorded order, of the same type.
Identical commands are served in recorded order."""

CHAOS_HELP = """Inject faults while replaying, seeded and reproducible: comma-separated
NAME=VALUE items, e.g. seed=7,latency=50ms,drop=0.1,split=0.3 (see docs/torture.md;
`--chaos help` lists them). Every fault is listed in --report and on stderr at exit."""


@click.command(
    "replay",
    epilog="""\b
Examples:
  rpcspy replay rec.jsonl                         be the agent of rec.jsonl on stdin/stdout
  my-client --agent 'rpcspy replay --speed 0 rec.jsonl'
  rpcspy replay --strict --report r.json rec.jsonl
  rpcspy replay --client rec.jsonl -o new.jsonl -- pi --mode rpc
  rpcspy replay --client rec.jsonl --diff -- pi --mode rpc    regression test of an agent upgrade
  rpcspy replay --chaos seed=3,drop=0.2,split=0.5 --report r.json rec.jsonl   faults for your client
  rpcspy replay --scenario list                   the bundled torture scenarios
  my-client --agent 'rpcspy replay --speed 0 --scenario u2028'
\b
Exit status: the recorded agent's (at EOF on stdin, or where the recording exits);
3 with --strict at the first divergence. With --client: the agent's, or with
--diff 1 when the new session differs.""",
)
@click.argument("recording", type=click.Path(dir_okay=False, exists=True), required=False)
@click.argument("agent", nargs=-1, type=click.UNPROCESSED)
@click.option("--match", "match", type=click.Choice(["exact", "type", "sequence"]), default=None,
              help=MATCH_HELP + " [default: exact; type with --scenario]")
@click.option("--reuse", is_flag=True, help="Serve a recorded answer again when no unused one matches.")
@click.option("--speed", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Pace: 1 real time, 2 twice as fast, 0 as fast as possible.")
@click.option("--strict", is_flag=True, help="Exit (status 3) at the first divergence.")
@click.option("--report", "report", type=click.Path(dir_okay=False), default=None,
              help="Write a JSON divergence report here (kept up to date during the run).")
@recording_options("-o", "--record", dest="record",
                   what="Record this session (fake agent) or the new session (--client; default: a new file in "
                        "./recordings) to FILE: a new file, or with --overwrite a replacement for an existing one; "
                        "a symlink, a FIFO or a device is refused (exit 2, nothing started).")
@click.option("--no-record", is_flag=True, help="--client: record nothing (then --diff cannot be used).")
@click.option("--redact", multiple=True, metavar="REGEX",
              help="Treat matches as redacted when matching (fixtures made with --redact apply theirs).")
@click.option("--usage", is_flag=True, help="Ignore token usage/cost numbers when matching.")
@click.option("--no-stderr", is_flag=True, help="Do not replay the recorded agent's stderr lines.")
@click.option("--client", is_flag=True,
              help="Be the client instead: send REC's client frames to AGENT (after --), paced as recorded.")
@click.option("--timeout", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="--client: seconds to wait for each recorded response, agent_end or dialog.")
@click.option("--diff", "diff", is_flag=True, help="--client: diff the new session against REC afterwards.")
@click.option("--chaos", "chaos", metavar="SPEC", default=None, help=CHAOS_HELP)
@click.option("--scenario", "scenario", metavar="NAME", default=None,
              help="Replay a bundled torture scenario (a recording plus chaos) instead of REC; `list` lists them.")
def command(recording: str | None, agent: tuple[str, ...], match: str | None, reuse: bool, speed: float,
            strict: bool, report: str | None, record: str | None, overwrite: bool, no_record: bool, redact: tuple[str, ...], usage: bool,
            no_stderr: bool, client: bool, timeout: float, diff: bool, chaos: str | None,
            scenario: str | None) -> None:
    """Replay a recording: be the agent it recorded, answering a live client.

    Each command the client sends is matched to a recorded one (--match); what
    the agent sent after it is played back with the response id rewritten to
    the client's, at the recorded pace (--speed). Frames the agent sent before
    any command (omp's ready) go out at start. Recorded dialogs
    (extension_ui_request) wait for the client's answer, ids mapped both ways.
    A command with no match gets a failure response naming the closest recorded
    command, and the divergence is said on stderr at once; a report of
    divergences and unconsumed recorded commands goes to stderr at exit.
    At EOF on stdin the recorded end is played and the recorded exit status
    returned.

    An ACP recording (JSON-RPC 2.0) replays as a fake ACP agent: the agent's own
    requests (session/request_permission, fs/*, terminal/*) wait for the
    client's answers, each recorded sessionId becomes a fresh one, the client's
    cwd stands for the recorded one, and an unmatched request gets a JSON-RPC
    error (docs/acp.md).
    """
    if scenario is not None:
        recording, chaos, match, reuse = _scenario(scenario, recording, chaos, match, reuse, client)
    elif recording is None:
        raise click.UsageError("give a RECORDING (or --scenario NAME)")
    match = match or "exact"
    chaos_spec = _chaos_spec(chaos) if chaos is not None else None
    if client:
        if chaos_spec is not None:
            raise click.UsageError("--chaos is for the fake agent, not --client")
        if not agent:
            raise click.UsageError("--client needs the agent command after --, e.g. -- pi --mode rpc")
        if no_record and (diff or record):
            raise click.UsageError("--no-record cannot go with --diff or -o")
        sys.exit(_fake_client(recording, list(agent), speed=speed, timeout=timeout, record=record, diff=diff,
                                usage=usage, redact=redact, overwrite=overwrite, no_record=no_record))
    if no_record:
        raise click.UsageError("--no-record is for --client (the fake agent records only with -o)")
    if agent:
        raise click.UsageError(f"unexpected arguments {' '.join(agent)!r} (an agent command needs --client)")
    sys.exit(_fake_agent(recording, match=match, reuse=reuse, speed=speed, strict=strict, report=report,
                         record=record, overwrite=overwrite, redact=redact, usage=usage, no_stderr=no_stderr, chaos=chaos_spec))


def _scenario(name: str, recording: str | None, chaos: str | None, match: str | None, reuse: bool,
              client: bool) -> tuple[str, str | None, str, bool]:
    """The recording, chaos, match and reuse of scenario ``name`` (an explicit --chaos adds to its own)."""
    from rpcspy.replay.scenarios import BY_NAME, listing, recording_path

    if name == "list":
        click.echo(listing(), nl=False)
        sys.exit(0)
    if recording is not None or client:
        raise click.UsageError("--scenario replaces RECORDING and is for the fake agent, not --client")
    found = BY_NAME.get(name)
    if found is None:
        raise click.BadParameter(f"no scenario {name!r}; known: {', '.join(BY_NAME)}", param_hint="--scenario")
    spec = ",".join(filter(None, [found.chaos, chaos or ""]))
    return str(recording_path(found)), spec or None, match or found.match, True


def _fake_client(recording: str, argv: list[str], *, speed: float, timeout: float, record: str | None,
                 diff: bool, usage: bool, redact: tuple[str, ...], overwrite: bool = False,
                 no_record: bool = False) -> int:
    """``--client``: play the recording's client against ``argv``, record it, optionally diff; the exit status."""
    from rpcspy.inert import inert_line
    from rpcspy.pump.commands.fake_client import ClientRun
    from rpcspy.recording.naming import default_path
    from rpcspy.recording.reader import RecordingError, open_recording
    from rpcspy.recording.writer import RecordingWriter, make_header
    from rpcspy.replay.client import plan

    try:
        rec = open_recording(recording)
    except RecordingError as exc:
        sys.stderr.write(inert_line(f"rpcspy replay --client: {exc}") + "\n")
        return 2
    steps = plan(rec.entries(), transcript=rec.kind != "rpcspy")
    if no_record:
        return ClientRun(steps, argv, recorder=None, speed=speed, timeout=timeout).run()
    out = record or default_path("recordings", argv)
    fd = claim_recording(out, overwrite, strict=diff)  # --diff needs the new recording
    writer = RecordingWriter(out, make_header(argv, mode="client", source=recording), fd=fd,
                             warn=lambda m: print(inert_line(f"rpcspy replay --client: {m}"), file=sys.stderr))
    try:
        code = ClientRun(steps, argv, recorder=writer, speed=speed, timeout=timeout).run()
    finally:
        writer.close()
    if writer.failed:
        sys.stderr.write(f"rpcspy replay --client: the new session is not (wholly) recorded in {out}\n")
    else:
        sys.stderr.write(f"rpcspy replay --client: new session recorded to {out}\n")
    if not diff:
        return code
    from rpcspy.cli.recfile import make_console
    from rpcspy.diff.differ import diff_recordings
    from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
    from rpcspy.render.diff import render_diff

    result = diff_recordings(recording, out, Normaliser(NormaliseOptions(usage=usage, redact=tuple(redact)),
                                                        stable=False))
    render_diff(result, make_console())
    return 0 if result.equal else 1


def _chaos_spec(text: str):
    from rpcspy.replay.chaos import FAULTS, ChaosSpecError, parse_spec

    if text in ("help", "list"):
        click.echo("\n".join(f"  {syntax}" for syntax in FAULTS.values()))
        sys.exit(0)
    try:
        return parse_spec(text)
    except ChaosSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--chaos") from None


def _fake_agent(recording: str, *, match: str, reuse: bool, speed: float, strict: bool, report: str | None,
                record: str | None, redact: tuple[str, ...], usage: bool, no_stderr: bool, chaos=None,
                overwrite: bool = False,
                stdio: tuple[int, int, int] = (0, 1, 2)) -> int:
    import re

    from rpcspy.inert import inert_line
    from rpcspy.normalise.fixture import read_fixture_options
    from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
    from rpcspy.pump.commands.fake_agent import FakeAgent, ReplayOptions
    from rpcspy.recording.reader import RecordingError
    from rpcspy.replay.engine import ReplayEngine
    from rpcspy.replay.matcher import Matcher
    from rpcspy.replay.source import open_source

    try:
        for p in redact:
            re.compile(p)
    except re.error as exc:
        raise click.BadParameter(f"bad --redact pattern: {exc}") from None
    try:
        source = open_source(recording)
        fixture = read_fixture_options(recording)
    except RecordingError as exc:
        from rpcspy.cli.exits import InputError

        raise InputError(str(exc)) from None
    opts = NormaliseOptions(
        usage=usage or bool(fixture and fixture.usage),
        redact=tuple(redact) + (fixture.redact if fixture else ()),
        compact_partials=bool(fixture and fixture.compact_partials),
        secrets=bool(fixture and fixture.secrets),
    )
    matcher = Matcher(match, reuse=reuse, normaliser=Normaliser(opts, stable=False))  # type: ignore[arg-type]
    engine = ReplayEngine(matcher, recording=recording)
    planner = None
    if chaos is not None:
        from rpcspy.replay.chaos import Chaos

        planner = Chaos(chaos)
        engine.report.chaos = chaos.text
    recorder = None
    if record:
        from rpcspy.recording.writer import RecordingWriter, make_header

        recorder = RecordingWriter(record, make_header(sys.argv, mode="replay", source=recording),
                                   fd=claim_recording(record, overwrite),
                                   warn=lambda m: print(inert_line(f"rpcspy replay: {m}"), file=sys.stderr))
    agent = FakeAgent(source, engine, ReplayOptions(speed=speed, strict=strict, report_path=report,
                                                    replay_stderr=not no_stderr, recorder=recorder,
                                                    chaos=planner,
                                                    stdin_fd=stdio[0], stdout_fd=stdio[1], stderr_fd=stdio[2]))
    return agent.run()
