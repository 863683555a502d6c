#!/usr/bin/env bash
# Run a bundle's self-test against a real Secret Service keyring: a private D-Bus session with
# an unlocked gnome-keyring and a throwaway HOME, so the keyring check stores, reads back and
# deletes a secret through the bundled keyring backend (secretstorage, jeepney, cryptography).
#
#     packaging/linux/self-test-with-keyring.sh dist/AgentDesk/AgentDesk
#
# Needs gnome-keyring and dbus (Debian/Ubuntu: apt install gnome-keyring dbus). CI runs it.
set -euo pipefail

if [ "${1:-}" != "--inside" ]; then
  exec dbus-run-session -- "$0" --inside "$@"
fi
shift
executable=$(realpath "$1")
HOME=$(mktemp -d)
export HOME
trap 'rm -rf "$HOME"' EXIT
# gnome-keyring reads the password of the login keyring from stdin and unlocks it.
printf 'self-test' | gnome-keyring-daemon --unlock --components=secrets >/dev/null
report=$("$executable" --self-test 2>/dev/null) || { echo "$report"; exit 1; }
echo "$report"
grep -q "keyring .*a test secret was stored, read back and deleted" <<<"$report" || {
  echo "The keyring check did not reach the Secret Service keyring." >&2
  exit 1
}
