"""The person's corrections of a map, asked in the Map window: a screen renamed, merged with another screen
of its app, or split apart again. Each asks with a dialog opened without a nested event loop, writes with
`MapEditsStore` in a worker thread (a refusal, `MapEditError`, is said in the window's notice line), then
reads and draws the map again."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialog, QInputDialog, QMenu

from app.core.learning.map_edits import MapEditError, MapEditsStore
from app.gui.dialogs import run_dialog


def screen_menu(window, screen_id: str, where: QPoint) -> None:
    """The menu of a screen on the map: Rename…, Merge with…, Split apart."""
    menu = QMenu(window)
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    menu.addAction("Rename…", lambda: window.act(rename, screen_id))
    menu.addAction("Merge with…", lambda: window.act(merge, screen_id))
    splitting = menu.addAction("Split apart", lambda: window.act(split, screen_id))
    splitting.setEnabled(window.pane.split_button.isEnabled())
    menu.popup(where)


async def rename(window, screen_id: str) -> None:
    """Ask for the screen's name and keep it."""
    node = window.data.graph.nodes[screen_id]
    ask = QInputDialog(window)
    ask.setWindowTitle("Rename screen")
    ask.setLabelText(f"A name for this screen (leave it empty for the automatic name, “{node.auto_name}”):")
    ask.setTextValue(node.name)
    if await run_dialog(ask) != QDialog.DialogCode.Accepted:
        return
    name = ask.textValue()
    await edit(window, lambda store, kind: store.rename(kind, screen_id, name))


async def merge(window, screen_id: str) -> None:
    """Ask which other screen of the app is the same screen, and draw both as this one."""
    graph = window.data.graph
    node = graph.nodes[screen_id]
    others = sorted((n for n in graph.app_nodes(node.app) if n.id != screen_id), key=lambda n: n.name.casefold())
    if not others:
        window.say("This app has no other screen to merge with.")
        return
    names = [n.name for n in others]
    labels = [f"{n.name} ({n.id.rsplit('#', 1)[-1][:6]})" if names.count(n.name) > 1 else n.name for n in others]
    ask = QInputDialog(window)
    ask.setWindowTitle("Merge screens")
    ask.setLabelText(f"Which screen is the same as “{node.name}”? It is drawn as this one, and its actions join "
                     "this one's.")
    ask.setComboBoxItems(labels)
    if await run_dialog(ask) != QDialog.DialogCode.Accepted or ask.textValue() not in labels:
        return
    other = others[labels.index(ask.textValue())].id
    await edit(window, lambda store, kind: store.merge(kind, [other], screen_id))


async def split(window, screen_id: str) -> None:
    """Undo the merges into this screen."""
    await edit(window, lambda store, kind: store.split(kind, screen_id))


async def edit(window, change) -> None:
    """Make the change in a worker thread, then read and draw the map again."""
    kind = window.data.kind
    try:
        await asyncio.to_thread(change, MapEditsStore(window.graph_root()), kind)
    except MapEditError as exc:
        window.say(f"Not changed: {exc}.")
        return
    except OSError as exc:
        window.say(f"The change could not be saved in {window.graph_root()}: {exc}")
        return
    window.say("")
    await window.start_work(window.load_kind(kind))
