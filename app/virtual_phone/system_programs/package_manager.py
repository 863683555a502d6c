"""`pm` and `cmd package`: install (from a file or streamed on stdin with -S), uninstall, path,
list packages, clear, grant/revoke, dump and resolve-activity, as PackageManagerShellCommand
prints them (Success / Failure [CODE: message] on stdout, usage errors on stderr)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..apk import ApkError, read_apk
from ..intents import RESOLVER_ACTIVITY, matching_activities, parse_intent, short_component
from ..packages import RUNTIME_PERMISSIONS, InstallFailure, InstallOptions, PackageRecord
from ..shell import Result
from ..storage import StorageError
from .common import Args, ShellCommandError, fail, java_exception, java_int, lines, ok, package_argument
from .package_dump import dump_package

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

_WHERE = "com.android.server.pm.PackageManagerShellCommand.onCommand"
INSTALL_FLAGS = {"-r", "-t", "-d", "-g", "-f", "-l", "-R", "--dont-kill", "--instant", "--full", "--apex",
                 "--staged", "--enable-rollback", "--force-queryable", "--restrict-permissions",
                 "--no-incremental", "--incremental", "--bypass-low-target-sdk-block", "--skip-verification",
                 "--ephemeral", "--wait", "--force-non-staged", "--preload", "--virtual-preload"}
INSTALL_OPTIONS_WITH_VALUE = {"-i", "-S", "-p", "--pkg", "--user", "--install-location", "--abi",
                              "--originating-uri", "--referrer", "--install-reason", "--force-uuid",
                              "--staged-ready-timeout", "--update-ownership"}
FEATURES = ("android.hardware.audio.output", "android.hardware.bluetooth", "android.hardware.camera",
            "android.hardware.camera.any", "android.hardware.faketouch", "android.hardware.location",
            "android.hardware.microphone", "android.hardware.screen.landscape", "android.hardware.screen.portrait",
            "android.hardware.sensor.accelerometer", "android.hardware.telephony", "android.hardware.touchscreen",
            "android.hardware.touchscreen.multitouch", "android.hardware.wifi", "android.software.input_methods",
            "android.software.webview")


def program_pm(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = Args(argv[1:])
    command = args.next()
    try:
        return _dispatch(device, command, args, stdin)
    except ShellCommandError as exc:
        return java_exception(command or "", str(exc), exc.exception, _WHERE)


def _dispatch(device: AttachedDevice, command: str | None, args: Args, stdin: bytes) -> Result:
    phone = device.phone
    if command == "install":
        return _install(device, args, stdin)
    if command == "uninstall":
        return _uninstall(device, args)
    if command == "path":
        record = phone.system.packages.get(package_argument(args))
        return ok(f"package:{record.apk_path}\n") if record else Result(code=1)
    if command == "list":
        return _list(phone, args)
    if command == "clear":
        return _clear(phone, package_argument(args))
    if command in ("grant", "revoke"):
        return _grant(phone, command, args)
    if command == "dump":
        return ok(dump_package(phone, args.required()))
    if command == "resolve-activity":
        return _resolve_activity(phone, args)
    if command in (None, "help", "-h"):
        return Result(stdout=_help().encode(), code=255)
    return Result(stdout=f"Unknown command: {command}\n".encode(), code=255)


# ---------------------------------------------------------------------------- install / uninstall


def _install(device: AttachedDevice, args: Args, stdin: bytes) -> Result:
    options = InstallOptions()
    size = -1
    while (opt := args.option()) is not None:
        if opt in INSTALL_OPTIONS_WITH_VALUE:
            value = args.required()
            if opt == "-S":
                size = java_int(value)
                if size <= 0:
                    raise ShellCommandError("Size must be positive")
            elif opt == "-i":
                options.installer = value
        elif opt in INSTALL_FLAGS:
            options.replace = options.replace and opt != "-R"
            options.allow_test = options.allow_test or opt == "-t"
            options.allow_downgrade = options.allow_downgrade or opt == "-d"
            options.grant_all = options.grant_all or opt == "-g"
            options.dont_kill = options.dont_kill or opt == "--dont-kill"
            options.allow_low_target = options.allow_low_target or opt == "--bypass-low-target-sdk-block"
        else:
            raise ShellCommandError(f"Unknown option {opt}")
    paths = args.rest()
    from_stdin = not paths or paths[0] == "-"
    if from_stdin and size == -1:
        return fail("Error: must either specify a package size or an APK file\n")
    data: bytes | None
    if from_stdin:
        data = stdin[:size]
    else:
        data = device.storage.read(paths[0])
        if data is None or device.storage.is_dir(paths[0]):
            opened = f"Error: Unable to open file: {paths[0]}\nConsider using a file under /data/local/tmp/\n"
            error = java_exception("install", f"Error: Can't open file: {paths[0]}",
                                   where="com.android.server.pm.PackageManagerShellCommand.setParamsSize")
            return Result(stderr=opened.encode() + error.stderr, code=255)
    packages = device.phone.system.packages
    staged = packages.session_path()
    try:
        info = read_apk(data, staged)
        record = packages.install(info, options, staged)
    except (ApkError, InstallFailure) as exc:
        return Result(stdout=f"Failure [{exc}]\n".encode(), code=1)
    try:
        device.storage.store_system_file(record.apk_path, data)   # where `pm path` says it is (adb pull works)
    except StorageError as exc:
        packages.uninstall(record.package)
        return Result(stdout=f"Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE: {exc}]\n".encode(), code=1)
    device.phone.system.log.write("I", "PackageManager", f"installPackageLI: {record.package} installed at "
                                  f"{record.code_path}", 612, 690, buffer="system")
    return ok("Success\n")


def _uninstall(device: AttachedDevice, args: Args) -> Result:
    version = None
    while (opt := args.option()) is not None:
        if opt == "--user":
            args.required()
        elif opt == "--versionCode":
            version = int(args.required())
        elif opt != "-k":
            raise ShellCommandError(f"Unknown option: {opt}")
    package = args.next()
    if package is None:
        return fail("Error: package name not specified\n")
    packages = device.phone.system.packages
    record = packages.get(package)
    if record is None or (version is not None and record.version_code != version) \
            or not packages.uninstall(package):
        return Result(stdout=b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n", code=1)
    device.storage.remove_system_tree("/".join(record.apk_path.split("/")[:4]))   # /data/app/<its folder>
    return ok("Success\n")


# ---------------------------------------------------------------------------- list


def _list(phone: VirtualPhone, args: Args) -> Result:
    kind = args.next()
    if kind is None:
        return Result(stderr=b"Error: didn't specify type of data to list\n", code=255)
    if kind == "packages":
        return _list_packages(phone, args)
    if kind == "features":
        return ok(lines(f"feature:{f}" for f in FEATURES))
    if kind == "users":
        flags = "c13" if phone.profile.sdk >= 30 else "13"
        return ok(f"Users:\n\tUserInfo{{0:Owner:{flags}}} running\n")
    return Result(stderr=f"Error: unknown list type '{kind}'\n".encode(), code=255)


def _list_packages(phone: VirtualPhone, args: Args) -> Result:
    flags: set[str] = set()
    uid_filter = None
    while (opt := args.option()) is not None:
        if opt in ("-f", "-d", "-e", "-s", "-3", "-i", "-u", "-U", "-l", "-a", "--show-versioncode", "--apex-only",
                   "--factory-only", "--show-stopped"):
            flags.add(opt)
        elif opt == "--user":
            args.required()
        elif opt == "--uid":
            uid_filter = java_int(args.required())
        else:
            return Result(stdout=f"Error: Unknown option: {opt}\n".encode(), code=255)
    text_filter = args.next()
    found = []
    for record in phone.system.packages.records():
        if text_filter and text_filter not in record.package:
            continue
        if ("-s" in flags and not record.system) or ("-3" in flags and record.system) or "-d" in flags \
                or "--apex-only" in flags or (uid_filter is not None and record.uid != uid_filter):
            continue
        found.append(_package_line(record, flags))
    return ok(lines(sorted(found)))


def _package_line(record: PackageRecord, flags: set[str]) -> str:
    line = "package:" + (f"{record.apk_path}=" if "-f" in flags else "") + record.package
    if "--show-versioncode" in flags:
        line += f" versionCode:{record.version_code}"
    if "-i" in flags:
        line += f"  installer={record.installer or 'null'}"
    if "-U" in flags:
        line += f" uid:{record.uid}"
    return line


# ---------------------------------------------------------------------------- clear / grant


def _clear(phone: VirtualPhone, package: str) -> Result:
    record = phone.system.packages.get(package)
    if record is None:
        return fail("Failed\n")
    phone.force_stop(package)
    if not record.system:
        record.granted.clear()
    return ok("Success\n")


def _grant(phone: VirtualPhone, command: str, args: Args) -> Result:
    package = package_argument(args)
    permission = args.required()
    record = phone.system.packages.get(package)
    if record is None:
        raise ShellCommandError(f"Unknown package: {package}")
    if permission not in record.permissions:
        raise ShellCommandError(f"Package {package} has not requested permission {permission}",
                                "java.lang.SecurityException")
    if permission not in RUNTIME_PERMISSIONS:
        raise ShellCommandError(f"Permission {permission} requested by {package} is not a changeable permission "
                                "type", "java.lang.SecurityException")
    if command == "grant":
        record.granted.add(permission)
    else:
        record.granted.discard(permission)
    return ok()


# ---------------------------------------------------------------------------- resolve-activity


def _resolve_activity(phone: VirtualPhone, args: Args) -> Result:
    intent, options = parse_intent(args, {"--brief": 0, "--components": 0, "--query-flags": 1, "--user": 1})
    found = matching_activities(intent, phone.system.packages, default_only=False)
    if not found:
        return ok("No activity found\n")
    package, activity = found[0] if len(found) == 1 else RESOLVER_ACTIVITY
    component = short_component(package, activity)
    header = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false"
    if "--components" in options:
        return ok(component + "\n")
    if "--brief" in options:
        return ok(f"{header}\n{component}\n")
    record = phone.system.packages.get(package)
    return ok(lines([header, "ActivityInfo:", f"  name={activity}", f"  packageName={package}",
                     "  enabled=true exported=true directBootAware=false",
                     f"  taskAffinity={package} targetActivity=null persistableMode=PERSIST_ROOT_ONLY",
                     "  launchMode=0 flags=0x3 privateFlags=0x0 theme=0x0",
                     "  screenOrientation=-1 configChanges=0x0 softInputMode=0x0",
                     "  ApplicationInfo:", f"    packageName={package}",
                     f"    processName={package}",
                     f"    taskAffinity={package}",
                     f"    uid={record.uid if record else 1000} flags=0x38c8be45 privateFlags=0x0 theme=0x0",
                     f"    sourceDir={record.apk_path if record else '/system/framework/framework-res.apk'}"]))


def _help() -> str:
    return lines([
        "Package manager (package) commands:",
        "  help",
        "    Print this help text.",
        "  path [--user USER_ID] PACKAGE",
        "    Print the path to the .apk of the given PACKAGE.",
        "  dump PACKAGE",
        "    Print various system state associated with the given PACKAGE.",
        "  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U] [--show-versioncode]",
        "      [--apex-only] [--uid UID] [--user USER_ID] [FILTER]",
        "    Prints all packages; optionally only those whose name contains",
        "    the text in FILTER.",
        "  resolve-activity [--brief] [--components] [--query-flags FLAGS]",
        "       [--user USER_ID] INTENT",
        "    Prints the activity that resolves to the given INTENT.",
        "  install [-rtfdg] [-i PACKAGE] [--user USER_ID|all|current]",
        "       [-p INHERIT_PACKAGE] [--install-location 0/1/2]",
        "       [-S BYTES] [--dont-kill] [PATH [SPLIT...]|-]",
        "    Install an application.  Must provide the apk data to install, either as",
        "    file path(s) or '-' to read from stdin.",
        "  uninstall [-k] [--user USER_ID] [--versionCode VERSION] PACKAGE [SPLIT...]",
        "    Remove the given package name from the system.",
        "  clear [--user USER_ID] [--cache-only] PACKAGE",
        "    Deletes data associated with a package.",
        "  grant [--user USER_ID] PACKAGE PERMISSION",
        "  revoke [--user USER_ID] PACKAGE PERMISSION",
        "    These commands either grant or revoke permissions to apps.",
    ])
