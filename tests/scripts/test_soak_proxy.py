"""bench/soak_proxy.py's helpers: the rpcspy processes it samples (also an older tree's, run with -P) and its
summary of the gap share over the proxies."""

from __future__ import annotations

from tests.support.bench_scripts import load_bench


def test_a_tree_is_run_with_its_own_rpcspy_and_still_sampled() -> None:
    soak = load_bench("soak_proxy")
    cmd = soak.rpcspy_command("/tmp/old")
    assert cmd[:2] == ["env", "PYTHONPATH=/tmp/old"] and cmd[-3:] == ["-P", "-m", "rpcspy"]
    exec_d = "\0".join(cmd[2:] + ["-o", "r.jsonl", "--", "python", "agent.py"]).encode() + b"\0"  # after env's exec
    assert soak.runs_rpcspy(exec_d)
    assert soak.runs_rpcspy(b"/usr/bin/python3\0-m\0rpcspy\0watch\0123\0")
    assert not soak.runs_rpcspy(b"/usr/bin/python3\0/x/fake_agent.py\0soak\0")
    assert not soak.runs_rpcspy(b"env\0PYTHONPATH=/x\0python3\0-m\0other\0")


def test_gap_share_summary() -> None:
    soak = load_bench("soak_proxy")
    assert soak.gap_summary([0.0, 0.0, 0.077, 0.0, 0.36]) == \
        "gap share per proxy: 0.0 (0.0-36.0) % over 5 proxies; recorded whole: 3 of 5"
    assert soak.gap_summary([0.188]) == "gap share per proxy: 18.8 (18.8-18.8) % over 1 proxies; recorded whole: 0 of 1"
