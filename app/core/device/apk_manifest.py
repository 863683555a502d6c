"""The package name inside an APK, read on this computer before the file goes to the phone.

An APK is a zip holding AndroidManifest.xml in Android's binary XML: a string pool, then element
chunks. Only the root element's `package` attribute is needed, so only that much is read. Knowing
the name first lets a drop say which app it installed, and refuse a file that is no APK at all
before sending megabytes to the phone. Every offset is checked: a damaged file raises NotAnApk.
"""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

MANIFEST = "AndroidManifest.xml"
MAX_MANIFEST_BYTES = 8 * 1024 * 1024
_XML, _STRING_POOL, _START_ELEMENT = 0x0003, 0x0001, 0x0102
_UTF8 = 0x100
_NO_INDEX = 0xFFFFFFFF
_TYPE_STRING = 0x03


class NotAnApk(ValueError):
    """The file is not an Android package (no zip, no manifest, or a damaged one)."""


def apk_package_name(path: Path) -> str:
    """The `package` of the APK's manifest; raises NotAnApk with a sentence saying what is wrong."""
    try:
        with zipfile.ZipFile(path) as apk:
            info = apk.getinfo(MANIFEST)
            if info.file_size > MAX_MANIFEST_BYTES:
                raise NotAnApk(f"{path.name} is not an Android app: its manifest is implausibly large.")
            data = apk.read(info)
    except KeyError:
        raise NotAnApk(f"{path.name} is not an Android app: it has no {MANIFEST}.") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, RuntimeError, ValueError) as exc:
        if isinstance(exc, NotAnApk):
            raise
        raise NotAnApk(f"{path.name} is not an Android app (an APK is a zip file): {exc}") from None
    try:
        return _manifest_package(data)
    except (struct.error, IndexError, UnicodeDecodeError, ValueError) as exc:
        raise NotAnApk(f"{path.name} is not an Android app: its manifest cannot be read ({exc}).") from None


def _manifest_package(data: bytes) -> str:
    kind, header_size, total = struct.unpack_from("<HHI", data, 0)
    if kind != _XML or total > len(data):
        raise ValueError("not binary XML")
    strings: list[str] = []
    offset = header_size
    while offset + 8 <= total:
        kind, chunk_header, size = struct.unpack_from("<HHI", data, offset)
        if size < 8 or offset + size > total:
            raise ValueError("a chunk runs past the end")
        if kind == _STRING_POOL:
            strings = _string_pool(data[offset:offset + size], chunk_header)
        elif kind == _START_ELEMENT:
            return _package_attribute(data, offset, chunk_header, strings)
        offset += size
    raise ValueError("no root element")


def _string_pool(chunk: bytes, header_size: int) -> list[str]:
    count, _styles, flags, strings_start, _ = struct.unpack_from("<IIIII", chunk, 8)
    offsets = struct.unpack_from(f"<{count}I", chunk, header_size)
    return [_pool_string(chunk, strings_start + offset, bool(flags & _UTF8)) for offset in offsets]


def _pool_string(chunk: bytes, at: int, utf8: bool) -> str:
    if utf8:
        at = _skip_length8(chunk, at)                      # length in characters
        length = chunk[at]
        at += 1
        if length & 0x80:
            length = ((length & 0x7F) << 8) | chunk[at]
            at += 1
        if at + length > len(chunk):
            raise ValueError("a string runs past its pool")
        return chunk[at:at + length].decode("utf-8")
    (length,) = struct.unpack_from("<H", chunk, at)
    at += 2
    if length & 0x8000:
        (low,) = struct.unpack_from("<H", chunk, at)
        length, at = ((length & 0x7FFF) << 16) | low, at + 2
    if at + 2 * length > len(chunk):
        raise ValueError("a string runs past its pool")
    return chunk[at:at + 2 * length].decode("utf-16-le")


def _skip_length8(chunk: bytes, at: int) -> int:
    return at + (2 if chunk[at] & 0x80 else 1)


def _package_attribute(data: bytes, offset: int, header_size: int, strings: list[str]) -> str:
    body = offset + header_size
    _ns, name, attr_start, attr_size, attr_count = struct.unpack_from("<IIHHH", data, body)
    if strings[name] != "manifest":
        raise ValueError(f"the root element is <{strings[name]}>, not <manifest>")
    for index in range(attr_count):
        at = body + attr_start + index * attr_size
        _ns, attr_name, raw, _size, _res0, data_type, value = struct.unpack_from("<IIIHBBI", data, at)
        if attr_name < len(strings) and strings[attr_name] == "package":
            chosen = raw if raw != _NO_INDEX else (value if data_type == _TYPE_STRING else _NO_INDEX)
            if chosen == _NO_INDEX or not strings[chosen]:
                break
            return strings[chosen]
    raise ValueError("the manifest names no package")
