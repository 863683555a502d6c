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

usage() {
    sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

install_deps=1
for arg in "$@"; do
    case "$arg" in
        --no-install) install_deps=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "build-linux.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON=${PYTHON:-python3}
BUNDLE=dist/AgentDesk

step() { printf '\n==> %s\n' "$*"; }

if (( install_deps )); then
    step "Installing Agent Desk with its build tools"
    "$PYTHON" -m pip install -q -e ".[build]"
fi

version=$("$PYTHON" -c "import app; print(app.__version__)")
arch=$(uname -m)
archive="dist/AgentDesk-${version}-linux-${arch}.tar.gz"

step "Building the bundle with PyInstaller (Agent Desk $version, $arch)"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN build.spec
if [[ ! -x "$BUNDLE/AgentDesk" ]]; then
    echo "build-linux.sh: PyInstaller gave no $BUNDLE/AgentDesk" >&2
    exit 1
fi

step "Adding the menu entry, icons and install.sh"
install -m 644 packaging/linux/agentdesk.desktop "$BUNDLE/agentdesk.desktop"
install -m 644 packaging/icons/png/agentdesk-256.png "$BUNDLE/agentdesk.png"
install -d "$BUNDLE/icons"
for size in 256 512; do
    install -m 644 "packaging/icons/png/agentdesk-$size.png" "$BUNDLE/icons/agentdesk-$size.png"
done
install -m 755 packaging/linux/install.sh "$BUNDLE/install.sh"

step "Self-test of the bundle"
if ! "$BUNDLE/AgentDesk" --self-test; then
    echo "build-linux.sh: the bundle's self-test failed (see above); no archive was made" >&2
    exit 1
fi

step "Bundle size"
du -sh "$BUNDLE"

step "Archiving"
rm -f "$archive"
tar -C dist --owner=0 --group=0 --numeric-owner -czf "$archive" AgentDesk
du -h "$archive"

printf '\nBuilt %s\n' "$archive"
