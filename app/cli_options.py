"""Options several `agentdesk` commands share, so each is spelled one way everywhere."""

from __future__ import annotations

import argparse
import sys


class _OldSerial(argparse.Action):
    """`--serial S`, the old spelling of `--device S`: still works, says the new one once."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"note: {option_string} is now called --device (the old name still works for now)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_device_option(parser: argparse.ArgumentParser, help_text: str, *, old_serial: bool = False,
                      default: str | None = None, target=None) -> argparse.Action:
    """`--device SERIAL`, the phone a command works with. With `old_serial`, `--serial` is kept as a hidden alias
    (the same value), for scripts written before the command took `--device`. `target` is where the option goes
    (a mutually exclusive group); the hidden alias always goes to `parser`."""
    action = (target or parser).add_argument("--device", metavar="SERIAL", default=default, help=help_text)
    if old_serial:
        parser.add_argument("--serial", dest="device", action=_OldSerial, help=argparse.SUPPRESS)
    return action
