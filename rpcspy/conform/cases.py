"""The conformance battery: each case is data (steps to perform) plus a pure judge of the transcript.

A case says which documented rule it checks (``doc``: a section of the protocol's
documentation) and, where rpcspy's checker has one, the rule in docs/rules.md that
explains a deviation (``rule``). Verdicts: *passed* (as documented), *deviation* (the
agent works, but not as documented), *failed* (no answer, a hang, a crash), *skipped*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rpcspy.conform.script import (
    DIALOG_METHODS, Answer, Await, Close, Kill, Send, Step, Transcript, Verdict, deviation, failed, passed, send,
    short, skipped,
)

Judge = Callable[[Transcript], Verdict]

PROBE = {"id": "probe", "type": "get_state"}
"""A harmless command sent after a tricky frame: is the agent still answering?"""
RUN_END = ("agent_end",)


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


# -- shared judgements ---------------------------------------------------------------------
def _probe_answered(t: Transcript) -> bool:
    return bool(t.responses("probe"))


def _dead(t: Transcript, what: str) -> Verdict | None:
    """A failure verdict when the agent died or stopped answering, else None."""
    if t.died:
        return failed(f"{what}: the agent exited with status {t.exit_code}")
    if not _probe_answered(t):
        return failed(f"{what}: the follow-up get_state was never answered")
    return None


def _answered_ok(id_: str, what: str) -> Judge:
    def judge(t: Transcript) -> Verdict:
        rs = t.responses(id_)
        if t.died and not rs:
            return failed(f"{what}: the agent exited with status {t.exit_code}, no response")
        if not rs:
            return failed(f"{what}: no response with id {id_!r}")
        if rs[0].get("success") is not True:
            return deviation(f"{what}: answered with an error: {short(rs[0].get('error'))}")
        return passed(f"{what}: answered, id echoed")
    return judge


def _error_for(id_: str, what: str) -> Judge:
    """The command is invalid: documented answer is a failure response with its id."""
    def judge(t: Transcript) -> Verdict:
        if (v := _dead(t, what)) is not None:
            return v
        rs = t.responses(id_)
        if not rs:
            idless = [r for r in t.responses(idless=True) if r.get("success") is False]
            if idless:
                return deviation(f"{what}: an error, but without the id: {short(idless[0])}")
            return failed(f"{what}: no response at all")
        if rs[0].get("success") is True:
            return deviation(f"{what}: accepted as success: {short(rs[0])}")
        return passed(f"{what}: error response with the id: {short(rs[0].get('error'), 100)}")
    return judge


def _refused(what: str) -> Judge:
    """Any failure response (with or without the id) while the agent keeps answering."""
    def judge(t: Transcript) -> Verdict:
        if (v := _dead(t, what)) is not None:
            return v
        errs = [r for r in t.responses() if r.get("success") is False and r.get("id") != "probe"]
        if not errs:
            return deviation(f"{what}: no error response")
        return passed(f"{what}: refused ({short(errs[0].get('error'), 100)}), the agent carries on")
    return judge


# -- framing -------------------------------------------------------------------------------
def _crlf(t: Transcript) -> Verdict:
    rs = t.responses("crlf")
    if t.died or not rs:
        return failed("a command ending in CR LF got no response")
    if rs[0].get("success") is not True:
        return deviation(f"CR LF: {short(rs[0].get('error'))}")
    return passed("the trailing CR was stripped and the command answered")


def _u2028(t: Transcript) -> Verdict:
    want = "u\u2028x"
    rs = t.responses(want)
    if rs:
        return passed("a raw U+2028 inside a string did not split the line; the id came back intact")
    if t.responses(idless=True):
        return failed("the line was split at U+2028 (parse error): the reader is not LF-only")
    return failed("no response to a command carrying a raw U+2028")


def _blank(t: Transcript) -> Verdict:
    if (v := _dead(t, "after a blank line")) is not None:
        return v
    extra = [r for r in t.responses(idless=True)]
    if extra:
        return deviation(f"the blank line got a response: {short(extra[0])}")
    return passed("the blank line was skipped silently")


def _null(t: Transcript) -> Verdict:
    if t.died:
        return failed(f"`null` made the agent exit with status {t.exit_code} (no response)")
    if not _probe_answered(t):
        return failed("after `null` the agent stopped answering")
    errs = [r for r in t.responses(idless=True) if r.get("success") is False]
    if errs:
        return passed(f"`null` got an error response: {short(errs[0].get('error'), 100)}")
    return deviation("`null` was ignored without a response")


def _big(t: Transcript) -> Verdict:
    rs = t.responses("big")
    if t.died:
        return failed(f"a 10 MB command made the agent exit with status {t.exit_code}")
    if not rs:
        return failed("a 10 MB command got no response")
    if rs[0].get("success") is not True:
        return deviation(f"a 10 MB command was refused: {short(rs[0].get('error'), 120)}")
    return passed("a 10 MB command was answered")


# -- correlation ---------------------------------------------------------------------------
_EVERY = ("get_state", "get_messages", "get_available_models")


def _every(t: Transcript) -> Verdict:
    missing = [f"e{i}" for i in range(len(_EVERY)) if not t.responses(f"e{i}")]
    if missing:
        return failed(f"no response echoing id(s) {', '.join(missing)}")
    wrong = [r for i, c in enumerate(_EVERY) for r in t.responses(f"e{i}") if r.get("command") != c]
    if wrong:
        return deviation(f"a response names the wrong command: {short(wrong[0])}")
    order = [r["id"] for r in t.responses() if str(r.get("id", "")).startswith("e")]
    note = "" if order == sorted(order) else f" (answered out of order: {order})"
    return passed("every response echoes its id and names its command" + note)


def _idless_ok(t: Transcript) -> Verdict:
    rs = [r for r in t.responses(idless=True) if r.get("command") == "get_state"]
    if not rs:
        return failed("a command without an id got no id-less response")
    return passed("a command without an id got a response without one")


def _parse_error(t: Transcript) -> Verdict:
    if (v := _dead(t, "after invalid JSON")) is not None:
        return v
    errs = [r for r in t.responses(idless=True) if r.get("success") is False]
    if not errs:
        return deviation("invalid JSON got no error response")
    cmd = errs[0].get("command")
    return passed(f"invalid JSON got an id-less error response (command {short(cmd)})")


# -- ordering and lifecycle ----------------------------------------------------------------
def _index(t: Transcript, pred: Callable[[dict], bool]) -> int:
    return next((i for i, o in enumerate(t.objs()) if pred(o)), -1)


def _response_first(t: Transcript) -> Verdict:
    r = _index(t, lambda o: o.get("type") == "response" and o.get("id") == "p")
    start = _index(t, lambda o: o.get("type") == "agent_start")
    if r < 0 or start < 0:
        return failed("no prompt response or no agent_start")
    if t.rules("lifecycle.event_with_id"):
        return deviation("an event carries an id (checker: lifecycle.event_with_id)")
    if r > start:
        return deviation("the prompt's response came after agent_start")
    return passed("the prompt's response came before agent_start; no event carries an id")


def _run(t: Transcript) -> Verdict:
    types = t.types()
    if "agent_start" not in types or "agent_end" not in types:
        return failed("no agent_start/agent_end pair")
    bad = t.rules("lifecycle.") + t.rules("stream.")
    if bad:
        return deviation(f"checker: {', '.join(sorted(set(bad)))}")
    settled = " then agent_settled" if "agent_settled" in types else ""
    return passed(f"agent_start ... agent_end{settled}, turns, messages and stream balanced")


def _abort(t: Transcript) -> Verdict:
    rs = t.responses("a")
    if not rs:
        return failed("abort got no response")
    if not t.events(*RUN_END):
        return failed("the aborted run never ended (no agent_end)")
    ends = [m for e in t.events("message_end") for m in [e.get("message") or {}] if m.get("role") == "assistant"]
    reason = ends[-1].get("stopReason") if ends else None
    if reason != "aborted":
        return deviation(f"the run ended, but the last assistant message's stopReason is {reason!r}")
    return passed("abort answered, the run ended with stopReason aborted")


def _user_texts(t: Transcript) -> list[str]:
    out = []
    for e in t.events("message_start"):
        m = e.get("message") or {}
        if m.get("role") == "user":
            c = m.get("content")
            out.append(c if isinstance(c, str) else "".join(p.get("text", "") for p in c or [] if isinstance(p, dict)))
    return out


def _queued(kind: str, text: str) -> Judge:
    def judge(t: Transcript) -> Verdict:
        rs = t.responses("q")
        if not rs:
            return failed(f"{kind} got no response")
        if rs[0].get("success") is not True:
            err = str(rs[0].get("error"))
            if "Unknown command" in err:
                return skipped(f"{kind} is not a command of this agent")
            return deviation(f"{kind} refused during a run: {short(err, 100)}")
        if text not in _user_texts(t):
            return failed(f"{kind} was accepted but its message never reached the conversation")
        return passed(f"{kind} accepted during the run and delivered as a user message")
    return judge


def _two_prompts(t: Transcript) -> Verdict:
    r1, r2 = t.responses("p1"), t.responses("p2")
    if not r1 or not r2:
        return failed(f"no response to {'p1' if not r1 else 'p2'}")
    runs = len(t.events("agent_start"))
    if any(r.get("success") is False for r in r2):
        return passed(f"the second prompt was refused with its id ({short(r2[-1].get('error'), 90)})")
    if runs >= 2 or "second" in " ".join(_user_texts(t)):
        return passed("both prompts were accepted and both ran")
    return deviation("both prompts were acknowledged with success, but the second never ran (silently dropped)")


def _compaction(t: Transcript) -> Verdict:
    rs = t.responses("c")
    if not rs:
        return failed("compact got no response")
    if rs[0].get("success") is not True:
        err = str(rs[0].get("error"))
        if "Nothing to compact" in err:
            return skipped(f"two 100 KiB replies were too little for this agent to compact: {short(err, 80)}")
        return deviation(f"compact failed: {short(err, 120)}")
    bad = t.rules("lifecycle.compaction")
    if bad:
        return deviation(f"checker: {', '.join(sorted(set(bad)))}")
    return passed("compact answered with success")


def _retry(t: Transcript) -> Verdict:
    if not t.events("auto_retry_start"):
        final = [e for e in t.events("message_end") if (e.get("message") or {}).get("role") == "assistant"]
        error = final[-1]["message"].get("errorMessage") if final else None
        return deviation(f"no auto_retry_start after HTTP 429 with this agent's default settings (error: {short(error, 80)})")
    texts = [d.get("delta", "") for e in t.events("message_update")
             for d in [e.get("assistantMessageEvent") or {}] if d.get("type") == "text_delta"]
    if "Rate limit over." not in "".join(texts):
        return failed("retried, but the retry's answer never streamed")
    return passed("HTTP 429 -> auto_retry_start, then the retry's answer")


# -- dialogs -------------------------------------------------------------------------------
def _dialogs(t: Transcript) -> list[dict]:
    return [o for o in t.events("extension_ui_request") if o.get("method") in DIALOG_METHODS]


def _notified(t: Transcript) -> str | None:
    for o in t.events("extension_ui_request"):
        if o.get("method") == "notify" and str(o.get("message", "")).startswith("conform-ask -> "):
            return str(o["message"])[len("conform-ask -> "):]
    return None


def _no_dialog(t: Transcript) -> Verdict:
    why = next((line.strip() for line in t.stderr.splitlines() if "extension" in line.lower()), "")
    why = why.rsplit(": ", 1)[-1] if why.count(": ") > 1 else why  # the cause, not the temp path
    died = f", exited with {t.exit_code}" if t.died else ""
    return skipped(f"no dialog: the agent did not load the test extension{died}" + (f" ({short(why, 140)})" if why else ""))


def _dialog(expected: str, what: str) -> Judge:
    def judge(t: Transcript) -> Verdict:
        if not _dialogs(t):
            return _no_dialog(t)
        if not t.responses("d"):
            return failed(f"{what}: the prompt that opened the dialog never got its response")
        got = _notified(t)
        if got != expected:
            return failed(f"{what}: the extension saw {got!r}, expected {expected!r}")
        return passed(f"{what}: the extension got {expected}, then the prompt was answered")
    return judge


def _dialog_timeout(t: Transcript) -> Verdict:
    if not _dialogs(t):
        return _no_dialog(t)
    if _notified(t) != "false":
        return failed(f"the dialog's timeout did not resolve it to false (extension saw {_notified(t)!r})")
    cancels = [o for o in t.events("extension_ui_request") if o.get("method") == "cancel"]
    if cancels:
        return passed("the timed-out dialog resolved to false and a cancel frame told the client")
    return deviation("the timed-out dialog resolved to false, but no frame told the client (its dialog goes stale)")


# -- shutdown ------------------------------------------------------------------------------
def _eof_idle(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after EOF on stdin")
    if t.exit_code != 0:
        return deviation(f"exit status {t.exit_code} after EOF (expected 0)")
    return passed("EOF on stdin: exit 0")


def _eof_running(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after EOF during a run")
    if not t.events(*RUN_END):
        return deviation(f"exit {t.exit_code}, but the run was cut off without agent_end")
    return passed(f"the run was closed (agent_end) and the agent exited with {t.exit_code}")


def _sigterm(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after SIGTERM")
    if t.exit_code in (0, 143, -15):
        return passed(f"SIGTERM during a run: exit {t.exit_code}")
    return deviation(f"SIGTERM during a run: exit status {t.exit_code}")


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
        ), _queued(kind, text), needs_model=True)


CASES: tuple[Case, ...] = (
    Case("framing.lf", "a command ending in LF is answered", "RPC docs, Framing: one JSON object per LF-terminated line",
         (send({"id": "lf", "type": "get_state"}), Await("response", "lf")), _answered_ok("lf", "LF line")),
    Case("framing.crlf", "a trailing CR is stripped", "RPC docs, Framing: an optional trailing \\r is stripped",
         (send({"id": "crlf", "type": "get_state"}, b"\r\n"), Await("response", "crlf")), _crlf, rule="framing.crlf"),
    Case("framing.u2028", "a raw U+2028 inside a string does not split the line",
         "RPC docs, Framing: LF is the only delimiter; U+2028/U+2029 are not",
         (send({"id": "u\u2028x", "type": "get_state"}), Await("response", "u\u2028x", timeout=8)), _u2028,
         rule="framing.line_separator"),
    Case("framing.blank_line", "a blank line is ignored", "RPC docs, Framing: JSONL (one object per line)",
         (send(b"\n"), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), _blank, rule="framing.blank_line"),
    Case("framing.null", "a `null` line gets an error, not a crash", "RPC docs, Framing: each line is a command object",
         (send(b"null\n"), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), _null, rule="misuse.null_frame"),
    Case("framing.big", "a 10 MB command is read whole", "RPC docs, Framing: a line has no length limit",
         (send({"id": "big", "type": "get_state", "pad": "x" * 10_000_000}), Await("response", "big", timeout=30)),
         _big, rule="framing.over_1m"),
    Case("framing.split", "a command split across three writes is reassembled", "RPC docs, Framing: records end at LF",
         (Send((b'{"id":"sp",', b'"type":"get_', b'state"}\n'), gap=0.2), Await("response", "sp")),
         _answered_ok("sp", "split command")),
    Case("id.every", "every response echoes its command's id", "RPC docs, Commands: the response repeats the id",
         (*(send({"id": f"e{i}", "type": c}) for i, c in enumerate(_EVERY)), Await("response", "e2"),
          Await("quiet", 0.5)), _every, rule="correlation.unanswered"),
    Case("id.absent", "a command without an id gets a response without one",
         "RPC docs, Commands: the id is optional", (send({"type": "get_state"}), Await("response", None)), _idless_ok),
    Case("id.unknown_command", "an unknown command's error echoes its id",
         "RPC docs, Commands: the response repeats the id (any command)",
         (send({"id": "unk", "type": "frobnicate"}), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)),
         _error_for("unk", "unknown command"), rule="correlation.idless_error"),
    Case("id.parse_error", "invalid JSON gets an id-less parse error", "RPC docs, Errors: parse errors have no id",
         (send(b'{"id":"pe","type":\n'), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)), _parse_error,
         rule="correlation.idless_error"),
    Case("errors.unknown_command", "an unknown command is refused and the agent carries on",
         "RPC docs, Errors: success false with an error message",
         (send({"id": "unk", "type": "no_such_command"}), _PROBE, _PROBE_WAIT, Await("quiet", 0.3)),
         _refused("unknown command"), rule="schema.unknown_type"),
    Case("errors.bad_enum", "an invalid enum value is refused", "RPC docs, set_steering_mode: mode is all | one-at-a-time",
         (send({"id": "be", "type": "set_steering_mode", "mode": "bogus"}), _PROBE, _PROBE_WAIT),
         _error_for("be", "set_steering_mode mode=bogus"), rule="schema.bad_enum"),
    Case("errors.missing_field", "a prompt without its message is refused", "RPC docs, prompt: message is required",
         (send({"id": "mf", "type": "prompt"}), Await("response", "mf"), _PROBE, _PROBE_WAIT, Await("quiet", 0.5)),
         _error_for("mf", "prompt without message"), rule="schema.missing_field"),
    Case("ordering.prompt_response_first", "the prompt's response precedes its run; events carry no id",
         "RPC docs, prompt: the response comes once the prompt is accepted",
         (send({"id": "p", "type": "prompt", "message": "hello"}), Await("idle")), _response_first,
         rule="lifecycle.event_with_id", needs_model=True),
    Case("lifecycle.run", "a prompt makes one balanced run", "RPC docs, Events: agent_start ... agent_end",
         (send({"id": "p", "type": "prompt", "message": "tool: echo hi"}), Await("idle", timeout=30)), _run,
         rule="lifecycle.run_unbalanced", needs_model=True),
    Case("lifecycle.abort", "abort ends the run", "RPC docs, abort: aborts the current operation",
         (send({"id": "p", "type": "prompt", "message": "slow:400"}), Await("delta"),
          send({"id": "a", "type": "abort"}), Await("response", "a"), Await("idle")), _abort, needs_model=True),
    _queue_case("steer", "steered"),
    _queue_case("follow_up", "followed"),
    Case("lifecycle.two_prompts", "two prompts back to back: the second is refused or runs",
         "RPC docs, prompt: while streaming, streamingBehavior is required", (
             send({"id": "p1", "type": "prompt", "message": "slow:20 first"}),
             send({"id": "p2", "type": "prompt", "message": "second"}),
             Await("response", "p2"), Await("idle", timeout=30)),
         _two_prompts, rule="misuse.prompt_while_starting", needs_model=True),
    Case("lifecycle.compaction", "compact after two long replies", "RPC docs, compact: compacts the conversation",
         (send({"id": "p", "type": "prompt", "message": "big:100"}), Await("idle", timeout=60),
          send({"id": "p2", "type": "prompt", "message": "big:100 again"}), Await("idle", timeout=60),
          send({"id": "c", "type": "compact"}), Await("response", "c", timeout=30), Await("quiet", 0.5)),
         _compaction, rule="lifecycle.compaction_unbalanced", needs_model=True),
    Case("lifecycle.retry", "HTTP 429 from the model is retried", "RPC docs, auto_retry_start / auto_retry_end events",
         (send({"id": "p", "type": "prompt", "message": "ratelimit:1 go"}), Await("idle", 1.5, timeout=30)),
         _retry, needs_model=True),
    Case("dialogs.answered", "a dialog answered by the client", "RPC docs, Extension UI: extension_ui_response {id, confirmed}",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask"}), Await("dialog"),
          Answer((("confirmed", True),)), Await("response", "d"), Await("quiet", 0.3)),
         _dialog("true", "confirmed"), rule="correlation.ui_unanswered", extension=True),
    Case("dialogs.cancelled", "a dialog cancelled by the client", "RPC docs, Extension UI: {id, cancelled: true}",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask"}), Await("dialog"),
          Answer((("cancelled", True),)), Await("response", "d"), Await("quiet", 0.3)),
         _dialog("false", "cancelled"), rule="correlation.ui_unanswered", extension=True),
    Case("dialogs.timed_out", "a dialog left to time out", "RPC docs, Extension UI: the agent handles the timeout",
         (send({"id": "d", "type": "prompt", "message": "/conform-ask 400"}), Await("dialog"),
          Await("response", "d", timeout=10), Await("quiet", 1.2)),
         _dialog_timeout, rule="correlation.ui_late", extension=True),
    Case("shutdown.eof_idle", "EOF while idle: a clean exit", "RPC docs: the agent exits when stdin closes",
         (_PROBE, _PROBE_WAIT, Close(), Await("exit", timeout=15)), _eof_idle),
    Case("shutdown.eof_running", "EOF during a run: the run is closed, then exit", "RPC docs, Events: every run ends with agent_end",
         (send({"id": "p", "type": "prompt", "message": "slow:100"}), Await("delta"), Close(), Await("exit", timeout=20)),
         _eof_running, rule="lifecycle.run_cut_off", needs_model=True),
    Case("shutdown.sigterm_running", "SIGTERM during a run: a prompt exit", "process conventions: SIGTERM ends the agent",
         (send({"id": "p", "type": "prompt", "message": "slow:100"}), Await("delta"), Kill(15), Await("exit", timeout=15)),
         _sigterm, needs_model=True),
)

BY_ID: dict[str, Case] = {c.id: c for c in CASES}


def select(patterns: tuple[str, ...] = (), *, model: bool = True) -> list[Case]:
    """The cases whose id matches one of the shell-style ``patterns`` (all when none), minus
    those that need a model when ``model`` is False."""
    from fnmatch import fnmatchcase

    chosen = [c for c in CASES if not patterns or any(fnmatchcase(c.id, p) for p in patterns)]
    return [c for c in chosen if model or not c.needs_model]
