"""The conformance battery: each case is data (steps to perform) plus a pure judge of the transcript.

A case says which documented rule it checks (``doc``: a section of the protocol's
documentation) and, where rpcspy's checker has one, the rule in docs/rules.md that
explains a deviation (``rule``). Verdicts: *passed* (as documented), *deviation* (the
agent works, but not as documented), *failed* (no answer, a hang, a crash), *skipped*.
"""

from __future__ import annotations

from dataclasses import dataclass

from rpcspy.conform.judges import (
    EVERY,
    Judge,
    abort,
    answered_ok,
    big,
    blank,
    compaction,
    crlf,
    dialog,
    dialog_timeout,
    eof_idle,
    eof_running,
    error_for,
    every,
    idless_ok,
    null,
    parse_error,
    queued,
    refused,
    response_first,
    retry,
    run,
    sigterm,
    two_prompts,
    u2028,
)
from rpcspy.conform.script import Answer, Await, Close, Kill, Send, Step, send
from rpcspy.protocol.spec import ACP_V1

PROBE = {"id": "probe", "type": "get_state"}
"""A harmless command sent after a tricky frame: is the agent still answering?"""


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    doc: str
    """The documented behaviour checked (a section of the RPC docs, quoted briefly)."""
    steps: tuple[Step, ...]
    judge: Judge
    rule: str | None = None
    """The rule of docs/rules.md that explains a deviation, if the checker has one."""
    needs_model: bool = False
    extension: bool = False
    """The agent's HOME gets :data:`EXTENSION_JS` (a ``/conform-ask`` command opening a dialog)."""
    dialect: str = "pi"
    """The protocol the case speaks: ``pi`` (pi's RPC, omp's too) or ``acp-v1``."""
    needs: tuple[str, ...] = ()
    """ACP: what the shared agent must have done first: ``initialize``, ``session`` (the battery's
    session open), ``own_session`` (a session of the case's own, ``$SESSION`` in its steps)."""

    @property
    def group(self) -> str:
        return self.id.split(".", 1)[0]


EXTENSION_FILE = "rpcspy-conform.js"
EXTENSION_JS = """\
// rpcspy conform: /conform-ask [TIMEOUT_MS] opens a confirm dialog and reports the answer.
export default function (pi) {
  pi.registerCommand("conform-ask", {
    description: "rpcspy conform: open a confirm dialog",
    handler: async (args, ctx) => {
      const ms = Number(String(args || "").trim());
      const ok = await ctx.ui.confirm("rpcspy conform", "proceed?", ms > 0 ? { timeout: ms } : undefined);
      ctx.ui.notify("conform-ask -> " + ok, "info");
    },
  });
}
"""
"""Written to ``~/.pi/agent/extensions/`` and ``~/.omp/agent/extensions/`` for the dialog cases."""


# -- the battery ---------------------------------------------------------------------------
_SLOW = "slow:60"
_PROBE = send(PROBE)
_PROBE_WAIT = Await("response", "probe")


def _queue_case(kind: str, text: str) -> Case:
    return Case(
        f"lifecycle.{kind}", f"{kind} during a run is queued and delivered",
        f"RPC docs, {kind}: queued while streaming, delivered to the agent", (
            send({"id": "p", "type": "prompt", "message": _SLOW}), Await("delta"),
            send({"id": "q", "type": kind, "message": text}), Await("response", "q"), Await("idle", timeout=30),
        ), queued(kind, text), needs_model=True)


