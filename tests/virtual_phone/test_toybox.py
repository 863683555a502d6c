"""The phone's toybox commands: their options, output formats and messages as on Android."""

from __future__ import annotations

import hashlib
import re

import pytest

from app.virtual_phone.apps import NOTES
from app.virtual_phone.attached_device import AttachedDevice
from app.virtual_phone.storage_system import TOYBOX_COMMANDS
from app.virtual_phone.toybox import COMMANDS
from tests.virtual_phone.conftest import new_phone


@pytest.fixture
def device() -> AttachedDevice:
    attached = AttachedDevice(phone=new_phone(), transport_id=1)
    attached.new_shell("shell:true")    # the storage follows the phone's clock from the first shell on
    attached.storage.write("/sdcard/t/words.txt", b"banana\napple\ncherry\napple\nBanana split\n")
    attached.storage.write("/sdcard/t/n.txt", b"10\n9\n100\n-1\n")
    return attached


@pytest.fixture
def sh(device):
    return lambda line: device.new_shell(f"shell:{line}").run_line(line)


def test_every_toybox_command_is_linked_in_system_bin(sh):
    assert set(TOYBOX_COMMANDS) == set(COMMANDS) | {"toybox"}
    listed = set(sh("ls /system/bin").stdout.decode().split())
    assert set(COMMANDS) <= listed and {"sh", "am", "input", "toybox"} <= listed


@pytest.mark.parametrize("line, out", [
    ("cat /sdcard/t/n.txt", "10\n9\n100\n-1\n"),
    ("head -n 2 /sdcard/t/words.txt", "banana\napple\n"),
    ("head -2 /sdcard/t/words.txt", "banana\napple\n"),
    ("tail -n 1 /sdcard/t/words.txt", "Banana split\n"),
    ("tail -n +4 /sdcard/t/words.txt", "apple\nBanana split\n"),
    ("head -c 3 /sdcard/t/words.txt", "ban"),
    ("wc -l /sdcard/t/words.txt", "5 /sdcard/t/words.txt\n"),
    ("wc -l < /sdcard/t/words.txt", "5\n"),
    ("wc < /sdcard/t/words.txt", "      5       6      39\n"),
    ("grep apple /sdcard/t/words.txt", "apple\napple\n"),
    ("grep -c apple /sdcard/t/words.txt", "2\n"),
    ("grep -in banana /sdcard/t/words.txt", "1:banana\n5:Banana split\n"),
    ("grep -v a /sdcard/t/words.txt", "cherry\n"),
    ("grep -E 'ch|sp' /sdcard/t/words.txt", "cherry\nBanana split\n"),
    ("grep -o 'an' /sdcard/t/words.txt | wc -l", "4\n"),
    ("grep -w apple /sdcard/t/words.txt | head -1", "apple\n"),
    ("grep -F 'a.' /sdcard/t/words.txt; echo $?", "1\n"),
    ("grep 'a\\(p\\)\\1' /sdcard/t/words.txt | head -1", "apple\n"),
    ("grep -q cherry /sdcard/t/words.txt && echo found", "found\n"),
    ("grep -l apple /sdcard/t/*.txt", "/sdcard/t/words.txt\n"),
    ("sort /sdcard/t/words.txt", "Banana split\napple\napple\nbanana\ncherry\n"),
    ("sort -u /sdcard/t/words.txt | wc -l", "4\n"),
    ("sort -n /sdcard/t/n.txt", "-1\n9\n10\n100\n"),
    ("sort -rn /sdcard/t/n.txt | head -1", "100\n"),
    ("sort /sdcard/t/words.txt | uniq -c", "      1 Banana split\n      2 apple\n      1 banana\n      1 cherry\n"),
    ("echo a:b:c | cut -d: -f2", "b\n"),
    ("echo a:b:c | cut -d: -f1,3", "a:c\n"),
    ("echo hello | cut -c2-4", "ell\n"),
    ("echo hello | tr a-z A-Z", "HELLO\n"),
    ("echo hello | tr -d l", "heo\n"),
    ("echo 'a   b' | tr -s ' '", "a b\n"),
    ("echo hello world | sed 's/o/0/g'", "hell0 w0rld\n"),
    ("echo hello | sed -e 's/\\(h\\)\\(e\\)/\\2\\1/' -e 's/l/L/'", "ehLlo\n"),
    ("sed -n '2p' /sdcard/t/words.txt", "apple\n"),
    ("sed '1,3d' /sdcard/t/words.txt", "apple\nBanana split\n"),
    ("sed -n '/^a/p' /sdcard/t/words.txt", "apple\napple\n"),
    ("sed -E 's/(an)+/X/' /sdcard/t/words.txt | head -1", "bXa\n"),
    ("sed '$!d' /sdcard/t/words.txt", "Banana split\n"),
    ("sed -i 's/cherry/CHERRY/' /sdcard/t/words.txt && grep -c CHERRY /sdcard/t/words.txt", "1\n"),
    ("seq 3", "1\n2\n3\n"),
    ("seq 2 2 7", "2\n4\n6\n"),
    ("seq -s , 3", "1,2,3\n"),
    ("seq 5 | xargs", "1 2 3 4 5\n"),
    ("seq 4 | xargs -n 2 echo", "1 2\n3 4\n"),
    ("echo hi | tee /sdcard/t/tee.txt; cat /sdcard/t/tee.txt", "hi\nhi\n"),
    ("printf '%s=%d|%5s|%-3s|%x|%o|%c|%%\\n' a 42 r l 255 8 xyz", "a=42|    r|l  |ff|10|x|%\n"),
    ("printf '%s\\n' one two", "one\ntwo\n"),
    ("printf '%.2f\\n' 3.14159", "3.14\n"),
    ("echo -n hello | base64", "aGVsbG8=\n"),
    ("echo aGVsbG8= | base64 -d", "hello"),
    ("basename /sdcard/DCIM/pic.jpg .jpg; dirname /sdcard/DCIM/pic.jpg", "pic\n/sdcard/DCIM\n"),
    ("readlink /system/bin/ls; readlink -f /system/bin/ls; realpath /etc/hosts",
     "toybox\n/system/bin/toybox\n/system/etc/hosts\n"),
    ("which ls sh; which nope; echo $?", "/system/bin/ls\n/system/bin/sh\n1\n"),
    ("env | grep ^HOME=", "HOME=/\n"),
    ("env -i A=1 env", "A=1\n"),
    ("whoami; id -u; id -un", "shell\n2000\nshell\n"),
    ("date", "Tue Jun  4 09:41:00 GMT 2024\n"),
    ("date +%Y-%m-%d_%H:%M; date +%s", "2024-06-04_09:41\n1717494060\n"),
    ("uname; uname -r; uname -m", "Linux\n6.1.57-android14-11-gc2a1f3e5b0d8\nx86_64\n"),
    ("test -f /sdcard/t/n.txt && test ! -d /sdcard/t/n.txt && [ -s /sdcard/t/n.txt ] && echo ok", "ok\n"),
    ("[ abc = abc -a 3 -gt 2 ] && [ -n x ] && [ -z '' ] && echo ok", "ok\n"),
    ("[ -w /sdcard ] && [ ! -w /system ] && [ -x /system/bin/ls ] && [ -L /system/bin/ls ] && echo ok", "ok\n"),
    ("md5sum /sdcard/t/n.txt", hashlib.md5(b"10\n9\n100\n-1\n").hexdigest() + "  /sdcard/t/n.txt\n"),
    ("echo -n abc | sha256sum", hashlib.sha256(b"abc").hexdigest() + "  -\n"),
    ("toybox echo via toybox", "via toybox\n"),
])
def test_text_and_system_commands(sh, line, out):
    result = sh(line)
    assert result.stdout.decode() == out, result
    assert result.stderr == b"", result


