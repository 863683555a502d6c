"""The shell language as mksh runs it on a phone: variables, expansions, arithmetic, control flow,
functions, here-documents, `cd` and exit codes — on a real AttachedDevice (toybox included)."""

from __future__ import annotations

import pytest

from app.virtual_phone.attached_device import AttachedDevice
from tests.virtual_phone.conftest import new_phone


@pytest.fixture
def device() -> AttachedDevice:
    return AttachedDevice(phone=new_phone(), transport_id=1)


@pytest.fixture
def sh(device):
    """run(line) -> Result, each line in a fresh `adb shell` as a client would send it."""
    return lambda line: device.new_shell(f"shell,v2,raw:{line}").run_line(line)


@pytest.mark.parametrize("line, out", [
    ("x=5; echo $x ${x} \"$x\" '$x'", "5 5 5 $x"),
    ("echo ${unset:-default} ${unset-also}", "default also"),
    ("x=; echo ${x:-empty} [${x-unset}]", "empty []"),
    ("echo ${new:=assigned} $new", "assigned assigned"),
    ("x=set; echo ${x:+alt} [${unset:+alt}]", "alt []"),
    ("x=hello; echo ${#x}", "5"),
    ("f=archive.tar.gz; echo ${f%.*} ${f%%.*} ${f#*.} ${f##*.}", "archive.tar archive tar.gz gz"),
    ("p=/sdcard/DCIM/a.jpg; echo ${p##*/} ${p%/*}", "a.jpg /sdcard/DCIM"),
    ("x=banana; echo ${x/an/AN} ${x//an/AN}", "bANana bANANa"),
    ("x=abcdef; echo ${x:2} ${x:1:3}", "cdef bcd"),
    ("echo $((1 + 2 * 3)) $(( (1+2)*3 )) $((7 / 2)) $((7 % 3)) $((1 << 4))", "7 9 3 1 16"),
    ("i=3; i=$((i+1)); echo $i $((i > 2 && i < 5)) $((i == 4 ? 10 : 20))", "4 1 10"),
    ("echo $((2147483647 + 1)) $((0x1f)) $((8#17))", "-2147483648 31 15"),   # mksh: 32-bit integers
    ("echo $(echo a; echo b) `echo c`", "a b c"),
    ("echo \"$(printf 'x\\n\\n')\"end", "xend"),
    ("a='1   2'; set -- $a; echo $#; set -- \"$a\"; echo $#", "2\n1"),
    ("IFS=:; p=a:b::c; for w in $p; do printf '[%s]' \"$w\"; done; echo", "[a][b][][c]"),
    ("for i in 1 2; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; done", "1a\n2a"),
    ("set -- 'a b' c; for w in \"$@\"; do echo \"<$w>\"; done", "<a b>\n<c>"),
    ("echo \"a\\tb\"", "a\tb"),                  # mksh's echo interprets backslashes
    ("echo -n no; echo ' newline'", "no newline"),
    ("echo ~ ~/x", "/ //x"),
    ("echo $0", "/system/bin/sh"),
])
def test_expansions(sh, line, out):
    result = sh(line)
    assert result.stderr == b"" and result.stdout.decode() == out + "\n", result


@pytest.mark.parametrize("line, out", [
    ("if true; then echo yes; else echo no; fi", "yes"),
    ("if false; then echo 1; elif [ 1 -eq 1 ]; then echo 2; else echo 3; fi", "2"),
    ("for i in a b c; do echo $i; done", "a\nb\nc"),
    ("for i in 1 2 3 4 5; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done", "1\n3"),
    ("i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i", "3"),
    ("i=0; until [ $i -ge 2 ]; do i=$((i+1)); echo $i; done", "1\n2"),
    ("case abc.txt in *.jpg) echo jpg;; *.txt|*.md) echo text;; *) echo other;; esac", "text"),
    ("case x in y) echo y;; esac; echo $?", "0"),
    ("{ echo a; echo b; } | grep b", "b"),
    ("(cd /sdcard; pwd); pwd", "/sdcard\n/"),
    ("x=1; (x=2); echo $x", "1"),
    ("f() { echo \"$1-$2\"; return 3; }; f a b; echo $?", "a-b\n3"),
    ("f() { local v=inner; echo $v; }; v=outer; f; echo $v", "inner\nouter"),
    ("count() { echo $#; }; count a 'b c' \"\"", "3"),
    ("! false; echo $?; ! true; echo $?", "0\n1"),
    ("false && echo no || echo yes", "yes"),
    ("[[ abc == a* && -d /sdcard ]] && echo match", "match"),
    ("[[ x == y || ! -e /nope ]] && echo ok", "ok"),
    ("(( 3 > 2 )) && echo bigger", "bigger"),
    ("let x=4*5; echo $x", "20"),
    ("read a b <<EOF\none two three\nEOF\necho \"$b|$a\"", "two three|one"),
    ("while read line; do echo \"<$line>\"; done <<EOF\nl1\nl2\nEOF", "<l1>\n<l2>"),
    ("cat <<-'EOF'\n\t$HOME\n\tEOF", "$HOME"),
    ("cat <<< \"here $((1+1))\"", "here 2"),
    ("eval 'x=7; echo $x'", "7"),
    ("set -- a b c; shift; echo $@; shift 2; echo $#", "b c\n0"),
    ("sh -c 'echo $0 $1 $#' name one two", "name one 2"),
    ("sh -c 'exit 5'; echo $?", "5"),
    ("echo 'echo from stdin' | sh", "from stdin"),
    ("export A=1; B=2; sh -c 'echo ${A:-no}${B:-no}'", "1no"),
    ("FOO=bar env | grep FOO; echo ${FOO:-unset}", "FOO=bar\nunset"),
    ("set -e; false; echo not reached", ""),
    ("set -u; echo $nope; echo not reached", ""),
    ("command -v ls; type cd", "/system/bin/ls\ncd is a shell builtin"),
])
def test_control_flow_and_functions(sh, line, out):
    assert sh(line).stdout.decode() == (out + "\n" if out else ""), sh(line)


