"""`agentdesk serve` (the task API without a window) and `agentdesk mcp` (the same as MCP tools)."""

from __future__ import annotations

import asyncio
import signal
import sys

from app.core.data_folder import data_folder_problem
from app.core.redaction import setup_logging, show_secret

# The API's and the agent's modules are imported when a command runs, not when the parser is built.


def settings_with_model(args):
    """The saved settings with the command's model options (--preset, --base-url, --model) for every task."""
    from app.cli_agent import load_user_settings
    from app.core.config import ProviderSettings
    from app.core.runs.service import provider_overrides

    base = load_user_settings()
    overrides = provider_overrides(getattr(args, "preset", None), args.base_url, args.model)
    if overrides:
        base = base.model_copy(update={"provider": ProviderSettings.model_validate(
            {**base.provider.model_dump(), **overrides})})
    return base


def cmd_serve(args) -> int:
    from app.api.token import TokenProblem, api_token

    if args.print_token:
        return print_token()
    try:
        token = api_token()
    except TokenProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = _settings_or_error(args)
    if settings is None:
        return 2
    return asyncio.run(_serve(args, settings, token))


def print_token() -> int:
    """Print the token of the desk running now (the window's or `agentdesk serve`'s), or, when none runs, the one
    the next desk will use (made now if there is none yet: in the keyring, else in the token file)."""
    from app.api.server import desk_accepts, read_discovery
    from app.api.token import TokenProblem, api_token

    running = read_discovery()
    try:
        token = api_token(create=running is None)
    except TokenProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    theirs = f" (its token comes from {running.token_source})" if running and running.token_source else ""
    if running is not None and (token is None or desk_accepts(running.url, token.value) is False):
        mine = f"the token from {token.source} is not its token" if token else "this process knows no token for it"
        print(f"error: a desk runs at {running.url} (process {running.pid}), but {mine}{theirs}. The window shows "
              "its token (API token… in its status bar); or set AGENTDESK_API_TOKEN (16+ characters) for the "
              "desk and its callers alike.", file=sys.stderr)
        return 1
    assert token is not None, "made when no desk runs"
    show_secret(token.value)           # asked for: the one print that passes the terminal's redactor
    if not token.kept:
        print(f"note: this token is kept in {token.source}", file=sys.stderr)
    return 0


def cmd_api_token(args) -> int:
    """`agentdesk api token [--rotate]`: print the API token, or replace it with a new one."""
    if not args.rotate:
        return print_token()
    from app.api.server import read_discovery
    from app.api.token import TokenProblem, rotate_api_token

    try:
        token = rotate_api_token()
    except TokenProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    show_secret(token.value)
    running = read_discovery()
    if running is not None:
        print(f"note: the desk running at {running.url} (process {running.pid}) accepts the old token until it "
              "restarts (the window's Settings › Connections › Rotate token changes its own desk's at once).",
              file=sys.stderr)
    return 0


