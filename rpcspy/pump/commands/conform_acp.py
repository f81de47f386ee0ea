"""Runs the ACP cases of the conformance battery: one agent process shared by the cases, in order.

An editor opens one ACP connection and does everything over it; so does the battery
(and it keeps real agents' slow start, 1 to 8 s, to once). The runner performs the
``initialize`` / ``session/new`` a case needs first, substitutes ``$SESSION`` and ``$CWD``,
answers permission requests (:class:`~rpcspy.conform.script.Grant`), and starts a fresh
agent when the last one died. Each case's transcript holds the frames of its own steps,
with the checker's findings about them. Also: which battery an agent command speaks.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rpcspy.conform.cases import Case
from rpcspy.conform.script import Await, Close, Grant, Kill, Send, Transcript, Trigger, failed, same_id, send, short
from rpcspy.events import Finding
from rpcspy.protocol.spec import ACP_V1
from rpcspy.pump.commands.conform_runner import BatteryInterrupted, CaseResult, _condition, _Session

PERMISSION = "session/request_permission"


def _is_response(o: dict[str, Any]) -> bool:
    return "method" not in o and ("result" in o or "error" in o)


class _Run:
    """The shared agent of an ACP battery and what the cases have set up on it."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], cwd: Path, stop: threading.Event) -> None:
        self.argv, self.env, self.cwd, self.stop = list(argv), env, cwd, stop
        self.session: _Session | None = None
        self.sid: str | None = None
        self.initialized = False
        self.answered: set[str] = set()
        self.checker: Any = None
        self.checked = 0

    # -- the agent -----------------------------------------------------------------------
    def fresh(self) -> _Session:
        if self.session is not None:
            self.session.teardown()
        from rpcspy.checker import Checker

        self.session = _Session(self.argv, self.env, self.cwd)
        self.sid, self.initialized, self.answered, self.checker, self.checked = None, False, set(), Checker(), 0
        return self.session

    def alive(self) -> bool:
        return self.session is not None and not self.session.eof and self.session.exited() is None

    def close(self) -> None:
        if self.session is not None:
            self.session.teardown()

    # -- steps -----------------------------------------------------------------------------
    def _line(self, data: bytes) -> bytes:
        cwd = json.dumps(str(self.cwd))[1:-1].encode()
        return data.replace(b"$SESSION", (self.sid or "").encode()).replace(b"$CWD", cwd)

    def write(self, step: Send) -> None:
        assert self.session is not None
        self.session.write(Send(tuple(self._line(p) for p in step.pieces), step.gap))

    def learn(self) -> None:
        """What the agent's answers set up: initialized, the session opened."""
        from rpcspy.conform.acp import INIT_ID, NEW_ID

        assert self.session is not None
        for o in self.session.objs():
            if _is_response(o) and isinstance(o.get("result"), dict):
                if same_id(o.get("id"), INIT_ID):
                    self.initialized = True
                sid = o["result"].get("sessionId")
                if self.sid is None and same_id(o.get("id"), NEW_ID) and isinstance(sid, str):
                    self.sid = sid

    def wait(self, step: Await, base: int, sent_from: int) -> bool:
        assert self.session is not None
        return self.session.wait_for(step, self.stop, check=_acp_condition(step, base, sent_from))

    def grant(self, step: Grant) -> None:
        assert self.session is not None
        pending = [o for o in self.session.objs() if o.get("method") == PERMISSION and "id" in o
                   and json.dumps(o["id"]) not in self.answered]
        if not pending:
            return
        req = pending[-1]
        self.answered.add(json.dumps(req["id"]))
        options = [o for o in (req.get("params") or {}).get("options") or [] if isinstance(o, dict)]
        chosen = next((o for o in options if str(o.get("kind", "")).startswith(step.kind)), None)
        outcome = ({"outcome": "selected", "optionId": chosen.get("optionId")} if chosen is not None
                   else {"outcome": "cancelled"})
        self.write(send({"jsonrpc": "2.0", "id": req["id"], "result": {"outcome": outcome}}))

    def trigger(self, step: Trigger, base: int, sent_from: int) -> bool:
        """Prompt with each text until the agent asks a permission; True when one did."""
        from rpcspy.conform.acp import prompt

        assert self.session is not None
        for text, id_ in zip(step.texts, step.ids, strict=True):
            asked = sum(1 for o in self.session.objs()[base:] if o.get("method") == PERMISSION)
            self.write(send(prompt(id_, text)))
            either = _either(id_, base, asked)
            if not self.session.wait_for(Await("rpc", id_, timeout=step.timeout), self.stop, check=either):
                return False
            if sum(1 for o in self.session.objs()[base:] if o.get("method") == PERMISSION) > asked:
                return True
        return False

    def findings(self) -> list[Finding]:
        """The checker's findings about the frames since the last call."""
        assert self.session is not None
        frames = self.session.frames[self.checked:]
        self.checked += len(frames)
        out: list[Finding] = []
        for f in frames:
            out += self.checker.feed(f)
        if not self.alive():
            out += self.checker.finish(self.session.frames[-1].t if self.session.frames else 0.0,
                                       exit_code=self.session.exited())
        return out

    def perform(self, steps: Sequence[Any]) -> list[str]:
        """Do ``steps``; the waits that timed out (the first ends the steps)."""
        assert self.session is not None
        s = self.session
        base, sent_from = len(s.objs()), len(s.frames)
        timeouts: list[str] = []
        for i, step in enumerate(steps):
            if self.stop.is_set():
                break
            if isinstance(step, Send):
                self.write(step)
            elif isinstance(step, Grant):
                self.grant(step)
            elif isinstance(step, Trigger):
                if not self.trigger(step, base, sent_from):
                    break
            elif isinstance(step, Close):
                s.close()
            elif isinstance(step, Kill):
                s.proc.send_signal(step.signum)
            elif isinstance(step, Await) and not self.wait(step, base, sent_from):
                why = "the agent closed stdout first" if s.eof else f"not seen within {step.timeout:g} s"
                timeouts.append(f"step {i + 1}: {step.kind} {step.arg!r} {why}")
                break
            self.learn()
        if s.eof:
            try:
                s.proc.wait(2)
            except Exception:  # noqa: BLE001 - still running: torn down later
                pass
        return timeouts