def test_cd_changes_where_relative_paths_point(sh):
    result = sh("cd /data/local/tmp && echo hi > f && cat ./f && ls && cd .. && pwd && cd - && cd /nope")
    assert result.stdout == b"hi\nf\n/data/local\n/data/local/tmp\n"
    assert result.stderr == b"/system/bin/sh: cd: /nope: No such file or directory\n"
    assert result.code == 2


def test_globs_match_the_phones_files(sh):
    sh("touch /sdcard/Download/a.png /sdcard/Download/b.png /sdcard/Download/c.txt")
    assert sh("echo /sdcard/Download/*.png").stdout == b"/sdcard/Download/a.png /sdcard/Download/b.png\n"
    assert sh("cd /sdcard/Download && echo ?.txt [ab].png").stdout == b"c.txt a.png b.png\n"
    assert sh("echo /sdcard/Download/*.gif '*.png'").stdout == b"/sdcard/Download/*.gif *.png\n"


@pytest.mark.parametrize("line, code, stderr", [
    ("false", 1, b""),
    ("exit 42", 42, b""),
    ("exit 300", 44, b""),
    ("nope", 127, b"/system/bin/sh: nope: inaccessible or not found\n"),
    ("/sdcard", 126, b"/system/bin/sh: /sdcard: can't execute: Is a directory\n"),
    ("/system/bin/nope", 127, b"/system/bin/sh: /system/bin/nope: inaccessible or not found\n"),
    ("echo x > /sdcard/t.txt; /sdcard/t.txt", 126,
     b"/system/bin/sh: /sdcard/t.txt: can't execute: Permission denied\n"),
    ("echo $((1/0)); echo after", 1, b"/system/bin/sh: 1/0: zero divisor\n"),
    ("echo $((2**3))", 1, b"/system/bin/sh: 2**3: unexpected '*'\n"),
    ("echo ${x:?is required}; echo after", 1, b"/system/bin/sh: x: is required\n"),
    ("echo hi > /system/x", 1, b"/system/bin/sh: can't create /system/x: Read-only file system\n"),
    ("cat < /nope", 1, b"/system/bin/sh: can't open /nope: No such file or directory\n"),
    ("[ 1 -eq x ]", 2, b"/system/bin/sh: [: x: bad number\n"),
    ("[ 1 = 1", 2, b"/system/bin/sh: [: missing ]\n"),
])
def test_exit_codes_and_messages(sh, line, code, stderr):
    result = sh(line)
    assert (result.code, result.stderr, result.stdout) == (code, stderr, b"")


def test_scripts_on_the_phone_run(sh, device):
    device.storage.write("/data/local/tmp/s.sh", b"#!/system/bin/sh\necho \"args: $*\"\nexit 3\n", mode=0o755)
    result = sh("/data/local/tmp/s.sh one two; echo $?; sh /data/local/tmp/s.sh x; . /data/local/tmp/s.sh y")
    assert result.stdout == b"args: one two\n3\nargs: x\nargs: y\n"
    assert result.code == 3


def test_variables_do_not_leak_between_adb_shell_calls(sh):
    sh("export LEAK=1; cd /sdcard")
    assert sh("echo ${LEAK:-none}; pwd").stdout == b"none\n/\n"