CASES: tuple[Case, ...] = (
    Case("framing.lf", "a command ending in LF is answered", "RPC docs, Framing: one JSON object per LF-terminated line",
         (send({"id": "lf", "type": "get_state"}), Await("response", "lf")), answered_ok("lf", "LF line")),
    Case("framing.crlf", "a trailing CR is stripped", "RPC docs, Framing: an optional trailing \\r is stripped",
         (send({"id": "crlf", "type": "get_state"}, b"\r\n"), Await("response", "crlf")), crlf, rule="framing.crlf"),
    Case("framing.u2028", "a raw U+2028 inside a string does not split the line",
         "RPC docs, Framing: LF is the only delimiter; U+2028/U+2029 are not",
         (send({"id": "u\u2028x", "type": "get_state"}), Await("response", "u\u2028x", timeout=8)), u2028,
         rule="framing.line_separator"),
    Case("framing.blank_line", "a blank line is ignored", "RPC docs, Framing: JSONL (one object per line)",
         (send(b"\n"), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), blank, rule="framing.blank_line"),
    Case("framing.null", "a `null` line gets an error, not a crash", "RPC docs, Framing: each line is a command object",
         (send(b"null\n"), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), null, rule="misuse.null_frame"),
    Case("framing.big", "a 10 MB command is read whole", "RPC docs, Framing: a line has no length limit",
         (send({"id": "big", "type": "get_state", "pad": "x" * 10_000_000}), Await("response", "big", timeout=30)),
         big, rule="framing.over_1m"),
    Case("framing.split", "a command split across three writes is reassembled", "RPC docs, Framing: records end at LF",
         (Send((b'{"id":"sp",', b'"type":"get_', b'state"}\n'), gap=0.2), Await("response", "sp")),
         answered_ok("sp", "split command")),
    Case("id.every", "every response echoes its command's id", "RPC docs, Commands: the response repeats the id",
         (*(send({"id": f"e{i}", "type": c}) for i, c in enumerate(EVERY)), Await("response", "e2"),
          Await("quiet", 0.5)), every, rule="correlation.unanswered"),
    Case("id.absent", "a command without an id gets a response without one",
         "RPC docs, Commands: the id is optional", (send({"type": "get_state"}), Await("response", None)), idless_ok),
    Case("id.unknown_command", "an unknown command's error echoes its id",
         "RPC docs, Commands: the response repeats the id (any command)",
         (send({"id": "unk", "type": "frobnicate"}), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)),
         error_for("unk", "unknown command"), rule="correlation.idless_error"),
    Case("id.parse_error", "invalid JSON gets an id-less parse error", "RPC docs, Errors: parse errors have no id",
         (send(b'{"id":"pe","type":\n'), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), parse_error,
         rule="correlation.idless_error"),
    Case("errors.unknown_command", "an unknown command is refused and the agent carries on",
         "RPC docs, Errors: success false with an error message",
         (send({"id": "unk", "type": "no_such_command"}), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)),
         refused("unknown command"), rule="schema.unknown_type"),
    Case("errors.bad_enum", "an invalid enum value is refused", "RPC docs, set_steering_mode: mode is all | one-at-a-time",
         (send({"id": "be", "type": "set_steering_mode", "mode": "bogus"}), _PROBE, _PROBE_WAIT),
         error_for("be", "set_steering_mode mode=bogus"), rule="schema.bad_enum"),
    Case("errors.missing_field", "a prompt without its message is refused", "RPC docs, prompt: message is required",
         (send({"id": "mf", "type": "prompt"}), Await("response", "mf"), _PROBE, _PROBE_WAIT, Await("quiet", 0.5)),
         error_for("mf", "prompt without message"), rule="schema.missing_field"),
    Case("ordering.prompt_response_first", "the prompt's response precedes its run; events carry no id",
         "RPC docs, prompt: the response comes once the prompt is accepted",
         (send({"id": "p", "type": "prompt", "message": "hello"}), Await("idle")), response_first,
         rule="lifecycle.event_with_id", needs_model=True),
    Case("lifecycle.run", "a prompt makes one balanced run", "RPC docs, Events: agent_start ... agent_end",
         (send({"id": "p", "type": "prompt", "message": "tool: echo hi"}), Await("idle", timeout=30)), run,
         rule="lifecycle.run_unbalanced", needs_model=True),
    Case("lifecycle.abort", "abort ends the run", "RPC docs, abort: aborts the current operation",
         (send({"id": "p", "type": "prompt", "message": "slow:400"}), Await("delta"),
          send({"id": "a", "type": "abort"}), Await("response", "a"), Await("idle")), abort, needs_model=True),
    _queue_case("steer", "steered"),
    _queue_case("follow_up", "followed"),
    Case("lifecycle.two_prompts", "two prompts back to back: the second is refused or runs",
         "RPC docs, prompt: while streaming, streamingBehavior is required", (
             send({"id": "p1", "type": "prompt", "message": "slow:20 first"}),
             send({"id": "p2", "type": "prompt", "message": "second"}),
             Await("response", "p2"), Await("idle", timeout=30)),
         two_prompts, rule="misuse.prompt_while_starting", needs_model=True),
    Case("lifecycle.compaction", "compact after two long replies", "RPC docs, compact: compacts the conversation",
         (send({"id": "p", "type": "prompt", "message": "big:100"}), Await("idle", timeout=60),
          send({"id": "p2", "type": "prompt", "message": "big:100 again"}), Await("idle", timeout=60),
          send({"id": "c", "type": "compact"}), Await("response", "c", timeout=30), Await("quiet", 0.5)),
         compaction, rule="lifecycle.compaction_unbalanced", needs_model=True),
    Case("lifecycle.retry", "HTTP 429 from the model is retried", "RPC docs, auto_retry_start / auto_retry_end events",
         (send({"id": "p", "type": "prompt", "message": "ratelimit:1 go"}), Await("idle", 1.5, timeout=30)),
         retry, needs_model=True),
    Case("dialogs.answered", "a dialog answered by the client", "RPC docs, Extension UI: extension_ui_response {id, confirmed}",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask"}), Await("dialog"),
          Answer((("confirmed", True),)), Await("response", "d"), Await("quiet", 0.3)),
         dialog("true", "confirmed"), rule="correlation.ui_unanswered", extension=True),
    Case("dialogs.cancelled", "a dialog cancelled by the client", "RPC docs, Extension UI: {id, cancelled: true}",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask"}), Await("dialog"),
          Answer((("cancelled", True),)), Await("response", "d"), Await("quiet", 0.3)),
         dialog("false", "cancelled"), rule="correlation.ui_unanswered", extension=True),
    Case("dialogs.timed_out", "a dialog left to time out", "RPC docs, Extension UI: the agent handles the timeout",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask 400"}), Await("dialog"),
          Await("response", "d", timeout=10), Await("quiet", 1.2)),
         dialog_timeout, rule="correlation.ui_late", extension=True),
    Case("shutdown.eof_idle", "EOF while idle: a clean exit", "RPC docs: the agent exits when stdin closes",
         (_PROBE, _PROBE_WAIT, Close(), Await("exit", timeout=15)), eof_idle),
    Case("shutdown.eof_running", "EOF during a run: the run is closed, then exit", "RPC docs, Events: every run ends with agent_end",
         (send({"id": "p", "type": "prompt", "message": "slow:100"}), Await("delta"), Close(), Await("exit", timeout=20)),
         eof_running, rule="lifecycle.run_cut_off", needs_model=True),
    Case("shutdown.sigterm_running", "SIGTERM during a run: a prompt exit", "process conventions: SIGTERM ends the agent",
         (send({"id": "p", "type": "prompt", "message": "slow:100"}), Await("delta"), Kill(15), Await("exit", timeout=15)),
         sigterm, needs_model=True),
)

BY_ID: dict[str, Case] = {c.id: c for c in CASES}


DIALECTS = ("pi", ACP_V1)
"""The dialects the battery has cases for."""


def battery(dialect: str = "pi") -> tuple[Case, ...]:
    """The cases of one dialect: pi's RPC (pi and omp ``--mode rpc``) or ACP (``acp-v1``)."""
    if dialect == ACP_V1:
        from rpcspy.conform.acp import ACP_CASES

        return ACP_CASES
    return CASES


def select(patterns: tuple[str, ...] = (), *, model: bool = True, dialect: str = "pi") -> list[Case]:
    """The cases of ``dialect`` whose id matches one of the shell-style ``patterns`` (all when
    none), minus those that need a model when ``model`` is False."""
    from fnmatch import fnmatchcase

    chosen = [c for c in battery(dialect) if not patterns or any(fnmatchcase(c.id, p) for p in patterns)]
    return [c for c in chosen if model or not c.needs_model]
