#!/usr/bin/env bash
# Builds the Linux bundle of Agent Desk and archives it:
#
#     packaging/build-linux.sh [--no-install]
#
# 1. installs the app with its build extra (PyInstaller) into the current Python, unless --no-install;
# 2. runs PyInstaller on build.spec, which gives the one-folder bundle dist/AgentDesk/;
# 3. adds the menu entry, the icons and install.sh (packaging/linux/) to the bundle;
# 4. runs the bundle's self-test and stops if it fails;
# 5. packs the bundle as dist/AgentDesk-<version>-linux-<arch>.tar.gz (folder AgentDesk/ inside).
#
# Runs from any folder. PYTHON names another interpreter than python3 (a virtual environment's, say).
set -euo pipefail

SCRIPT_NAME=build-linux.sh
USAGE_LINES=2,12
# shellcheck source=packaging/build-common.sh
source "$(dirname "$0")/build-common.sh"
BUNDLE=dist/AgentDesk

install_build_tools

version=$(app_version)
arch=$(uname -m)
archive="dist/AgentDesk-${version}-linux-${arch}.tar.gz"

step "Building the bundle with PyInstaller (Agent Desk $version, $arch)"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN build.spec
[[ -x "$BUNDLE/AgentDesk" ]] || fail "PyInstaller gave no $BUNDLE/AgentDesk"

step "Adding the menu entry, icons and install.sh"
install -m 644 packaging/linux/agentdesk.desktop "$BUNDLE/agentdesk.desktop"
install -m 644 packaging/icons/png/agentdesk-256.png "$BUNDLE/agentdesk.png"
install -d "$BUNDLE/icons"
for size in 256 512; do
    install -m 644 "packaging/icons/png/agentdesk-$size.png" "$BUNDLE/icons/agentdesk-$size.png"
done
install -m 755 packaging/linux/install.sh "$BUNDLE/install.sh"

step "Self-test of the bundle"
# On a virtual X display where xvfb-run is installed (CI), so the bundle's Qt opens its real X11 platform
# plugin and a missing system library fails here, not on a user's desktop.
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
  xvfb-run -a "$BUNDLE/AgentDesk" --self-test || fail "the bundle's self-test failed (see above); no archive was made"
else
  "$BUNDLE/AgentDesk" --self-test || fail "the bundle's self-test failed (see above); no archive was made"
fi

step "Bundle size"
du -sh "$BUNDLE"

step "Archiving"
rm -f "$archive"
tar -C dist --owner=0 --group=0 --numeric-owner -czf "$archive" AgentDesk
du -h "$archive"

printf '\nBuilt %s\n' "$archive"
