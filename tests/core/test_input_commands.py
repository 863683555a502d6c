"""Input command lines: whatever the text, the phone's shell types exactly it and runs nothing else."""

from __future__ import annotations

import base64
import random

import pytest

from app.core.device import input_commands as cmd
from app.virtual_phone.shell import Result, Shell
from app.virtual_phone.storage import PhoneStorage

NASTY = [
    "hello world",
    "a;reboot", "a && reboot", "a || reboot", "a | sh", "a & reboot",
    "$(reboot)", "`reboot`", "${PATH}", "$HOME", "'; reboot; '", '"; reboot; "',
    "it's", 'say "hi"', "back\\slash", "100%sure", "%s%s", "50% off", "%", "%%s",
    "tab\there", "line1\nline2", "  leading and trailing  ", "#not a comment", "*?[glob]",
    "x" * 300, "> /sdcard/owned", "< /etc/passwd", "(subshell)", "{brace}", "~home", "!bang",
]


def typed_on_phone(command_line: str) -> tuple[str, list[list[str]]]:
    """Run a command line in the virtual phone's sh and emulate `input`: return what got typed."""
    ran: list[list[str]] = []
    typed: list[str] = []

    def runner(argv, stdin, process):
        ran.append(argv)
        if argv[:2] == ["input", "text"]:
            typed.append(argv[2].replace("%s", " "))   # what Android's `input text` does
        elif argv[:2] == ["input", "keyevent"]:
            typed.extend("\n" for code in argv[2:] if code == "66")
        return Result()

    Shell(runner, PhoneStorage()).run_line(command_line)
    return "".join(typed), ran


@pytest.mark.parametrize("text", NASTY)
def test_type_ascii_types_exactly_the_text_and_nothing_else(text):
    typed, ran = typed_on_phone(cmd.type_ascii(text))
    assert typed == text
    assert all(argv[0] == "input" for argv in ran), ran


def test_type_ascii_random_printable_texts():
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(32, 127)] + ["\n"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120)))
        typed, ran = typed_on_phone(cmd.type_ascii(text))
        assert typed == text
        assert all(argv[0] == "input" or argv == ["true"] for argv in ran), ran


def test_spaces_are_sent_as_percent_s():
    assert cmd.type_ascii("a b") == "input text a%sb"


def test_long_text_is_split_into_chunks():
    line = cmd.type_ascii("y" * 200)
    assert line.count("input text") == 3


@pytest.mark.parametrize("text, expected", [("héllo", True), ("日本語", True), ("emoji 😀", True),
                                            ("plain", False), ("multi\nline", False), ("tab\t", True)])
def test_needs_adb_keyboard(text, expected):
    assert cmd.needs_adb_keyboard(text) is expected


def test_adb_keyboard_payload_is_base64_and_survives_the_shell():
    text = "Grüße; $(reboot) `id` 'q' \"d\" 日本"
    ran: list[list[str]] = []
    Shell(lambda argv, stdin, process: ran.append(argv) or Result(),
          PhoneStorage()).run_line(cmd.type_with_adb_keyboard(text))
    assert len(ran) == 1 and ran[0][:4] == ["am", "broadcast", "-a", "ADB_INPUT_B64"]
    assert base64.b64decode(ran[0][-1]).decode("utf-8") == text


def test_launch_quotes_package():
    _, ran = typed_on_phone(cmd.launch_app("com.evil;reboot"))
    assert ran == [["monkey", "-p", "com.evil;reboot", "-c", "android.intent.category.LAUNCHER", "1"]]


def test_coordinates_are_integers():
    assert cmd.tap(10.6, 20.2) == "input tap 11 20"
    assert cmd.long_press(5, 6, 900) == "input swipe 5 6 5 6 900"


@pytest.mark.parametrize("count, forward", [(0, False), (7, False), (500, False), (500, True), (1234, True)])
def test_clear_field_deletes_the_whole_count_in_short_command_lines(count, forward):
    lines = cmd.clear_field_commands(count, forward=forward)
    ran = [argv for line in lines for argv in typed_on_phone(line)[1]]
    codes = [code for argv in ran if argv[:2] == ["input", "keyevent"] for code in argv[2:]]
    assert codes.count("67") == count and codes.count("112") == (count if forward else 0)
    assert all(len(line) < 2000 for line in lines)
    assert all(argv[:2] == ["input", "keyevent"] for argv in ran)
