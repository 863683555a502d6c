"""What `agentdesk … --help` says: no design-document jargon ("seed"; a random seed is another word), and one
name for the phone option."""

from __future__ import annotations

import argparse
import re

import pytest

from app.cli import build_parser, main

PHONE_COMMANDS = {("controls",), ("keyboard",), ("run",), ("replay",), ("export",), ("bench",)}
"""Commands that work with (or name) one phone."""


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Every command and subcommand, as (path, parser)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from commands(sub, (*path, name))


ALL = [path for path, _ in commands(build_parser())]


@pytest.mark.parametrize("path", ALL, ids=" ".join)
def test_no_command_s_help_says_seed(path, capsys):
    with pytest.raises(SystemExit) as exited:
        main([*path, "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert text.strip(), path
    # a random seed (bench androidworld's --random-seed) is not the design documents' word
    assert not re.search("seed", re.sub(r"random[ -]seed", "", text, flags=re.IGNORECASE), re.IGNORECASE), text


def test_the_command_list_says_no_seed_either(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "run" in text and not re.search("seed", text, re.IGNORECASE), text


def test_every_command_that_names_a_phone_calls_the_option_device():
    found = set()
    for path, parser in commands(build_parser()):
        shown = {option: action for action in parser._actions for option in action.option_strings
                 if action.help != argparse.SUPPRESS}
        for option in shown:
            assert option not in ("--serial", "--phone", "-s"), f"agentdesk {' '.join(path)} shows {option}"
        if "--device" in shown:
            found.add(path)
            assert shown["--device"].metavar == "SERIAL", path
    assert found >= PHONE_COMMANDS, PHONE_COMMANDS - found


def test_the_old_serial_of_keyboard_and_export_still_works_and_says_the_new_name(capsys):
    parser = build_parser()
    assert parser.parse_args(["keyboard", "install", "a.apk", "--device", "R58M"]).device == "R58M"
    assert parser.parse_args(["keyboard", "install", "a.apk", "--serial", "R58M"]).device == "R58M"
    assert "--serial is now called --device" in capsys.readouterr().err
    assert parser.parse_args(["export", "run1", "--serial", "emulator-5554"]).device == "emulator-5554"
    assert parser.parse_args(["export", "run1"]).device == ""


def test_the_virtual_phone_s_variation_keeps_its_old_name():
    parser = build_parser()
    assert parser.parse_args(["virtual-phone"]).seed == 0
    assert parser.parse_args(["virtual-phone", "--variation", "7"]).seed == 7
    assert parser.parse_args(["virtual-phone", "--seed", "7"]).seed == 7
