"""The package manager's records: every package on the phone, where its APK lives, its version,
uid, permissions and activities, and installing or removing APKs as `pm` does.

The phone's own apps and system packages get records that look like a factory image's; an APK
installed with `pm install` becomes an `InstalledApp` the phone can launch.
"""

from __future__ import annotations

import base64
import hashlib
import random
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from .apk import ACTION_MAIN, CATEGORY_LAUNCHER, Activity, ApkInfo, IntentFilter
from .apps import ADB_KEYBOARD, SYSTEM_PACKAGES
from .installed_app import InstalledApp
from .keyboard import ADB_IME, LATIN_IME

if TYPE_CHECKING:
    from .phone import VirtualPhone

FACTORY_TIME = datetime(2009, 1, 1, 0, 0, 0)   # what a factory image's packages show as install time
FIRST_APP_UID = 10150
SHELL_INSTALLER = "com.android.shell"

# Permissions a user grants at run time ("dangerous"); `pm grant` accepts only these.
RUNTIME_PERMISSIONS = frozenset(f"android.permission.{name}" for name in (
    "READ_CALENDAR", "WRITE_CALENDAR", "CAMERA", "READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS",
    "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION", "ACCESS_MEDIA_LOCATION",
    "RECORD_AUDIO", "READ_PHONE_STATE", "READ_PHONE_NUMBERS", "CALL_PHONE", "ANSWER_PHONE_CALLS",
    "READ_CALL_LOG", "WRITE_CALL_LOG", "ADD_VOICEMAIL", "USE_SIP", "BODY_SENSORS", "ACTIVITY_RECOGNITION",
    "SEND_SMS", "RECEIVE_SMS", "READ_SMS", "RECEIVE_WAP_PUSH", "RECEIVE_MMS", "READ_EXTERNAL_STORAGE",
    "WRITE_EXTERNAL_STORAGE", "POST_NOTIFICATIONS", "READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO", "READ_MEDIA_AUDIO",
    "NEARBY_WIFI_DEVICES", "BLUETOOTH_CONNECT", "BLUETOOTH_SCAN", "BLUETOOTH_ADVERTISE", "UWB_RANGING"))

# Folder names of the factory apps (/system/priv-app/NAME/NAME.apk), as AOSP builds name them.
_SYSTEM_APKS = {
    "com.android.launcher3": ("priv-app", "Launcher3QuickStep"), "com.android.settings": ("priv-app", "Settings"),
    "com.android.systemui": ("priv-app", "SystemUI"), "com.android.phone": ("priv-app", "TeleService"),
    "com.android.shell": ("priv-app", "Shell"), "com.android.providers.settings": ("priv-app", "SettingsProvider"),
    "com.android.providers.contacts": ("priv-app", "ContactsProvider"),
    "com.android.providers.telephony": ("priv-app", "TelephonyProvider"),
    "com.android.providers.media": ("priv-app", "MediaProvider"), "com.android.bluetooth": ("app", "Bluetooth"),
    "com.android.packageinstaller": ("priv-app", "PackageInstaller"),
    "com.android.permissioncontroller": ("priv-app", "PermissionController"),
    "com.android.documentsui": ("priv-app", "DocumentsUI"), "com.android.webview": ("app", "webview"),
    "com.android.inputmethod.latin": ("app", "LatinIME"), "com.android.server.telecom": ("priv-app", "Telecom"),
    "com.android.contacts": ("priv-app", "Contacts"), "com.android.messaging": ("app", "messaging"),
    "com.android.deskclock": ("app", "DeskClock"), "com.android.dialer": ("priv-app", "Dialer"),
}
_SYSTEM_UIDS = {"android": 1000, "com.android.settings": 1000, "com.android.providers.settings": 1000,
                "com.android.phone": 1001, "com.android.bluetooth": 1002, "com.android.shell": 2000}
