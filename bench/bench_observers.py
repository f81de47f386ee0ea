"""The observer process's work, in process: per-frame cost on small frames and memory over long sessions.

Per-frame cost: the frames of a delta-only stream (bench/stream_gen.py --small) are fed
in 64 KiB chunks to the observers' Dispatcher (rpcspy/pump/forward/hub.py) with no observer,
with the Recorder, with the live checker, with the control socket (nobody connected), with
recorder and checker, and with all three (what the observer process of `rpcspy run` does),
against a bare baseline that splits the same chunks on LF and `msgspec.json.decode`s every
line. From the per-frame cost of "all three" follows the backlog the observers have to catch
up on after a fast stream: frames x cost, minus what they did while it poured in.

Per-frame cost is CPU time, each round a fresh process per tree, interleaved with --baseline-tree.
"recording path" is what the recording waits on: since issue 20 the live check lags (it is handed
its frames, and checks them when nothing waits to be recorded); "all three" includes its work.

Memory: a Checker fed a session of small commands, each answered (`set_auto_retry`), and one fed
commands never answered (`get_state`), RSS of this process at checkpoints (the checker's tables
grow with the number of commands up to their documented bounds).

    python bench/bench_observers.py [--frames 400000] [--rounds 5] [--commands 600000] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
TREE = os.environ.get("RPCSPY_BENCH_TREE") or str(ROOT)
sys.path.insert(0, TREE)  # --baseline-tree: another rpcspy


def tree_first() -> None:
    """Put the tree measured first on sys.path again (bench_check, which stream_gen imports, puts this
    checkout there: before, a --baseline-tree run of the cost table measured this tree twice)."""
    while TREE in sys.path:
        sys.path.remove(TREE)
    sys.path.insert(0, TREE)

import msgspec  # noqa: E402
from perfdoc import write_section  # noqa: E402
from rounds import ratios, spread  # noqa: E402
from stream_gen import small_lines  # noqa: E402


def stream(frames: int) -> bytes:
    out = []
    run = n = 0
    while n < frames:
        lines = list(small_lines(run, 200))
        out += lines
        n += len(lines)
        run += 1
    return b"".join(out[:frames])


def pump(module: str):
    """``rpcspy.pump.<wing>.<name>``, or ``rpcspy.pump.<name>`` in a --baseline-tree from before the pump's
    wings (its modules stood side by side)."""
    import importlib

    try:
        return importlib.import_module(f"rpcspy.pump.{module}")
    except ModuleNotFoundError:
        return importlib.import_module(f"rpcspy.pump.{module.rpartition('.')[2]}")


def observers(kind: str, tmp: str) -> list:
    from rpcspy.recording.writer import RecordingWriter, make_header

    check = pump("observers.check_observer")
    out: list = []
    if kind in ("recorder", "both", "all three"):
        writer = RecordingWriter(os.path.join(tmp, "obs.rec"), make_header(["x"]), warn=print)
        out.append(pump("observers.recorder").Recorder(writer))
    if kind in ("checker", "both", "all three"):
        out.append(check.CheckObserver(check.CheckOptions(dialect="auto", strict_fields=False, ignore=frozenset(),
                                                          report=None, min_severity="error", unanswered_after=None)))
    if kind in ("control", "all three"):  # the control socket with nobody connected, as in every proxy
        session = pump("forward.observer_process").ChildSession(-1, ["x"], None, "proxy", os.getpid(), 0.0)
        out.append(pump("observers.control").ControlServer(session, directory=tmp))
    return out


KINDS = ["bare", "dispatch only", "recorder", "checker", "control", "recording path", "all three"]
"""``recording path``: recorder, control socket and live check, the check only handed its frames (a lagging
observer since issue 20: what the recording waits on); ``all three``: the same with the check's work done."""


