"""`ip route` and `ip addr`: the phone's network interfaces as iproute2 prints them. Wi-Fi has an
address only while it is on (scrcpy --tcpip and adbutils' wlan_ip read it from here)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..shell import Result
from .common import fail, lines, ok

if TYPE_CHECKING:
    from ..attached_device import AttachedDevice
    from ..phone import VirtualPhone

_IPV4_SERIAL = re.compile(r"^(\d{1,3}\.\d{1,3}\.\d{1,3})\.(\d{1,3}):\d+$")


def wifi_address(phone: VirtualPhone) -> tuple[str, str] | None:
    """(address, /24 network) while Wi-Fi is on; a phone reached over the network keeps its address."""
    if not phone.settings.flag("global", "wifi_on"):
        return None
    match = _IPV4_SERIAL.match(phone.serial)
    prefix, host = (match.group(1), match.group(2)) if match else ("192.168.1", "42")
    return f"{prefix}.{host}", f"{prefix}.0/24"


def program_ip(device: AttachedDevice, argv: list[str], stdin: bytes) -> Result:
    args = [a for a in argv[1:] if a not in ("-4", "-6", "-o")]
    obj = args[0] if args else ""
    rest = [a for a in args[1:] if a not in ("show", "list", "ls")]
    wifi = wifi_address(device.phone)
    if "route".startswith(obj) and obj:
        return ok(f"{wifi[1]} dev wlan0 proto kernel scope link src {wifi[0]}\n" if wifi else "")
    if obj and ("address".startswith(obj) or obj == "addr"):
        wanted = rest[rest.index("dev") + 1] if "dev" in rest and rest.index("dev") + 1 < len(rest) else \
            (rest[0] if rest else None)
        interfaces = {"lo": _loopback(), "wlan0": _wlan(wifi)}
        if wanted is not None and wanted not in interfaces:
            return fail(f'Device "{wanted}" does not exist.\n')
        return ok("".join(text for name, text in interfaces.items() if wanted in (None, name)))
    return fail(f'Object "{obj}" is unknown, try "ip help".\n' if obj else
                "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n", 1 if obj else 255)


def _loopback() -> str:
    return lines(["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000",
                  "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
                  "    inet 127.0.0.1/8 scope host lo", "       valid_lft forever preferred_lft forever"])


def _wlan(wifi: tuple[str, str] | None) -> str:
    state = "<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP" if wifi else \
        "<BROADCAST,MULTICAST> mtu 1500 qdisc mq state DOWN"
    out = [f"27: wlan0: {state} group default qlen 3000", "    link/ether 02:00:00:44:55:66 brd ff:ff:ff:ff:ff:ff"]
    if wifi:
        broadcast = wifi[0].rsplit(".", 1)[0] + ".255"
        out += [f"    inet {wifi[0]}/24 brd {broadcast} scope global wlan0",
                "       valid_lft forever preferred_lft forever"]
    return lines(out)
