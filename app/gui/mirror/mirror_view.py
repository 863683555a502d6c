"""The phone's screen, scaled to fit with its aspect ratio kept, with a live overlay on top.

The overlay (numbered control boxes, hover, selection, the agent's proposal, touch
feedback) is painted by Qt over the frame, so it stays sharp at any size; the painting
itself lives in `mirror_overlay.py` and `proposal_overlay.py`, the frame's conversion and
drawing in `mirror_frames.py`. Every coordinate in and out of `MirrorView` is in device
pixels of the current orientation.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QKeySequence, QPainter, QPalette, QShortcut
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from app.core.agent.actions import Action
from app.core.perception.controls import Control, Rect
from app.gui.mirror.frame_rate import ShownFrames
from app.gui.mirror.mirror_frames import fitted_rect, paint_frame
from app.gui.mirror.mirror_keys import PhoneInput
from app.gui.mirror.mirror_overlay import (
    ControlLayer,
    DeviceMapping,
    control_qcolor,
    frame_looks_protected,
    hover_lines,
    paint_highlight,
    paint_hover,
    paint_label,
    paint_placeholder,
    paint_protected_note,
    paint_selection,
)
from app.gui.mirror.proposal_overlay import ProposalShape, paint_proposal, proposal_shape
from app.gui.mirror.touch_feedback import TouchFeedback

MODES = ("inspect", "touch", "pick")
CYCLE_DISTANCE = 6
"""Widget px: a click this close to the previous one cycles through the stacked controls."""
SWIPE_MS = (100, 2000)
_CURSORS = {"inspect": Qt.CursorShape.ArrowCursor, "touch": Qt.CursorShape.PointingHandCursor,
            "pick": Qt.CursorShape.CrossCursor}


class MirrorView(QWidget):
    """Paints the latest frame (a new one replaces the old; nothing is queued) and its overlay.

    Modes: "inspect" — hover highlights, a click selects (again at the same spot, or Tab /
    Shift+Tab, cycles through the controls stacked there, smallest first); "touch" — a click
    asks for a tap, a drag for a swipe; "pick" — a click picks a control (or a point) until
    Escape cancels. In touch mode the keyboard, the wheel and the right and middle buttons go to
    the phone too, and files may be dropped in any mode: see `phone_input` (mirror_keys.py).
    """

    control_hovered = Signal(object)  # Control | None
    control_selected = Signal(object)  # Control | None, only for the person's own selection
    tap_requested = Signal(int, int)
    swipe_requested = Signal(int, int, int, int, int)  # x1, y1, x2, y2, duration_ms
    control_picked = Signal(object)
    point_picked = Signal(int, int)
    pick_cancelled = Signal()
    interaction_mode_changed = Signal(str)
    device_size_changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._frame: QImage | None = None
        self._device_size: tuple[int, int] | None = None
        self._placeholder = "Connecting to the phone…"
        self._layer = ControlLayer()
        self._overlay_visible = True
        self._hovered: Control | None = None
        self._hover_pos: QPointF | None = None
        self._selected: Control | None = None
        self._highlight: Rect | None = None       # what the inspector points at (device pixels)
        self._click_pos: QPointF | None = None
        self._cycle_point: tuple[int, int] | None = None
        self._mode = "inspect"
        self._mode_before_pick = "inspect"
        self._proposal: ProposalShape | None = None
        self._gesture_start: tuple[QPointF, int] | None = None  # widget point, event timestamp (ms)
        self._dragging = False
        self._touch = TouchFeedback(self)
        self._touch.changed.connect(self.update)
        self.phone_input = PhoneInput(self)
        self.setAcceptDrops(True)
        self._escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.cancel_pick)
        self._escape.setEnabled(False)
        self._last_paint_ms = 0.0
        self.shown_frames = ShownFrames()     # the frames actually painted, for the "Live · 60 fps" readout
        self._painted: QImage | None = None
        self._protected = False      # the frame is black where the controls are: a protected screen
        self._background = QColor()
        self._placeholder_font = QFont(self.font())
        self._placeholder_font.setPointSizeF(self.font().pointSizeF() * 1.1)
        self._refresh_colours()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(self.minimum_fit_size())
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(_CURSORS[self._mode])

    def sizeHint(self) -> QSize:
        return QSize(420, 900)

    @staticmethod
    def minimum_fit_size() -> QSize:
        return QSize(200, 220)

    # ------------------------------------------------------------------ state

    def set_frame(self, frame: QImage) -> None:
        self._frame = frame
        self._check_protected()
        self.update()

    @property
    def protected_screen(self) -> bool:
        """Whether the frame shown is black where its controls are (the app forbids screenshots)."""
        return self._protected

    def _check_protected(self) -> None:
        self._protected = self._frame is not None and frame_looks_protected(
            self._frame, self._layer.controls, self.device_size)

    def set_device_size(self, size: tuple[int, int]) -> None:
        """Device pixels (width, height) of the current orientation; the frame may be smaller."""
        size = (int(size[0]), int(size[1]))
        if size != self._device_size:
            self._device_size = size
            self.device_size_changed.emit()
        self.update()

    @property
    def device_size(self) -> tuple[int, int]:
        """The device size set, else the frame's size, else (0, 0)."""
        if self._device_size is not None:
            return self._device_size
        if self._frame is not None and not self._frame.isNull():
            return self._frame.width(), self._frame.height()
        return 0, 0

    def set_controls(self, controls: list[Control]) -> None:
        """A new screen's controls; the selection survives only if the same control is still there."""
        if list(controls) != self._layer.controls:
            self._highlight = None          # what the inspector pointed at was on the other screen
        self._layer.set_controls(controls)
        if self._selected not in self._layer.controls:
            self._selected = None
        self._click_pos = self._cycle_point = None
        self._update_hover(self._hover_pos)
        self._check_protected()
        self.update()

    @property
    def controls(self) -> list[Control]:
        return self._layer.controls

    def set_overlay_visible(self, visible: bool) -> None:
        self._overlay_visible = bool(visible)
        self.update()

    @property
    def overlay_visible(self) -> bool:
        return self._overlay_visible

    def set_placeholder(self, text: str) -> None:
        """The message shown while there is no frame."""
        self._placeholder = text
        self.update()

    @property
    def hovered_control(self) -> Control | None:
        return self._hovered

    @property
    def selected_control(self) -> Control | None:
        return self._selected

    def select_control(self, control: Control | None) -> None:
        """Select from elsewhere (the inspector): drawn, but `control_selected` is not emitted."""
        self._selected = control
        self.update()

    def show_highlight(self, rect: Rect | None) -> None:
        """Outline `rect` (device pixels): the row or node under the mouse in the inspector. None clears it."""
        rect = (rect[0], rect[1], rect[2], rect[3]) if rect else None      # a tuple, whatever sequence came
        if rect != self._highlight:
            self._highlight = rect
            self.update()

    @property
    def highlighted_rect(self) -> Rect | None:
        return self._highlight

    def set_interaction_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown interaction mode {mode!r}; use one of {', '.join(MODES)}")
        if mode == self._mode:
            return
        if mode == "pick":
            self._mode_before_pick = self._mode
        self.phone_input.flush_text()
        self._mode = mode
        self._escape.setEnabled(mode == "pick")
        self._gesture_start = None
        self._touch.stop()
        self.setCursor(_CURSORS[mode])
        self.interaction_mode_changed.emit(mode)
        self.update()

    @property
    def interaction_mode(self) -> str:
        return self._mode

    def show_proposal(self, action: Action | None, target: Control | None = None,
                      controls: Sequence[Control] = ()) -> None:
        """Draw what the agent proposes (None clears it); `controls` are the screen's it was proposed on."""
        self._proposal = None if action is None else proposal_shape(action, target, self.device_size, controls)
        self.update()

    @property
    def last_paint_ms(self) -> float:
        """How long the last paintEvent took, in milliseconds."""
        return self._last_paint_ms

    # ------------------------------------------------------------------ geometry

    def frame_rect(self) -> QRectF:
        """Where the frame is drawn inside the widget (aspect kept, centred)."""
        return fitted_rect(self._frame, self.size())

    def mapping(self) -> DeviceMapping | None:
        """Device ↔ widget pixels for the current frame and size; None without a frame."""
        return DeviceMapping.between(self.frame_rect(), self.device_size)

    def device_to_widget(self, x: float, y: float) -> QPointF | None:
        mapping = self.mapping()
        return mapping.point(x, y) if mapping else None

    def widget_to_device(self, pos: QPointF) -> tuple[int, int] | None:
        """The device pixel under a widget point; None outside the frame."""
        mapping = self.mapping()
        return mapping.to_device(QPointF(pos)) if mapping else None

    def controls_at(self, x: int, y: int) -> list[Control]:
        """Controls containing the device point, smallest area first."""
        hits = [c for c in self._layer.controls if c.rect[0] <= x < c.rect[2] and c.rect[1] <= y < c.rect[3]]
        return sorted(hits, key=lambda c: (c.width * c.height, c.id))

    def _control_at(self, pos: QPointF) -> Control | None:
        device = self.widget_to_device(pos)
        stack = self.controls_at(*device) if device else []
        return stack[0] if stack else None

    # ------------------------------------------------------------------ input

    def mouseMoveEvent(self, event) -> None:
        pos = event.position()
        self._update_hover(pos)
        if self._gesture_start is not None:
            self._touch.trail.append(pos)
            start = self._gesture_start[0]
            if (pos - start).manhattanLength() >= QApplication.startDragDistance():
                self._dragging = True
            self.update()

    def leaveEvent(self, event) -> None:
        self._update_hover(None)
        super().leaveEvent(event)

    def mousePressEvent(self, event) -> None:
        if self._mode == "touch" and self.phone_input.mouse_press(event.button()):
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        pos = event.position()
        if self._mode == "inspect":
            self._select_at(pos)
        elif self._mode == "pick":
            self._pick_at(pos)
        elif self.widget_to_device(pos) is not None:
            self._touch.begin(pos)
            self._gesture_start, self._dragging = (pos, event.timestamp()), False
            self.update()

    def mouseDoubleClickEvent(self, event) -> None:
        """Nothing more: Qt 6 delivers the second click's press as well, which did the work."""
        event.accept()

    def mouseReleaseEvent(self, event) -> None:
        if self._gesture_start is None or event.button() != Qt.MouseButton.LeftButton:
            return super().mouseReleaseEvent(event)
        (start, started_ms), self._gesture_start = self._gesture_start, None
        mapping = self.mapping()
        if mapping is None:
            return
        x1, y1 = mapping.clamped_to_device(start)
        if self._dragging:
            x2, y2 = mapping.clamped_to_device(event.position())
            duration = min(max(int(event.timestamp() - started_ms), SWIPE_MS[0]), SWIPE_MS[1])
            self._touch.trail.append(event.position())
            self.swipe_requested.emit(x1, y1, x2, y2, duration)
        else:
            self._touch.tapped(start)
            self.tap_requested.emit(x1, y1)
        self._touch.fade_out()

    def wheelEvent(self, event) -> None:
        if self._mode != "touch":
            return super().wheelEvent(event)
        self.phone_input.wheel(event, self.widget_to_device(event.position()))
        event.accept()

    def dragEnterEvent(self, event) -> None:
        event.setAccepted(self.phone_input.accepts(event.mimeData()))

    dragMoveEvent = dragEnterEvent

    def dropEvent(self, event) -> None:
        if self.phone_input.drop(event.mimeData()):
            event.acceptProposedAction()

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.KeyPress and self._mode == "touch" and self.phone_input.key_press(event):
            return True
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            if self._mode == "inspect" and self._layer.controls:
                self._cycle(-1 if event.key() == Qt.Key.Key_Backtab else 1)
                return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        if event.key() != Qt.Key.Key_Escape:
            return super().keyPressEvent(event)
        if self._mode == "pick":
            self.cancel_pick()
        elif self._mode == "inspect" and self._selected is not None:
            self._set_selection(None)

    def _update_hover(self, pos: QPointF | None) -> None:
        self._hover_pos = pos
        control = self._control_at(pos) if pos is not None else None
        if control != self._hovered:
            self._hovered = control
            self.control_hovered.emit(control)
        self.update()

    def _select_at(self, pos: QPointF) -> None:
        device = self.widget_to_device(pos)
        stack = self.controls_at(*device) if device else []
        same_spot = self._click_pos is not None and (pos - self._click_pos).manhattanLength() <= CYCLE_DISTANCE
        if same_spot and self._selected in stack:
            choice: Control | None = stack[(stack.index(self._selected) + 1) % len(stack)]
        else:
            choice = stack[0] if stack else None
            self._click_pos, self._cycle_point = pos, device
        self._set_selection(choice)

    def _cycle(self, step: int) -> None:
        """Tab / Shift+Tab: the next control stacked at the last click (or hover), else by id."""
        point = self._cycle_point or (self.widget_to_device(self._hover_pos) if self._hover_pos else None)
        candidates = self.controls_at(*point) if point else []
        candidates = candidates or sorted(self._layer.controls, key=lambda c: c.id)
        if self._selected in candidates:
            choice = candidates[(candidates.index(self._selected) + step) % len(candidates)]
        else:
            choice = candidates[0 if step > 0 else -1]
        self._set_selection(choice)

    def _set_selection(self, control: Control | None) -> None:
        self._selected = control
        self.control_selected.emit(control)
        self.update()

    def _pick_at(self, pos: QPointF) -> None:
        device = self.widget_to_device(pos)
        if device is None:
            return
        stack = self.controls_at(*device)
        if stack:
            self.control_picked.emit(stack[0])
        else:
            self.point_picked.emit(*device)

    def cancel_pick(self) -> None:
        if self._mode == "pick":
            self.set_interaction_mode(self._mode_before_pick)
            self.pick_cancelled.emit()

    # ------------------------------------------------------------------ painting

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._refresh_colours()
        super().changeEvent(event)

    def _refresh_colours(self) -> None:
        window = self.palette().color(QPalette.ColorRole.Window)
        self._background = window.darker(115) if window.lightness() > 128 else window.lighter(125)

    def paintEvent(self, event) -> None:
        started = time.perf_counter()
        painter = QPainter(self)
        painter.fillRect(self.rect(), self._background)
        mapping = self.mapping()
        if mapping is None:
            paint_placeholder(painter, QRectF(self.rect()), self._placeholder, self.palette(), self._placeholder_font)
        else:
            self._paint_frame(painter, mapping)
        painter.end()
        self._last_paint_ms = (time.perf_counter() - started) * 1000

    def _paint_frame(self, painter: QPainter, mapping: DeviceMapping) -> None:
        frame_rect = self.frame_rect()
        if self._frame is not None:      # (a mapping, which painting needs, means there is a frame)
            paint_frame(painter, self._frame, frame_rect)
            if self._frame is not self._painted:
                self._painted = self._frame
                self.shown_frames.shown()
        painter.setClipRect(frame_rect)
        if self._overlay_visible:
            self._layer.paint(painter, mapping, self.size(), self.devicePixelRatioF())
        accent = self.palette().color(QPalette.ColorRole.Highlight)
        if self._selected is not None:
            paint_selection(painter, self._box(self._selected, mapping), frame_rect, accent)
        if self._highlight is not None:
            paint_highlight(painter, mapping.rect(self._highlight).adjusted(1, 1, -1, -1), accent)
        hovered = self._hovered if self._gesture_start is None else None      # the one whose box shows
        if hovered is not None:
            paint_hover(painter, self._box(hovered, mapping), control_qcolor(hovered.id))
        if self._proposal is not None:
            paint_proposal(painter, self._proposal, mapping, frame_rect)
        self._touch.paint(painter, accent)
        if self._protected:
            paint_protected_note(painter, frame_rect, self.font())
        if hovered is not None and self._hover_pos is not None:
            painter.setClipping(False)
            paint_label(painter, hover_lines(hovered), self._hover_pos, QRectF(self.rect()),
                        self.palette(), control_qcolor(hovered.id))

    @staticmethod
    def _box(control: Control, mapping: DeviceMapping) -> QRectF:
        return mapping.rect(control.rect).adjusted(1, 1, -1, -1)