def test_files_commands(sh, device):
    result = sh("cd /sdcard && mkdir -p a/b/c && touch a/b/c/f.txt && echo data > a/x && cp a/x a/y && "
                "mv a/y a/b/z && cp -r a copy && rm -r a/b && rmdir copy/b/c 2>&1; find copy | sort; ls a")
    assert result.stdout == (b"rmdir: copy/b/c: Directory not empty\n"
                             b"copy\ncopy/b\ncopy/b/c\ncopy/b/c/f.txt\ncopy/b/z\ncopy/x\nx\n")
    assert device.storage.read("/sdcard/copy/b/z") == b"data\n"


def test_ls_long_format(sh):
    sh("cd /data/local/tmp && echo hello > small && head -c 12345 /dev/zero > big && mkdir dir && "
       "ln -s small link && chmod 755 big")
    result = sh("ls -l /data/local/tmp")
    assert result.stdout.decode() == (
        "total 24\n"
        "-rwxr-xr-x 1 shell shell 12345 2024-06-04 09:41 big\n"
        "drwxrwxrwx 2 shell shell  3452 2024-06-04 09:41 dir\n"
        "lrwxrwxrwx 1 shell shell     5 2024-06-04 09:41 link -> small\n"
        "-rw-rw-rw- 1 shell shell     6 2024-06-04 09:41 small\n")
    assert sh("ls -a /data/local/tmp/dir; ls -d /data/local/tmp/dir; ls -1 /data/local/tmp | head -1").stdout == \
        b".\n..\n/data/local/tmp/dir\nbig\n"
    assert sh("ls -R /data/local/tmp").stdout.startswith(
        b"/data/local/tmp:\nbig\ndir\nlink\nsmall\n\n/data/local/tmp/dir:\n")


