"""`getprop` and `setprop`: the system properties a phone of the profile's Android version lists
(ro.product.*, ro.build.*, ro.serialno, ABIs, density, boot state, init services...)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..shell import Result
from .common import fail, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

INIT_SERVICES = ("adbd", "audioserver", "cameraserver", "console", "gatekeeperd", "healthd", "installd", "keystore2",
                 "lmkd", "logd", "media", "netd", "servicemanager", "statsd", "surfaceflinger", "tombstoned",
                 "ueventd", "vold", "wificond", "zygote", "zygote_secondary")


def properties(phone: VirtualPhone) -> dict[str, str]:
    profile = phone.profile
    sdk = profile.sdk
    build_time = datetime(2024, 11, 21, 10, 12, 34) if sdk >= 34 else datetime(2019, 8, 1, 9, 30, 0)
    description = f"agentdesk_virtual-userdebug {profile.release} {profile.build_id} 1 test-keys"
    props = {
        "dalvik.vm.heapsize": "512m", "dalvik.vm.isa.x86_64.variant": "x86_64",
        "dev.bootcomplete": "1",
        "gsm.sim.state": "ABSENT", "gsm.version.baseband": "1.0",
        "net.bt.name": "Android",
        "persist.sys.locale": "en-US", "persist.sys.timezone": "Etc/UTC", "persist.sys.usb.config": "adb",
        "persist.sys.dalvik.vm.lib.2": "libart.so",
        "ro.adb.secure": "1",
        "ro.baseband": "unknown", "ro.board.platform": "virtual",
        "ro.boot.serialno": phone.serial, "ro.bootmode": "unknown", "ro.bootloader": "unknown",
        "ro.build.characteristics": "default",
        "ro.build.date": build_time.strftime("%a %b %d %H:%M:%S UTC %Y"),
        "ro.build.date.utc": str(int(build_time.replace(tzinfo=UTC).timestamp())),
        "ro.build.description": description, "ro.build.display.id": description,
        "ro.build.fingerprint": profile.fingerprint, "ro.build.flavor": "agentdesk_virtual-userdebug",
        "ro.build.host": "build", "ro.build.id": profile.build_id, "ro.build.product": "virtual",
        "ro.build.tags": "test-keys", "ro.build.type": "userdebug", "ro.build.user": "android-build",
        "ro.build.version.all_codenames": "REL", "ro.build.version.codename": "REL",
        "ro.build.version.incremental": "1", "ro.build.version.preview_sdk": "0",
        "ro.build.version.release": profile.release, "ro.build.version.sdk": str(sdk),
        "ro.build.version.security_patch": profile.security_patch,
        "ro.crypto.state": "encrypted", "ro.debuggable": "1", "ro.hardware": "virtual",
        "ro.opengles.version": "196610", "ro.product.board": "virtual", "ro.product.brand": "agentdesk",
        "ro.product.cpu.abi": "x86_64", "ro.product.cpu.abilist": "x86_64,x86",
        "ro.product.cpu.abilist32": "x86", "ro.product.cpu.abilist64": "x86_64",
        "ro.product.device": "virtual", "ro.product.locale": "en-US", "ro.product.manufacturer": "AgentDesk",
        "ro.product.model": phone.model, "ro.product.name": "agentdesk_virtual",
        "ro.revision": "0", "ro.secure": "1", "ro.serialno": phone.serial,
        "ro.sf.lcd_density": str(phone.system.physical[2]), "ro.treble.enabled": "true",
        "ro.vndk.version": str(sdk), "ro.zygote": "zygote64_32",
        "service.bootanim.exit": "1", "sys.boot_completed": "1", "sys.usb.config": "adb", "sys.usb.state": "adb",
        "wifi.interface": "wlan0",
    }
    if sdk >= 29:
        for partition in ("system", "vendor", "product"):
            props.update({f"ro.product.{partition}.brand": "agentdesk", f"ro.product.{partition}.device": "virtual",
                          f"ro.product.{partition}.manufacturer": "AgentDesk",
                          f"ro.product.{partition}.model": phone.model,
                          f"ro.product.{partition}.name": "agentdesk_virtual",
                          f"ro.{partition}.build.version.sdk": str(sdk),
                          f"ro.{partition}.build.fingerprint": profile.fingerprint})
    if sdk >= 30:
        props["ro.build.version.release_or_codename"] = profile.release
    if sdk >= 34:
        props["ro.build.version.min_supported_target_sdk"] = "23"
    props.update({f"init.svc.{name}": "running" for name in INIT_SERVICES})
    props["init.svc.bootanim"] = "stopped"
    props.update(phone.system.properties)
    return props


def program_getprop(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    props = properties(device.phone)
    args = [a for a in argv[1:] if a not in ("-Z", "-T")]
    if args:
        return ok(props.get(args[0], args[1] if len(args) > 1 else "") + "\n")
    return ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))


def program_setprop(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    if len(argv) != 3:
        return fail("usage: setprop NAME VALUE\n\nSets an Android system property.\n")
    name, value = argv[1], argv[2]
    current = properties(device.phone)
    if name.startswith("ro.") and name in current or not name or len(value) > 91 and not name.startswith("ro."):
        return fail(f"Failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
    device.phone.system.properties[name] = value
    return ok()
