"""The inspector's "Control" tab: every attribute of one control, the locator a test would use
(with how sure it is), and buttons and a "Copy as" menu that put its useful forms on the
clipboard (resource-id, text, content-desc, XPath, UiSelector, uiautomator2, Appium, adb tap).
The forms themselves are written by `app.core.perception.locator_formats`."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QPalette, QPixmap
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy, UiNode
from app.core.perception.locator_formats import (
    FORMATS,
    NodeAttributes,
    choose_selector,
    copy_formats,
    describe_selector,
    screen_nodes,
)
from app.gui.mirror.mirror_overlay import control_qcolor

FLAGS = ("clickable", "long_clickable", "scrollable", "checkable", "checked", "enabled",
         "focusable", "focused", "selected", "password")
COPIED_MS = 1200
ROW_GAP = 4   # px between the form's rows and the Flags grid's rows (a nested grid would get none of its own)
MENU_PREVIEW_CHARS = 48
_BREAK = "\u200b"  # zero-width space: lets long ids and XPaths wrap in a narrow panel


def breakable(text: str) -> str:
    return text.replace("/", "/" + _BREAK).replace(".", "." + _BREAK)


def empty_state(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setMargin(24)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def node_as_control(node: UiNode) -> Control:
    """A node of the tree that is no numbered control (a layout, a label inside a row), shaped as a
    `Control` with id 0 so that its attributes and locators show like a control's."""
    get = node.attributes.get
    flag = lambda name: get(name) == "true"      # noqa: E731
    type_name = node.class_name.rsplit(".", 1)[-1] or "View"
    password = flag("password")
    text = "" if password else get("text", "")
    return Control(id=0, name=text or get("content-desc", "") or type_name, type=type_name,
                   class_name=node.class_name, resource_id=get("resource-id", ""), text=text,
                   content_desc=get("content-desc", ""), rect=node.bounds or (0, 0, 0, 0),
                   clickable=flag("clickable"), long_clickable=flag("long-clickable"), scrollable=flag("scrollable"),
                   checkable=flag("checkable"), checked=flag("checked"), enabled=get("enabled", "true") != "false",
                   focused=flag("focused"), focusable=flag("focusable"), selected=flag("selected"), password=password,
                   package=get("package", ""), node_path=node.path, window=node.window)


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MENU_PREVIEW_CHARS else text[: MENU_PREVIEW_CHARS - 1] + "…"


