"""The virtual phone's sh subset: quoting, operators, substitution and redirection as on a phone."""

from __future__ import annotations

import pytest

from app.virtual_phone.shell import FileAccess, Result, Shell, ShellExit, parse, ShellSyntaxError


class Recorder:
    def __init__(self):
        self.ran: list[list[str]] = []
        self.files: dict[str, bytes] = {}

    def __call__(self, argv, stdin):
        self.ran.append(argv)
        name = argv[0]
        if name == "echo":
            return Result((" ".join(argv[1:]) + "\n").encode())
        if name == "cat":
            return Result(stdin if len(argv) == 1 else self.files.get(argv[1], b""))
        if name == "false":
            return Result(code=1)
        if name == "noisy":
            return Result(b"OUT\n", b"ERR\n")
        if name == "id":
            return Result(b"uid=2000(shell)\n")
        return Result()

    def shell(self) -> Shell:
        def write(path, data, append):
            self.files[path] = (self.files.get(path, b"") if append else b"") + data
        return Shell(self, FileAccess(self.files.get, write))


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
])
def test_quoted_text_stays_one_argument(rec, line, expected):
    rec.shell().run_line(line)
    assert rec.ran == expected


@pytest.mark.parametrize("line, commands", [
    ("echo a; echo b", ["echo", "echo"]),
    ("echo a && echo b", ["echo", "echo"]),
    ("false && echo skipped", ["false"]),
    ("false || echo ran", ["false", "echo"]),
    ("echo a | cat", ["echo", "cat"]),
    ("echo a & echo b", ["echo", "echo"]),
    ("echo a\necho b", ["echo", "echo"]),
])
def test_operators_outside_quotes_start_commands(rec, line, commands):
    rec.shell().run_line(line)
    assert [argv[0] for argv in rec.ran] == commands


def test_unquoted_and_double_quoted_substitution_really_runs(rec):
    """A phone's sh runs $(...) and backticks: the virtual phone must too, to witness injection."""
    shell = rec.shell()
    shell.run_line('input text "$(id)"')
    shell.run_line("input text `id`")
    assert ["id"] in rec.ran
    assert ["input", "text", "uid=2000(shell)"] in rec.ran
    assert rec.ran.count(["id"]) == 2


def test_pipe_feeds_stdout(rec):
    assert rec.shell().run_line("echo hello | cat").stdout == b"hello\n"


@pytest.mark.parametrize("line, stdout, stderr", [
    ("noisy", b"OUT\n", b"ERR\n"),
    ("noisy >/dev/null", b"", b"ERR\n"),
    ("noisy 2>/dev/null", b"OUT\n", b""),
    ("noisy >/dev/null 2>&1", b"", b""),
    ("noisy 2>&1 >/dev/null", b"ERR\n", b""),   # order matters, as in sh
])
def test_redirections_follow_sh_order(rec, line, stdout, stderr):
    result = rec.shell().run_line(line)
    assert (result.stdout, result.stderr) == (stdout, stderr)


def test_redirect_both_streams_to_a_file(rec):
    rec.shell().run_line("noisy > /sdcard/log 2>&1")
    assert rec.files["/sdcard/log"] == b"OUT\nERR\n"


def test_exit_status_variable(rec):
    assert rec.shell().run_line("false; echo $?").stdout == b"1\n"


@pytest.mark.parametrize("line", ["echo 'open", 'echo "open', "echo a &&", "| echo", "echo $(id"])
def test_syntax_errors_run_nothing(rec, line):
    result = rec.shell().run_line(line)
    assert result.code == 2 and b"syntax error" in result.stderr
    assert rec.ran == []


def test_parse_rejects_garbage():
    with pytest.raises(ShellSyntaxError):
        parse("echo )")


def test_exit_stops_the_session(rec):
    with pytest.raises(ShellExit) as info:
        rec.shell().run_line("exit 3; echo never")
    assert info.value.code == 3
    assert rec.ran == []
