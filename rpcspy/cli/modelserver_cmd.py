"""``rpcspy model-server``: the scripted OpenAI-compatible model server, for running agents offline."""

from __future__ import annotations

import sys

import click

BEHAVIOURS = """\b
What it answers depends on the last user message:
  (anything)     "Hello \\u2028world!" in three chunks (a raw U+2028 inside)
  think: ...     reasoning_content chunks, then the text
  tool: CMD      a bash tool call running CMD (default: echo hello-from-tool),
                 then "Tool said: <first line of output>"
  slow:N         N text chunks (default 100), --slow-delay seconds apart
  big:N          a reply of N KiB
  error: ...     HTTP 503 the first time, then an answer (agent auto-retry)
  ratelimit:N    HTTP 429 (Retry-After: 0) the first N times, then an answer
  fail: ...      HTTP 500 every time"""


@click.command(
    "model-server",
    epilog=BEHAVIOURS + """

\b
Examples:
  rpcspy model-server                        serve on a free port, print the pi and omp snippets
  rpcspy model-server --port 8399 --home /tmp/h
                                             ... and write a ready HOME for both agents, then:
  HOME=/tmp/h pi --mode rpc --no-session --provider fake --model fake-model
  rpcspy model-server --port 8399 --print-only --config omp   just the omp snippet""",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port; 0 picks a free one.")
@click.option("--config", "config", type=click.Choice(["pi", "omp", "both", "none"]), default="both",
              show_default=True, help="Which provider snippet to print on stdout.")
@click.option("--home", type=click.Path(file_okay=False), default=None,
              help="Write a HOME here whose pi and omp config use this server (plus a project/ directory).")
@click.option("--slow-delay", type=click.FloatRange(min=0), default=0.05, show_default=True,
              help="Seconds between the chunks of a slow: reply.")
@click.option("--print-only", is_flag=True, help="Print the snippets (and write --home) for --port, then exit.")
def command(host: str, port: int, config: str, home: str | None, slow_delay: float, print_only: bool) -> None:
    """Serve a deterministic OpenAI-compatible streaming chat-completions API.

    The provider is called ``fake`` (api ``openai-completions``, models
    ``fake-model`` and ``fake-reasoner``, any API key). The first stdout line is
    ``# model server: URL``; the provider snippets for pi
    (~/.pi/agent/models.json) and omp (~/.omp/agent/models.yml) follow. The
    server runs until interrupted (Ctrl-C or SIGTERM).
    """
    from rpcspy.modelserver.config import snippet

    if print_only and port == 0:
        raise click.UsageError("--print-only needs --port (the snippet names the port)")
    server = None
    if print_only:
        base_url = f"http://{host}:{port}/v1"
    else:
        from rpcspy.pump.commands.model_server import ModelServer

        server = ModelServer(slow_delay=slow_delay, host=host, port=port)
        try:
            server.start()
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        base_url = server.base_url
    out = [f"# model server: {base_url}\n"]
    for agent in ("pi", "omp"):
        if config in (agent, "both"):
            out.append(snippet(agent, base_url))
    if home:
        from pathlib import Path

        from rpcspy.modelserver.config import make_home

        made = make_home(Path(home), base_url)
        out.append(f"# HOME written: {made} (working directory: {made / 'project'})\n")

    def ready() -> None:
        sys.stdout.write("".join(out))
        sys.stdout.flush()

    if server is None:
        ready()
    else:  # the URL is printed once SIGTERM is handled: whoever read it may stop the server at once
        server.serve_until_signalled(lambda text: click.echo(f"rpcspy model-server: {text}", err=True), ready)
