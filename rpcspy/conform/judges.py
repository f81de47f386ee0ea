"""The judges of the conformance cases: pure functions from a transcript to a verdict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rpcspy.conform.script import Transcript, Verdict, deviation, failed, passed, short, skipped
from rpcspy.protocol.vocabulary import DIALOGS, RUN_END

Judge = Callable[[Transcript], Verdict]
EVERY = ("get_state", "get_messages", "get_available_models")
"""The commands of ``id.every``: ids ``e0``, ``e1``, ... in this order."""


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


def answered_ok(id_: str, what: str) -> Judge:
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


def error_for(id_: str, what: str) -> Judge:
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


def refused(what: str) -> Judge:
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
def crlf(t: Transcript) -> Verdict:
    rs = t.responses("crlf")
    if t.died or not rs:
        return failed("a command ending in CR LF got no response")
    if rs[0].get("success") is not True:
        return deviation(f"CR LF: {short(rs[0].get('error'))}")
    return passed("the trailing CR was stripped and the command answered")


def u2028(t: Transcript) -> Verdict:
    want = "u\u2028x"
    rs = t.responses(want)
    if rs:
        return passed("a raw U+2028 inside a string did not split the line; the id came back intact")
    if t.responses(idless=True):
        return failed("the line was split at U+2028 (parse error): the reader is not LF-only")
    return failed("no response to a command carrying a raw U+2028")


def blank(t: Transcript) -> Verdict:
    if (v := _dead(t, "after a blank line")) is not None:
        return v
    extra = [r for r in t.responses(idless=True)]
    if extra:
        return deviation(f"the blank line got a response: {short(extra[0])}")
    return passed("the blank line was skipped silently")


def null(t: Transcript) -> Verdict:
    if t.died:
        return failed(f"`null` made the agent exit with status {t.exit_code} (no response)")
    if not _probe_answered(t):
        return failed("after `null` the agent stopped answering")
    errs = [r for r in t.responses(idless=True) if r.get("success") is False]
    if errs:
        return passed(f"`null` got an error response: {short(errs[0].get('error'), 100)}")
    return deviation("`null` was ignored without a response")


def big(t: Transcript) -> Verdict:
    rs = t.responses("big")
    if t.died:
        return failed(f"a 10 MB command made the agent exit with status {t.exit_code}")
    if not rs:
        return failed("a 10 MB command got no response")
    if rs[0].get("success") is not True:
        return deviation(f"a 10 MB command was refused: {short(rs[0].get('error'), 120)}")
    return passed("a 10 MB command was answered")


# -- correlation ---------------------------------------------------------------------------

def every(t: Transcript) -> Verdict:
    missing = [f"e{i}" for i in range(len(EVERY)) if not t.responses(f"e{i}")]
    if missing:
        return failed(f"no response echoing id(s) {', '.join(missing)}")
    wrong = [r for i, c in enumerate(EVERY) for r in t.responses(f"e{i}") if r.get("command") != c]
    if wrong:
        return deviation(f"a response names the wrong command: {short(wrong[0])}")
    order = [r["id"] for r in t.responses() if str(r.get("id", "")).startswith("e")]
    note = "" if order == sorted(order) else f" (answered out of order: {order})"
    return passed("every response echoes its id and names its command" + note)


def idless_ok(t: Transcript) -> Verdict:
    rs = [r for r in t.responses(idless=True) if r.get("command") == "get_state"]
    if not rs:
        return failed("a command without an id got no id-less response")
    return passed("a command without an id got a response without one")


def parse_error(t: Transcript) -> Verdict:
    if (v := _dead(t, "after invalid JSON")) is not None:
        return v
    errs = [r for r in t.responses(idless=True) if r.get("success") is False]
    if not errs:
        return deviation("invalid JSON got no error response")
    cmd = errs[0].get("command")
    return passed(f"invalid JSON got an id-less error response (command {short(cmd)})")


# -- ordering and lifecycle ----------------------------------------------------------------
def _index(t: Transcript, pred: Callable[[dict[str, Any]], bool]) -> int:
    return next((i for i, o in enumerate(t.objs()) if pred(o)), -1)


def response_first(t: Transcript) -> Verdict:
    r = _index(t, lambda o: o.get("type") == "response" and o.get("id") == "p")
    start = _index(t, lambda o: o.get("type") == "agent_start")
    if r < 0 or start < 0:
        return failed("no prompt response or no agent_start")
    if t.rules("lifecycle.event_with_id"):
        return deviation("an event carries an id (checker: lifecycle.event_with_id)")
    if r > start:
        return deviation("the prompt's response came after agent_start")
    return passed("the prompt's response came before agent_start; no event carries an id")


def run(t: Transcript) -> Verdict:
    types = t.types()
    if "agent_start" not in types or "agent_end" not in types:
        return failed("no agent_start/agent_end pair")
    bad = t.rules("lifecycle.") + t.rules("stream.")
    if bad:
        return deviation(f"checker: {', '.join(sorted(set(bad)))}")
    settled = " then agent_settled" if "agent_settled" in types else ""
    return passed(f"agent_start ... agent_end{settled}, turns, messages and stream balanced")


def abort(t: Transcript) -> Verdict:
    rs = t.responses("a")
    if not rs:
        return failed("abort got no response")
    if not t.events(RUN_END):
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


def queued(kind: str, text: str) -> Judge:
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


def two_prompts(t: Transcript) -> Verdict:
    r1, r2 = t.responses("p1"), t.responses("p2")
    if not r1 or not r2:
        return failed(f"no response to {'p1' if not r1 else 'p2'}")
    runs = len(t.events("agent_start"))
    if any(r.get("success") is False for r in r2):
        return passed(f"the second prompt was refused with its id ({short(r2[-1].get('error'), 90)})")
    if runs >= 2 or "second" in " ".join(_user_texts(t)):
        return passed("both prompts were accepted and both ran")
    return deviation("both prompts were acknowledged with success, but the second never ran (silently dropped)")


def compaction(t: Transcript) -> Verdict:
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


def retry(t: Transcript) -> Verdict:
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
def _dialogs(t: Transcript) -> list[dict[str, Any]]:
    return [o for o in t.events("extension_ui_request") if o.get("method") in DIALOGS]


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


def dialog(expected: str, what: str) -> Judge:
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


def dialog_timeout(t: Transcript) -> Verdict:
    if not _dialogs(t):
        return _no_dialog(t)
    if _notified(t) != "false":
        return failed(f"the dialog's timeout did not resolve it to false (extension saw {_notified(t)!r})")
    cancels = [o for o in t.events("extension_ui_request") if o.get("method") == "cancel"]
    if cancels:
        return passed("the timed-out dialog resolved to false and a cancel frame told the client")
    return deviation("the timed-out dialog resolved to false, but no frame told the client (its dialog goes stale)")


# -- shutdown ------------------------------------------------------------------------------
def eof_idle(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after EOF on stdin")
    if t.exit_code != 0:
        return deviation(f"exit status {t.exit_code} after EOF (expected 0)")
    return passed("EOF on stdin: exit 0")


def eof_running(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after EOF during a run")
    if not t.events(RUN_END):
        return deviation(f"exit {t.exit_code}, but the run was cut off without agent_end")
    return passed(f"the run was closed (agent_end) and the agent exited with {t.exit_code}")


def sigterm(t: Transcript) -> Verdict:
    if t.exit_code is None:
        return failed("the agent did not exit after SIGTERM")
    if t.exit_code in (0, 143, -15):
        return passed(f"SIGTERM during a run: exit {t.exit_code}")
    return deviation(f"SIGTERM during a run: exit status {t.exit_code}")


