"""``--gap-after SECONDS``, shared by every command that runs an agent behind rpcspy (``run``, ``repl``, ``drive``)."""

from __future__ import annotations

import click

from rpcspy.backpressure import STALL_AFTER

gap_after_option = click.option(
    "--gap-after", "gap_after", type=click.FloatRange(min=0), default=STALL_AFTER, show_default=True,
    metavar="SECONDS", envvar="RPCSPY_GAP_AFTER", show_envvar=True,
    help="How long to wait for observers (recorder, checker) that are stopped (SIGSTOP) or dead. When they "
         "fall behind by their bound (about 0.5 s of their measured work, 256 KiB to 16 MiB, besides their 1 MiB pipe "
         "under `rpcspy run`; an 8 MiB "
         "queue under repl and drive), rpcspy stops reading the agent's (or the client's) pipe, slowing it down, "
         "for as long as they run, so nothing is lost, however slow they are; only once their process is stopped "
         "or dead and has taken nothing for SECONDS (or, running, nothing for 60 s: stuck) is what they miss "
         "forwarded at full speed and recorded as a gap note. 0: never slow anyone down (bursts may become gaps).")
"""A click decorator: the command gets ``gap_after: float`` (seconds, at least 0; a bad value is exit 2)."""
