"""One click installs ADB Keyboard from the desk: More › Install ADB Keyboard… (also offered in the status
bar when typing "café" is refused for want of it) asks for the APK, installs it on the virtual phone on the
core loop, and says the outcome in the status bar; then "café" types. Only the file dialog's answer is
given by the test, as a person would give it; the install itself is real."""

from __future__ import annotations

import asyncio

import pytest
import pytest_asyncio
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QLineEdit

from app.core import paths
from app.core.config import MirrorSettings, Settings, save_settings
from app.gui.mirror.manual_controls import ManualControlBar
from app.gui.phones.adb_keyboard import OFFER_TEXT
from tests.gui.conftest import started_window
from tests.support.adb_keyboard_apk import IME, write_adb_keyboard_apk
from tests.support.waiting import until

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def window(qapp, private_home, virtual_adb):
    # Screenshots, not the stream: without scrcpy's paste, only ADB Keyboard can type "café".
    save_settings(Settings(mirror=MirrorSettings(stream="screenshots")), paths.settings_path())
    async with started_window() as window:
        yield window


async def answer_file_dialog(path) -> QFileDialog:
    """Wait for the APK question, pick `path` (None: Cancel); returns the dialog that asked."""
    shown: list[QFileDialog] = []
    await until(lambda: shown.extend(w for w in QApplication.topLevelWidgets()
                                     if isinstance(w, QFileDialog) and w.isVisible()) or shown)
    ask = shown[0]
    hint = ask.findChild(QLabel, "adbKeyboardHint")
    assert hint is not None and hint.isVisible() and "github.com/senzhk/ADBKeyBoard/releases" in hint.text()
    if path is None:
        ask.reject()
    else:
        ask.findChild(QLineEdit, "fileNameEdit").setText(str(path))     # typed into its file name field
        ask.accept()
    return ask


async def focus_new_note_title(window, phone) -> None:
    """Open a new note and focus its title (taps may go over the mirror's stream: each waits for its screen)."""
    device = window.phone.session.device

    async def focus() -> None:
        await device.launch_app("com.agentdesk.notes")
        while phone.state()["focused_text"] is None:
            controls = (await device.controls(refresh=True)).controls
            target = next((c for c in controls if c.type == "EditText"), None) or \
                next((c for c in controls if "new note" in c.name.lower()), None)
            if target is not None:
                await device.tap(*target.center)
            await asyncio.sleep(0.2)
    await asyncio.wait_for(window.core.run(focus()), 20)


def type_on_phone(window, text: str) -> None:
    window.manual.text_field.insert(text)
    window.manual.send_text()


async def test_the_bar_offers_the_install_in_its_more_menu(qtbot):
    bar = ManualControlBar()
    qtbot.addWidget(bar)
    asked: list[bool] = []
    bar.install_keyboard_requested.connect(lambda: asked.append(True))
    action = bar.more_actions["install_keyboard"]
    assert action.text() == "Install ADB Keyboard…" and action in bar.more_button.menu().actions()
    action.trigger()
    assert asked == [True]


async def test_more_install_adb_keyboard_installs_it_and_then_cafe_types(window, virtual_adb, tmp_path):
    phone = virtual_adb.devices[0].phone
    device = window.phone.session.device
    await focus_new_note_title(window, phone)
    type_on_phone(window, "café")
    await until(lambda: "Could not type" in window.status.text())
    assert "More › Install ADB Keyboard…" in window.status.text()
    offer = window.adb_keyboard.offer
    assert offer.isVisible() and OFFER_TEXT in offer.text(), "the status bar offers the install"
    assert phone.state()["focused_text"] == ""

    window.manual.more_actions["install_keyboard"].trigger()
    await answer_file_dialog(write_adb_keyboard_apk(tmp_path))
    await until(lambda: window.status.text().startswith("Installed ADB Keyboard"), seconds=30)
    assert f"on {phone.serial} and turned it on" in window.status.text()
    assert not offer.isVisible()
    listed = await window.core.run(device.shell("ime list -s"))
    assert IME in listed.split()

    type_on_phone(window, "café")
    await until(lambda: phone.state()["focused_text"] == "café")


async def test_the_status_bar_offer_opens_the_same_question_and_a_wrong_file_is_refused_in_words(
        window, virtual_adb, tmp_path):
    await focus_new_note_title(window, virtual_adb.devices[0].phone)
    type_on_phone(window, "Grüße")
    await until(lambda: window.adb_keyboard.offer.isVisible())
    window.adb_keyboard.offer.linkActivated.emit("install")
    await answer_file_dialog(None)                                 # cancelled: nothing happens
    await asyncio.sleep(0.2)
    assert not window.adb_keyboard.installing
    assert IME not in virtual_adb.devices[0].phone.ime_ids

    notes = tmp_path / "notes.txt"
    notes.write_text("not an app")
    window.manual.more_actions["install_keyboard"].trigger()
    await answer_file_dialog(notes)
    await until(lambda: "notes.txt is not an Android app" in window.status.text(), seconds=30)
    assert window.status_line.message.error
    assert IME not in virtual_adb.devices[0].phone.ime_ids
