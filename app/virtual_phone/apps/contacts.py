"""Contacts (com.android.contacts): a searchable scrolling list, contact details, and an editor."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import theme
from ..views import BUTTON, FRAME, LINEAR, VIEWGROUP, View
from ..widgets import (
    Ctx,
    Row,
    ScrollState,
    avatar,
    button,
    edit_text,
    fab,
    icon,
    icon_button,
    scroll_list,
    text,
    toolbar,
)
from . import CONTACTS, dialer_of, messages_of
from .base import App, Screen
from .seed_data import CONTACTS as SEED
from .seed_data import email_for

PEOPLE = "com.android.contacts.activities.PeopleActivity"
QUICK = "com.android.contacts.quickcontact.QuickContactActivity"
EDITOR = "com.android.contacts.activities.ContactEditorActivity"


def digits(s: str) -> str:
    return "".join(ch for ch in s if ch.isdigit())


class PeopleScreen(Screen):
    app: ContactsApp
    activity = PEOPLE
    background = theme.SURFACE

    def __init__(self, app: ContactsApp) -> None:
        super().__init__(app)
        self.scroll = ScrollState()
        self.add_field("search", action=lambda: self.phone.hide_keyboard())

    def build(self, ctx: Ctx) -> list[View]:
        app: ContactsApp = self.app
        left, t, r, b = ctx.content
        bar_h = ctx.dp(72)
        search_box = (left + ctx.dp(16), t + ctx.dp(8), r - ctx.dp(16), t + ctx.dp(64))
        bar = View(FRAME, (left, t, r, t + bar_h), rid=ctx.rid("toolbar"))
        pill = View(LINEAR, search_box, rid=ctx.rid("search_box"), bg=theme.SURFACE_VARIANT, radius=ctx.dp(28))
        pill.add(icon(ctx, search_box[0] + ctx.dp(28), (search_box[1] + search_box[3]) // 2, "search"))
        pill.add(edit_text(ctx, (search_box[0] + ctx.dp(52), search_box[1], search_box[2] - ctx.dp(16), search_box[3]),
                           "search", "Search contacts", rid="search_view", variant="plain"))
        bar.add(pill)
        query = self.fields["search"].text.strip().lower()
        people = [c for c in app.sorted_contacts() if not query or query in c["name"].lower() or
                  (digits(query) and digits(query) in digits(c["phone"]))]
        rows: list[Row] = []
        last_letter = None
        for c in people:
            letter = c["name"][:1].upper()
            rows.append(Row(ctx.dp(64), partial(self._row, ctx, contact=c, show_letter=letter != last_letter)))
            last_letter = letter
        if not people:
            rows.append(Row(ctx.dp(96), lambda top: text(ctx, (left, top, r, top + ctx.dp(96)), "No contacts found",
                                                           color=theme.TEXT_SECONDARY, align="center")))
        count = text(ctx, (left + ctx.dp(24), t + bar_h, r, t + bar_h + ctx.dp(36)), f"{len(people)} contacts", size=13,
                     color=theme.TEXT_SECONDARY, rid="contacts_count")
        lst = scroll_list(ctx, (left, t + bar_h + ctx.dp(36), r, b), rows, self.scroll, rid="contact_list",
                          pad_bottom=ctx.dp(88))
        return [View(FRAME, ctx.content, bar, count, lst, fab(ctx, "Create contact", "plus", self._create),
                     rid=ctx.rid("contacts_frame"))]

    def _row(self, ctx: Ctx, top: int, contact: dict, show_letter: bool) -> View:
        left, r = ctx.left, ctx.right
        h = ctx.dp(64)
        row = View(VIEWGROUP, (left, top, r, top + h), rid=ctx.rid("contact_row"), clickable=True, long_clickable=False,
                   on_click=lambda: self.app.push(DetailsScreen(self.app, contact)))
        if show_letter:
            row.add(text(ctx, (left + ctx.dp(8), top, left + ctx.dp(48), top + h), contact["name"][:1].upper(), size=16,
                         color=theme.PRIMARY, bold=True, align="center", rid="section_header"))
        row.add(avatar(ctx, left + ctx.dp(76), top + h // 2, 40, contact["name"], rid="photo"))
        row.add(text(ctx, (left + ctx.dp(112), top, r - ctx.dp(16), top + h), contact["name"], size=16,
                     rid="cliv_name_textview"))
        return row

    def _create(self) -> None:
        self.app.push(EditorScreen(self.app, None))


class DetailsScreen(Screen):
    app: ContactsApp
    activity = QUICK
    background = theme.SURFACE

    def __init__(self, app: ContactsApp, contact: dict) -> None:
        super().__init__(app)
        self.contact = contact

    def build(self, ctx: Ctx) -> list[View]:
        c = self.contact
        left, t, r, b = ctx.content
        edit = icon_button(ctx, 0, 0, "edit", "Edit contact", lambda: self.app.push(EditorScreen(self.app, c)),
                           rid="menu_edit")
        bar = toolbar(ctx, "", actions=[edit])
        y = bar.bounds[3] + ctx.dp(8)
        big = avatar(ctx, (left + r) // 2, y + ctx.dp(56), 112, c["name"], rid="photo")
        name = text(ctx, (left + ctx.dp(16), y + ctx.dp(124), r - ctx.dp(16), y + ctx.dp(172)), c["name"], size=28,
                    align="center", rid="large_title")
        y += ctx.dp(196)
        actions = View(LINEAR, (left, y, r, y + ctx.dp(84)), rid=ctx.rid("action_bar"))
        specs = [("Call", "phone", self._call), ("Text", "message", self._text), ("Video", "video", self._video),
                 ("Email", "email", self._email)]
        w = (r - left - ctx.dp(32)) // len(specs)
        for i, (label, glyph, cb) in enumerate(specs):
            x = left + ctx.dp(16) + i * w
            actions.add(View(BUTTON, (x + ctx.dp(4), y, x + w - ctx.dp(4), y + ctx.dp(84)), text=label, desc=label,
                             rid=ctx.rid(f"action_{label.lower()}"), kind="action", clickable=True, on_click=cb,
                             glyph=glyph, icon=ctx.dp(52), size=ctx.sp(13)))
        y += ctx.dp(104)
        card = View(LINEAR, (left + ctx.dp(16), y, r - ctx.dp(16), y + ctx.dp(176)), rid=ctx.rid("card"),
                    bg=theme.BACKGROUND, radius=ctx.dp(20))
        card.add(text(ctx, (left + ctx.dp(32), y, r, y + ctx.dp(48)), "Contact info", size=16, bold=True))
        phone_row = View(LINEAR, (left + ctx.dp(16), y + ctx.dp(48), r - ctx.dp(16), y + ctx.dp(112)), clickable=True,
                         on_click=self._call, rid=ctx.rid("phone_row"))
        phone_row.add(icon(ctx, left + ctx.dp(48), y + ctx.dp(80), "phone"),
                      text(ctx, (left + ctx.dp(80), y + ctx.dp(52), r - ctx.dp(80), y + ctx.dp(84)), c["phone"],
                           size=16, rid="header"),
                      text(ctx, (left + ctx.dp(80), y + ctx.dp(82), r - ctx.dp(80), y + ctx.dp(106)), "Mobile", size=13,
                           color=theme.TEXT_SECONDARY, rid="sub_header"),
                      icon_button(ctx, r - ctx.dp(48), y + ctx.dp(80), "message", "Text " + c["name"], self._text,
                                  color=theme.TEXT_SECONDARY, rid="icon_alternate"))
        email_row = View(LINEAR, (left + ctx.dp(16), y + ctx.dp(112), r - ctx.dp(16), y + ctx.dp(176)), clickable=True,
                         on_click=self._email, rid=ctx.rid("email_row"))
        email_row.add(icon(ctx, left + ctx.dp(48), y + ctx.dp(144), "email"),
                      text(ctx, (left + ctx.dp(80), y + ctx.dp(116), r - ctx.dp(32), y + ctx.dp(148)),
                           c.get("email", ""), size=16, rid="header"),
                      text(ctx, (left + ctx.dp(80), y + ctx.dp(146), r - ctx.dp(32), y + ctx.dp(170)), "Home", size=13,
                           color=theme.TEXT_SECONDARY, rid="sub_header"))
        card.add(phone_row, email_row)
        return [View(FRAME, ctx.content, bar, big, name, actions, card, rid=ctx.rid("quickcontact"))]

    def _call(self) -> None:
        c = self.contact
        self.phone.open_in_app(dialer_of(self.phone), lambda app: app.call_screen(c["name"], c["phone"]))

    def _text(self) -> None:
        name = self.contact["name"]
        self.phone.open_in_app(messages_of(self.phone), lambda app: app.conversation_screen(name))

    def _video(self) -> None:
        self.phone.toast("Video calling isn't available")

    def _email(self) -> None:
        self.phone.toast("No app can perform this action")


class EditorScreen(Screen):
    app: ContactsApp
    activity = EDITOR
    background = theme.SURFACE
    auto_focus = "first"

    def __init__(self, app: ContactsApp, contact: dict | None) -> None:
        super().__init__(app)
        self.contact = contact
        first, _, last = (contact["name"] if contact else "").partition(" ")
        self.add_field("first", first)
        self.add_field("last", last)
        self.add_field("phone", contact["phone"] if contact else "", input_type="phone")
        self.add_field("email", contact.get("email", "") if contact else "")

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        save = button(ctx, (0, 0, ctx.dp(88), ctx.dp(40)), "Save", self._save, rid="editor_menu_save_button")
        bar = toolbar(ctx, "Edit contact" if self.contact else "Create contact", actions=[save], on_nav=self.app.pop)
        bar.children[0].desc = "Cancel"
        bar.children[0].style["glyph"] = "close"
        y = bar.bounds[3] + ctx.dp(16)
        views = [bar]
        for key, hint, glyph in (("first", "First name", "person"), ("last", "Last name", None),
                                 ("phone", "Phone", "phone"), ("email", "Email", "email")):
            if glyph:
                views.append(icon(ctx, left + ctx.dp(36), y + ctx.dp(28), glyph))
            views.append(edit_text(ctx, (left + ctx.dp(64), y, r - ctx.dp(24), y + ctx.dp(56)), key, hint,
                                   variant="outline", rid=f"{key}_name" if key in ("first", "last") else key))
            y += ctx.dp(72)
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("editor_root"))]

    def _save(self) -> None:
        f = self.fields
        name = " ".join(p for p in (f["first"].text.strip(), f["last"].text.strip()) if p)
        number = f["phone"].text.strip()
        if not name and not number:
            self.app.pop()
            return
        contact = self.app.save_contact(self.contact, name or number, number, f["email"].text.strip())
        self.app.stack.pop()
        if self.contact is not None and self.app.stack and isinstance(self.app.stack[-1], DetailsScreen):
            self.app.stack[-1].contact = contact
        else:
            self.app.stack.append(DetailsScreen(self.app, contact))
        self.phone.hide_keyboard()
        self.phone.toast("Contact saved")


class ContactsApp(App):
    package = CONTACTS
    label = "Contacts"
    glyph = "person"
    main_activity = PEOPLE

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.contacts = [{"name": n, "phone": p, "email": email_for(n)} for n, p in SEED]

    def activities(self):
        return {PEOPLE: lambda: PeopleScreen(self), EDITOR: lambda: EditorScreen(self, None)}

    def pages(self) -> dict[str, Callable[[], object]]:
        first = self.sorted_contacts()[0]

        def being_edited() -> None:
            self.push(DetailsScreen(self, first))
            self.push(EditorScreen(self, first))

        return {"people": lambda: None, "a contact": lambda: self.push(DetailsScreen(self, first)),
                "a contact, being edited": being_edited, "new contact": lambda: self.push(EditorScreen(self, None))}

    def sorted_contacts(self) -> list[dict]:
        return sorted(self.contacts, key=lambda c: c["name"].lower())

    def find(self, query: str) -> dict | None:
        """A contact by exact name (any case) or by phone number."""
        q = query.strip().lower()
        for c in self.contacts:
            if c["name"].lower() == q:
                return c
        d = digits(q)
        if len(d) >= 7:
            for c in self.contacts:
                if digits(c["phone"]).endswith(d[-10:]) or d.endswith(digits(c["phone"])):
                    return c
        return None

    def save_contact(self, old: dict | None, name: str, number: str, email: str) -> dict:
        if old is not None:
            old.update(name=name, phone=number, email=email)
            return old
        contact = {"name": name, "phone": number, "email": email}
        self.contacts.append(contact)
        return contact

    def state(self) -> dict:
        return {"contacts": [{"name": c["name"], "phone": c["phone"]} for c in self.sorted_contacts()]}
