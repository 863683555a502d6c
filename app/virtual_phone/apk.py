"""Reading an APK as the package manager does: the manifest's package, version, SDK levels,
label, permissions, activities and input methods, and whether the file is signed at all.

An APK is a zip holding a binary AndroidManifest.xml (see `axml`) and resources.arsc, where
a label given as @string/... is looked up. A file that is not a valid APK raises `ApkError`
with the INSTALL_PARSE_FAILED_* code and message the phone prints.
"""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass

from .axml import AxmlError, ResourceRef, XmlElement, parse_axml, read_string_pool

ANDROID_MANIFEST = "AndroidManifest.xml"
ACTION_MAIN = "android.intent.action.MAIN"
CATEGORY_LAUNCHER = "android.intent.category.LAUNCHER"
BIND_INPUT_METHOD = "android.permission.BIND_INPUT_METHOD"
ACTION_INPUT_METHOD = "android.view.InputMethod"
_V1_SIGNATURE = re.compile(r"^META-INF/[^/]+\.(RSA|DSA|EC)$", re.IGNORECASE)
_V2_SIGNATURE_MAGIC = b"APK Sig Block 42"
_MAX_METADATA_BYTES = 64 << 20   # a bigger "manifest" is a zip bomb, not an app
_PACKAGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")


class ApkError(Exception):
    """Why the package manager refuses a file: `code` is the INSTALL_PARSE_FAILED_* name."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


@dataclass(frozen=True)
class IntentFilter:
    actions: tuple[str, ...]
    categories: tuple[str, ...]
    schemes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Activity:
    name: str                 # fully qualified class name
    exported: bool
    filters: tuple[IntentFilter, ...]

    @property
    def is_launcher(self) -> bool:
        return any(ACTION_MAIN in f.actions and CATEGORY_LAUNCHER in f.categories for f in self.filters)


@dataclass(frozen=True)
class ApkInfo:
    package: str
    version_code: int
    version_name: str | None
    label: str
    min_sdk: int
    target_sdk: int
    min_sdk_line: int          # where <uses-sdk> sits in the manifest (the phone quotes it)
    test_only: bool
    debuggable: bool
    permissions: tuple[str, ...]
    activities: tuple[Activity, ...]
    input_methods: tuple[str, ...]   # services that bind as an input method (fully qualified)
    signature: str                   # a short hex digest of the signing certificate, as dumpsys shows it

    @property
    def launcher_activity(self) -> str | None:
        return next((a.name for a in self.activities if a.is_launcher), None)


def read_apk(data: bytes, path: str) -> ApkInfo:
    """Parse an APK the phone received at `path` (the path is quoted in error messages)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise ApkError("INSTALL_PARSE_FAILED_NOT_APK",
                       f"Failed to parse {path}: Failed to load asset path {path}") from None
    with archive:
        if ANDROID_MANIFEST not in names:
            raise ApkError("INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION", f"Failed to parse {path}: {ANDROID_MANIFEST}")
        try:
            if any(archive.getinfo(n).file_size > _MAX_METADATA_BYTES for n in (ANDROID_MANIFEST, "resources.arsc")
                   if n in names):
                raise AxmlError("metadata larger than any real manifest or resource table")
            manifest = parse_axml(archive.read(ANDROID_MANIFEST))
            arsc = archive.read("resources.arsc") if "resources.arsc" in names else b""
            certificate = next((archive.read(n) for n in sorted(names) if _V1_SIGNATURE.match(n)), None)
        except (AxmlError, zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError) as exc:
            raise ApkError("INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION",
                           f"Failed to parse {path}: Binary XML file line #-1: {exc}") from None
    if certificate is None and _V2_SIGNATURE_MAGIC in data:
        certificate = data[data.rfind(_V2_SIGNATURE_MAGIC) - 64:]
    if certificate is None:
        raise ApkError("INSTALL_PARSE_FAILED_NO_CERTIFICATES",
                       f"Failed to collect certificates from {path}: Attempt to get length of null array")
    return _manifest_info(manifest, arsc, path, f"{zlib.crc32(certificate):08x}")


def _manifest_info(manifest: XmlElement, arsc: bytes, path: str, signature: str) -> ApkInfo:
    if manifest.tag != "manifest":
        raise ApkError("INSTALL_PARSE_FAILED_MANIFEST_MALFORMED",
                       f"Failed to parse {path}: No <manifest> tag in {ANDROID_MANIFEST}")
    package = manifest.attributes.get("package")
    if not isinstance(package, str) or not package:
        raise ApkError("INSTALL_PARSE_FAILED_BAD_MANIFEST",
                       f"Failed to parse {path}: <manifest> does not specify package")
    if not _PACKAGE_NAME.match(package):
        raise ApkError("INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME",
                       f"Failed to parse {path}: Invalid manifest package: bad character or missing '.' separator")
    uses_sdk = next(iter(manifest.find_all("uses-sdk")), None)
    min_sdk = _int(uses_sdk.attributes.get("minSdkVersion"), 1) if uses_sdk else 1
    target_sdk = _int(uses_sdk.attributes.get("targetSdkVersion"), min_sdk) if uses_sdk else min_sdk
    application = next(iter(manifest.find_all("application")), XmlElement("application"))
    label = application.attributes.get("label")
    if isinstance(label, ResourceRef):
        label = _resource_string(arsc, label.resource_id)
    version_name = manifest.attributes.get("versionName")
    return ApkInfo(
        package=package,
        version_code=_int(manifest.attributes.get("versionCode"), 0),
        version_name=str(version_name) if version_name is not None else None,
        label=label if isinstance(label, str) and label else package,
        min_sdk=min_sdk,
        target_sdk=target_sdk,
        min_sdk_line=uses_sdk.line if uses_sdk else manifest.line,
        test_only=application.attributes.get("testOnly") is True,
        debuggable=application.attributes.get("debuggable") is True,
        permissions=tuple(str(p.attributes.get("name")) for p in manifest.find_all("uses-permission")
                          if isinstance(p.attributes.get("name"), str)),
        activities=tuple(_activities(application, package)),
        input_methods=tuple(_class_name(package, s.attributes.get("name")) for s in application.find_all("service")
                            if s.attributes.get("permission") == BIND_INPUT_METHOD
                            or any(ACTION_INPUT_METHOD in f.actions for f in _filters(s))),
        signature=signature,
    )


