"""`agentdesk virtual-phone`: serve the virtual phone over the ADB protocol — on its own (a port of your choice,
by default ADB's), or as the built-in phone every Agent Desk program of this computer shares (`--shared`)."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import threading

ADDRESS_IN_USE = {errno.EADDRINUSE, 10048}      # (10048: Windows' WSAEADDRINUSE)
# The main thread waits in slices: a signal the kernel hands to another thread (the servers' threads) only sets
# Python's flag, and a wait without a timeout never returns to run the handler — SIGTERM was lost 1 time in 6.
SIGNAL_CHECK_SECONDS = 0.5


def default_port() -> int:
    """ADB's own default: ANDROID_ADB_SERVER_PORT, else 5037."""
    try:
        return int(os.environ.get("ANDROID_ADB_SERVER_PORT", "") or 5037)
    except ValueError:
        return 5037


def add_command(sub) -> None:
    virtual = sub.add_parser("virtual-phone", help="serve the virtual phone over the ADB protocol")
    virtual.add_argument("--port", type=int, help="TCP port (default: ANDROID_ADB_SERVER_PORT, else 5037, ADB's "
                         "own; when that is taken, a free one, printed); with --shared, the built-in phone's "
                         "(AGENTDESK_VIRTUAL_PORT, else 5038)")
    virtual.add_argument("--devices", type=int, default=1, help="how many phones (default 1)")
    virtual.add_argument("--profile", default="android14", help="which phone: android14 (1080x2400, 420 dpi; "
                         "the default) or android9 (720x1280, 320 dpi, its own dump format)")
    virtual.add_argument("--size", help="screen size WxH (default: the profile's)")
    virtual.add_argument("--density", type=int, help="screen density in dpi (default: the profile's)")
    virtual.add_argument("--latency", default="quick", help="quick (answers at once; the default) or realistic "
                         "(costs what a mid-range phone costs, screens animate after actions)")
    virtual.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                         help="shrink every realistic cost and animation by X (e.g. 0.25 for tests)")
    virtual.add_argument("--variation", dest="seed", type=int, default=0, metavar="N",
                         help="which of the realistic profile's random variations of delays and hiccups (the same "
                              "number gives the same ones; default 0)")
    virtual.add_argument("--seed", dest="seed", type=int, default=argparse.SUPPRESS,   # the old name, hidden
                         help=argparse.SUPPRESS)
    virtual.add_argument("--adb-keyboard", action="store_true", help="have ADB Keyboard installed")
    shared = virtual.add_mutually_exclusive_group()
    shared.add_argument("--shared", action="store_true", help="be the built-in phone the window and every "
                        "agentdesk command of this computer share (started by them when it does not run); it "
                        "stops some seconds after the last of them closes")
    shared.add_argument("--stop", action="store_true", help="stop the shared built-in phone now")
    virtual.add_argument("--keep", action="store_true", help="with --shared: stay until --stop, whoever leaves")
    virtual.add_argument("--linger", type=float, help=argparse.SUPPRESS)   # seconds after the last user
    virtual.set_defaults(func=cmd_virtual_phone)


def _phone_options(args) -> dict | None:
    from app.virtual_phone.latency import latency_named
    from app.virtual_phone.profiles import profile_named

    try:
        profile = profile_named(args.profile)
        latency = latency_named(args.latency, args.time_scale)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    try:
        width, height = (int(v) for v in args.size.lower().split("x")) if args.size else (None, None)
    except ValueError:
        print(f"error: bad --size {args.size!r}; write it as WIDTHxHEIGHT, e.g. 1080x2400", file=sys.stderr)
        return None
    return {"width": width, "height": height, "density": args.density, "adb_keyboard_installed": args.adb_keyboard,
            "profile": profile, "latency": latency, "seed": args.seed}


def _in_use(exc: OSError) -> bool:
    return exc.errno in ADDRESS_IN_USE or getattr(exc, "winerror", None) in ADDRESS_IN_USE


