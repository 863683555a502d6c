"""The mirror on a protected (FLAG_SECURE) screen: the frame is black where the controls are, and a
short note says why; a plain screen shows no note."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from app.core.perception.hierarchy import parse_hierarchy, select_controls
from app.gui.mirror.mirror_frames import frame_for_view, qimage_from_rgb
from app.gui.mirror.mirror_view import MirrorView
from app.virtual_phone.phone import VirtualPhone

PIN_SCREEN = "com.android.settings.password.ChooseLockPassword"
NOTE_COLOUR = (255, 196, 0)


def screen_of(phone: VirtualPhone):
    size = phone.display_size()
    controls = select_controls(parse_hierarchy(phone.dump_hierarchy()), size)
    data, (width, height) = frame_for_view(phone.screenshot(), QSize(540, 1200))
    return controls, qimage_from_rgb(data, width, height), size


def shown(qtbot, phone: VirtualPhone) -> tuple[MirrorView, Image.Image]:
    controls, frame, size = screen_of(phone)
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(540, 1200)
    view.set_device_size(size)
    view.set_frame(frame)
    view.set_controls(controls)
    view.show()
    qtbot.waitExposed(view)
    picture = view.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    image = Image.frombuffer("RGB", (picture.width(), picture.height()), bytes(picture.constBits()), "raw", "RGB",
                             picture.bytesPerLine(), 1)
    return view, image


def has_note(view: MirrorView, image: Image.Image) -> bool:
    """Whether the note's band (near the top of the frame) is mostly the note's colour."""
    frame = view.frame_rect()
    top = int(frame.top() + frame.height() * 0.08) + 3
    band = image.crop((int(frame.left()) + 20, top, int(frame.right()) - 20, top + 6))
    near = sum(count for count, colour in band.getcolors(1 << 16) or []
               if all(abs(a - b) < 24 for a, b in zip(colour, NOTE_COLOUR, strict=True)))
    return near > 0.6 * band.width * band.height


def test_a_protected_screen_gets_a_note_in_the_mirror(qtbot):
    phone = VirtualPhone()
    assert phone.launch("com.android.settings", PIN_SCREEN)
    view, image = shown(qtbot, phone)
    assert view.protected_screen
    assert has_note(view, image)


def test_a_plain_screen_gets_no_note(qtbot):
    phone = VirtualPhone()
    assert phone.launch("com.android.settings")
    view, image = shown(qtbot, phone)
    assert not view.protected_screen
    assert not has_note(view, image)
