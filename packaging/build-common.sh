# shellcheck shell=bash
# Shared by build-linux.sh and build-macos.sh (sourced, not run). Before sourcing, a script sets
# SCRIPT_NAME and USAGE_LINES (the range of its header comment that --help prints).
# Afterwards: the working folder is the repository root, PYTHON is the interpreter,
# step/fail print progress and errors, install_build_tools installs unless --no-install was given.

usage() {
    sed -n "${USAGE_LINES}s/^# \{0,1\}//p" "$0"
}

step() { printf '\n==> %s\n' "$*"; }
fail() { echo "$SCRIPT_NAME: $*" >&2; exit 1; }

install_deps=1
for arg in "$@"; do
    case "$arg" in
        --no-install) install_deps=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "$SCRIPT_NAME: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.." || exit 1
PYTHON=${PYTHON:-python3}

install_build_tools() {
    if (( install_deps )); then
        step "Installing Agent Desk with its build tools"
        "$PYTHON" -m pip install -q -e ".[build]"
    fi
}

app_version() {
    "$PYTHON" -c "import app; print(app.__version__)"
}