def _describe(server, options: dict) -> None:
    phone = server.devices[0].phone
    print(f"  Android {options['profile'].release}, {phone.width}x{phone.height}, "
          f"latency {options['latency'].describe()}")




def cmd_virtual_phone(args) -> int:
    if args.stop or args.shared:
        return _shared(args)
    if args.keep:
        print("error: --keep goes with --shared", file=sys.stderr)
        return 2
    from app.desk.phone_opening import start_virtual_phone  # the virtual phone alone: no desk around it
    from app.desk.port_holder import describe_holder

    options = _phone_options(args)
    if options is None:
        return 2
    port = args.port if args.port is not None else default_port()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())      # before it says it serves: a stop is never lost
    try:
        server = start_virtual_phone(port, args.devices, **options)
    except OSError as exc:
        if not _in_use(exc):
            print(f"error: cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        holder = describe_holder(port)
        if args.port is not None:
            print(f"error: port {port} is taken by {holder}; choose another with --port, or leave --port out "
                  "to get a free one", file=sys.stderr)
            return 2
        server = start_virtual_phone(0, args.devices, **options)
        print(f"Port {port} is taken by {holder}: serving on the free port {server.port} instead.")
    serials = ", ".join(d.serial for d in server.devices)
    print(f"Virtual phone ADB server on 127.0.0.1:{server.port} with {serials}")
    _describe(server, options)
    print(f"  adbutils: ANDROID_ADB_SERVER_PORT={server.port}    adb: adb -P {server.port} devices")
    if server.port != default_port():
        print(f"  Agent Desk: add 127.0.0.1:{server.port} in Settings › Connections › Other ADB servers (taken at "
              f"once), or start it with AGENTDESK_ADB_SERVERS=127.0.0.1:{server.port}")
    print("Press Ctrl+C to stop.", flush=True)
    try:
        while not stop.wait(SIGNAL_CHECK_SECONDS):
            pass
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


def _shared(args) -> int:
    from app.desk.port_holder import agentdesk_phone_status, describe_holder
    from app.desk.shared_phone import linger_seconds, shared_port, stop_shared_phone
    from app.desk.shared_phone_server import PhoneUsers, serve_until_unused, shared_phone_server

    try:
        port = args.port if args.port is not None else shared_port()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if port == 0:
        print("error: the shared built-in phone needs a port (AGENTDESK_VIRTUAL_PORT is 0)", file=sys.stderr)
        return 2
    if args.stop:
        if stop_shared_phone(port):
            print(f"Stopped the built-in phone on 127.0.0.1:{port}.")
            return 0
        print(f"No built-in phone runs on 127.0.0.1:{port}.")
        return 1
    options = _phone_options(args)
    if options is None:
        return 2
    users = PhoneUsers(linger_seconds() if args.linger is None else args.linger, keep=args.keep)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=users.stop, daemon=True).start())
    try:
        server = shared_phone_server(port, users, **options)
    except OSError as exc:
        running = agentdesk_phone_status(port) if _in_use(exc) else None
        if running is not None:
            print(f"Agent Desk's built-in phone already runs on 127.0.0.1:{port} (process {running.get('pid')}).")
            return 0
        why = f"taken by {describe_holder(port)}" if _in_use(exc) else (exc.strerror or str(exc))
        print(f"error: the built-in phone cannot serve on 127.0.0.1:{port}: {why}", file=sys.stderr)
        return 2
    print(f"Agent Desk's built-in phone on 127.0.0.1:{server.port}, shared by the window and every agentdesk "
          "command of this computer")
    _describe(server, options)
    print("  It stays until `agentdesk virtual-phone --stop`." if args.keep else
          f"  It stops {users.linger:g} s after the last program using it closes.", flush=True)
    try:
        serve_until_unused(server, users)
    except KeyboardInterrupt:
        pass
    return 0