@pytest.mark.parametrize("line, stderr, code", [
    ("ls /nope", "ls: /nope: No such file or directory\n", 1),
    ("ls /data", "ls: /data: Permission denied\n", 1),
    ("cat /nope", "cat: /nope: No such file or directory\n", 1),
    ("rm /nope", "rm: /nope: No such file or directory\n", 1),
    ("rm /sdcard/Download", "rm: /sdcard/Download: Is a directory\n", 1),
    ("mkdir /sdcard/Download", "mkdir: '/sdcard/Download': File exists\n", 1),
    ("mkdir /data/x", "mkdir: '/data/x': Permission denied\n", 1),
    ("touch /system/x", "touch: '/system/x': Read-only file system\n", 1),
    ("rmdir /sdcard/nope", "rmdir: /sdcard/nope: No such file or directory\n", 1),
    ("grep x /nope", "grep: /nope: No such file or directory\n", 2),
    ("grep 'a[' /proc/version", "grep: bad REGEX 'a[': Unmatched [, [^, [:, [., or [=\n", 2),
    ("ls -y", "ls: Unknown option 'y' (see \"ls --help\")\n", 1),
    ("sleep x", "sleep: invalid number 'x'\n", 1),
    ("kill 1", "kill: bad pid '1': Operation not permitted\n", 1),
    ("kill 99999", "kill: bad pid '99999': No such process\n", 1),
    ("date 010100002000", "date: cannot set date: Operation not permitted\n", 1),
    ("stat /nope", "stat: /nope: No such file or directory\n", 1),
])
def test_error_messages(sh, line, stderr, code):
    result = sh(line)
    assert (result.stderr.decode(), result.code) == (stderr, code)


def test_stat_formats(sh):
    sh("echo hello > /data/local/tmp/f")
    assert sh("stat -c '%n %s %a %A %U %G %F %Y' /data/local/tmp/f").stdout == \
        b"/data/local/tmp/f 6 666 -rw-rw-rw- shell shell regular file 1717494060\n"
    default = sh("stat /data/local/tmp/f").stdout.decode()
    assert default.startswith("  File: /data/local/tmp/f\n  Size: 6\t Blocks: 8\t IO Blocks: 512\t regular file\n")
    assert "Access: (0666/-rw-rw-rw-)\tUid: ( 2000/   shell)\tGid: ( 2000/   shell)\n" in default
    assert "Modify: 2024-06-04 09:41:00.000000000 +0000\n" in default


def test_ps_shows_the_phones_processes(sh, device):
    header, *rows = sh("ps -A").stdout.decode().splitlines()
    assert header == "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME"
    names = [row.split()[-1] for row in rows]
    for name in ("init", "zygote64", "system_server", "com.android.systemui", "com.android.launcher3", "ps"):
        assert name in names
    assert NOTES not in names
    assert re.match(r"root +1 +0 ", rows[0])
    device.phone.launch(NOTES)
    pid = sh(f"pidof {NOTES}").stdout.strip()
    assert pid.isdigit()
    assert sh(f"ps -o PID,NAME -p {pid.decode()}").stdout.decode().split("\n")[1].split() == [pid.decode(), NOTES]
    assert sh(f"ps -A | grep -c {NOTES}").stdout == b"1\n"
    device.phone.force_stop(NOTES)
    assert sh(f"pidof {NOTES}").code == 1
    device.phone.launch(NOTES)
    assert sh(f"pidof {NOTES}").stdout.strip() != pid     # a new process
    assert sh("ps").stdout.decode().splitlines()[-1].split()[-1] == "ps"


def test_ps_and_dumpsys_agree_on_pids_and_users(sh, device):
    device.phone.launch(NOTES)
    pid = sh(f"pidof {NOTES}").stdout.decode().strip()
    assert f"pid={pid}" in sh("dumpsys activity top").stdout.decode()
    user = sh(f"ps -o USER,NAME -p {pid}").stdout.decode().splitlines()[1].split()[0]
    assert re.fullmatch(r"u0_a\d+", user)
    uid = int(user[4:]) + 10000
    assert f"appId={uid}" in sh(f"dumpsys package {NOTES}").stdout.decode()


def test_df_and_du_report_the_phones_storage(sh, device):
    sh("head -c 40960 /dev/zero > /sdcard/Download/blob")
    assert sh("du -s /sdcard/Download").stdout.split(b"\t")[0] == b"44"
    df = sh("df /sdcard").stdout.decode().splitlines()
    assert df[0].split() == ["Filesystem", "1K-blocks", "Used", "Available", "Use%", "Mounted", "on"]
    used, capacity = device.storage.usage()
    assert used >= 40960
    assert df[1].split()[1:4] == [str(capacity // 1024), str(used // 1024), str((capacity - used) // 1024)]


def test_proc_files_describe_the_phone(sh):
    assert sh("cat /proc/version").stdout.startswith(b"Linux version 6.1.57-android14")
    assert sh("grep MemTotal /proc/meminfo").stdout.startswith(b"MemTotal:")
    assert sh("grep -c processor /proc/cpuinfo").stdout == b"8\n"
    old = AttachedDevice(phone=new_phone(profile="android9"), transport_id=2)
    assert old.new_shell("shell:uname -r").run_line("uname -r").stdout == b"4.9.148-g8d52f3e\n"


def test_ls_long_format_of_an_empty_folder_says_total_0(sh):
    sh("mkdir /data/local/tmp/empty")
    result = sh("ls -l /data/local/tmp/empty")
    assert (result.stdout, result.code) == (b"total 0\n", 0)
