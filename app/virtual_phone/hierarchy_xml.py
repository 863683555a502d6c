"""Write a view tree as `uiautomator dump` does (AccessibilityNodeInfoDumper + Android's KXmlSerializer).

What is copied from the phone:
- the document: `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="N">`, one
  line, childless nodes written `<node … />`, no trailing newline;
- the attributes of the Android version the phone claims, in its order (`profile.dump_attributes`),
  with `NAF="true"` first on clickable, enabled nodes that have no text or content-desc themselves nor
  anywhere below them (nafCheck; GridView, GridLayout, ListView and TableLayout are exempt);
- which nodes: a child that is not visible to the user (entirely clipped away by its ancestors) is
  skipped but keeps its index, so the indices of its siblings have gaps;
- bounds: the node's bounds clipped by its ancestors, then by the display size the dumper reads
  (older versions read `display.getSize()`, which leaves out the navigation bar); a node wholly
  outside that rectangle is written `[0,0][0,0]` (AccessibilityNodeInfoHelper.getVisibleBoundsInScreen),
  which is where the zero-size nodes of older real dumps come from (`android:id/navigationBarBackground`);
- `drawing-order` as View.populateAccessibilityNodeInfoDrawingOrderInParent computes it: 0 for a
  window's root, else 1 + the number of views drawn before it in its parent, GONE ones included;
  for nodes a provider reports, what the provider says: Compose the node's index, Chromium 0;
- text: characters the dumper strips become '.', then KXmlSerializer quotes the value with " (or
  with ' when the value holds a "), escapes & < > and that quote, writes tab, newline and carriage
  return as &#9; &#10; &#13; and characters beyond the BMP (emoji) as &#CODEPOINT;.

A phone's serializer refuses U+0000, U+FFFE and U+FFFF and the dump fails; here they become '.'
like the characters the dumper strips, so the virtual phone always answers.
"""

from __future__ import annotations

from .views import BY_COMPOSE, Rect, View, Window, intersect

NAF_EXCLUDED_CLASSES = ("android.widget.GridView", "android.widget.GridLayout", "android.widget.ListView",
                        "android.widget.TableLayout")
_ZERO: Rect = (0, 0, 0, 0)
_STRIPPED = frozenset([*range(0x1, 0x9), 0xB, 0xC, *range(0xE, 0x20), *range(0x7F, 0x85), *range(0x86, 0xA0),
                       *range(0xFDD0, 0xFDE0), 0x0, 0xFFFE, 0xFFFF, *range(0xD800, 0xE000)])
_ESCAPED = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}


def _plain(value: str) -> bool:
    return value.isascii() and value.isprintable() and not any(c in value for c in "&<>\"'")


def attribute(name: str, value: str) -> str:
    """` name="value"` exactly as the phone writes it (see the module docstring)."""
    if _plain(value):
        return f' {name}="{value}"'
    quote = "'" if '"' in value else '"'
    out = []
    for ch in value:
        code = ord(ch)
        if code in _STRIPPED:
            out.append(".")
        elif ch in _ESCAPED:
            out.append(_ESCAPED[ch])
        elif ch == quote:
            out.append("&quot;" if quote == '"' else "&apos;")
        elif code > 0xFFFF:
            out.append(f"&#{code};")
        else:
            out.append(ch)
    return f" {name}={quote}{''.join(out)}{quote}"


def _labelled_below(view: View) -> bool:
    """childNafCheck: some node below has text or a content-desc (visible or not)."""
    for child in view.children:
        if not child.dump or child.gone:
            continue
        if child.text or child.desc or _labelled_below(child):
            return True
    return False


def is_naf(view: View) -> bool:
    """Whether uiautomator marks this node NAF ("not accessibility friendly")."""
    if view.cls.endswith(NAF_EXCLUDED_CLASSES):
        return False
    return (view.clickable and view.enabled and not view.desc and not view.text
            and not _labelled_below(view))


def _bool(v: bool) -> str:
    return "true" if v else "false"


class _Writer:
    def __init__(self, attributes: tuple[str, ...], screen: Rect) -> None:
        self.attributes = attributes
        self.screen = screen
        self.out: list[str] = []

    def node(self, view: View, index: int, order: int, package: str, visible: Rect, host: Rect | None) -> None:
        """Write `view`, already known to be visible in `visible` (window coordinates)."""
        shown = intersect(visible, self.screen) or _ZERO
        view.visible_bounds = shown
        values = {
            "index": str(index), "text": view.text, "resource-id": view.rid, "class": view.cls,
            "package": package, "content-desc": view.desc, "checkable": _bool(view.checkable),
            "checked": _bool(view.checked), "clickable": _bool(view.clickable), "enabled": _bool(view.enabled),
            "focusable": _bool(view.focusable), "focused": _bool(view.focused),
            "scrollable": _bool(view.scrollable), "long-clickable": _bool(view.long_clickable),
            "password": _bool(view.password), "selected": _bool(view.selected),
            "bounds": f"[{shown[0]},{shown[1]}][{shown[2]},{shown[3]}]", "drawing-order": str(order),
            "hint": view.hint,
        }
        out = self.out
        out.append("<node")
        if is_naf(view):
            out.append(' NAF="true"')
        out.extend(attribute(name, values[name]) for name in self.attributes)
        mark = len(out)
        out.append(">")
        host = visible if view.provider and host is None else host  # the provider's host clips its nodes
        wrote_child = False
        child_index, drawn_before = 0, 0
        for child in view.children:
            if not child.dump:
                continue
            if not child.provider:
                drawn_before += 1
            if child.gone:
                continue
            clip = host if child.provider and host is not None else visible
            child_visible = intersect(child.bounds, clip)
            if child_visible is not None:
                order = {"": drawn_before, BY_COMPOSE: child_index}.get(child.provider, 0)
                self.node(child, child_index, order, package, child_visible, host if child.provider else None)
                wrote_child = True
            child_index += 1
        if wrote_child:
            out.append("</node>")
        else:
            out[mark] = " />"


def forget(windows: list[Window]) -> None:
    """Clear `visible_bounds` in these windows (before a dump that may leave some of them out)."""
    for win in windows:
        for view in win.root.walk():
            view.visible_bounds = None


def dump(windows: list[Window], rotation: int, attributes: tuple[str, ...], display: Rect, screen: Rect) -> str:
    """The XML of `windows` (uiautomator writes one, the active window) on a display of `display`
    pixels, node bounds clipped to `screen` (the size the dumper reads)."""
    forget(windows)
    writer = _Writer(attributes, screen)
    writer.out.append(f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"{rotation}\">")
    for win in windows:
        root = win.root
        visible = intersect(root.bounds, display)
        if visible is not None:
            writer.node(root, 0, 0, win.package, visible, None)
    writer.out.append("</hierarchy>")
    return "".join(writer.out)