def _acp_condition(step: Await, base: int, sent_from: int) -> Callable[[_Session, float], bool]:
    """What an ACP wait looks for, counting the agent's objects from ``base`` (the case's start)."""
    kind, arg, count = step.kind, step.arg, step.count

    def matches(pred: Callable[[dict[str, Any]], bool]) -> Callable[[_Session, float], bool]:
        return lambda s, now: sum(1 for o in s.objs()[base:] if pred(o)) >= count

    if kind == "rpc":
        return matches(lambda o: _is_response(o) and same_id(o.get("id"), arg))
    if kind == "request":
        return matches(lambda o: o.get("method") == arg and "id" in o)
    if kind == "update":
        return matches(lambda o: o.get("method") == "session/update"
                       and ((o.get("params") or {}).get("update") or {}).get("sessionUpdate") == arg)
    if kind == "turn":
        def turn(s: _Session, now: float) -> bool:
            sent = [_obj(f.data) for f in s.frames[sent_from:] if f.dir == "c2a"]
            ids = [o["id"] for o in sent if o is not None and o.get("method") == "session/prompt" and "id" in o]
            answered = [o.get("id") for o in s.objs()[base:] if _is_response(o)]
            return all(any(same_id(a, i) for a in answered) for i in ids)
        return turn
    return _condition(step)


def _either(id_: Any, base: int, asked: int) -> Callable[[_Session, float], bool]:
    """A new permission request since ``asked`` were seen, or the prompt ``id_`` answered."""
    def met(s: _Session, now: float) -> bool:
        objs = s.objs()[base:]
        return (sum(1 for o in objs if o.get("method") == PERMISSION) > asked
                or any(_is_response(o) and same_id(o.get("id"), id_) for o in objs))
    return met


