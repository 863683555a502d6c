#!/usr/bin/env bash
# Adds Agent Desk to the desktop's application menu for the current user, without root:
#
#     ./install.sh               # menu entry + icons, pointing at this unpacked folder
#     ./install.sh --uninstall   # removes them again
#
# Nothing is copied or linked outside ~/.local/share: the program stays in the folder that
# holds this script (move the folder, then run install.sh again).
#
# build-linux.sh puts this file into the bundle beside the AgentDesk executable,
# agentdesk.desktop, agentdesk.png and icons/.
set -euo pipefail

BUNDLE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SHARE="$HOME/.local/share"
APPLICATIONS="$SHARE/applications"
DESKTOP_FILE="$APPLICATIONS/agentdesk.desktop"
ICON_SIZES=(256 512)

usage() {
    sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

icon_path() {   # the themed icon of one size under ~/.local/share/icons
    echo "$SHARE/icons/hicolor/${1}x${1}/apps/agentdesk.png"
}

bundle_icon() {  # the bundle's icon of one size (icons/agentdesk-N.png, else agentdesk.png)
    if [[ -f "$BUNDLE_DIR/icons/agentdesk-$1.png" ]]; then
        echo "$BUNDLE_DIR/icons/agentdesk-$1.png"
    else
        echo "$BUNDLE_DIR/agentdesk.png"
    fi
}

refresh_menu() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database "$APPLICATIONS" || true
    fi
}

# Exec takes a quoted argument: inside double quotes ", `, $ and \ are backslash-escaped, and the
# string-value escaping then doubles every backslash (so a literal \ is written as four); a literal
# % is written %%. Icon and TryExec are plain strings: only the backslash is doubled.
escape_value() {   # $1: exec or string; the value comes in $VALUE
    KIND="$1" awk 'BEGIN {
        s = ENVIRON["VALUE"]; out = ""
        for (i = 1; i <= length(s); i++) {
            c = substr(s, i, 1)
            if (ENVIRON["KIND"] != "exec") { out = out (c == "\\" ? "\\\\" : c); continue }
            if (c == "\\") out = out "\\\\\\\\"
            else if (c == "\"" || c == "`" || c == "$") out = out "\\\\" c
            else if (c == "%") out = out "%%"
            else out = out c
        }
        printf (ENVIRON["KIND"] == "exec" ? "\"%s\"" : "%s"), out
    }'
}

install_entry() {
    local executable="$BUNDLE_DIR/AgentDesk" template="$BUNDLE_DIR/agentdesk.desktop"
    local main_icon="$BUNDLE_DIR/agentdesk.png"
    [[ -x "$executable" ]] || { echo "install.sh: $executable is missing or not executable" >&2; exit 1; }
    [[ -f "$template" ]] || { echo "install.sh: $template is missing" >&2; exit 1; }
    [[ -f "$main_icon" ]] || main_icon=$(bundle_icon 256)
    if [[ "$BUNDLE_DIR" == *$'\n'* ]]; then
        echo "install.sh: the folder's path contains a line break; move the folder first" >&2
        exit 1
    fi

    local exec_line icon_line
    exec_line=$(VALUE="$executable" escape_value exec)
    icon_line=$(VALUE="$main_icon" escape_value string)

    mkdir -p "$APPLICATIONS"
    local staged="$DESKTOP_FILE.tmp.$$"
    # The template's leading comments are replaced by one saying where the entry came from.
    EXEC_LINE="$exec_line" ICON_LINE="$icon_line" TRY_EXEC="$(VALUE="$executable" escape_value string)" \
    SOURCE="$BUNDLE_DIR" awk '
        !started && /^\[/ { started = 1
                           print "# Written by " ENVIRON["SOURCE"] "/install.sh; remove with install.sh --uninstall." }
        !started    { next }
        /^Exec=/    { print "Exec=" ENVIRON["EXEC_LINE"]; next }
        /^TryExec=/ { next }
        /^Icon=/    { print "Icon=" ENVIRON["ICON_LINE"]; print "TryExec=" ENVIRON["TRY_EXEC"]; next }
        { print }' "$template" >"$staged"
    chmod 644 "$staged"
    mv -f "$staged" "$DESKTOP_FILE"
    echo "Menu entry:  $DESKTOP_FILE"

    local size target
    for size in "${ICON_SIZES[@]}"; do
        target=$(icon_path "$size")
        mkdir -p "$(dirname "$target")"
        install -m 644 "$(bundle_icon "$size")" "$target"
        echo "Icon:        $target"
    done
    refresh_menu
    echo "Agent Desk ($executable) is in the application menu now."
}

uninstall_entry() {
    local size target targets=("$DESKTOP_FILE")
    for size in "${ICON_SIZES[@]}"; do
        targets+=("$(icon_path "$size")")
    done
    for target in "${targets[@]}"; do
        if [[ -e "$target" ]]; then
            rm -f "$target"
            echo "Removed:     $target"
        fi
    done
    refresh_menu
    echo "Agent Desk is no longer in the application menu (its folder $BUNDLE_DIR is left as it is)."
}

case "${1:-}" in
    "") install_entry ;;
    --uninstall) uninstall_entry ;;
    -h|--help) usage ;;
    *) echo "install.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
