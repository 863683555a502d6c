"""A reader for Android's binary XML (AXML), the form AndroidManifest.xml takes inside an APK.

Only what the package manager needs is read: the element tree with typed attribute values.
The format is a list of chunks (string pool, resource-id map, namespace and element nodes);
every offset and length is checked, so a damaged file raises `AxmlError`, never anything else.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

RES_XML_TYPE = 0x0003
RES_STRING_POOL_TYPE = 0x0001
RES_XML_RESOURCE_MAP_TYPE = 0x0180
RES_XML_START_NAMESPACE_TYPE = 0x0100
RES_XML_END_NAMESPACE_TYPE = 0x0101
RES_XML_START_ELEMENT_TYPE = 0x0102
RES_XML_END_ELEMENT_TYPE = 0x0103
RES_XML_CDATA_TYPE = 0x0104
UTF8_FLAG = 0x100
NO_INDEX = 0xFFFFFFFF

TYPE_REFERENCE, TYPE_STRING = 0x01, 0x03
TYPE_INT_DEC, TYPE_INT_HEX, TYPE_INT_BOOLEAN = 0x10, 0x11, 0x12

# android:* attributes the package manager reads, by resource id (names may be stripped in release builds).
ANDROID_ATTRIBUTES = {
    0x01010001: "label", 0x01010003: "name", 0x01010006: "permission", 0x0101000E: "enabled",
    0x0101000F: "debuggable", 0x01010010: "exported", 0x01010026: "mimeType", 0x01010027: "scheme",
    0x01010028: "host", 0x0101020C: "minSdkVersion", 0x0101021B: "versionCode", 0x0101021C: "versionName",
    0x01010270: "targetSdkVersion", 0x01010272: "testOnly", 0x01010202: "targetActivity",
}


class AxmlError(ValueError):
    """The bytes are not a well-formed binary XML document."""


@dataclass(frozen=True)
class ResourceRef:
    """An attribute value that points into resources.arsc (e.g. @string/app_name)."""

    resource_id: int

    def __str__(self) -> str:
        return f"@0x{self.resource_id:08x}"


@dataclass
class XmlElement:
    tag: str
    attributes: dict[str, object] = field(default_factory=dict)
    children: list[XmlElement] = field(default_factory=list)
    line: int = 0

    def find_all(self, tag: str) -> list[XmlElement]:
        return [child for child in self.children if child.tag == tag]


def _u16(data: bytes, offset: int) -> int:
    return struct.unpack_from("<H", data, offset)[0]


def _u32(data: bytes, offset: int) -> int:
    return struct.unpack_from("<I", data, offset)[0]


def read_string_pool(data: bytes, start: int) -> list[str]:
    """Strings of a ResStringPool chunk that begins at `start` (UTF-8 or UTF-16)."""
    header_size, size = _u16(data, start + 2), _u32(data, start + 4)
    count, _styles, flags, strings_start = struct.unpack_from("<IIII", data, start + 8)
    end = start + size
    if end > len(data) or header_size < 28 or start + header_size + 4 * count > end:
        raise AxmlError("string pool runs past its chunk")
    utf8 = bool(flags & UTF8_FLAG)
    strings = []
    for i in range(count):
        at = start + strings_start + _u32(data, start + header_size + 4 * i)
        if at >= end:
            raise AxmlError("string offset outside the pool")
        strings.append(_utf8_string(data, at, end) if utf8 else _utf16_string(data, at, end))
    return strings


def _utf8_string(data: bytes, at: int, end: int) -> str:
    def length(pos: int) -> tuple[int, int]:
        first = data[pos]
        if first & 0x80:
            return ((first & 0x7F) << 8) | data[pos + 1], pos + 2
        return first, pos + 1

    _chars, at = length(at)
    size, at = length(at)
    if at + size > end:
        raise AxmlError("string runs past the pool")
    return data[at:at + size].decode("utf-8", "replace")


def _utf16_string(data: bytes, at: int, end: int) -> str:
    size = _u16(data, at)
    at += 2
    if size & 0x8000:
        size = ((size & 0x7FFF) << 16) | _u16(data, at)
        at += 2
    if at + 2 * size > end:
        raise AxmlError("string runs past the pool")
    return data[at:at + 2 * size].decode("utf-16-le", "replace")


def parse_axml(data: bytes) -> XmlElement:
    """The root element of a binary XML document."""
    try:
        return _parse(data)
    except (struct.error, IndexError) as exc:
        raise AxmlError(f"truncated binary XML: {exc}") from None


def _parse(data: bytes) -> XmlElement:
    if len(data) < 8 or _u16(data, 0) != RES_XML_TYPE:
        raise AxmlError("not a binary XML file")
    end = min(len(data), _u32(data, 4))
    pos = _u16(data, 2)
    strings: list[str] = []
    resource_ids: list[int] = []
    stack: list[XmlElement] = []
    root: XmlElement | None = None

    def string(index: int) -> str:
        if index == NO_INDEX:
            return ""
        if index >= len(strings):
            raise AxmlError("string index outside the pool")
        return strings[index]

    while pos + 8 <= end:
        chunk_type, header_size, size = _u16(data, pos), _u16(data, pos + 2), _u32(data, pos + 4)
        if size < 8 or pos + size > end:
            raise AxmlError("chunk runs past the end of the file")
        if chunk_type == RES_STRING_POOL_TYPE:
            strings = read_string_pool(data, pos)
        elif chunk_type == RES_XML_RESOURCE_MAP_TYPE:
            resource_ids = [_u32(data, at) for at in range(pos + header_size, pos + size - 3, 4)]
        elif chunk_type == RES_XML_START_ELEMENT_TYPE:
            element = _element(data, pos, header_size, string, resource_ids)
            if stack:
                stack[-1].children.append(element)
            elif root is None:
                root = element
            else:
                raise AxmlError("more than one root element")
            stack.append(element)
        elif chunk_type == RES_XML_END_ELEMENT_TYPE:
            if not stack:
                raise AxmlError("an element ends that never started")
            stack.pop()
        pos += size
    if root is None:
        raise AxmlError("no root element")
    return root


def _element(data: bytes, pos: int, header_size: int, string, resource_ids: list[int]) -> XmlElement:
    line = _u32(data, pos + 8)
    at = pos + header_size
    _ns, name, attr_start, attr_size, attr_count = struct.unpack_from("<IIHHH", data, at)
    element = XmlElement(string(name), line=line)
    for i in range(attr_count):
        a = at + attr_start + i * attr_size
        _attr_ns, attr_name, raw, _size, _res0, value_type, value = struct.unpack_from("<IIIHBBI", data, a)
        key = string(attr_name)
        if attr_name < len(resource_ids) and resource_ids[attr_name] in ANDROID_ATTRIBUTES:
            key = ANDROID_ATTRIBUTES[resource_ids[attr_name]]
        element.attributes[key] = _value(value_type, value, string(raw) if raw != NO_INDEX else None, string)
    return element


def _value(value_type: int, value: int, raw: str | None, string) -> object:
    if value_type == TYPE_STRING:
        return string(value)
    if value_type == TYPE_INT_BOOLEAN:
        return value != 0
    if value_type in (TYPE_INT_DEC, TYPE_INT_HEX):
        return value - (1 << 32) if value >= 1 << 31 else value
    if value_type == TYPE_REFERENCE:
        return ResourceRef(value)
    return raw if raw is not None else value
