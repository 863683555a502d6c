"""The virtual phone's sh: quoting, operators, substitution and redirection as mksh does them.

A recording runner stands in for the phone's programs, so these tests see exactly which
commands (after quoting and expansion) the shell would start.
"""

from __future__ import annotations

import pytest

from app.virtual_phone.shell import Result, Shell, ShellExit, ShellSyntaxError, parse
from app.virtual_phone.storage import PhoneStorage


class Recorder:
    """A runner that records argv and answers a few made-up programs."""

    def __init__(self):
        self.ran: list[list[str]] = []
        self.storage = PhoneStorage()

    def __call__(self, argv, stdin, process):
        self.ran.append(argv)
        name = argv[0]
        if name == "cat":
            return Result(stdin if len(argv) == 1 else self.storage.read_file(argv[1]))
        if name == "noisy":
            return Result(chunks=[(1, b"OUT\n"), (2, b"ERR\n"), (1, b"OUT2\n")])
        if name == "id":
            return Result(b"uid=2000(shell)\n")
        if name == "input":
            return Result()
        return None

    def shell(self, **options) -> Shell:
        return Shell(self, self.storage, {"HOME": "/", "PATH": "/system/bin"}, **options)


@pytest.fixture
def rec():
    return Recorder()


@pytest.mark.parametrize("line, expected", [
    ("input text 'a;b && c'", [["input", "text", "a;b && c"]]),
    ("input text a\\;b", [["input", "text", "a;b"]]),
    ("input text 'it'\\''s'", [["input", "text", "it's"]]),
    ('input text "say \\"hi\\""', [["input", "text", 'say "hi"']]),
    ("input text ''", [["input", "text", ""]]),
    ("input text 'line1\nline2'", [["input", "text", "line1\nline2"]]),
    ("input text '$(reboot)' '`reboot`'", [["input", "text", "$(reboot)", "`reboot`"]]),
    ("input text '*' \"*\" \\*", [["input", "text", "*", "*", "*"]]),
    ('input text "$HOME" \'$HOME\'', [["input", "text", "/", "$HOME"]]),
])
def test_quoted_text_stays_one_argument(rec, line, expected):
    rec.shell().run_line(line)
    assert rec.ran == expected


@pytest.mark.parametrize("line, commands", [
    ("id; id", ["id", "id"]),
    ("id && id", ["id", "id"]),
    ("false && id", []),
    ("false || id", ["id"]),
    ("id | cat", ["id", "cat"]),
    ("id & id", ["id", "id"]),
    ("id\nid", ["id", "id"]),
    ("! id || id", ["id", "id"]),
])
def test_operators_outside_quotes_start_commands(rec, line, commands):
    rec.shell().run_line(line)
    assert [argv[0] for argv in rec.ran] == commands


def test_substitution_really_runs_and_splits(rec):
    """A phone's sh runs $(...) and backticks: the virtual phone must too, to witness injection."""
    shell = rec.shell()
    shell.run_line('input text "$(id)"')
    shell.run_line("input text `id`")
    assert ["input", "text", "uid=2000(shell)"] in rec.ran
    assert rec.ran.count(["id"]) == 2


def test_builtins_run_in_the_shell_and_are_not_programs(rec):
    result = rec.shell().run_line("echo hi; true; cd /sdcard; pwd; export A=1; [ -d . ]")
    assert result.stdout == b"hi\n/sdcard\n" and result.code == 0
    assert rec.ran == []


def test_pipe_feeds_stdout(rec):
    assert rec.shell().run_line("echo hello | cat").stdout == b"hello\n"


def test_output_keeps_the_order_it_was_written_in(rec):
    result = rec.shell().run_line("noisy; echo after >&2; echo end")
    assert result.output == b"OUT\nERR\nOUT2\nafter\nend\n"
    assert (result.stdout, result.stderr) == (b"OUT\nOUT2\nend\n", b"ERR\nafter\n")


@pytest.mark.parametrize("line, stdout, stderr", [
    ("noisy", b"OUT\nOUT2\n", b"ERR\n"),
    ("noisy >/dev/null", b"", b"ERR\n"),
    ("noisy 2>/dev/null", b"OUT\nOUT2\n", b""),
    ("noisy >/dev/null 2>&1", b"", b""),
    ("noisy 2>&1 >/dev/null", b"ERR\n", b""),   # order matters, as in sh
    ("{ noisy; } 2>&1", b"OUT\nERR\nOUT2\n", b""),
])
def test_redirections_follow_sh_order(rec, line, stdout, stderr):
    result = rec.shell().run_line(line)
    assert (result.stdout, result.stderr) == (stdout, stderr)


def test_redirect_both_streams_to_a_file_in_order(rec):
    rec.shell().run_line("noisy > /sdcard/log 2>&1; echo more >> /sdcard/log")
    assert rec.storage.read("/sdcard/log") == b"OUT\nERR\nOUT2\nmore\n"


def test_exit_status_variable(rec):
    assert rec.shell().run_line("false; echo $?; true; echo $?").stdout == b"1\n0\n"


@pytest.mark.parametrize("line, message", [
    ("echo 'open", b"no closing quote"),
    ('echo "open', b"no closing quote"),
    ("echo a &&", b"syntax error: unexpected EOF"),
    ("| echo", b"syntax error: '|' unexpected"),
    ("echo $(id", b"syntax error"),
    ("echo )", b"syntax error: ')' unexpected"),
    ("if true; then echo", b"syntax error"),
    ("fi", b"syntax error: 'fi' unexpected"),
    ("cat <<EOF\nno end", b"here document 'EOF' unclosed"),
])
def test_syntax_errors_run_nothing(rec, line, message):
    result = rec.shell().run_line(line)
    assert result.code == 1 and message in result.stderr
    assert result.stderr.startswith(b"/system/bin/sh: ")
    assert rec.ran == []


def test_parse_rejects_garbage():
    with pytest.raises(ShellSyntaxError):
        parse("echo )")


def test_exit_ends_the_line_with_its_code(rec):
    result = rec.shell().run_line("echo before; exit 3; id")
    assert (result.stdout, result.code) == (b"before\n", 3)
    assert rec.ran == []


def test_exit_ends_an_interactive_session(rec):
    with pytest.raises(ShellExit) as info:
        rec.shell(interactive=True).run_line("exit 4")
    assert info.value.code == 4


def test_unknown_program_answers_as_mksh(rec):
    result = rec.shell().run_line("reboot now")
    assert (result.stderr, result.code) == (b"/system/bin/sh: reboot: inaccessible or not found\n", 127)
    assert rec.ran == [["reboot", "now"]]
