"""Test support: build small but real APKs (a zip with a binary AndroidManifest.xml), as aapt would.

The manifest is written in Android's binary XML: a string pool (UTF-8 or UTF-16), the resource-id
map for android:* attributes, then namespace and element chunks with typed attribute values.
"""

from __future__ import annotations

import io
import struct
import zipfile

ANDROID_NS = "http://schemas.android.com/apk/res/android"
ATTRIBUTE_IDS = {"label": 0x01010001, "name": 0x01010003, "permission": 0x01010006, "debuggable": 0x0101000F,
                 "exported": 0x01010010, "minSdkVersion": 0x0101020C, "versionCode": 0x0101021B,
                 "versionName": 0x0101021C, "targetSdkVersion": 0x01010270, "testOnly": 0x01010272}


class Element:
    def __init__(self, tag: str, attributes: dict | None = None, *children: Element) -> None:
        self.tag, self.attributes, self.children = tag, dict(attributes or {}), list(children)


def manifest_element(package: str, *, version_code: int = 1, version_name: str | None = "1.0",
                     label: str | None = "Demo App", min_sdk: int = 21, target_sdk: int = 34,
                     activities: tuple[tuple[str, bool], ...] = ((".MainActivity", True),),
                     permissions: tuple[str, ...] = (), test_only: bool = False,
                     input_method: str | None = None) -> Element:
    """A manifest: activities are (name, is the launcher activity); input_method names an IME service."""
    manifest_attrs: dict = {"android:versionCode": version_code, "package": package}
    if version_name is not None:
        manifest_attrs["android:versionName"] = version_name
    application_attrs: dict = {}
    if label is not None:
        application_attrs["android:label"] = label
    if test_only:
        application_attrs["android:testOnly"] = True
    application = Element("application", application_attrs)
    for name, launcher in activities:
        activity = Element("activity", {"android:name": name, "android:exported": launcher})
        if launcher:
            activity.children.append(Element("intent-filter", {},
                                             Element("action", {"android:name": "android.intent.action.MAIN"}),
                                             Element("category", {"android:name": "android.intent.category.LAUNCHER"})))
        application.children.append(activity)
    if input_method:
        application.children.append(Element(
            "service", {"android:name": input_method, "android:permission": "android.permission.BIND_INPUT_METHOD"},
            Element("intent-filter", {}, Element("action", {"android:name": "android.view.InputMethod"}))))
    children = [Element("uses-sdk", {"android:minSdkVersion": min_sdk, "android:targetSdkVersion": target_sdk})]
    children += [Element("uses-permission", {"android:name": p}) for p in permissions]
    return Element("manifest", manifest_attrs, *children, application)


def binary_xml(root: Element, utf8: bool = True) -> bytes:
    """`root` as Android binary XML."""
    id_names: list[str] = []
    other: list[str] = ["android", ANDROID_NS]

    def collect(element: Element) -> None:
        other.append(element.tag)
        for key, value in element.attributes.items():
            prefix, _, name = key.rpartition(":")
            if prefix == "android" and name in ATTRIBUTE_IDS:
                if name not in id_names:
                    id_names.append(name)
            else:
                other.append(name)
            if isinstance(value, str):
                other.append(value)
        for child in element.children:
            collect(child)

    collect(root)
    strings = id_names + [s for i, s in enumerate(other) if s not in id_names and s not in other[:i]]
    index = {s: i for i, s in enumerate(strings)}
    body = _string_pool(strings, utf8)
    resource_map = b"".join(struct.pack("<I", ATTRIBUTE_IDS[n]) for n in id_names)
    body += struct.pack("<HHI", 0x0180, 8, 8 + len(resource_map)) + resource_map
    namespace = struct.pack("<II", index["android"], index[ANDROID_NS])
    body += struct.pack("<HHIII", 0x0100, 16, 24, 1, 0xFFFFFFFF) + namespace
    line = [1]

    def write(element: Element) -> bytes:
        line[0] += 1
        attributes = b""
        for key, value in element.attributes.items():
            prefix, _, name = key.rpartition(":")
            ns = index[ANDROID_NS] if prefix == "android" else 0xFFFFFFFF
            if isinstance(value, bool):
                raw, kind, data = 0xFFFFFFFF, 0x12, 0xFFFFFFFF if value else 0
            elif isinstance(value, int):
                raw, kind, data = 0xFFFFFFFF, 0x10, value & 0xFFFFFFFF
            else:
                raw, kind, data = index[value], 0x03, index[value]
            attributes += struct.pack("<IIIHBBI", ns, index[name], raw, 8, 0, kind, data)
        count = len(element.attributes)
        start = struct.pack("<HHIII", 0x0102, 16, 36 + len(attributes), line[0], 0xFFFFFFFF)
        start += struct.pack("<IIHHHHHH", 0xFFFFFFFF, index[element.tag], 20, 20, count, 0, 0, 0) + attributes
        inner = b"".join(write(child) for child in element.children)
        end = struct.pack("<HHIIIII", 0x0103, 16, 24, line[0], 0xFFFFFFFF, 0xFFFFFFFF, index[element.tag])
        return start + inner + end

    body += write(root)
    body += struct.pack("<HHIII", 0x0101, 16, 24, line[0], 0xFFFFFFFF) + namespace
    return struct.pack("<HHI", 0x0003, 8, 8 + len(body)) + body


def _string_pool(strings: list[str], utf8: bool) -> bytes:
    data, offsets = b"", []
    for s in strings:
        offsets.append(len(data))
        if utf8:
            encoded = s.encode("utf-8")
            data += bytes([len(s), len(encoded)]) + encoded + b"\0"
        else:
            data += struct.pack("<H", len(s)) + s.encode("utf-16-le") + b"\0\0"
    data += b"\0" * (-len(data) % 4)
    header = 28
    strings_start = header + 4 * len(strings)
    pool = struct.pack("<IIIII", len(strings), 0, 0x100 if utf8 else 0, strings_start, 0)
    return struct.pack("<HHI", 0x0001, header, strings_start + len(data)) + pool + \
        b"".join(struct.pack("<I", o) for o in offsets) + data


def build_apk(package: str = "com.example.demo", *, signed: bool = True, utf8: bool = True, **manifest) -> bytes:
    """A zip an Android phone accepts as an APK: manifest, a dex and (when `signed`) a v1 signature.

    The same bytes every time (entries dated 2024-01-01): test ids made from them match across xdist workers."""
    buffer = io.BytesIO()

    def entry(name: str) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        return info
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as apk:
        apk.writestr(entry("AndroidManifest.xml"), binary_xml(manifest_element(package, **manifest), utf8))
        apk.writestr(entry("classes.dex"), b"dex\n035\0" + bytes(104))
        if signed:
            apk.writestr(entry("META-INF/MANIFEST.MF"), "Manifest-Version: 1.0\r\n")
            apk.writestr(entry("META-INF/CERT.SF"), "Signature-Version: 1.0\r\n")
            apk.writestr(entry("META-INF/CERT.RSA"), package.encode() + b"-test-certificate")
    return buffer.getvalue()
