"""Notes (com.agentdesk.notes, a third-party app): a list of notes and an editor with Save/Delete."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import theme
from ..views import FRAME, LINEAR, VIEWGROUP, View
from ..widgets import (
    Ctx,
    Row,
    ScrollState,
    button,
    dialog_box,
    edit_text,
    fab,
    icon_button,
    scroll_list,
    snackbar,
    text,
    toolbar,
)
from . import NOTES
from .base import App, Dialog, Screen
from .seed_data import NOTES as SEED

LIST = "com.agentdesk.notes.NotesListActivity"
EDITOR = "com.agentdesk.notes.NoteEditorActivity"
NOTE_BG = (254, 247, 224)


class NotesListScreen(Screen):
    app: NotesApp
    activity = LIST
    background = theme.SURFACE

    def __init__(self, app: NotesApp) -> None:
        super().__init__(app)
        self.scroll = ScrollState()

    def build(self, ctx: Ctx) -> list[View]:
        app: NotesApp = self.app
        left, t, r, b = ctx.content
        bar = toolbar(ctx, "Notes", nav=False, title_size=24)
        rows = [Row(ctx.dp(124), partial(self._card, ctx, index=i)) for i in range(len(app.notes))]
        views = [bar]
        if not app.notes:
            mid = (bar.bounds[3] + b) // 2
            views.append(text(ctx, (left, mid - ctx.dp(40), r, mid), "No notes yet", size=20, align="center",
                              color=theme.TEXT_SECONDARY, rid="empty_title"))
            views.append(text(ctx, (left, mid, r, mid + ctx.dp(32)), "Tap + to write one", size=14, align="center",
                              color=theme.HINT, rid="empty_hint"))
        else:
            views.append(scroll_list(ctx, (left, bar.bounds[3], r, b), rows, self.scroll, rid="notes_list",
                                     pad_bottom=ctx.dp(88)))
        shown = self.snackbar
        views.append(fab(ctx, "New note", "plus", lambda: app.push(EditorScreen(app, None)), rid="fab_new_note",
                         color=(255, 214, 102), lift=ctx.dp(56) if shown else 0))
        if shown is not None:             # the FAB moves up over it, as CoordinatorLayout moves it
            views.append(snackbar(ctx, b, shown.message, shown.action, self._act_on_snackbar))
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("notes_root"))]

    def _act_on_snackbar(self) -> None:
        shown, self.snackbar = self.snackbar, None
        if shown is not None:
            shown.on_action()

    def _card(self, ctx: Ctx, top: int, index: int) -> View:
        note = self.app.notes[index]
        left, r = ctx.left + ctx.dp(16), ctx.right - ctx.dp(16)
        box = (left, top + ctx.dp(6), r, top + ctx.dp(118))
        card = View(VIEWGROUP, box, rid=ctx.rid("note_card"), clickable=True, long_clickable=False,
                    on_click=lambda: self.app.push(EditorScreen(self.app, index)), bg=NOTE_BG, radius=ctx.dp(16))
        card.add(text(ctx, (left + ctx.dp(16), box[1] + ctx.dp(10), r - ctx.dp(16), box[1] + ctx.dp(42)),
                      note["title"] or "Untitled", size=17, bold=True, rid="note_title"))
        card.add(text(ctx, (left + ctx.dp(16), box[1] + ctx.dp(44), r - ctx.dp(16), box[3] - ctx.dp(8)),
                      note["body"], size=14, color=theme.TEXT_SECONDARY, lines=2, valign="top", rid="note_preview"))
        return card


class DeleteDialog(Dialog):
    screen: EditorScreen

    def build(self, ctx: Ctx) -> View:
        w = min(ctx.width - ctx.dp(48), ctx.dp(312))
        h = ctx.dp(176)
        left, t, r, b = dialog_box(ctx, w, h)
        root = View(FRAME, (left, t, r, b), bg=theme.SURFACE, radius=ctx.dp(28), shadow=True)
        panel = View(LINEAR, (left, t, r, b), rid="android:id/parentPanel")
        panel.add(text(ctx, (left + ctx.dp(24), t + ctx.dp(24), r - ctx.dp(24), t + ctx.dp(60)), "Delete this note?",
                       size=22, rid="android:id/alertTitle"))
        panel.add(text(ctx, (left + ctx.dp(24), t + ctx.dp(64), r - ctx.dp(24), t + ctx.dp(92)),
                       "It will be gone for good.", size=14, color=theme.TEXT_SECONDARY, rid="android:id/message"))
        bar = View(LINEAR, (left, b - ctx.dp(68), r, b - ctx.dp(12)), rid="android:id/buttonPanel")
        bar.add(button(ctx, (r - ctx.dp(208), b - ctx.dp(60), r - ctx.dp(116), b - ctx.dp(20)), "Cancel", self.cancel,
                       variant="text", rid="android:id/button2"))
        bar.add(button(ctx, (r - ctx.dp(108), b - ctx.dp(60), r - ctx.dp(24), b - ctx.dp(20)), "Delete",
                       self.screen.delete, variant="text", color=theme.DANGER, rid="android:id/button1"))
        panel.add(bar)
        root.add(panel)
        return root


class EditorScreen(Screen):
    app: NotesApp
    activity = EDITOR
    background = NOTE_BG
    bar_color = NOTE_BG
    auto_focus: str | None = "title"

    def __init__(self, app: NotesApp, index: int | None) -> None:
        super().__init__(app)
        self.index = index
        self.deleted = False
        note = app.notes[index] if index is not None else {"title": "", "body": ""}
        self.add_field("title", note["title"], action=lambda: self.phone.focus_field(self, "body"))
        self.add_field("body", note["body"], single_line=False)
        if index is not None:
            self.auto_focus = None

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        delete = icon_button(ctx, 0, 0, "delete", "Delete", lambda: self.open_dialog(DeleteDialog(self)),
                             rid="action_delete")
        save = icon_button(ctx, 0, 0, "check", "Save", self._save_and_close, rid="action_save")
        bar = toolbar(ctx, "", actions=[save, delete], bg=NOTE_BG, on_nav=self._save_and_close)
        y = bar.bounds[3]
        title = edit_text(ctx, (left + ctx.dp(20), y + ctx.dp(4), r - ctx.dp(20), y + ctx.dp(64)), "title", "Title",
                          rid="note_title", variant="plain", size=24)
        body = edit_text(ctx, (left + ctx.dp(20), y + ctx.dp(72), r - ctx.dp(20), b - ctx.dp(8)), "body", "Note",
                         rid="note_body", variant="plain", size=17)
        return [View(FRAME, ctx.content, bar, title, body, rid=ctx.rid("editor_root"))]

    def _save_and_close(self) -> None:
        self.app.pop()  # leave() saves

    def delete(self) -> None:
        self.deleted = True
        self.dialog = None
        index = self.index
        removed = self.app.notes.pop(index) if index is not None else None
        self.app.pop()
        listing = self.app.top
        if removed is not None and index is not None and isinstance(listing, NotesListScreen):
            listing.show_snackbar("Note deleted", "Undo", lambda: self.app.notes.insert(index, removed))

    def leave(self) -> None:
        if self.deleted:
            return
        title, body = self.fields["title"].text.strip(), self.fields["body"].text.rstrip()
        notes = self.app.notes
        if self.index is None:
            if title or body:
                notes.insert(0, {"title": title, "body": body})
                self.phone.toast("Note saved")
        elif not title and not body:
            del notes[self.index]
        elif notes[self.index] != {"title": title, "body": body}:
            notes[self.index] = {"title": title, "body": body}
            self.phone.toast("Note saved")


class NotesApp(App):
    package = NOTES
    label = "Notes"
    glyph = "note"
    third_party = True
    main_activity = LIST

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.notes = [{"title": t, "body": b} for t, b in SEED]

    def activities(self):
        return {LIST: lambda: NotesListScreen(self), EDITOR: lambda: EditorScreen(self, None)}

    def pages(self) -> dict[str, Callable[[], object]]:
        def asked_to_delete() -> None:
            editor = EditorScreen(self, 0)
            self.push(editor)
            editor.open_dialog(DeleteDialog(editor))

        def deleted() -> None:
            editor = EditorScreen(self, 0)
            self.push(editor)
            editor.delete()

        return {"notes": lambda: None, "a note": lambda: self.push(EditorScreen(self, 0)),
                "new note": lambda: self.push(EditorScreen(self, None)), "delete a note?": asked_to_delete,
                "a note deleted, with Undo": deleted}

    def reset(self) -> None:
        for screen in self.stack:  # force-stop loses unsaved edits
            if isinstance(screen, EditorScreen):
                screen.deleted = True
        super().reset()

    def state(self) -> dict:
        return {"notes": [dict(n) for n in self.notes]}
