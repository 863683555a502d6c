"""Composing the screen: the top-level windows (status bar, app, dialog, navigation bar, keyboard),
their pictures and the UI dump. Mixed into VirtualPhone; everything here runs under `lock`.

An app's window is built as a phone builds it: a DecorView (FrameLayout) holding a LinearLayout
(with a GONE action-mode ViewStub), the content parent, AppCompat's `action_bar_root` and
`android:id/content`, then the status and navigation bar backgrounds. A dialog gets a window of
its own. `uiautomator dump` writes the active window only (the dialog when one is up, else the
app); a FLAG_SECURE window is black in every picture while its dump still lists its controls.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, cast

from PIL import Image, ImageDraw, ImageFilter

from . import fonts, hierarchy_xml, keyboard, render, system_ui, theme
from .apps import LAUNCHER, App, Screen
from .damage import MARGIN_DP, DamageRenderer
from .phone_parts import PhoneParts
from .theme import Metrics
from .views import FRAME, LINEAR, TEXT, VIEW, VIEW_STUB, Rect, View, Window
from .widgets import Ctx

if TYPE_CHECKING:
    from .phone import VirtualPhone

OVERVIEW_BG = (38, 40, 44)


@lru_cache(maxsize=4)
def _wallpaper(size: tuple[int, int]) -> Image.Image:
    w, h = size
    top, bottom = (38, 50, 120), (16, 120, 130)
    grad = Image.linear_gradient("L").resize((w, h))
    img = Image.merge("RGB",
                      [grad.point(lambda v, a=a, b=b: int(a + (b - a) * v / 255)) for a,
                       b in zip(top, bottom, strict=True)])
    glow = Image.new("L", (w, h), 0)
    d = ImageDraw.Draw(glow)
    d.ellipse((-w // 3, h // 3, w, h + h // 6), fill=60)
    d.ellipse((w // 2, -h // 8, w + w // 2, h // 3), fill=40)
    glow = glow.filter(ImageFilter.GaussianBlur(max(8, w // 12)))
    img.paste((120, 200, 255), (0, 0, w, h), glow)
    return img.convert("RGBA")



class WindowsMixin(PhoneParts):
    _animation_frame: object = None
    _all_xml: tuple[int, str] | None = None   # (version, dump_all_windows()); `_xml` caches dump_hierarchy()
    _damage: DamageRenderer | None = None     # repaints only what changed since the last picture
    repaint_only_changes = True               # False: a whole picture every time (the bench's baseline)
    _bounds_from: str = ""                      # the dump that last set views' visible_bounds

    # ------------------------------------------------------------------ windows
    def _windows(self) -> tuple[list[Window], list[Window]]:
        """(paint order, touch order), cached until the next change."""
        self._tick()
        self._follow_animation()
        if self._built is not None and self._built[0] == self._version:
            return self._built[1], self._built[2]
        m = self.metrics()
        if self.keyguard_showing:     # the lock screen covers every app
            keyguard, status = self.keyguard_window(m), self._status_window(m, None)
            self._built = (self._version, [keyguard, status], [status, keyguard])
            return self._built[1], self._built[2]
        content = self._content_rect(m)
        launcher_shown = self.overview or self.fg == LAUNCHER
        app = self.launcher if self.overview else self.foreground_app
        screen = app.ensure_started()
        kb_rect = None
        if self.keyboard_visible:
            kh = m.keyboard_h if self.current_ime == keyboard.LATIN_IME else m.dp(40)
            kb_rect = (content[0], content[3] - kh, content[2], content[3])
        # adjustResize: the app's area ends above the keyboard; adjustPan (`keyboard_pans`): the keyboard covers it
        resized = kb_rect is not None and not getattr(screen, "keyboard_pans", False)
        app_content = (content[0], content[1], content[2], kb_rect[1]) if kb_rect is not None and resized else content
        # WindowsMixin is mixed into VirtualPhone only: this part is the phone.
        ctx = Ctx(cast("VirtualPhone", self), app, screen, m, app_content, kb_rect[1] if kb_rect else None)
        views = self.launcher.build_overview(ctx) if self.overview else screen.build(ctx)
        app_win = self._app_window(app, screen, views, app_content, m, launcher_shown)
        status = self._status_window(m,
                                     OVERVIEW_BG if self.overview else (None if launcher_shown else screen.bar_color))
        navbar = Window(system_ui.build_nav_bar(
            m, self.rotation, on_back=self.press_back, on_home=self.go_home, on_recents=self.show_recents,
            ime_shown=kb_rect is not None, transparent=launcher_shown), system_ui.PKG, "navbar")
        paint = [app_win]
        touch = [status, app_win]
        if not self.overview and screen.dialog is not None:
            dialog = Window(_dialog_decor(screen.dialog.build(ctx)), app.package, "dialog",
                            on_outside=screen.dialog.cancel, dim=screen.dialog.dim)
            paint.append(dialog)
            touch.append(dialog)
        system_dialog = self.system_dialog
        if system_dialog is not None and not self.overview:    # over the app and its own dialog, modal
            cancel = system_dialog.cancel
            window = Window(_dialog_decor(system_dialog.build(ctx)), system_dialog.package, "dialog",
                            on_outside=cancel if cancel is not None else (lambda: None), dim=True)
            paint.append(window)
            touch.insert(touch.index(app_win) + 1, window)    # before the app's dialog: touched and dumped first
        if self._toast is not None:
            paint.append(Window(self._toast_view(m, app_content), system_ui.PKG, "toast"))
        paint += [status, navbar]
        touch.append(navbar)
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
            touch.append(ime)
        self._built = (self._version, paint, touch)
        return paint, touch

    def _follow_animation(self) -> None:
        """A screen that animates without end (a running stopwatch) shows a new frame: redraw it."""
        if not self.screen_on or self.overview:
            return
        top = self.foreground_app.top
        if top is None or not top.animating:
            if self._animation_frame is not None:     # an animation ended (a list done loading): draw it once more
                self._animation_frame = None
                self.changed()
            return
        frame = top.animation_frame()
        if frame != self._animation_frame:
            self._animation_frame = frame
            self.changed()

    def _content_rect(self, m: Metrics):
        sb = system_ui.status_bar_rect(m, self.rotation)
        nav = system_ui.nav_bar_rect(m, self.rotation)
        if m.landscape:
            return (nav[2] if self.rotation == 3 else 0, sb[3], nav[0] if self.rotation != 3 else m.width, m.height)
        return (0, sb[3], m.width, nav[1])

    def _app_window(self, app: App, screen: Screen, views: list[View], content, m: Metrics,
                    transparent: bool) -> Window:
        """The app's window: DecorView › LinearLayout › [content parent › action_bar_root ›] content."""
        full = (0, 0, m.width, m.height)
        bg = OVERVIEW_BG if self.overview and app.package == LAUNCHER else (None if transparent else screen.background)
        decor = View(FRAME, full, bg=bg)   # no background: None, as the painter reads it
        column = View(LINEAR, full, View(VIEW_STUB, _NO_BOUNDS, rid="android:id/action_mode_bar_stub", gone=True))
        frame = View(FRAME, content, *views, rid="android:id/content")
        if app.appcompat:
            bar_root = View(LINEAR, content, rid=f"{app.package}:id/action_bar_root")
            bar_root.add(View(VIEW_STUB, _NO_BOUNDS, rid=f"{app.package}:id/action_mode_bar_stub", gone=True), frame)
            frame = View(FRAME, content, bar_root)
        decor.add(column.add(frame))
        if not transparent and screen.bar_color is not None:
            decor.add(View(VIEW, system_ui.status_bar_rect(m, self.rotation), rid="android:id/statusBarBackground",
                           kind="fill", bg=screen.bar_color),
                      View(VIEW, system_ui.nav_bar_rect(m, self.rotation), rid="android:id/navigationBarBackground"))
        return Window(decor, app.package, "app", secure=screen.secure and not self.overview)

    def _status_window(self, m: Metrics, bg) -> Window:
        return Window(system_ui.build_status_bar(
            m, self.rotation, clock=self._clock_text(), wifi=self.settings.flag("global", "wifi_on"),
            bluetooth=self.settings.flag("global", "bluetooth_on"),
            airplane=self.settings.flag("global", "airplane_mode_on"), bg=bg), system_ui.PKG, "statusbar")

    def app_picture(self, app: App) -> Image.Image:
        """The app's current screen as it would look in front (for Overview thumbnails); a secure
        screen leaves its thumbnail blank, as Android takes no snapshot of it."""
        with self.lock:
            screen = app.ensure_started()
            m = self.metrics()
            content = self._content_rect(m)
            if screen.secure:
                return Image.new("RGBA", (m.width, m.height), screen.background + (255,))
            views = screen.build(Ctx(cast("VirtualPhone", self), app, screen, m, content))
            windows = [self._app_window(app, screen, views, content, m, False),
                       self._status_window(m, screen.bar_color)]
            return render.render(windows, (m.width, m.height))

    def _clock_text(self) -> str:
        t = self.now()
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
        """Every top-level window, in touch order (status bar, app, dialog, navigation bar, keyboard)."""
        with self.lock:
            return list(self._windows()[1])

    def active_window(self) -> Window:
        """The window `uiautomator dump` writes: the dialog when one is up, else the app's window."""
        with self.lock:
            return _active(self._windows()[1])

    # ------------------------------------------------------------------ picture and dump
    def screenshot(self) -> Image.Image:
        """RGBA picture of the display; the same object is returned until `version` changes (read-only).

        A FLAG_SECURE window is black in it; the bars and the keyboard are drawn over it as usual."""
        with self.lock:
            self._follow_animation()
            v = self.version
            if self._shot is not None and self._shot[0] == v:
                return self.motion.picture(self._shot[1])
            paint, _ = self._windows()
            size = self.display_size()
            if self._damage is None:
                self._damage = DamageRenderer()
            if not self.screen_on or not self.repaint_only_changes:
                self._damage.forget()
            if not self.screen_on:
                img = Image.new("RGBA", size, (0, 0, 0, 255))
            else:
                img = self._damage.render(*self._painting(paint, size), margin=self.metrics().dp(MARGIN_DP))
                img = self.edge_stretched(img)          # a list's stretch at its end, drawn only
            self._shot = (v, img)
            return self.motion.picture(img)

    def _painting(self, paint: list[Window], size: tuple[int, int]) -> tuple[list[Window], tuple[int, int],
                                                                            Image.Image | None]:
        """What render.render paints: the windows (a FLAG_SECURE one black), the size, the wallpaper if shown."""
        base = _wallpaper(size) if (self.fg == LAUNCHER and not self.overview) else None
        return [_blacked_out(w) if w.secure else w for w in paint], size, base

    def whole_picture(self) -> Image.Image:
        """The screen's picture rendered whole, without the last picture's help (what `screenshot` must equal
        when nothing moves: tests compare them)."""
        with self.lock:
            paint, _ = self._windows()
            return render.render(*self._painting(paint, self.display_size()))

    def last_picture(self) -> Image.Image | None:
        """The last picture rendered, whether or not it is still current (the start of a transition)."""
        with self.lock:
            return self._shot[1] if self._shot is not None else None

    def animating_without_end(self) -> bool:
        """Whether the screen in front animates continuously (a spinner, a running timer)."""
        with self.lock:
            if not self.screen_on or self.overview:
                return False
            top = self.foreground_app.top
            return bool(top is not None and getattr(top, "animating", False))

    def dump_hierarchy(self) -> str:
        """What `uiautomator dump` writes: the active window only, in the dump format of the
        Android version the phone claims, clipped to the display size its dumper reads."""
        return self._dump("active")

    def dump_all_windows(self) -> str:
        """Every window on screen in one dump (status bar, app, dialog, navigation bar, keyboard),
        as a person sees the screen. For tests that tap the bars and the keyboard's keys; the phone
        itself never writes this (`dump_hierarchy` is what ADB serves)."""
        return self._dump("all")

    def _dump(self, which: str) -> str:
        with self.lock:
            self._follow_animation()
            v = self.version
            cached = self._xml if which == "active" else self._all_xml
            if cached is not None and cached[0] == v and self._bounds_from == which:
                return cached[1]
            _, windows = self._windows()
            w, h = self.display_size()
            if which == "active":
                hierarchy_xml.forget(windows)
                xml = hierarchy_xml.dump([_active(windows)], self.rotation, self.profile.dump_attributes,
                                         (0, 0, w, h), self._dumper_screen())
                self._xml = (v, xml)
            else:
                xml = hierarchy_xml.dump(windows, self.rotation, self.profile.dump_attributes, (0, 0, w, h),
                                         (0, 0, w, h))
                self._all_xml = (v, xml)
            self._bounds_from = which
            return xml

    def _dumper_screen(self) -> Rect:
        """The rectangle the dumper clips bounds to. The dumper of recent Android versions (the one
        that writes drawing-order and hint) reads `display.getRealSize()`: the whole display. Older
        ones read `display.getSize()`, which leaves out the navigation bar, measured from the top-left
        corner (so with the bar on the left the right edge is cut); what lies below it is [0,0][0,0]."""
        m = self.metrics()
        if "drawing-order" in self.profile.dump_attributes:
            return (0, 0, m.width, m.height)
        if m.landscape:
            return (0, 0, m.width - m.nav_size, m.height)
        return (0, 0, m.width, m.height - m.nav_size)


_NO_BOUNDS: Rect = (0, 0, 0, 0)


def _active(windows: list[Window]) -> Window:
    return next((w for w in windows if w.role == "dialog"), None) or next(w for w in windows if w.role == "app")


def _dialog_decor(content: View) -> View:
    """A dialog's window: DecorView › FrameLayout › android:id/content › the dialog's own views."""
    box = content.bounds
    return View(FRAME, box, View(FRAME, box, View(FRAME, box, content, rid="android:id/content")))


def _blacked_out(window: Window) -> Window:
    """What a screen capture gets of a FLAG_SECURE window: black where it is."""
    return Window(View(FRAME, window.bounds, bg=(0, 0, 0)), window.package, window.role)
