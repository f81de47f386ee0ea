"""Ctrl-C (SIGINT) while no prompt is open is kept for the next prompt, not taken as quit."""

from __future__ import annotations

import asyncio
import os
import signal

from rpcspy.interactive.sigint import TypedAhead


async def _sigint_and_settle() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(20):
        await asyncio.sleep(0.01)


def test_sigint_between_prompts_is_kept_once() -> None:
    async def main() -> tuple[bool, bool, bool]:
        typed = TypedAhead(asyncio.get_running_loop())
        before = typed.take()  # nothing pressed yet
        typed.closed()
        await _sigint_and_settle()  # no KeyboardInterrupt, no cancelled task
        return before, typed.take(), typed.take()

    assert asyncio.run(main()) == (False, True, False)


def test_instead_runs_the_action_and_then_lets_go() -> None:
    calls: list[str] = []

    async def main() -> None:
        typed = TypedAhead(asyncio.get_running_loop())
        typed.closed()
        with typed.instead(lambda: calls.append("terminate")):
            await _sigint_and_settle()
        assert not typed.take(), "the SIGINT went to the action, not to the next prompt"

    asyncio.run(main())
    assert calls == ["terminate"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