def _obj(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def run_case(run: _Run, case: Case) -> CaseResult:
    """One case on the shared agent (a fresh one when it died or the case starts from scratch)."""
    from rpcspy.conform.acp import CWD, SETUP, SLOW, rpc

    start = time.monotonic()
    if not run.alive() or (not case.needs and run.session is not None and run.session.frames):
        run.fresh()
    run.findings()  # the frames before the case are checked, not reported with it
    for need in ("initialize", "session"):
        done = run.initialized if need == "initialize" else run.sid is not None
        if need in case.needs and not done:
            lost = run.perform(SETUP[need])
            run.findings()
            if lost or not (run.initialized if need == "initialize" else run.sid):
                errors = [o["error"] for o in run.session.objs() if _is_response(o) and "error" in o] if run.session else []
                why = lost[0] if lost else f"answered with an error: {short(errors[-1] if errors else None, 120)}"
                t = Transcript(exit_code=run.session.exited() if run.session else None)
                return CaseResult(case, failed(f"could not set up ({need}): {why}"), time.monotonic() - start, t)
    assert run.session is not None
    if "own_session" in case.needs:  # a session of its own (the scripted model reuses tool call ids)
        id_ = f"conform-session-{case.id}"
        lost = run.perform((send(rpc(id_, "session/new", {"cwd": CWD, "mcpServers": []})), Await("rpc", id_, timeout=SLOW)))
        run.findings()
        own = [o.get("result") for o in run.session.objs() if _is_response(o) and same_id(o.get("id"), id_)]
        sid = own[0].get("sessionId") if own and isinstance(own[0], dict) else None
        if lost or not isinstance(sid, str):
            why = lost[0] if lost else "no sessionId"
            return CaseResult(case, failed(f"could not open a session of its own: {why}"), time.monotonic() - start,
                              Transcript(exit_code=run.session.exited()))
        run.sid = sid
    first = len(run.session.frames)
    timeouts = run.perform(case.steps)
    frames = list(run.session.frames[first:])
    t = Transcript(frames=frames, timeouts=timeouts, exit_code=run.session.exited(), stderr="",
                   findings=run.findings())
    return CaseResult(case, case.judge(t), time.monotonic() - start, t)


def run_acp_battery(cases: Sequence[Case], agent: Sequence[str], *,
                    on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Run the ACP ``cases`` in order on one agent (restarted when it dies) with a temp HOME
    pointed at one scripted model server; Ctrl-C raises BatteryInterrupted with the finished ones."""
    from rpcspy.conform.acp import GATE_FILE, GATE_JS
    from rpcspy.modelserver.config import MODEL, PROVIDER, agent_env, make_home, settings
    from rpcspy.pump.commands.model_server import ModelServer

    results: list[CaseResult] = []
    stop = threading.Event()
    with ModelServer() as server, tempfile.TemporaryDirectory(prefix="rpcspy-conform-") as tmp:
        home = make_home(Path(tmp) / "acp", server.base_url)
        # pi behind an adapter (pi-acp) gets no --provider: the fake model is its default
        (home / ".pi" / "agent" / "settings.json").write_text(
            json.dumps({**settings(), "defaultProvider": PROVIDER, "defaultModel": MODEL}, indent=2) + "\n")
        gate = home / ".pi" / "agent" / "extensions"
        gate.mkdir(parents=True, exist_ok=True)
        (gate / GATE_FILE).write_text(GATE_JS)
        env = agent_env(home, dict(os.environ))
        env.update({k: v for k, v in os.environ.items() if k.startswith("PI_ACP_")})  # the adapter's back end
        run = _Run(agent, env, home / "project", stop)

        def battery() -> None:
            try:
                for case in cases:
                    if stop.is_set():
                        return
                    try:
                        result = run_case(run, case)
                    except OSError as exc:
                        result = CaseResult(case, failed(f"cannot start the agent: {exc}"), 0.0, Transcript())
                    if stop.is_set():
                        return  # cut short by Ctrl-C: not judged
                    results.append(result)
                    if on_result is not None:
                        on_result(result)
            finally:
                run.close()

        with ThreadPoolExecutor(max_workers=1) as pool:
            future = pool.submit(battery)
            try:
                future.result()
            except KeyboardInterrupt:
                stop.set()
                pool.shutdown(wait=True)
                raise BatteryInterrupted(list(results), len(cases)) from None
    return results


# -- which battery -------------------------------------------------------------------------
_NAMES_ACP = re.compile(r"(^|[/\\._-])acp($|[/\\._-])", re.I)


def names_acp(agent: Sequence[str]) -> bool:
    """The command names ACP: ``omp acp``, ``pi-acp``, ``.../pi-acp/dist/index.js``, ``*_acp_*``."""
    return any(_NAMES_ACP.search(arg) for arg in agent)


def dialect_of(agent: Sequence[str]) -> str:
    """Which battery ``agent`` gets (``--dialect auto``): by its name, else by its answer."""
    if names_acp(agent):
        return ACP_V1
    if "--mode" in agent or any(a.startswith("--mode=") for a in agent):
        return "pi"
    return probe_dialect(agent)


def probe_dialect(agent: Sequence[str], timeout: float = 30.0) -> str:
    """``acp-v1`` when the agent answers an ACP ``initialize`` with JSON-RPC, else ``pi``
    (pi answers the line with its own error response). The agent runs in a temp HOME."""
    from rpcspy.conform.acp import INITIALIZE_MSG
    from rpcspy.modelserver.config import agent_env

    with tempfile.TemporaryDirectory(prefix="rpcspy-conform-probe-") as tmp:
        home = Path(tmp)
        (home / "project").mkdir()
        try:
            session = _Session(agent, agent_env(home, dict(os.environ)), home / "project")
        except OSError:
            return "pi"  # it cannot start: the battery says so
        try:
            session.write(send(INITIALIZE_MSG))
            session.wait_for(Await("rpc", timeout=timeout), None, check=lambda s, now: bool(s.objs()))
            objs = session.objs()
        finally:
            session.teardown()
    return ACP_V1 if objs and objs[0].get("jsonrpc") == "2.0" else "pi"