def _settings_or_error(args):
    """The data folder checked, logging set up, and the settings with the command's model options;
    None (the reason printed) when the folder cannot be written or an option is wrong."""
    from app.core.runs.service import RunRefused

    unwritable = data_folder_problem()
    if unwritable:
        print(f"error: {unwritable}", file=sys.stderr)
        return None
    setup_logging(args.verbose)
    try:
        return settings_with_model(args)
    except (RunRefused, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


async def _serve(args, settings, token) -> int:
    from app.api.server import ServeProblem
    from app.desk import open_served_desk

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        desk = await open_served_desk(settings, virtual=True if args.virtual else None, host=args.host,
                                      port=args.port, token=token)
    except (ServeProblem, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        api = desk.api
        assert api is not None, "open_served_desk serves the API or raises"
        for note in desk.notes:
            print(note, file=sys.stderr)
        if api.warning:
            print(api.warning, file=sys.stderr)
        print(f"Agent Desk task API on {api.url}  (docs: {api.url}/docs)")
        print(f"  model: {settings.provider.model} at {settings.provider.base_url}")
        phones = ", ".join(f"{e.id} ({e.state})" for e in desk.directory.entries()) or "none yet"
        print(f"  phones: {phones}")
        if token.kept:
            print(f"  token: from {token.source}; `agentdesk api token` prints it")
        else:
            show_secret(f"  token ({token.source}): {token.value}")
        print("Press Ctrl+C to stop.", flush=True)
        await stop.wait()
        print("Stopping: tasks still running are stopped and recorded…", file=sys.stderr, flush=True)
    finally:
        await desk.close()
    return 0


MCP_NOT_BUNDLED = ("error: `mcp` is not part of this bundle, which has no room left for the MCP SDK. "
                   "MCP clients can run it from a pip installation (`pip install agentdesk`, then "
                   "`agentdesk mcp`), which uses this desk when its task API is on (Settings › Connections); "
                   "scripts can use the task API directly (docs/api.md).")


def cmd_mcp(args) -> int:
    try:
        from app.api.mcp_server import run_mcp_server
    except ImportError as exc:          # the bundle leaves the MCP SDK out
        if getattr(sys, "frozen", False):
            print(MCP_NOT_BUNDLED, file=sys.stderr)
            return 2
        raise SystemExit(f"error: the MCP SDK is missing ({exc}); reinstall with `pip install agentdesk`") from None
    settings = _settings_or_error(args)
    if settings is None:
        return 2
    from app.desk import open_served_desk

    async def open_own_desk(token):
        return await open_served_desk(settings, virtual=True if args.virtual else None, host="127.0.0.1", port=0,
                                      token=token, policy="fail", announce=False)
    return run_mcp_server(open_own_desk, own=args.own)


def add_commands(sub) -> None:
    serve = sub.add_parser("serve", help="serve the task API (HTTP) for scripts and other programs")
    serve.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=None, help="TCP port (default 8765, or the api.port setting)")
    serve.add_argument("--print-token", action="store_true", help="print the API token and exit (the same as "
                       "`agentdesk api token`)")
    serve.add_argument("--virtual", action="store_true", help="serve the built-in virtual phone only")
    _model_options(serve)
    serve.set_defaults(func=cmd_serve)

    api = sub.add_parser("api", help="the task API's token")
    api_sub = api.add_subparsers(dest="api_command", required=True)
    token = api_sub.add_parser("token", help="print the token of the desk running now (the window's or `agentdesk "
                               "serve`'s; when none runs, the one the next desk uses), or --rotate it",
                               description="The token is AGENTDESK_API_TOKEN when set, else the one kept in the OS "
                               "keyring, else the one in the file api-token in the config folder (readable only "
                               "by you). It is made on first use.")
    token.add_argument("--rotate", action="store_true", help="replace the token with a new one (printed); the old "
                       "one stops working when the desk restarts")
    token.set_defaults(func=cmd_api_token)

    mcp = sub.add_parser("mcp", help="serve the desk's tasks as MCP tools over stdio (for other agents)",
                         description="Uses the desk running on this machine (the window with its Task API on, or "
                         "`agentdesk serve`) with your API token (AGENTDESK_API_TOKEN, the keyring, or the token "
                         "file in the config folder), so a person approves steps there. With no such desk it runs "
                         "one of its own, where nobody can approve a step, and tells the MCP client so.")
    mcp.add_argument("--own", action="store_true", help="run tasks in this process even when a desk is running")
    mcp.add_argument("--virtual", action="store_true", help="when running tasks itself: the virtual phone only")
    _model_options(mcp)
    mcp.set_defaults(func=cmd_mcp)


def _model_options(parser) -> None:
    parser.add_argument("--preset", metavar="NAME", help="a provider preset for every task (see `agentdesk run`)")
    parser.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible endpoint (overrides settings)")
    parser.add_argument("--model", metavar="M", help="the model name (overrides settings)")