def feed(kind: str, chunks: list[bytes], tmp: str) -> float:
    """CPU seconds of this process to feed ``chunks`` to the observers of ``kind``."""
    if kind == "bare":
        decode = msgspec.json.decode
        start = time.process_time()
        for chunk in chunks:  # the same chunks, split on LF and decoded (lines cut by a chunk end skipped)
            for line in chunk.split(b"\n")[1:-1]:
                decode(line)
        return time.process_time() - start
    Dispatcher = pump("forward.hub").Dispatcher
    obs = observers({"dispatch only": "", "recording path": "all three"}.get(kind, kind), tmp)
    hub = Dispatcher(obs, warn=print)
    lagging = kind != "recording path" and hasattr(hub, "work")  # the tree before: the check is inline
    start = time.process_time()
    for chunk in chunks:
        hub.data("a2c", 1.0, chunk)
        while lagging and hub.behind:
            hub.work()
        for o in obs:
            o.flush()
    elapsed = time.process_time() - start
    if hasattr(hub, "work"):
        hub.close(grace=0.0)
    else:
        hub.close()
    return elapsed


def cost_round(frames: int, kind: str, path: str) -> dict[str, float]:
    """One kind, in this process (the tree it imports): a process per kind, so none pays for another's
    leftovers (a control socket's threads, objects the garbage collector walks). ``path``: the stream."""
    with open(path, "rb") as f:
        data = f.read()
    chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)]
    tree_first()
    import rpcspy

    assert rpcspy.__file__.startswith(os.path.join(TREE, "")), (rpcspy.__file__, TREE)
    with tempfile.TemporaryDirectory() as tmp:
        feed("all three", chunks[:20], tmp)  # warm up: schemas are built on first use
        return {kind: feed(kind, chunks, tmp)}


def cost_table(frames: int, rounds: int, baseline: str | None) -> str:
    """Rounds interleaved between this tree and ``baseline`` (each round a fresh process per tree)."""
    trees = {"this tree": str(ROOT)} | ({"tree before": baseline} if baseline else {})
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "wb") as f:
        f.write(stream(frames))  # made once: stream_gen's generator is slow
    secs: dict[str, dict[str, list[float]]] = {t: {k: [] for k in KINDS} for t in trees}
    for r in range(rounds):
        for name, tree in trees.items():
            env = {**os.environ, "RPCSPY_BENCH_TREE": tree}
            for kind in KINDS:
                out = subprocess.run([sys.executable, __file__, "--cost-round", kind, "--stream", path],
                                     check=True, capture_output=True, text=True, env=env).stdout
                for k, v in msgspec.json.decode(out.strip().splitlines()[-1]).items():
                    secs[name][k].append(v)
            print(f"round {r + 1}: {name}: " + ", ".join(f"{k} {v[-1]:.2f}" for k, v in secs[name].items()),
                  file=sys.stderr)
    os.unlink(path)
    us = {t: {k: [s / frames * 1e6 for s in v] for k, v in ks.items()} for t, ks in secs.items()}
    head = "| observers | " + " | ".join(f"{t}: us per frame" for t in trees) + " | " + (
        "this tree / tree before |" if baseline else "vs bare decode |")
    lines = [f"{frames:,} delta-only frames of ~280 bytes fed in 64 KiB chunks, {rounds} interleaved rounds "
             "(a fresh process per tree, kind and round), CPU time of the process, median (min-max).", "",
             head, "|---|" + "---:|" * (len(trees) + 1)]
    for k in KINDS:
        cells = [spread(us[t][k]) for t in trees]
        ratio = (ratios(us["this tree"][k], us["tree before"][k]) if baseline
                 else ratios(us["this tree"][k], us["this tree"]["bare"]))
        lines.append(f"| {k} | " + " | ".join(cells) + f" | {spread(ratio)}x |")
    return "\n".join(lines)