class ControlDetails(QWidget):
    """Every attribute of one control in a read-only form, with buttons that copy the useful ones."""

    FIELDS = ("Id", "Name", "Type", "Class", "Text", "Content-desc", "Resource-id", "Package", "Bounds",
              "Size", "Center", "Window", "Locator", "Selector")
    COPY_ACTIONS = (("resource_id", "Copy resource-id"), ("text", "Copy text"), ("xpath", "Copy XPath"),
                    ("coordinates", "Copy coordinates"))

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._control: Control | None = None
        self._controls: list[Control] = []
        self._hierarchy: UiHierarchy | None = None
        self._nodes: list[NodeAttributes] | None = None     # counted once per screen, when first needed
        self._formats: dict[str, str] = {}
        self.stack = QStackedWidget()
        self.stack.addWidget(empty_state("Select a control on the mirror, in the list or in the tree."))
        self.stack.addWidget(self._build_form())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self._restore_timer = QTimer(self, singleShot=True, interval=COPIED_MS)
        self._restore_timer.timeout.connect(self._restore_copy_labels)

    def _build_form(self) -> QWidget:
        self.swatch = QLabel()
        self.title = QLabel()
        title_font = QFont(self.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.title.setWordWrap(True)
        header = QHBoxLayout()
        header.addWidget(self.swatch, 0, Qt.AlignmentFlag.AlignTop)
        header.addWidget(self.title, 1)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(ROW_GAP + 2)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.fields: dict[str, QLabel] = {}
        monospace = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for name in self.FIELDS:
            value = QLabel()
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if name in ("Locator", "Bounds", "Selector"):
                value.setFont(monospace)
            self.fields[name] = value
            form.addRow(name, value)
        self.fields["Selector"].setToolTip("The uiautomator2 locator, and whether it finds this control alone")
        self.flag_labels: dict[str, QLabel] = {}
        flags = QGridLayout()
        flags.setHorizontalSpacing(16)
        # Set here: a grid inside a form whose two spacings differ inherits no spacing, and its rows touched
        # (with ✓ drawn from a taller fallback font they overlapped)
        flags.setVerticalSpacing(ROW_GAP)
        for position, flag in enumerate(FLAGS):
            label = QLabel()
            label.setMinimumHeight(label.fontMetrics().height())    # rows never squeezed over each other
            self.flag_labels[flag] = label
            flags.addWidget(label, position // 2, position % 2)
        form.addRow("Flags", flags)
        self.copy_buttons: dict[str, QPushButton] = {}
        buttons = QGridLayout()
        for position, (key, text) in enumerate(self.COPY_ACTIONS):
            button = QPushButton(text)
            button.clicked.connect(lambda _=False, k=key: self.copy(k))
            self.copy_buttons[key] = button
            buttons.addWidget(button, position // 2, position % 2)
        self.copy_as_button = QToolButton()
        self.copy_as_button.setText("Copy as…")
        self.copy_as_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.copy_as_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.copy_as_button.setSizePolicy(self.copy_buttons["xpath"].sizePolicy())
        self.copy_as_menu = QMenu(self.copy_as_button)
        self.copy_as_menu.setToolTipsVisible(True)
        self.copy_as_menu.aboutToShow.connect(self._fill_copy_menu)
        self.copy_as_button.setMenu(self.copy_as_menu)
        self.copy_as_button.setAccessibleName("Copy the control's locator as…")
        buttons.addWidget(self.copy_as_button, 2, 0, 1, 2)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        body = QWidget()
        column = QVBoxLayout(body)
        column.addLayout(header)
        column.addWidget(line)
        column.addLayout(form)
        column.addSpacing(8)
        column.addLayout(buttons)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setAccessibleName("The selected control's attributes")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        # narrower than the buttons and flags need: it scrolls sideways rather than cutting them off
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        scroll.setWidget(body)
        return scroll

    @property
    def control(self) -> Control | None:
        return self._control

    def set_screen(self, controls: list[Control], hierarchy: UiHierarchy | None) -> None:
        """The screen the shown control is on: what its locators must be unique among."""
        self._controls, self._hierarchy, self._nodes = list(controls), hierarchy, None

    def _screen_nodes(self) -> list[NodeAttributes]:
        if self._nodes is None:
            self._nodes = screen_nodes(self._controls, self._hierarchy)
        return self._nodes

    def show_control(self, control: Control | None) -> None:
        self._control = control
        if control is None:
            self._formats = {}
            self.stack.setCurrentIndex(0)
            return
        nodes = self._screen_nodes()
        self._formats = copy_formats(control, self._controls, self._hierarchy, nodes)
        swatch = QPixmap(16, 16)
        swatch.fill(control_qcolor(control.id) if control.id else self.palette().color(QPalette.ColorRole.Mid))
        self.swatch.setPixmap(swatch)
        self.title.setText(f"#{control.id} {control.type}" if control.id
                           else f"{control.type} (not a numbered control)")
        left, top, right, bottom = control.rect
        selector = f"{self._formats['uiautomator2']}\n({describe_selector(choose_selector(control, nodes))})"
        values = {
            "Id": str(control.id) if control.id else "", "Name": control.name, "Type": control.type,
            "Class": breakable(control.class_name), "Text": control.text, "Content-desc": control.content_desc,
            "Resource-id": breakable(control.resource_id), "Package": control.package,
            "Bounds": f"[{left},{top}][{right},{bottom}]", "Size": f"{control.width} × {control.height}",
            "Center": "{}, {}".format(*control.center), "Window": str(control.window),
            "Locator": breakable(control.locator), "Selector": breakable(selector),
        }
        for name, value in values.items():
            label = self.fields[name]
            label.setText(value or "—")
            label.setForegroundRole(QPalette.ColorRole.WindowText if value else QPalette.ColorRole.PlaceholderText)
        for flag, label in self.flag_labels.items():
            on = bool(getattr(control, flag))
            label.setText(f"{'✓' if on else '·'} {flag.replace('_', '-')}")
            label.setForegroundRole(QPalette.ColorRole.WindowText if on else QPalette.ColorRole.PlaceholderText)
        for key, button in self.copy_buttons.items():
            button.setEnabled(bool(self.copy_text(key)))
        self.stack.setCurrentIndex(1)

    def show_node(self, node: UiNode) -> None:
        """A node of the tree that is no numbered control: its attributes and locators all the same."""
        self.show_control(node_as_control(node))

    def copy_text(self, key: str) -> str:
        """What copy `key` (a COPY_ACTIONS key or a `locator_formats.FORMATS` key) puts on the clipboard."""
        control = self._control
        if control is None:
            return ""
        if key == "coordinates":
            return "{},{}".format(*control.center)
        if key == "xpath" and not self._formats:
            return control.locator
        return self._formats.get(key, "")

    def copy(self, key: str) -> None:
        text = self.copy_text(key)
        if not text:
            return
        QGuiApplication.clipboard().setText(text)
        self._restore_copy_labels()
        button = self.copy_buttons.get(key, self.copy_as_button)
        button.setText("Copied ✓")
        self._restore_timer.start()

    def copy_menu_entries(self) -> list[tuple[str, str, str]]:
        """(key, label, text) of each Copy as entry for the shown control; text "" = not available."""
        return [(key, label, self.copy_text(key)) for key, label in FORMATS]

    def _fill_copy_menu(self) -> None:
        self.copy_as_menu.clear()
        for key, label, text in self.copy_menu_entries():
            action = self.copy_as_menu.addAction(f"{label}:  {_preview(text) if text else '—'}")
            action.setEnabled(bool(text))
            action.setToolTip(text)
            action.setData(key)
            action.triggered.connect(lambda _=False, k=key: self.copy(k))

    def _restore_copy_labels(self) -> None:
        for key, text in self.COPY_ACTIONS:
            self.copy_buttons[key].setText(text)
        self.copy_as_button.setText("Copy as…")
