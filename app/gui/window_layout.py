"""The main window's panes and how they share its width: phones, request and approval on the left,
the mirror in the middle, the inspector over the timeline on the right.

On a small screen the window first opens maximized with the right pane shut (side_panes.py); the
mirror's bar sits below it and nothing above, so the phone's picture gets the height.

The side panes never force the window wider than a small screen allows: their rows wrap, and
below their natural width they scroll (or collapse, dragged to the edge). The mirror takes the
width that is left — it alone grows when the window grows. The window's minimum size is the
sum of the panes' minimum widths, well under a 1280×720 screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QVBoxLayout, QWidget

from app.gui.inspector.inspector import InspectorPanel
from app.gui.mirror.mirror_panel import MirrorPanel
from app.gui.phones.device_panel import DevicePanel
from app.gui.runs.approval_panel import ApprovalPanel
from app.gui.runs.request_panel import RequestPanel
from app.gui.runs.take_over_bar import TakeOverBar
from app.gui.runs.timeline import TimelinePanel
from app.gui.side_panes import small_screen
from app.gui.status_line import StatusLine
from app.gui.window_fit import fit_window

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

LEFT_MIN, MIRROR_MIN, RIGHT_MIN = 260, 260, 300      # px: the narrowest each pane gets before it scrolls
LEFT_MAX, RIGHT_MAX = 380, 760                        # first-run widths go no wider; the rest is the mirror's
MIN_HEIGHT = 520
FIRST_SIZE = QSize(1440, 920)                         # on a screen with room for it
PHONE_ASPECT = 1080 / 2400                            # until the phone says its size
MIRROR_CHROME = QSize(40, 150)                        # the mirror's margins, header row and control bar
MIRROR_FIRST = 400                                    # first-run width: the control bar fits on two rows


class ScrollingPane(QScrollArea):
    """A side pane that scrolls when it is narrower or shorter than its content, instead of
    forcing the window to its content's size."""

    def __init__(self, content: QWidget, min_width: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(content)
        self.setMinimumWidth(min_width)

    def sizeHint(self) -> QSize:
        content = self.widget()
        return content.sizeHint() if content is not None else super().sizeHint()


class PaneBalancer(QObject):
    """When the window grows, a side pane that scrolls sideways (narrower than its content) gets the
    width it needs from the mirror first; the mirror keeps at least MIRROR_FIRST. A pane the person
    dragged narrow stays so until the window is resized."""

    def __init__(self, main: QSplitter):
        super().__init__(main)
        self.main = main
        main.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.balance)
        return False

    def balance(self) -> None:
        sizes = self.main.sizes()
        if len(sizes) != 3:
            return
        changed = False
        for index in (0, 2):
            pane = self.main.widget(index)
            if sizes[index] == 0 or not isinstance(pane, QScrollArea) or (content := pane.widget()) is None:
                continue                      # collapsed on purpose
            bar = pane.verticalScrollBar()
            wanted = content.minimumSizeHint().width() + (bar.sizeHint().width() if bar.isVisible() else 0)
            give = min(wanted - sizes[index], sizes[1] - MIRROR_FIRST)
            if give > 0:
                sizes[index] += give
                sizes[1] -= give
                changed = True
        if changed:
            self.main.setSizes(sizes)


def reveal(pane: QScrollArea, widget: QWidget) -> None:
    """Scroll `pane` so that `widget` shows, once the layout has taken in its new content."""
    QTimer.singleShot(0, pane, lambda: pane.ensureWidgetVisible(widget, 0, 0))