def rss_mib() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory_table(commands: int) -> str:
    from rpcspy.checker import Checker
    from rpcspy.events import Frame
    from rpcspy.protocol.pairing import ANSWERED_CAP

    checker = Checker(dialect="pi-0.84")
    marks = sorted(m for m in {1000, 16384, 65536, 131072, commands // 2, commands} if 0 < m <= commands)
    rows = []
    found = 0
    start = time.perf_counter()
    base = rss_mib()
    for i in range(1, commands + 1):
        cid = b"req-%d" % i
        found += len(checker.feed(Frame(2 * i - 1, i * 1e-3, "c2a",
                                        b'{"id":"%s","type":"set_auto_retry","enabled":true}' % cid)))
        found += len(checker.feed(Frame(2 * i, i * 1e-3, "a2c",
                                        b'{"id":"%s","type":"response","command":"set_auto_retry","success":true}'
                                        % cid)))
        if i in marks:
            rows.append(f"| {i:,} | {rss_mib():.1f} | {len(checker._corr.pairing._answered):,} | "
                        f"{(time.perf_counter() - start) / i * 1e6:.1f} |")
    return "\n".join([f"A Checker fed {commands:,} small commands, each answered ({found} findings); RSS of the "
                      f"process ({base:.1f} MiB before the first command). Answered ids are kept up to "
                      f"ANSWERED_CAP = {ANSWERED_CAP:,}.", "",
                      "| commands | RSS MiB | answered ids held | us per command so far |",
                      "|---:|---:|---:|---:|", *rows])


def unanswered_table(commands: int) -> str:
    from rpcspy.checker import Checker
    from rpcspy.events import Frame

    checker = Checker(dialect="pi-0.84")
    marks = sorted(m for m in {1000, 65536, 131072, commands // 2, commands} if 0 < m <= commands)
    rows = []
    base = rss_mib()
    for i in range(1, commands + 1):
        checker.feed(Frame(i, i * 1e-3, "c2a", b'{"id":"req-%d","type":"get_state"}' % i))
        if i in marks:
            rows.append(f"| {i:,} | {rss_mib():.1f} | {len(checker._corr.pairing.pending):,} |")
    return "\n".join([f"A Checker fed {commands:,} commands never answered; RSS of the process ({base:.1f} MiB "
                      "before the first command).", "", "| commands | RSS MiB | waiting commands held |",
                      "|---:|---:|---:|", *rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=400_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--commands", type=int, default=600_000)
    ap.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cost-round", metavar="KIND", help=argparse.SUPPRESS)
    ap.add_argument("--stream", help=argparse.SUPPRESS)
    ap.add_argument("--baseline-tree", metavar="DIR",
                    help="also run both tables on the rpcspy in DIR, interleaved (e.g. `git archive OLD rpcspy | "
                         "tar -x -C DIR`)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    if args.memory_only:
        print(memory_table(args.commands) + "\n\n" + unanswered_table(args.commands))
        return
    if args.cost_round:
        print(msgspec.json.encode(cost_round(args.frames, args.cost_round, args.stream)).decode())
        return
    # the memory table in a fresh process: its RSS is not the cost table's leftovers
    def memory_of(tree: str | None) -> str:
        env = {**os.environ, "RPCSPY_BENCH_TREE": tree or ""}
        return subprocess.run([sys.executable, __file__, "--memory-only", "--commands", str(args.commands)],
                              check=True, capture_output=True, text=True, env=env).stdout.strip()

    memory = memory_of(None)
    if args.baseline_tree:
        memory += f"\n\nThe same on the baseline tree ({args.baseline_tree}):\n\n" + memory_of(args.baseline_tree)
    body = cost_table(args.frames, args.rounds, args.baseline_tree) + "\n\n" + memory + (
        f"\n\nCommand: `python bench/bench_observers.py --frames {args.frames} --rounds {args.rounds} "
        f"--commands {args.commands}{' --baseline-tree ' + args.baseline_tree if args.baseline_tree else ''}`.")
    print(body)
    if args.write_docs:
        write_section("observers", body)


if __name__ == "__main__":
    main()