_BUILT_IN_PERMISSIONS = {
    "com.android.contacts": ("READ_CONTACTS", "WRITE_CONTACTS", "CALL_PHONE", "READ_PHONE_STATE"),
    "com.android.messaging": ("SEND_SMS", "RECEIVE_SMS", "READ_SMS", "READ_CONTACTS", "READ_PHONE_STATE"),
    "com.android.dialer": ("CALL_PHONE", "READ_CONTACTS", "READ_CALL_LOG", "WRITE_CALL_LOG", "READ_PHONE_STATE"),
    "com.android.deskclock": ("POST_NOTIFICATIONS",),
    "com.agentdesk.notes": ("POST_NOTIFICATIONS",),
}
# Intent filters of the phone's own apps beyond their launcher entry: activity → (actions, schemes).
_SETTINGS = "com.android.settings.Settings$"
_BUILT_IN_FILTERS = {
    "com.android.launcher3.uioverride.QuickstepLauncher": ((ACTION_MAIN,), (), ("android.intent.category.HOME",)),
    "com.android.settings.Settings": (("android.settings.SETTINGS",), (), ()),
    _SETTINGS + "WifiSettingsActivity": (("android.settings.WIFI_SETTINGS",), (), ()),
    _SETTINGS + "NetworkDashboardActivity": (("android.settings.WIRELESS_SETTINGS",), (), ()),
    _SETTINGS + "BluetoothSettingsActivity": (("android.settings.BLUETOOTH_SETTINGS",), (), ()),
    _SETTINGS + "ConnectedDeviceDashboardActivity": (("android.settings.CONNECTED_DEVICES_SETTINGS",), (), ()),
    _SETTINGS + "DisplaySettingsActivity": (("android.settings.DISPLAY_SETTINGS",), (), ()),
    _SETTINGS + "MyDeviceInfoActivity": (("android.settings.DEVICE_INFO_SETTINGS",), (), ()),
    _SETTINGS + "ManageApplicationsActivity": (("android.settings.APPLICATION_SETTINGS",
                                                 "android.settings.MANAGE_APPLICATIONS_SETTINGS",
                                                 "android.settings.MANAGE_ALL_APPLICATIONS_SETTINGS"), (), ()),
    "com.android.dialer.main.impl.MainActivity": (("android.intent.action.DIAL", "android.intent.action.VIEW"),
                                                  ("tel",), ()),
    "com.android.messaging.ui.conversation.ConversationActivity": (("android.intent.action.SENDTO",
                                                                    "android.intent.action.VIEW"),
                                                                   ("sms", "smsto"), ()),
    "com.android.deskclock.DeskClock": (("android.intent.action.SET_ALARM", "android.intent.action.SHOW_ALARMS"),
                                        (), ()),
}
_INPUT_METHODS = {LATIN_IME.split("/")[0]: LATIN_IME, ADB_KEYBOARD[0]: ADB_IME}


@dataclass
class PackageRecord:
    package: str
    label: str
    version_code: int
    version_name: str | None
    apk_path: str
    system: bool
    uid: int
    min_sdk: int
    target_sdk: int
    first_install: datetime
    last_update: datetime
    installer: str | None
    signature: str
    permissions: tuple[str, ...] = ()
    activities: tuple[Activity, ...] = ()
    input_methods: tuple[str, ...] = ()      # IME ids (package/.Service)
    test_only: bool = False
    debuggable: bool = False
    granted: set[str] = field(default_factory=set)

    @property
    def code_path(self) -> str:
        return self.apk_path.rsplit("/", 1)[0] if self.apk_path.startswith("/data/") else self.apk_path

    @property
    def runtime_permissions(self) -> list[str]:
        return [p for p in self.permissions if p in RUNTIME_PERMISSIONS]

    @property
    def launcher_activity(self) -> str | None:
        return next((a.name for a in self.activities if a.is_launcher), None)

    def flags(self) -> list[str]:
        flags = (["SYSTEM"] if self.system else []) + (["DEBUGGABLE"] if self.debuggable else [])
        flags += ["HAS_CODE", "ALLOW_CLEAR_USER_DATA", "ALLOW_BACKUP"]
        return flags + (["TEST_ONLY"] if self.test_only else [])


@dataclass
class InstallOptions:
    replace: bool = True            # -R turns it off
    allow_test: bool = False        # -t
    allow_downgrade: bool = False   # -d
    grant_all: bool = False         # -g
    dont_kill: bool = False         # --dont-kill
    installer: str | None = None    # -i
    allow_low_target: bool = False  # --bypass-low-target-sdk-block (Android 14+)


class InstallFailure(Exception):
    """`pm install` fails: the text inside "Failure [...]"."""


# MIUI keeps Developer options › Install via USB in this property; "0" (off) refuses every install over ADB.
USB_INSTALL_PROPERTY = "persist.security.adbinstall"


