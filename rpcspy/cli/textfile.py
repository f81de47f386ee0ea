"""Small text files a command reads as an option's value or writes whole (baselines): one way to fail."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import click

T = TypeVar("T")


def read_option_file(path: str, parse: Callable[[str], T], errors: tuple[type[Exception], ...],
                     param_hint: str) -> T:
    """``parse`` of the UTF-8 text at ``path``; a file that cannot be read or parsed is a usage error (exit 2)."""
    caught: tuple[type[Exception], ...] = (*errors, UnicodeDecodeError)
    try:
        with open(path, encoding="utf-8") as f:
            return parse(f.read())
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc.strerror or exc}", param_hint=param_hint) from None
    except caught as exc:
        raise click.BadParameter(f"{path}: {exc}", param_hint=param_hint) from None


def write_whole(path: str, text: str) -> None:
    """Replace ``path`` with ``text`` atomically; a write error is one line and exit 4."""
    from rpcspy.cli.exits import OUTPUT
    from rpcspy.cli.recfile import atomic_output

    try:
        with atomic_output(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        click.echo(f"rpcspy: error: cannot write {path}: {exc.strerror or exc}", err=True)
        sys.exit(OUTPUT)
