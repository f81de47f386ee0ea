#!/usr/bin/env python3
"""Regenerate docs/compat/: what each release of the agents the suite installs changes for RPC clients.

    python scripts/gen_compat.py                 record every agent, write every note
    python scripts/gen_compat.py --keep DIR      also keep the recordings in DIR
    python scripts/gen_compat.py --from DIR      write the notes from recordings kept before (no agent runs)
    python scripts/gen_compat.py --check         exit 1 if a note is not what docs/compat/recordings give now

Each agent runs docs/compat/steps.jsonl twice with ``rpcspy drive`` (``-e docs/compat/probe.ts``; a temporary
HOME pointed at rpcspy's scripted model server: no key, no network). A note compares the first runs of two
releases with ``rpcspy diff --compat``; the second run of the old release, compared with its first, must
come out 0 breaking, 0 warnings (else the note would report timing as change: the script fails).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "docs" / "compat"
PAIRS = (("pi-0.73.1", "pi-0.87.1"), ("pi-0.87.1", "pi-1.5.2"), ("pi-1.5.2", "pi-1.6.0"))
"""Consecutive releases of the agents the suite installs (omp: see LEFT_OUT)."""
Pattern = tuple[str | None, str | None, str | None]
"""(kind, frame type, path) of a report group; None matches anything."""
KNOWN: dict[tuple[str, str], list[tuple[str, list[Pattern]]]] = {
    ("pi-0.73.1", "pi-0.87.1"): [
        ("`message_update` is compact: no `message` copy and no `assistantMessageEvent.partial`, a `usage` snapshot "
         "instead; `toolcall_start` names the call (`id`, `toolName`).",
         [("field gone", "message_update", "$.message"), ("field gone", None, "$.assistantMessageEvent.partial"),
          ("new field", "message_update", "$.usage"), ("new field", "message_update/toolcall_start", None)]),
        ("`agent_settled` after each run: pi will not continue on its own (`agent_end` no longer means the prompt "
         "is done); `agent_end` gains `willRetry`.",
         [("new frame type", "agent_settled", None), ("new field", "agent_end", "$.willRetry")]),
        ("`entry_appended` reports each entry appended to the session.", [("new frame type", "entry_appended", None)]),
        ("The system prompt is a message (`role: \"system\"`) at the start of the conversation.",
         [("new frame type", "message_start/system", None), ("new enum value", None, "$.messages[].role")]),
        ("A streaming assistant message says `stopReason: \"pending\"` until it ends.",
         [("new enum value", "message_start/assistant", "$.message.stopReason")]),
    ],
    ("pi-0.87.1", "pi-1.5.2"): [
        ("`prompt` answers `data: {disposition: \"started\" | \"queued\" | \"handled\"}`, `steer` and `follow_up` "
         "`data: {disposition: \"handled\" | \"queued\"}`.",
         [("new field", "response/prompt", "$.data"), ("new field", "response/steer", "$.data"),
          ("new field", "response/follow_up", "$.data")]),
        ("`agent_settled` gains `aborted`.", [("new field", "agent_settled", "$.aborted")]),
        ("Messages gain `durationMs` and `thinkingLevel`; usage gains `cost.totalFromProvider`.",
         [("new field", None, "$.message.durationMs"), ("new field", None, "$.message.thinkingLevel"),
          ("new field", None, "$.message.usage.cost.totalFromProvider")]),
        ("`tool_execution_end` gains `durationMs` and `result.structuredContent`.",
         [("new field", "tool_execution_end", "$.durationMs"),
          ("new field", "tool_execution_end", "$.result.structuredContent")]),
    ],
    ("pi-1.5.2", "pi-1.6.0"): [
        ("No command, event type or field was added, renamed or removed (`rpc-types.d.ts` is byte-identical); "
         "what changed is behaviour, which the lines below show.", []),
        ("`session_start` handlers run once per session operation (1.5.2: twice), and the events they emit "
         "reach the client before the command's response; at startup, their `entry_appended` is now sent.",
         [("new event", "entry_appended", None), ("frame gone", "extension_ui_request/notify", None),
          ("order changed", "entry_appended", None)]),
        ("An exception in a `pi.events` handler is reported as `extension_error` on stdout (1.5.2: a stack "
         "trace on stderr).", [("new frame type", "extension_error", None)]),
        ("`get_last_assistant_text` skips messages without text from a failed or aborted turn: after a "
         "failed run it answers the previous reply (1.5.2: `data: {}`).",
         [("new field", "response/get_last_assistant_text", "$.data.text")]),
        ("Observed, not documented: the assistant `message_start` always has empty `content` (1.5.2 often "
         "had the first streamed blocks in it, depending on timing).",
         [("filled in by streaming", "message_start", "$.message.content")]),
        ("An abort during a batch of tool calls now closes every call of the message (`tool_execution_start`, "
         "then `tool_execution_end` \"Operation aborted\" with no `durationMs`, and a toolResult): needs an "
         "abort during a sequential batch.",
         [("new event", "tool_execution_start", None), ("now left out of some frames", "tool_execution_end",
                                                         "$.durationMs")]),
        ("`read` of an image on a model without image input: shorter text, `details.imageUnsupportedByModel` "
         "(the scripted model accepts images).", [("new field", None, "$.result.details.imageUnsupportedByModel")]),
        ("More provider errors start an auto-retry (`Connection closed.`, socket resets): the scripted model "
         "answers HTTP errors, which both versions retry.", []),
    ],
}
"""Per release pair: the wire changes its release notes document (protocol notes sections 10-12), and the
report groups that show each. An empty pattern list is context, not a claim about the recordings."""
LEFT_OUT = [
    "omp 18.2.3 → 18.3.4: omp 18.3.4's `@oh-my-pi/*` 18.3.4 libraries and its native addon are not on the npm "
    "registry (its `dist/cli.js` bundles the libraries but not the addon), so the suite cannot install it; "
    "omp 18.2.3 is the only omp it runs.",
    "stderr: the notes compare stdout only (`rpcspy diff --compat` without `--stderr`); pi 1.6.0 also changed what "
    "it writes to stderr (diagnostics once per problem, `Installing <source>...`).",
]
"""What the notes do not cover, and why."""

def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def record(name: str, out: Path) -> Path:
    """Run the steps against agent ``name`` with ``rpcspy drive``; the recording is ``out``."""
    from rpcspy.modelserver.config import agent_args, agent_env, make_home
    from rpcspy.pump.commands.model_server import ModelServer
    from tests.support.agents import ensure_agent

    spec = ensure_agent(name, log=log)
    # one fixed place, so paths the agent reports (its cwd in the system prompt, the extension's path) are
    # the same in every recording, whatever machine made it
    tmp = Path(tempfile.gettempdir()) / "rpcspy-compat"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with ModelServer() as server:
        home = make_home(tmp / "home", server.base_url)
        shutil.copyfile(OUT / "probe.ts", tmp / "probe.ts")
        env = agent_env(home, spec.environ())
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env["XDG_RUNTIME_DIR"] = str(tmp)
        argv = [*spec.argv_prefix, *agent_args(spec.dialect), "-e", str(tmp / "probe.ts")]
        done = subprocess.run([sys.executable, "-m", "rpcspy", "drive", str(OUT / "steps.jsonl"), "-o", str(out),
                               "--timeout", "120", "-q", "--", *argv], capture_output=True, text=True, env=env,
                              cwd=home / "project", timeout=900)
    shutil.rmtree(tmp, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"gen_compat: {name}: rpcspy drive exited {done.returncode}:\n{done.stderr}")
    return out


def compare(a: Path, b: Path) -> Any:
    """``rpcspy diff --compat A B`` as a report object."""
    from rpcspy.diff.compat import compat, survey
    from rpcspy.diff.differ import diff_recordings
    from rpcspy.normalise.normaliser import NormaliseOptions, Normaliser
    from rpcspy.recording.reader import read_frames

    norm = Normaliser(NormaliseOptions(), stable=False)
    result = diff_recordings(str(a), str(b), norm)
    return compat(result, survey(read_frames(str(a)), norm), survey(read_frames(str(b)), norm))


def _cell(value: Any, width: int = 60) -> str:
    from rpcspy.render.diff import clip

    return "`" + clip(value, width).replace("`", "'").replace("|", "\\|") + "`"


def _example(g: Any) -> str:
    ex = g.example
    seqs = "/".join(f"{s.upper()}#{ex[f'{s}_seq']}" for s in ("a", "b") if f"{s}_seq" in ex)
    values = " → ".join(_cell(ex[s]) for s in ("a", "b") if s in ex)
    present = ex.get("present")
    where = f" (in {present['a'][0]}/{present['a'][1]} old, {present['b'][0]}/{present['b'][1]} new)" if present else ""
    return f"{seqs} {values}{where}".strip()


def _table(groups: list[Any]) -> list[str]:
    lines = ["| frame | kind | path | count | example |", "|---|---|---|---|---|"]
    for g in groups:
        path = f"`{g.path}`" if g.path else ""
        lines.append(f"| `{g.type}` | {g.kind} | {path} | {g.count} | {_example(g)} |")
    return lines


def _matches(g: Any, pattern: tuple[str | None, str | None, str | None]) -> bool:
    kind, typ, path = pattern
    return (kind is None or g.kind == kind) and (typ is None or g.type == typ) and (path is None or g.path == path)


def _summary(report: Any) -> str:
    from rpcspy.diff.compat import LEVELS

    return ", ".join(f"{report.count(level)} {level}" for level in LEVELS)


def note(old: str, new: str, report: Any, baseline: str, date: str) -> str:
    """The markdown of one note."""
    from rpcspy.diff.compat import LEVELS

    lines = [
        f"# {old} → {new}: what changes for RPC clients", "",
        "<!-- GENERATED by scripts/gen_compat.py from real recordings; do not edit. -->", "",
        f"Generated {date}. The same client steps ([steps.jsonl](steps.jsonl), with the extension [probe.ts](probe.ts))",
        f"were recorded with `rpcspy drive` against {old} and {new} on rpcspy's scripted model server, and compared",
        "with `rpcspy diff --compat` ([levels](../drive.md#levels)). The recordings are in",
        f"[recordings/](recordings/): `rpcspy diff --compat recordings/{old}.jsonl recordings/{new}.jsonl`",
        "prints this report.", "",
        f"**{_summary(report)}** (agent frames {report.frames[0]} → {report.frames[1]}).",
        f"A second run of {old} compared with its first: {baseline}: what differs between two runs of",
        "one agent, which the timing section below already leaves out of the verdict.", "",
    ]
    if report.client_differs:
        lines += ["Note: the client frames differ too: the sessions did not run the same steps.", ""]
    known = KNOWN.get((old, new), [])
    if known:
        lines += ["## The release's documented wire changes, and what these recordings show", ""]
        for text, patterns in known:
            seen = [g for g in report.groups if any(_matches(g, p) for p in patterns)]
            shown = "; ".join(f"{g.level} `{g.type}: {g.kind}{' ' + g.path if g.path else ''}` x{g.count}"
                              for g in seen)
            if not patterns:
                lines.append(f"- {text}")
            else:
                lines.append(f"- {text} " + (f"**Seen:** {shown}." if seen else "**Not seen with these steps.**"))
        lines.append("")
    for level in LEVELS:
        groups = [g for g in report.groups if g.level == level]
        title = "timing (differs between runs of one agent too; not a change)" if level == "timing" else level
        lines += [f"## {title.capitalize()}", ""]
        lines += (_table(groups) if groups else ["None."]) + [""]
    return "\n".join(lines)


def index(rows: list[tuple[str, str, Any]], date: str) -> str:
    """docs/compat/README.md: the notes, the levels, what is left out."""
    head = (OUT / "README.head.md").read_text()
    lines = [head.rstrip(), "", f"Generated {date}.", "", "| release | verdict | note |", "|---|---|---|"]
    for old, new, report in rows:
        lines.append(f"| {old} → {new} | {_summary(report)} | [{old}-to-{new}.md]({old}-to-{new}.md) |")
    lines += ["", "## Left out", ""] + [f"- {text}" for text in LEFT_OUT] + [""]
    return "\n".join(lines)


_BASELINE = re.compile(r"^A second run of \S+ compared with its first: (.*?): what differs", re.M)
_DATE = re.compile(r"^Generated \d{4}-\d{2}-\d{2}", re.M)


def render(baselines: dict[str, str], date: str) -> dict[Path, str]:
    """Every note and the index, from docs/compat/recordings (``baselines``: each old release's self-check)."""
    out: dict[Path, str] = {}
    rows = []
    for old, new in PAIRS:
        report = compare(OUT / "recordings" / f"{old}.jsonl", OUT / "recordings" / f"{new}.jsonl")
        report.a, report.b = f"recordings/{old}.jsonl", f"recordings/{new}.jsonl"
        out[OUT / f"{old}-to-{new}.md"] = note(old, new, report, baselines[old], date)
        rows.append((old, new, report))
    out[OUT / "README.md"] = index(rows, date)
    return out


def check() -> int:
    """Whether the notes are what the published recordings give with this rpcspy (dates aside)."""
    stale = []
    baselines = {}
    for old, new in PAIRS:
        path = OUT / f"{old}-to-{new}.md"
        m = _BASELINE.search(path.read_text()) if path.exists() else None
        if m is None:
            stale.append(path.name)
            continue
        baselines[old] = m.group(1)
    if not stale:
        for path, text in render(baselines, "0000-00-00").items():
            if not path.exists() or _DATE.sub("Generated", path.read_text()) != _DATE.sub("Generated", text):
                stale.append(path.name)
    for name in stale:
        log(f"gen_compat: docs/compat/{name} is stale: run python scripts/gen_compat.py --from a kept run, "
            "or without arguments")
    return 1 if stale else 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", type=Path, help="keep both runs of each agent in this directory")
    ap.add_argument("--from", dest="source", type=Path, help="use the runs kept in this directory")
    ap.add_argument("--check", action="store_true", help="compare the notes with what the recordings give")
    args = ap.parse_args(argv)
    if args.check:
        return check()
    order = [name for pair in PAIRS for name in pair]
    agents = sorted(set(order), key=order.index)
    work = args.source or args.keep or Path(tempfile.mkdtemp(prefix="rpcspy-compat-runs-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.source is None:
        for name in agents:
            for run in (1, 2):
                log(f"{name}: run {run} ...")
                record(name, work / f"{name}.{run}.jsonl")
    from rpcspy.render.compat import compat_lines

    baselines, failed = {}, []
    for name in agents:
        baseline = compare(work / f"{name}.1.jsonl", work / f"{name}.2.jsonl")
        baselines[name] = _summary(baseline)
        if baseline.count("breaking") or baseline.count("warning"):
            failed.append("\n".join(compat_lines(baseline)))
    if failed:
        log("gen_compat: two runs of one agent differ beyond timing:\n" + "\n".join(failed))
        return 1
    (OUT / "recordings").mkdir(exist_ok=True)
    for name in agents:
        shutil.copyfile(work / f"{name}.1.jsonl", OUT / "recordings" / f"{name}.jsonl")
    for path, text in render(baselines, datetime.now(timezone.utc).strftime("%Y-%m-%d")).items():
        path.write_text(text)
        log(f"wrote {path.relative_to(ROOT)}")
    if args.source is None and args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