def _activities(application: XmlElement, package: str):
    for element in application.children:
        if element.tag not in ("activity", "activity-alias") or element.attributes.get("enabled") is False:
            continue
        filters = _filters(element)
        exported = element.attributes.get("exported")
        yield Activity(_class_name(package, element.attributes.get("name")),
                       exported if isinstance(exported, bool) else bool(filters), filters)


def _filters(component: XmlElement) -> tuple[IntentFilter, ...]:
    found = []
    for f in component.find_all("intent-filter"):
        found.append(IntentFilter(_values(f, "action", "name"), _values(f, "category", "name"),
                                  _values(f, "data", "scheme")))
    return tuple(found)


def _values(element: XmlElement, tag: str, attribute: str) -> tuple[str, ...]:
    return tuple(str(e.attributes[attribute]) for e in element.find_all(tag)
                 if isinstance(e.attributes.get(attribute), str))


def _class_name(package: str, name: object) -> str:
    name = name if isinstance(name, str) else ""
    if name.startswith("."):
        return package + name
    return name if "." in name else f"{package}.{name}"


def _int(value: object, default: int) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        return default  # a codename (e.g. minSdkVersion="VanillaIceCream") or a reference


# ---------------------------------------------------------------------------- resources.arsc

RES_TABLE_PACKAGE_TYPE, RES_TABLE_TYPE_TYPE = 0x0200, 0x0201
_FLAG_SPARSE, _FLAG_OFFSET16 = 0x01, 0x02
_ENTRY_COMPLEX, _ENTRY_COMPACT = 0x0001, 0x0008


def _resource_string(arsc: bytes, resource_id: int) -> str | None:
    """The string a resource id names, preferring the default configuration; None when absent."""
    try:
        return _find_string(arsc, resource_id)
    except (struct.error, IndexError, AxmlError):
        return None


def _find_string(arsc: bytes, resource_id: int) -> str | None:
    if len(arsc) < 12:
        return None
    end = min(len(arsc), struct.unpack_from("<I", arsc, 4)[0])
    pos = struct.unpack_from("<H", arsc, 2)[0]
    values: list[str] = []
    found: str | None = None
    while pos + 8 <= end:
        chunk_type, header_size, size = struct.unpack_from("<HHI", arsc, pos)
        if size < 8:
            return None
        if chunk_type == 0x0001 and not values:
            values = read_string_pool(arsc, pos)
        elif chunk_type == RES_TABLE_PACKAGE_TYPE and struct.unpack_from("<I", arsc, pos + 8)[0] == resource_id >> 24:
            sub = pos + header_size
            while sub + 8 <= min(end, pos + size):
                sub_type, _sub_header, sub_size = struct.unpack_from("<HHI", arsc, sub)
                if sub_size < 8:
                    return found
                if sub_type == RES_TABLE_TYPE_TYPE and arsc[sub + 8] == (resource_id >> 16) & 0xFF:
                    value, default_config = _entry_string(arsc, sub, resource_id & 0xFFFF, values)
                    if value is not None and (default_config or found is None):
                        found = value
                        if default_config:
                            return found
                sub += sub_size
        pos += size
    return found


def _entry_string(arsc: bytes, chunk: int, index: int, values: list[str]) -> tuple[str | None, bool]:
    flags = arsc[chunk + 9]
    entry_count, entries_start = struct.unpack_from("<II", arsc, chunk + 12)
    header_size = struct.unpack_from("<H", arsc, chunk + 2)[0]
    config_size = struct.unpack_from("<I", arsc, chunk + 20)[0]
    default_config = not any(arsc[chunk + 24:chunk + 20 + config_size])
    offsets = chunk + header_size
    offset = None
    if flags & _FLAG_SPARSE:
        for i in range(entry_count):
            idx, off = struct.unpack_from("<HH", arsc, offsets + 4 * i)
            if idx == index:
                offset = off * 4
    elif index < entry_count:
        if flags & _FLAG_OFFSET16:
            raw = struct.unpack_from("<H", arsc, offsets + 2 * index)[0]
            offset = None if raw == 0xFFFF else raw * 4
        else:
            raw = struct.unpack_from("<I", arsc, offsets + 4 * index)[0]
            offset = None if raw == 0xFFFFFFFF else raw
    if offset is None:
        return None, default_config
    entry = chunk + entries_start + offset
    size_or_key, entry_flags = struct.unpack_from("<HH", arsc, entry)
    if entry_flags & _ENTRY_COMPACT:
        value_type, data = entry_flags >> 8, struct.unpack_from("<I", arsc, entry + 4)[0]
    elif entry_flags & _ENTRY_COMPLEX:
        return None, default_config
    else:
        value_type, data = arsc[entry + size_or_key + 3], struct.unpack_from("<I", arsc, entry + size_or_key + 4)[0]
    if value_type == 0x03 and data < len(values):
        return values[data], default_config
    return None, default_config
