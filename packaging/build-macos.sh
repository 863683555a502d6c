#!/usr/bin/env bash
# Builds the macOS app of Agent Desk and packs it in a disk image:
#
#     packaging/build-macos.sh [--no-install]
#
# 1. installs the app with its build extra (PyInstaller) into the current Python, unless --no-install;
# 2. runs PyInstaller on build.spec, which gives dist/AgentDesk.app;
# 3. signs the app when MACOS_SIGN_IDENTITY names a "Developer ID Application" identity in the
#    keychain (hardened runtime, secure timestamp; MACOS_ENTITLEMENTS may name an entitlements plist);
# 4. runs the app's self-test and stops if it fails;
# 5. notarizes and staples the app when MACOS_NOTARY_PROFILE names a notarytool keychain profile
#    (made once with `xcrun notarytool store-credentials`); this needs the signature of step 3;
# 6. makes dist/AgentDesk-<version>-macos-<arch>.dmg (the app and a link to /Applications), signed
#    and notarized in turn when steps 3 and 5 ran.
#
# Runs from any folder. PYTHON names another interpreter than python3 (a virtual environment's, say).
set -euo pipefail

SCRIPT_NAME=build-macos.sh
USAGE_LINES=2,17
# shellcheck source=packaging/build-common.sh
source "$(dirname "$0")/build-common.sh"
APP=dist/AgentDesk.app
SIGN_IDENTITY=${MACOS_SIGN_IDENTITY:-}
NOTARY_PROFILE=${MACOS_NOTARY_PROFILE:-}
ENTITLEMENTS=${MACOS_ENTITLEMENTS:-}

if [[ "$(uname -s)" != Darwin ]]; then
    fail "this script builds on macOS only (use build-linux.sh or build-windows.ps1 elsewhere)"
fi
if [[ -n "$NOTARY_PROFILE" && -z "$SIGN_IDENTITY" ]]; then
    fail "MACOS_NOTARY_PROFILE is set but MACOS_SIGN_IDENTITY is not: only a signed app can be notarized"
fi
if [[ -n "$ENTITLEMENTS" && ! -f "$ENTITLEMENTS" ]]; then
    fail "MACOS_ENTITLEMENTS names $ENTITLEMENTS, which does not exist"
fi

install_build_tools

version=$(app_version)
arch=$(uname -m)                       # arm64 or x86_64: the Python's build decides the app's
dmg="dist/AgentDesk-${version}-macos-${arch}.dmg"

step "Building the app with PyInstaller (Agent Desk $version, $arch)"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN build.spec
if [[ ! -x "$APP/Contents/MacOS/AgentDesk" ]]; then
    fail "PyInstaller gave no $APP/Contents/MacOS/AgentDesk"
fi

if [[ -n "$SIGN_IDENTITY" ]]; then
    step "Signing the app as '$SIGN_IDENTITY'"
    sign_args=(--deep --force --options runtime --timestamp --sign "$SIGN_IDENTITY")
    if [[ -n "$ENTITLEMENTS" ]]; then
        sign_args+=(--entitlements "$ENTITLEMENTS")
    fi
    codesign "${sign_args[@]}" "$APP"
    codesign --verify --deep --strict --verbose=2 "$APP"
else
    step "Not signing (MACOS_SIGN_IDENTITY is not set): Gatekeeper will warn on other Macs"
fi

# The app has no console: the self-test prints its report where stdout goes, or, when there is
# none, writes it to the log folder (~/Library/Logs/AgentDesk, or $AGENTDESK_HOME/logs).
step "Self-test of the app"
if [[ -n "${AGENTDESK_HOME:-}" ]]; then
    report="$AGENTDESK_HOME/logs/self-test.txt"
else
    report="$HOME/Library/Logs/AgentDesk/self-test.txt"
fi
rm -f "$report"
status=0
"$APP/Contents/MacOS/AgentDesk" --self-test || status=$?
if [[ -f "$report" ]]; then
    cat "$report"
fi
if (( status != 0 )); then
    fail "the app's self-test failed (exit status $status); no disk image was made"
fi

if [[ -n "$NOTARY_PROFILE" ]]; then
    step "Notarizing the app (profile '$NOTARY_PROFILE'); this takes a few minutes"
    upload="dist/AgentDesk-${version}-notarize.zip"
    rm -f "$upload"
    ditto -c -k --keepParent "$APP" "$upload"
    xcrun notarytool submit "$upload" --keychain-profile "$NOTARY_PROFILE" --wait
    rm -f "$upload"
    xcrun stapler staple "$APP"
    xcrun stapler validate "$APP"
fi

step "Bundle size"
du -sh "$APP"

step "Making the disk image"
staging=$(mktemp -d "${TMPDIR:-/tmp}/agentdesk-dmg.XXXXXX")
trap 'rm -rf "$staging"' EXIT
ditto "$APP" "$staging/AgentDesk.app"   # ditto keeps the signature, extended attributes and links
ln -s /Applications "$staging/Applications"
rm -f "$dmg"
hdiutil create -volname "Agent Desk" -srcfolder "$staging" -ov -format UDZO "$dmg"

if [[ -n "$SIGN_IDENTITY" ]]; then
    codesign --force --timestamp --sign "$SIGN_IDENTITY" "$dmg"
fi
if [[ -n "$NOTARY_PROFILE" ]]; then
    step "Notarizing the disk image"
    xcrun notarytool submit "$dmg" --keychain-profile "$NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
fi
if [[ -n "$SIGN_IDENTITY" ]]; then
    spctl --assess --type open --context context:primary-signature --verbose "$dmg" || true
fi
du -h "$dmg"

printf '\nBuilt %s\n' "$dmg"