def build_panes(window: MainWindow) -> None:
    """Make the panes, put them in the window's splitters and status bar, and name them on `window`."""
    window.devices = DevicePanel()
    window.request = RequestPanel()
    window.approval = ApprovalPanel()
    left = QWidget()
    left_layout = QVBoxLayout(left)
    for widget in (window.devices, window.request, window.approval):
        left_layout.addWidget(widget)
    left_layout.addStretch(1)
    window.left_pane = ScrollingPane(left, LEFT_MIN)

    mirror_panel = MirrorPanel()
    window.mirror, window.manual, window.overlay_button = mirror_panel.mirror, mirror_panel.manual, \
        mirror_panel.overlay_button
    window.state_label = mirror_panel.state_label
    window.mirror_panel = mirror_panel
    window.take_over_bar = TakeOverBar()        # over the mirror while the person has the phone
    center = QWidget()
    center_layout = QVBoxLayout(center)
    center_layout.setContentsMargins(0, 0, 0, 0)
    center_layout.setSpacing(4)
    center_layout.addWidget(window.take_over_bar)
    center_layout.addWidget(mirror_panel, 1)
    center.setMinimumWidth(MIRROR_MIN)

    window.inspector = InspectorPanel()
    window.timeline = TimelinePanel()
    right = QSplitter(Qt.Orientation.Vertical)
    right.addWidget(window.inspector)
    right.addWidget(window.timeline)
    right.setChildrenCollapsible(False)
    window.right_pane = ScrollingPane(right, RIGHT_MIN)

    main = QSplitter(Qt.Orientation.Horizontal)
    for pane in (window.left_pane, center, window.right_pane):
        main.addWidget(pane)
    main.setStretchFactor(0, 0)
    main.setStretchFactor(1, 1)          # the mirror takes what is left: it alone grows with the window
    main.setStretchFactor(2, 0)
    main.setCollapsible(1, False)        # side panes may be dragged shut; the mirror stays
    window.splitters = {"main": main, "right": right}
    window.pane_balancer = PaneBalancer(main)
    window.setCentralWidget(main)
    window.setMinimumSize(minimum_size(main))
    fit_window(window, remember=False)     # its layout is kept by window_state.py; this keeps it on the screen

    window.status_line = StatusLine()
    window.status = window.status_line.label
    window.statusBar().addWidget(window.status_line, 1)


def minimum_size(main: QSplitter) -> QSize:
    handles = main.handleWidth() * (main.count() - 1)
    return QSize(LEFT_MIN + MIRROR_MIN + RIGHT_MIN + handles + 8, MIN_HEIGHT)


def first_layout(window: MainWindow) -> None:
    """A first-run size that fits the screen and pane widths that suit it (a saved layout replaces both). On a
    small screen the window opens maximized with the inspector pane shut (View or the status bar opens it)."""
    width, height = FIRST_SIZE.width(), FIRST_SIZE.height()
    screen = window.screen().availableGeometry() if window.screen() else None
    if screen is not None:
        width, height = min(width, screen.width() - 40), min(height, screen.height() - 60)
    width, height = max(width, window.minimumWidth()), max(height, window.minimumHeight())
    window.resize(width, height)
    main, right = window.splitters["main"], window.splitters["right"]
    sizes = pane_widths(width - 2 * main.handleWidth(), height, window.mirror.device_size)
    if small_screen(window):       # the inspector pane shut: the mirror and the request get the room
        left = max(sizes[0], min(LEFT_MAX, sum(sizes) * 30 // 100))     # its words wrap less; the phone
        sizes = [left, sum(sizes) - left, 0]                             # keeps its height, the bar beside it
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    main.setSizes(sizes)
    window.side_panes.sync()
    right.setSizes([height * 45 // 100, height * 55 // 100])


def pane_widths(total: int, window_height: int, device_size: tuple[int, int] = (0, 0)) -> list[int]:
    """Left, mirror and right widths for `total` px: the mirror as wide as the phone's picture at this
    height, the left pane a quarter (within its limits), the right pane the rest up to RIGHT_MAX."""
    device_width, device_height = device_size
    aspect = device_width / device_height if device_width and device_height else PHONE_ASPECT
    mirror = max(MIRROR_FIRST, int((window_height - MIRROR_CHROME.height()) * aspect) + MIRROR_CHROME.width())
    left = min(LEFT_MAX, max(LEFT_MIN, total * 24 // 100))
    right = total - left - mirror
    if right > RIGHT_MAX:
        mirror += right - RIGHT_MAX
        right = RIGHT_MAX
    if right < RIGHT_MIN:
        mirror = max(MIRROR_MIN, mirror - (RIGHT_MIN - right))
        right = max(RIGHT_MIN, total - left - mirror)
    return [left, mirror, right]