class PackageManager:
    """All packages of one phone. Callers hold the phone's lock."""

    def __init__(self, phone: VirtualPhone, rng: random.Random) -> None:
        self.phone = phone
        self.random = rng
        self._records: dict[str, PackageRecord] = {}
        self._next_uid = FIRST_APP_UID
        for package, label in SYSTEM_PACKAGES:
            self._add_built_in(package, label, system=True)
        for package, app in sorted(phone.apps.items()):
            self._add_built_in(package, app.label, system=not app.third_party, app=app)
        if phone.adb_keyboard_installed:
            self._add_built_in(ADB_KEYBOARD[0], ADB_KEYBOARD[1], system=False)

    # ------------------------------------------------------------------ queries
    def get(self, package: str) -> PackageRecord | None:
        return self._records.get(package)

    def records(self) -> list[PackageRecord]:
        return [self._records[p] for p in sorted(self._records)]

    def names(self, third_party_only: bool = False) -> list[str]:
        return [r.package for r in self.records() if not (third_party_only and r.system)]

    # ------------------------------------------------------------------ factory image
    def _add_built_in(self, package: str, label: str, system: bool, app=None) -> None:
        sdk, release = self.phone.profile.sdk, self.phone.profile.release
        activities: tuple[Activity, ...] = ()
        if app is not None:
            activities = tuple(Activity(name, True, _built_in_filters(name, name == app.main_activity and app.launchable
                                                                      and package != "com.android.launcher3"))
                               for name in app.activities())
        uid = _SYSTEM_UIDS.get(package)
        if uid is None:
            uid, self._next_uid = self._next_uid, self._next_uid + 1
        permissions = tuple(f"android.permission.{p}" for p in _BUILT_IN_PERMISSIONS.get(package, ())
                            if sdk >= 33 or p != "POST_NOTIFICATIONS")
        ime = _INPUT_METHODS.get(package)
        self._records[package] = PackageRecord(
            package=package, label=label, version_code=sdk if system else 1, version_name=release if system else "1.0",
            apk_path=self._system_path(package) if system else self._data_path(package, _stable_token(package)),
            system=system, uid=uid, min_sdk=sdk if system else 24, target_sdk=sdk if system else 33,
            first_install=FACTORY_TIME, last_update=FACTORY_TIME, installer=None,
            signature=f"{zlib.crc32(b'platform' if system else package.encode()):08x}",
            permissions=permissions, activities=activities, input_methods=(ime,) if ime else (),
            granted=set(permissions) if system else set())

    def _system_path(self, package: str) -> str:
        if package == "android":
            return "/system/framework/framework-res.apk"
        folder, name = _SYSTEM_APKS.get(package, ("app", package.rsplit(".", 1)[-1].capitalize()))
        return f"/system/{folder}/{name}/{name}.apk"

    def _data_path(self, package: str, token: bytes) -> str:
        first, second = (base64.urlsafe_b64encode(token[i:i + 16]).decode()[:22] for i in (0, 16))
        if self.phone.profile.sdk >= 30:
            return f"/data/app/~~{first}==/{package}-{second}==/base.apk"
        return f"/data/app/{package}-{second}==/base.apk"

    # ------------------------------------------------------------------ install / uninstall
    def session_path(self) -> str:
        """Where the phone stages an APK while installing it (quoted in its error messages)."""
        return f"/data/app/vmdl{self.random.randrange(10 ** 8, 2 * 10 ** 9)}.tmp/base.apk"

    def install(self, info: ApkInfo, options: InstallOptions, staged_at: str) -> PackageRecord:
        """Install or update; raises InstallFailure with the phone's reason."""
        self._check(info, options, staged_at)
        existing = self._records.get(info.package)
        now = self.phone.now().replace(microsecond=0)
        path = existing.apk_path if existing else self._data_path(info.package, self.random.randbytes(32))
        sdk = self.phone.profile.sdk
        record = PackageRecord(
            package=info.package, label=info.label, version_code=info.version_code, version_name=info.version_name,
            apk_path=path, system=False, uid=existing.uid if existing else self._next_uid,
            min_sdk=info.min_sdk, target_sdk=info.target_sdk,
            first_install=existing.first_install if existing else now, last_update=now,
            installer=options.installer or (SHELL_INSTALLER if sdk >= 30 else None), signature=info.signature,
            permissions=info.permissions, activities=info.activities,
            input_methods=tuple(_ime_id(info.package, name) for name in info.input_methods),
            test_only=info.test_only, debuggable=info.debuggable,
            granted=_granted_at_install(info, existing, options.grant_all))
        if existing is None:
            self._next_uid += 1
        self._records[info.package] = record
        self._attach(record, options.dont_kill or existing is None)
        return record

    def _check(self, info: ApkInfo, options: InstallOptions, staged_at: str) -> None:
        sdk = self.phone.profile.sdk
        if self.phone.system.properties.get(USB_INSTALL_PROPERTY) == "0":
            raise InstallFailure("INSTALL_FAILED_USER_RESTRICTED: Install canceled by user")
        if info.min_sdk > sdk:
            raise InstallFailure(
                f"INSTALL_FAILED_OLDER_SDK: Failed parse during installPackageLI: {staged_at} (at Binary XML file "
                f"line #{info.min_sdk_line}): Requires newer sdk version #{info.min_sdk} (current version is #{sdk})")
        if sdk >= 34 and info.target_sdk < 23 and not options.allow_low_target:
            raise InstallFailure("INSTALL_FAILED_DEPRECATED_SDK_VERSION: App package must target at least SDK "
                                 f"version 23, but found {info.target_sdk}")
        if info.test_only and not options.allow_test:
            raise InstallFailure("INSTALL_FAILED_TEST_ONLY: installPackageLI")
        existing = self._records.get(info.package)
        if existing is None:
            return
        if not options.replace:
            raise InstallFailure(f"INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {info.package} "
                                 "without first uninstalling.")
        if existing.signature != info.signature:
            raise InstallFailure(f"INSTALL_FAILED_UPDATE_INCOMPATIBLE: Package {info.package} signatures do not "
                                 "match previously installed version; ignoring!")
        if info.version_code < existing.version_code and not options.allow_downgrade:
            raise InstallFailure(f"INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code "
                                 f"{info.version_code} is older than current {existing.version_code}")

    def _attach(self, record: PackageRecord, keep_running: bool) -> None:
        """Make the package an app the phone can launch and an IME it can list."""
        phone = self.phone
        if not keep_running:
            phone.force_stop(record.package)
        launcher = record.launcher_activity
        phone.apps[record.package] = InstalledApp(phone, record.package, record.label,
                                                  [a.name for a in record.activities], launcher)
        for ime in record.input_methods:       # listed by `ime list -a`; `ime enable` turns it on
            if ime not in phone.ime_ids:
                phone.ime_ids.append(ime)
        if record.package == ADB_KEYBOARD[0]:  # as if the phone had started with it (`--adb-keyboard`)
            phone.adb_keyboard_installed = True
        phone.changed()

    def uninstall(self, package: str) -> bool:
        """Remove a package installed on the data partition; False for system or unknown packages."""
        record = self._records.get(package)
        if record is None or record.system:
            return False
        phone = self.phone
        phone.force_stop(package)
        phone.apps.pop(package, None)
        if package == ADB_KEYBOARD[0]:
            phone.adb_keyboard_installed = False
        for ime in record.input_methods:
            if ime in phone.ime_ids:
                phone.ime_ids.remove(ime)
        enabled = [i for i in (phone.get_setting("secure", "enabled_input_methods") or "").split(":")
                   if i and i not in record.input_methods]
        phone.settings.put("secure", "enabled_input_methods", ":".join(enabled), notify=False)
        if phone.current_ime in record.input_methods:
            phone.set_ime(LATIN_IME)
        del self._records[package]
        phone.changed()
        return True


def _built_in_filters(activity: str, launcher: bool) -> tuple[IntentFilter, ...]:
    filters = [IntentFilter((ACTION_MAIN,), (CATEGORY_LAUNCHER,))] if launcher else []
    if activity in _BUILT_IN_FILTERS:
        actions, schemes, categories = _BUILT_IN_FILTERS[activity]
        filters.append(IntentFilter(actions, ("android.intent.category.DEFAULT",) + categories))
        if schemes:
            filters.append(IntentFilter(actions, ("android.intent.category.DEFAULT",), schemes))
    return tuple(filters)


def _granted_at_install(info: ApkInfo, existing: PackageRecord | None, grant_all: bool) -> set[str]:
    """Runtime permissions granted straight away: all with -g or for apps built before runtime
    permissions (targetSdk < 23); an update keeps what the user had granted."""
    runtime = {p for p in info.permissions if p in RUNTIME_PERMISSIONS}
    if grant_all or info.target_sdk < 23:
        return runtime
    return existing.granted & runtime if existing else set()


def _ime_id(package: str, service: str) -> str:
    short = service[len(package):] if service.startswith(package + ".") else service
    return f"{package}/{short}"


def _stable_token(package: str) -> bytes:
    return hashlib.sha256(package.encode()).digest()
