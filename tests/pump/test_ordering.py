"""Cause before effect: an instant answer is never recorded before the command it answers."""

from pathlib import Path

from rpcspy.recording import open_recording
from tests.pump.proxyrun import fake, run


def test_responses_follow_their_commands_in_the_recording(tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    commands = b"".join(b'{"id":"c%d","type":"get_state"}\n' % i for i in range(300))
    done = run(rec, fake("respond"), commands, "--no-check")
    assert done.returncode == 0
    seen: set[bytes] = set()
    for frame in open_recording(rec).frames():
        if frame.dir == "c2a":
            seen.add(frame.data.split(b'"')[3])
        elif b'"response"' in frame.data:
            assert frame.data.split(b'"')[3] in seen, "a response was recorded before its command"
    assert len(seen) == 300


def test_relay_publishes_before_it_forwards() -> None:
    """Deterministic form of the above: when the hub hears of a chunk, the agent cannot have it yet."""
    import os

    from rpcspy.pump.forward.relay import Relay

    src_r, src_w = os.pipe()
    dst_r, dst_w = os.pipe()
    os.set_blocking(dst_r, False)
    forwarded_at_publish: list[bytes] = []

    class Sink:
        def publish(self, direction, t, chunk, injected=False):  # noqa: ANN001
            try:
                forwarded_at_publish.append(os.read(dst_r, 65536))
            except BlockingIOError:
                forwarded_at_publish.append(b"")

        def publish_eof(self, direction, t):  # noqa: ANN001
            pass

    relay = Relay("c2a", src_r, dst_w, Sink(), lambda: 0.0)  # type: ignore[arg-type]
    relay.start()
    os.write(src_w, b'{"type":"get_state"}\n')
    os.close(src_w)
    relay.join(60)
    assert forwarded_at_publish == [b""]
    assert os.read(dst_r, 65536) == b'{"type":"get_state"}\n'
