"""agentdesk: headless commands (controls, devices, virtual-phone, run, bench…). No Qt here;
without a command the desktop app starts, and `--self-test` checks the installation."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

from app import __version__
from app.cli_options import add_device_option, add_model_options
from app.core.device.errors import DeviceError


def _print_controls_table(controls, out=None) -> None:
    out = out or sys.stdout
    header = f"{'id':>3}  {'type':<16} {'name':<34} {'rect (l,t,r,b)':<22} flags"
    print(header, file=out)
    print("-" * len(header), file=out)
    for control in controls:
        flags = [name for name in ("clickable", "long_clickable", "scrollable", "checkable", "checked",
                                   "focused", "selected", "password") if getattr(control, name)]
        if not control.enabled:
            flags.append("disabled")
        name = control.name.replace("\n", " ")
        name = name if len(name) <= 34 else name[:33] + "…"
        rect = ",".join(str(v) for v in control.rect)
        print(f"{control.id:>3}  {control.type[:16]:<16} {name:<34} {rect:<22} {' '.join(flags)}", file=out)
    print(f"{len(controls)} controls", file=out)


def _write_annotation(image, controls, out_path: str) -> None:
    from app.core.perception.annotate import annotate

    annotate(image, controls).save(out_path)
    print(f"annotated screenshot written to {out_path}", file=sys.stderr)


def _controls_offline(args) -> int:
    from PIL import Image

    from app.core.perception.hierarchy import (
        HierarchyError,
        parse_hierarchy,
        screen_size_from_hierarchy,
        select_controls,
    )

    try:
        xml = Path(args.xml).read_bytes()
        hierarchy = parse_hierarchy(xml)
    except OSError as exc:
        print(f"error: cannot read {args.xml}: {exc.strerror}", file=sys.stderr)
        return 2
    except HierarchyError as exc:
        print(f"error: {args.xml} is not a usable uiautomator dump: {exc}", file=sys.stderr)
        return 2
    image = None
    if args.screenshot:
        try:
            image = Image.open(args.screenshot).convert("RGB")
        except OSError as exc:
            print(f"error: cannot read the screenshot {args.screenshot}: {exc}", file=sys.stderr)
            return 2
    size = image.size if image is not None else screen_size_from_hierarchy(hierarchy)
    controls = select_controls(hierarchy, size)
    _emit_controls(args, controls)
    if args.annotate:
        if image is None:
            print("error: --annotate needs --screenshot PNG when reading a dump from a file", file=sys.stderr)
            return 2
        _write_annotation(image, controls, args.annotate)
    return 0


def _emit_controls(args, controls) -> None:
    if args.json:
        json.dump([c.to_dict() for c in controls], sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        _print_controls_table(controls)


async def _controls_live(args) -> int:
    from app.core.config import Settings
    from app.desk import Desk

    desk = Desk(Settings(), virtual=True if args.virtual else None, bad_servers_noted=True)
    try:
        connection = await desk.open_phone(args.device)
    except BaseException:
        await desk.close()
        raise
    try:
        if connection.note:
            print(connection.note, file=sys.stderr)
        device = connection.device
        snapshot = await device.controls(refresh=True)
        _emit_controls(args, snapshot.controls)
        if args.annotate:
            shot = await device.screenshot()
            _write_annotation(shot.image, snapshot.controls, args.annotate)
    finally:
        await desk.close()
    return 0


def cmd_controls(args) -> int:
    if args.xml:
        return _controls_offline(args)
    if args.screenshot:
        print("error: --screenshot goes with --xml (a live phone provides its own screenshot)", file=sys.stderr)
        return 2
    return asyncio.run(_controls_live(args))


def cmd_devices(args) -> int:
    from app.cli_agent import load_user_settings
    from app.desk import Desk

    try:
        desk = Desk(load_user_settings(), virtual=False)     # its phone directory: every ADB server, asked once
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    async def ask() -> tuple[list, dict[str, str]]:
        try:
            return await desk.directory.refresh(), desk.directory.unreachable()
        finally:
            await desk.close()
    phones, unreachable = asyncio.run(ask())
    if args.json:
        json.dump({"devices": [phone.to_dict() for phone in phones], "unreachable": unreachable}, sys.stdout, indent=1)
        print()
        return 0
    if phones:
        print(f"{'serial':<24} {'model':<24} {'ADB server':<22} state")
    for phone in phones:
        state = "connected" if phone.ready else phone.problem or phone.state
        print(f"{phone.serial:<24} {phone.model or '-':<24} {phone.server:<22} {state}")
    for server, reason in unreachable.items():
        print(f"ADB server {server} is unreachable: {reason}")
    if not phones:
        print("No phones attached. Plug one in with USB debugging on, or connect over Wi-Fi with "
              "`adb connect HOST:PORT`. The built-in virtual phone is listed here while the window or a run "
              "uses it. Phones of other machines: list their ADB servers in AGENTDESK_ADB_SERVERS=host:port,… or "
              "Settings › Connections › Other ADB servers.")
    return 0


def cmd_keyboard(args) -> int:
    """`agentdesk keyboard install APK`: ADB Keyboard onto a real phone, turned on (non-ASCII typing)."""
    from app.core.config import Settings
    from app.core.device.ime_install import install_adb_keyboard
    from app.desk import Desk

    async def install() -> str:
        desk = Desk(Settings(), virtual=False, bad_servers_noted=True)
        try:
            connection = await desk.open_phone(args.device)
            return await install_adb_keyboard(connection.device, args.apk,
                                              lambda text: print(text, file=sys.stderr, flush=True))
        finally:
            await desk.close()
    print(asyncio.run(install()))
    return 0


def _agent_command(name: str, args, module: str = "cli_agent") -> int:
    """Run `name` from app.cli_agent (or `module`), imported only when asked: they load the agent."""
    import importlib

    return getattr(importlib.import_module(f"app.{module}"), name)(args)


def cmd_bench(args) -> int:
    if args.suite == "androidworld":
        from app.bench.androidworld.command import run_command

        return run_command(args)
    from app.bench import run_benchmark
    from app.bench.phones import PhoneChoice
    from app.virtual_phone.profiles import profile_named

    if args.rounds is not None and args.rounds < 1:
        print("error: --rounds must be at least 1", file=sys.stderr)
        return 2
    try:
        choice = PhoneChoice(device=args.device, latency_scale=args.latency_scale,
                             profile=profile_named(args.profile).name)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return run_benchmark(args.suite, rounds=args.rounds, json_out=args.json, bundle=args.bundle, choice=choice,
                         model_from_settings=args.model_from_settings)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentdesk",
                                     description="Agent Desk: supervised automation of Android phones.")
    parser.add_argument("--version", action="version", version=f"agentdesk {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    parser.add_argument("--self-test", action="store_true",
                        help="check this installation (resources, Qt, the virtual phone, the keyring) and exit")
    sub = parser.add_subparsers(dest="command", metavar="command",
                                help="without one, the desktop app starts")

    controls = sub.add_parser("controls", help="list the controls on a screen, with their ids")
    source = controls.add_mutually_exclusive_group()
    source.add_argument("--xml", metavar="FILE", help="read a uiautomator dump from a file (offline)")
    source.add_argument("--device", metavar="SERIAL", help="a connected phone (default: the first one, "
                                                           "or the virtual phone when none is attached)")
    source.add_argument("--virtual", action="store_true", help="use the built-in virtual phone")
    controls.add_argument("--screenshot", metavar="PNG", help="with --xml: the matching screenshot")
    controls.add_argument("--annotate", metavar="OUT.png", help="write the screenshot with numbered boxes")
    controls.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    controls.set_defaults(func=cmd_controls)

    devices = sub.add_parser("devices", help="list the phones of every ADB server (this machine's, the settings' "
                             "adb.servers and AGENTDESK_ADB_SERVERS) and their state")
    devices.add_argument("--json", action="store_true", help="print {\"devices\": [...], \"unreachable\": "
                         "{server: reason}} instead of a table")
    devices.set_defaults(func=cmd_devices)

    from app.cli_virtual_phone import add_command as add_virtual_phone_command

    add_virtual_phone_command(sub)

    keyboard = sub.add_parser("keyboard", help="install ADB Keyboard on a phone, so any text can be typed")
    keyboard.add_argument("action", choices=["install"])
    keyboard.add_argument("apk", metavar="APK", help="ADBKeyboard.apk, from github.com/senzhk/ADBKeyBoard/releases")
    add_device_option(keyboard, "which phone (default: the first ready one)", old_serial=True)
    keyboard.set_defaults(func=cmd_keyboard)

    run = sub.add_parser("run", help="run a request on the phone, approving each action at the keyboard")
    run.add_argument("request", help="what to do, in plain words")
    run.add_argument("--device", metavar="SERIAL",
                     help="which phone (default: the first ready one, else the virtual phone)")
    mode = run.add_mutually_exclusive_group()
    mode.add_argument("--step", action="store_true", help="review every action (default)")
    mode.add_argument("--auto", action="store_true", help="run on its own; ask only for sensitive actions")
    run.add_argument("--max-steps", type=int, metavar="N", help="stop after N steps (default 30)")
    run.add_argument("--timeout", type=float, metavar="SECONDS", help="end the run after this much of the "
                     "agent's own time (default 900; time waiting for you does not count)")
    run.add_argument("--max-tokens", type=int, metavar="N", help="end the run once its model calls have used N "
                     "tokens (0 = no cap; default from settings)")
    run.add_argument("--max-cost", type=float, metavar="USD", help="end the run once its model calls have cost USD "
                     "dollars, where the model's price is known (0 = no cap)")
    add_model_options(run, "this run")
    run.add_argument("--json", action="store_true", help="print the result as JSON (progress goes to stderr)")
    run.set_defaults(func=lambda a: _agent_command("cmd_run", a))

    doctor = sub.add_parser("doctor", help="check adb, phones, ADB Keyboard, the model endpoint and the keyring")
    doctor.add_argument("--preset", metavar="NAME", help="check this provider preset (as `run --preset` takes it) "
                        "instead of the server in Settings; --base-url and --model still win")
    doctor.add_argument("--base-url", help="check this OpenAI-compatible endpoint instead of the one in Settings")
    doctor.add_argument("--model", help="check this model instead of the one in Settings")
    doctor.set_defaults(func=lambda a: _agent_command("cmd_doctor", a, "cli_doctor"))

    key = sub.add_parser("key", help="store the API key in the OS keyring, and say which servers it goes to")
    key.add_argument("action", choices=["set", "delete", "status", "allow", "disallow"],
                     help="allow / disallow ORIGIN: let the key go to one more server (scheme://host:port), or not")
    key.add_argument("origin", nargs="?", metavar="ORIGIN", help="for allow / disallow: the server's origin")
    key.add_argument("--name", default="default", help="which key (default: default)")
    key.set_defaults(func=lambda a: _agent_command("cmd_key", a, "cli_key"))

    from app.cli_api import add_commands as add_api_commands
    from app.cli_learning import add_commands as add_learning_commands
    from app.cli_map import add_commands as add_map_commands

    add_api_commands(sub)
    add_learning_commands(sub, _agent_command)
    add_map_commands(sub)

    bench = sub.add_parser("bench", help="measure speed on the quick and the realistic virtual phone, or a phone")
    bench.add_argument("suite", choices=["perception", "agent", "gui", "startup", "phone", "api", "tasks",
                                         "map", "navigation", "androidworld"],
                       help="what to measure (phone: how close the virtual phone is to real ones; api: what the "
                            "task API costs a task; map: the Map of screens drawing a large app; navigation: "
                            "tasks started far from their screen, with the map of screens and without; "
                            "androidworld: Google's AndroidWorld tasks, judged by its own checkers)")
    bench.add_argument("--rounds", type=int, help="repetitions per figure, interleaved with the baseline's "
                       "(median reported; each suite has its own default)")
    bench.add_argument("--device", metavar="SERIAL", help="measure this attached phone instead of the two "
                       "virtual ones (the baseline runs against it too; the benches tap its status bar, press "
                       "Home and Recents, and open Settings and Contacts)")
    bench.add_argument("--profile", default="android14", help="the virtual phones' device profile: android14 "
                       "(1080x2400, the guide's budgets; the default) or android9 (720x1280)")
    bench.add_argument("--latency-scale", type=float, default=1.0, metavar="X",
                       help="run the realistic virtual phone at X times its real costs for a quicker look "
                            "(default 1: full scale, as a phone)")
    bench.add_argument("--json", metavar="FILE", help="also write the figures as JSON (androidworld: - prints "
                       "them on stdout)")
    bench.add_argument("--model-from-settings", action="store_true", help="tasks: drive the runs with the "
                       "configured provider and key instead of the offline oracle model")
    bench.add_argument("--bundle", metavar="EXE", help="startup: the bundle's executable "
                                                       "(default: dist/AgentDesk/AgentDesk)")
    from app.bench.androidworld.command import add_options as add_androidworld_options

    add_androidworld_options(bench)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Log lines reach the terminal only with -v: what a person must know, the commands print in words
    # (the log file, where a command keeps one, has everything).
    console = logging.StreamHandler() if args.verbose else logging.NullHandler()
    console.setLevel(logging.INFO)
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, handlers=[console])
    if args.self_test:
        from app.selftest import main as self_test

        return self_test()
    if args.command is None:
        from app.__main__ import main as desktop_app

        return desktop_app()
    from app.core.redaction import redacted_terminal

    with redacted_terminal():          # no registered key reaches the terminal, whatever a command prints
        try:
            return args.func(args)
        except DeviceError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 3
        except KeyboardInterrupt:
            return 130


if __name__ == "__main__":
    sys.exit(main())
