"""`dumpsys package PKG` (and `pm dump PKG`): the resolver table entries of the package and its
"Packages:" record, laid out as Settings.dumpPackageLPr prints them for the phone's Android version.

Clients read from it: versionName, versionCode, firstInstallTime, lastUpdateTime, pkgFlags and
the signatures (adbutils' app_info), targetSdk and "permission: granted=" lines (uiautomator2),
"Package [pkg] (hash):" and the MAIN/LAUNCHER resolver block (Appium).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..intents import short_component
from ..packages import RUNTIME_PERMISSIONS, PackageRecord
from .common import lines

if TYPE_CHECKING:
    from ..apk import IntentFilter
    from ..phone import VirtualPhone

_TIME = "%Y-%m-%d %H:%M:%S"


def dump_package(phone: VirtualPhone, package: str) -> str:
    record = phone.system.packages.get(package)
    if record is None:
        return lines(["Dexopt state:", f"  Unable to find package: {package}", "",
                      "Compiler stats:", f"  Unable to find package: {package}"])
    hash_of = phone.system.hash_of
    out = _resolver_table(record, hash_of)
    out += ["Key Set Manager:", f"  [{package}]", f"      Signing KeySets: {record.uid % 97 + 3}", ""]
    out += ["Packages:"] + _package_section(phone, record) + [""]
    out += ["Queries:", "  system apps queryable: false", ""]
    return lines(out)


def _resolver_table(record: PackageRecord, hash_of) -> list[str]:
    by_action: dict[str, list[tuple[str, IntentFilter]]] = {}
    for activity in record.activities:
        for f in activity.filters:
            for action in f.actions:
                by_action.setdefault(action, []).append((activity.name, f))
    if not by_action:
        return []
    out = ["Activity Resolver Table:", "  Non-Data Actions:"]
    for action, entries in sorted(by_action.items(), key=lambda item: item[0]):
        out.append(f"      {action}:")
        for name, f in entries:
            component = short_component(record.package, name)
            out.append(f"        {hash_of(('activity', component))} {component} filter "
                       f"{hash_of(('filter', component, f))}")
            out += [f'          Action: "{a}"' for a in f.actions]
            out += [f'          Category: "{c}"' for c in f.categories]
            out += [f'          Scheme: "{s}"' for s in f.schemes]
    return out + [""]


def _package_section(phone: VirtualPhone, record: PackageRecord) -> list[str]:
    sdk = phone.profile.sdk
    flags = f"[ {' '.join(record.flags())} ]"
    out = [f"  Package [{record.package}] ({phone.system.hash_of(('package', record.package))}):",
           f"    {'appId' if sdk >= 33 else 'userId'}={record.uid}",
           f"    pkg=Package{{{phone.system.hash_of(('pkg', record.package))} {record.package}}}",
           f"    codePath={record.code_path}",
           f"    resourcePath={record.code_path}",
           f"    legacyNativeLibraryDir={record.code_path}/lib",
           "    extractNativeLibs=false" if sdk >= 29 else "    primaryCpuAbi=null",
           f"    versionCode={record.version_code} minSdk={record.min_sdk} targetSdk={record.target_sdk}",
           f"    versionName={record.version_name}",
           "    usesNonSdkApi=false",
           "    splits=[base]",
           "    apkSigningVersion=2",
           f"    flags={flags}",
           "    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION ]",
           f"    dataDir=/data/user/0/{record.package}",
           "    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]",
           f"    timeStamp={record.last_update.strftime(_TIME)}"]
    if sdk < 34:
        out.append(f"    firstInstallTime={record.first_install.strftime(_TIME)}")
    out.append(f"    lastUpdateTime={record.last_update.strftime(_TIME)}")
    if record.installer:
        out.append(f"    installerPackageName={record.installer}")
    signature_hash = phone.system.hash_of(("signatures", record.package, record.signature))
    out += [f"    signatures=PackageSignatures{{{signature_hash} version:2, signatures:[{record.signature}], "
            "past signatures:[]}",
            "    installPermissionsFixed=true",
            f"    pkgFlags={flags}"]
    if record.permissions:
        out.append("    requested permissions:")
        out += [f"      {p}" for p in record.permissions]
    install = [p for p in record.permissions if p not in RUNTIME_PERMISSIONS]
    if install:
        out.append("    install permissions:")
        out += [f"      {p}: granted=true" for p in install]
    state = "stopped=false" if phone.system.pid_of(record.package) else "stopped=true"
    out.append(f"    User 0: ceDataInode={record.uid * 7 + 1031} installed=true hidden=false suspended=false "
               f"distractionFlags=0 {state} notLaunched=false enabled=0 instant=false virtual=false")
    if sdk >= 34:
        out += ["      installReason=0", f"      firstInstallTime={record.first_install.strftime(_TIME)}",
                "      uninstallReason=0"]
    runtime = record.runtime_permissions
    if runtime:
        out.append("      runtime permissions:")
        for p in runtime:
            granted = p in record.granted
            flags_text = "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED" if not record.system else \
                "GRANTED_BY_DEFAULT|USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
            out.append(f"        {p}: granted={'true' if granted else 'false'}, flags=[ {flags_text}]")
    return out
