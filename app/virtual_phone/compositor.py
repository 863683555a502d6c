"""Composing the screen: the top-level windows (status bar, app, dialog, navigation bar, keyboard),
their pictures and the UI dump. Mixed into VirtualPhone; everything here runs under `lock`."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFilter

from . import fonts, hierarchy_xml, keyboard, render, system_ui, theme
from .apps import LAUNCHER, App, Screen
from .theme import Metrics
from .views import FRAME, LINEAR, TEXT, View, Window
from .widgets import Ctx

if TYPE_CHECKING:
    from .phone import VirtualPhone

OVERVIEW_BG = (38, 40, 44)


@lru_cache(maxsize=4)
def _wallpaper(size: tuple[int, int]) -> Image.Image:
    w, h = size
    top, bottom = (38, 50, 120), (16, 120, 130)
    grad = Image.linear_gradient("L").resize((w, h))
    img = Image.merge("RGB", [grad.point(lambda v, a=a, b=b: int(a + (b - a) * v / 255)) for a, b in zip(top, bottom)])
    glow = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(glow)
    d.ellipse((-w // 3, h // 3, w, h + h // 6), fill=60)
    d.ellipse((w // 2, -h // 8, w + w // 2, h // 3), fill=40)
    glow = glow.filter(ImageFilter.GaussianBlur(max(8, w // 12)))
    img.paste((120, 200, 255), (0, 0, w, h), glow)
    return img.convert("RGBA")



class WindowsMixin:
    # ------------------------------------------------------------------ windows
    def _windows(self: "VirtualPhone") -> tuple[list[Window], list[Window]]:
        """(paint order, dump order), cached until the next change."""
        self._tick()
        if self._built is not None and self._built[0] == self._version:
            return self._built[1], self._built[2]
        m = self.metrics()
        content = self._content_rect(m)
        launcher_shown = self.overview or self.fg == LAUNCHER
        app = self.apps[LAUNCHER] if self.overview else self.foreground_app
        app.ensure_started()
        screen = app.top
        kb_rect = None
        if self.keyboard_visible:
            kh = m.keyboard_h if self.current_ime == keyboard.LATIN_IME else m.dp(40)
            kb_rect = (content[0], content[3] - kh, content[2], content[3])
        app_content = content if kb_rect is None else (content[0], content[1], content[2], kb_rect[1])
        ctx = Ctx(self, app, screen, m, app_content, kb_rect[1] if kb_rect else None)
        views = app.build_overview(ctx) if self.overview else screen.build(ctx)
        app_win = self._app_window(app, screen, views, app_content, m, launcher_shown)
        status = self._status_window(m, OVERVIEW_BG if self.overview else (None if launcher_shown else screen.bar_color))
        navbar = Window(system_ui.build_nav_bar(
            m, self.rotation, on_back=self.press_back, on_home=self.go_home, on_recents=self.show_recents,
            ime_shown=kb_rect is not None, transparent=launcher_shown), system_ui.PKG, "navbar")
        paint = [app_win]
        dump = [status, app_win]
        if not self.overview and screen.dialog is not None:
            dialog = Window(screen.dialog.build(ctx), app.package, "dialog", on_outside=screen.dialog.cancel,
                            dim=screen.dialog.dim)
            paint.append(dialog)
            dump.append(dialog)
        if self._toast is not None:
            paint.append(Window(self._toast_view(m, app_content), system_ui.PKG, "toast"))
        paint += [status, navbar]
        dump.append(navbar)
        if kb_rect is not None:
            if self.current_ime == keyboard.LATIN_IME:
                f = self.focused()
                itype = f[0].fields[f[1]].input_type if f else "text"
                root = keyboard.build_keyboard(kb_rect, self.kb_mode, self.kb_shift, itype, self.density / 160,
                                               self.ime_key)
                ime = Window(root, keyboard.LATIN_PACKAGE, "ime")
            else:
                ime = Window(keyboard.build_adb_bar(kb_rect, self.density / 160), keyboard.ADB_PACKAGE, "ime")
            paint.append(ime)
            dump.append(ime)
        self._built = (self._version, paint, dump)
        return paint, dump

    def _content_rect(self, m: Metrics):
        sb = system_ui.status_bar_rect(m, self.rotation)
        nav = system_ui.nav_bar_rect(m, self.rotation)
        if m.landscape:
            return (nav[2] if self.rotation == 3 else 0, sb[3], nav[0] if self.rotation != 3 else m.width, m.height)
        return (0, sb[3], m.width, nav[1])

    def _app_window(self, app: App, screen: Screen, views: list[View], content, m: Metrics, transparent: bool) -> Window:
        bg = OVERVIEW_BG if self.overview and app.package == LAUNCHER else (None if transparent else screen.background)
        root = View(FRAME, (0, 0, m.width, m.height), **({"bg": bg} if bg else {}))
        if not transparent and screen.bar_color is not None and screen.bar_color != bg:
            root.add(View(FRAME, system_ui.status_bar_rect(m, self.rotation), kind="fill", bg=screen.bar_color, dump=False))
        decor = View(LINEAR, (0, 0, m.width, m.height))
        decor.add(View(FRAME, content, *views, rid="android:id/content"))
        root.add(decor)
        return Window(root, app.package, "app")

    def _status_window(self, m: Metrics, bg) -> Window:
        return Window(system_ui.build_status_bar(
            m, self.rotation, clock=self._clock_text(), wifi=self.settings.flag("global", "wifi_on"),
            bluetooth=self.settings.flag("global", "bluetooth_on"),
            airplane=self.settings.flag("global", "airplane_mode_on"), bg=bg), system_ui.PKG, "statusbar")

    def app_picture(self, app: App) -> Image.Image:
        """The app's current screen as it would look in front (for Overview thumbnails)."""
        with self.lock:
            app.ensure_started()
            m = self.metrics()
            content = self._content_rect(m)
            screen = app.top
            views = screen.build(Ctx(self, app, screen, m, content))
            windows = [self._app_window(app, screen, views, content, m, False), self._status_window(m, screen.bar_color)]
            return render.render(windows, (m.width, m.height))

    def _clock_text(self) -> str:
        t = self.clock()
        if self.settings.get("system", "time_12_24") == "24":
            return t.strftime("%H:%M")
        return f"{(t.hour % 12) or 12}:{t.minute:02d}"

    def _toast_view(self, m: Metrics, content) -> View:
        text = self._toast[0] if self._toast else ""
        px = m.dp(14)
        w = min(content[2] - content[0] - m.dp(48), fonts.width(text, px) + m.dp(32))
        cx = (content[0] + content[2]) // 2
        b = content[3] - m.dp(64)
        return View(TEXT, (cx - w // 2, b - m.dp(40), cx + w // 2, b), text=text, kind="text", size=px,
                    color=theme.WHITE, align="center", bg=(50, 50, 50), radius=m.dp(20), dump=False)

    def windows(self) -> list[Window]:
        """Top-level windows in dump order (status bar, app, dialog, navigation bar, keyboard)."""
        with self.lock:
            return list(self._windows()[1])

    # ------------------------------------------------------------------ picture and dump
    def screenshot(self) -> Image.Image:
        """RGBA picture of the display; the same object is returned until `version` changes (read-only)."""
        with self.lock:
            v = self.version
            if self._shot is not None and self._shot[0] == v:
                return self.motion.picture(self._shot[1])
            paint, _ = self._windows()
            size = self.display_size()
            if not self.screen_on:
                img = Image.new("RGBA", size, (0, 0, 0, 255))
            else:
                base = _wallpaper(size) if (self.fg == LAUNCHER and not self.overview) else None
                img = render.render(paint, size, base)
            self._shot = (v, img)
            return self.motion.picture(img)

    def last_picture(self: "VirtualPhone") -> "Image.Image | None":
        """The last picture rendered, whether or not it is still current (the start of a transition)."""
        with self.lock:
            return self._shot[1] if self._shot is not None else None

    def animating_without_end(self: "VirtualPhone") -> bool:
        """Whether the screen in front animates continuously (a spinner, a running timer)."""
        with self.lock:
            if not self.screen_on or self.overview:
                return False
            top = self.foreground_app.top
            return bool(top is not None and getattr(top, "animating", False))

    def dump_hierarchy(self) -> str:
        with self.lock:
            v = self.version
            if self._xml is not None and self._xml[0] == v:
                return self._xml[1]
            _, dump = self._windows()
            xml = hierarchy_xml.dump(dump, self.rotation, self.display_size())
            self._xml = (v, xml)
            return xml

