"""Several phones without guesswork (issue 27 §4): phones sharing a serial are told apart by their ADB
server, past runs name their phone, the Phones window does not pull the main window forward for a
proposal, and a tile's buttons keep their whole words."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QPushButton

from app.gui.phones.device_panel import DeviceEntry, DevicePanel
from app.gui.phones.phone_tile import PhoneTile
from app.gui.runs.past_runs import PastRunsDialog
from tests.gui import test_timeline as timeline_fixtures
from tests.gui.test_timeline import record_run

agentdesk_home, screens = timeline_fixtures.agentdesk_home, timeline_fixtures.screens

EMULATORS = [DeviceEntry(f"{host}:5037", "emulator-5554", "sdk_gphone64", "connected", True)
             for host in ("127.0.0.1", "10.0.0.7", "10.0.0.8")]


def test_phones_sharing_a_serial_are_listed_with_their_adb_server(qtbot):
    panel = DevicePanel()
    qtbot.addWidget(panel)
    pixel = DeviceEntry("127.0.0.1:5037", "3A2B", "Pixel 8", "connected", True)
    panel.set_devices([*EMULATORS, pixel])
    rows = [panel.list.item(i).text() for i in range(panel.list.count())]
    for entry, row in zip(EMULATORS, rows, strict=False):
        assert f"@  {entry.server}" in row, row
    assert len(set(rows[:3])) == 3                          # no two identical rows
    assert "@" not in rows[3]                               # a serial of its own needs no server
    panel.set_devices([EMULATORS[0], pixel])
    assert "@" not in panel.list.item(0).text()


@pytest.mark.asyncio
async def test_past_runs_show_the_phone_and_its_server_when_serials_repeat(qtbot, agentdesk_home, screens):
    devices = [{"id": "emulator-5554@127.0.0.1:5037", "serial": "emulator-5554", "server": "127.0.0.1:5037",
                "virtual": True},
               {"id": "emulator-5554@10.0.0.7:5037", "serial": "emulator-5554", "server": "10.0.0.7:5037",
                "model": "sdk_gphone64"},
               {"id": "3A2B@127.0.0.1:5037", "serial": "3A2B", "server": "127.0.0.1:5037", "model": "Pixel 8"}]
    for n, device in enumerate(devices):
        run_dir = record_run(screens, f"Run {n}", started_at=f"2026-11-2{n}T09:00:00+00:00")
        run_file = run_dir / "run.json"
        run_file.write_text(json.dumps({**json.loads(run_file.read_text()), "device": device}))
    dialog = PastRunsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    assert dialog.runs.headerItem().text(dialog.PHONE) == "Phone"
    shown = {dialog.runs.topLevelItem(i).text(dialog.REQUEST): dialog.runs.topLevelItem(i).text(dialog.PHONE)
             for i in range(dialog.runs.topLevelItemCount())}
    assert shown == {"Run 0": "Virtual phone · emulator-5554 @ 127.0.0.1:5037",
                     "Run 1": "sdk_gphone64 · emulator-5554 @ 10.0.0.7:5037",
                     "Run 2": "Pixel 8 · 3A2B"}


def test_a_tiles_buttons_keep_their_whole_words_at_its_narrowest(qtbot):
    tile = PhoneTile("Virtual phone · emulator-5554 @ 127.0.0.1:5037")
    qtbot.addWidget(tile)
    font = tile.font()
    font.setPointSizeF(font.pointSizeF() * 1.4)          # a person's larger font
    tile.setFont(font)
    tile.show_review("Tap “Network & internet, Mobile, Wi-Fi, hotspot” (#4)", "sensitive: password")
    tile.resize(tile.minimumWidth(), tile.heightForWidth(tile.minimumWidth()))
    tile.show()
    qtbot.waitExposed(tile)
    for button in tile.findChildren(QPushButton):
        if button.isVisible():
            assert button.width() >= button.sizeHint().width(), f"“{button.text()}” is cut"
            inside_tile = QRect(button.mapTo(tile, QPoint(0, 0)), button.size())
            assert tile.contentsRect().contains(inside_tile), f"“{button.text()}” goes past the tile's edge"


@pytest.mark.asyncio
async def test_a_proposal_does_not_pull_the_main_window_forward_while_the_phones_window_is_open(qapp, monkeypatch):
    from app.gui import main_window as main_window_module
    from app.gui.main_window import MainWindow

    raised: list[bool] = []
    window = MainWindow.__new__(MainWindow)                 # only _review's own steps are run here

    class Approval:
        def show_proposal(self, proposal): pass
        def setFocus(self): pass
    window.__dict__.update(approval=Approval(), left_pane=None)
    monkeypatch.setattr(main_window_module, "reveal", lambda pane, widget: None)
    monkeypatch.setattr(MainWindow, "raise_", lambda self: raised.append(True))
    for grid_open, expected in ((True, []), (False, [True])):
        raised.clear()
        monkeypatch.setattr(main_window_module, "phones_window_open", lambda w, is_open=grid_open: is_open)
        MainWindow._review(window, object())
        assert raised == expected
