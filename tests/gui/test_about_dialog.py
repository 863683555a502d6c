"""Help › About lists every bundled library's licence, from the file that travels with the app."""

from __future__ import annotations

from app.gui.about_dialog import AboutDialog, third_party_licences


def test_about_lists_every_bundled_library_with_its_licence(qapp):
    listed = third_party_licences()
    rows = [line for line in listed.splitlines() if line.startswith("| ") and "---" not in line
            and not line.startswith("| library")]
    assert len(rows) >= 40
    for library in ("scrcpy server 3.3.4", "FFmpeg", "dav1d", "Qt 6", "PyAV", "adbutils"):
        assert any(library in row for row in rows), library
    dialog = AboutDialog()
    shown = dialog.licences.toPlainText()
    for row in rows:                                   # every row reaches the dialog, licence included
        library, licence = [cell.strip().replace("`", "") for cell in row.strip("|").split("|")[:2]]
        assert library.split(" (")[0].split(",")[0] in shown and licence.split(" (")[0].split(";")[0] in shown, row
    dialog.deleteLater()
