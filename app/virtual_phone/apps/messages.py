"""Messages (com.android.messaging): conversation list, new conversation, and a conversation with bubbles."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .. import fonts, theme
from ..views import FRAME, LINEAR, TEXT, VIEWGROUP, View
from ..widgets import Ctx, Row, ScrollState, avatar, edit_text, fab, icon_button, scroll_list, text, toolbar
from . import MESSAGES, contacts_of, dialer_of
from .base import App, Screen
from .seed_data import CONVERSATIONS

LIST = "com.android.messaging.ui.conversationlist.ConversationListActivity"
CONVERSATION = "com.android.messaging.ui.conversation.ConversationActivity"


def compose_bar(ctx: Ctx, screen: Screen, on_send) -> View:
    """The bottom bar: a 'Text message' field and the Send button (enabled once there is text)."""
    left, r, b = ctx.left, ctx.right, ctx.bottom
    h = ctx.dp(72)
    bar = View(LINEAR, (left, b - h, r, b), rid=ctx.rid("message_compose_view_container"), bg=theme.SURFACE)
    field = edit_text(ctx, (left + ctx.dp(12), b - h + ctx.dp(10), r - ctx.dp(76), b - ctx.dp(10)), "message",
                      "Text message", rid="compose_message_text", variant="pill")
    has_text = bool(screen.fields["message"].text.strip())
    send = icon_button(ctx, r - ctx.dp(40), b - h // 2, "send", "Send SMS", on_send if has_text else None,
                       rid="send_message_button", color=theme.WHITE if has_text else theme.HINT,
                       circle=theme.PRIMARY if has_text else theme.SURFACE_VARIANT, size=48, glyph_size=22)
    send.clickable, send.enabled = True, has_text
    bar.add(field, send)
    return bar


class ListScreen(Screen):
    app: MessagesApp
    activity = LIST
    background = theme.SURFACE

    def __init__(self, app: MessagesApp) -> None:
        super().__init__(app)
        self.scroll = ScrollState()

    def build(self, ctx: Ctx) -> list[View]:
        app: MessagesApp = self.app
        search = icon_button(ctx, 0, 0, "search", "Search", lambda: self.phone.toast("Search is not available"),
                             rid="action_search")
        bar = toolbar(ctx, "Messages", nav=False, actions=[search], title_size=24)
        rows = [Row(ctx.dp(80), partial(self._row, ctx, name=name)) for name in app.order]
        lst = scroll_list(ctx, (ctx.left, bar.bounds[3], ctx.right, ctx.bottom), rows, self.scroll, rid="list",
                          pad_bottom=ctx.dp(88))
        start = fab(ctx, "Start chat", "message", lambda: app.push(ComposeScreen(app)), label="Start chat",
                    rid="start_new_conversation_button")
        return [View(FRAME, ctx.content, bar, lst, start, rid=ctx.rid("conversation_list"))]

    def _row(self, ctx: Ctx, top: int, name: str) -> View:
        app: MessagesApp = self.app
        last: dict = app.conversations[name][-1] if app.conversations[name] else {"body": "", "time": "",
                                                                                  "from_me": True}
        left, r = ctx.left, ctx.right
        h = ctx.dp(80)
        row = View(VIEWGROUP, (left, top, r, top + h), rid=ctx.rid("swipeableContainer"), clickable=True,
                   long_clickable=False, on_click=lambda: app.push(ConversationScreen(app, name)))
        row.add(avatar(ctx, left + ctx.dp(44), top + h // 2, 48, name, rid="conversation_icon"))
        time_w = ctx.dp(84)
        row.add(text(ctx, (left + ctx.dp(84), top + ctx.dp(14), r - time_w, top + ctx.dp(42)), name, size=16, bold=True,
                     rid="conversation_name"))
        snippet = ("You: " if last["from_me"] else "") + last["body"].replace("\n", " ")
        row.add(text(ctx, (left + ctx.dp(84), top + ctx.dp(42), r - ctx.dp(24), top + ctx.dp(66)), snippet, size=14,
                     color=theme.TEXT_SECONDARY, rid="conversation_snippet"))
        row.add(text(ctx, (r - time_w, top + ctx.dp(14), r - ctx.dp(20), top + ctx.dp(42)), last["time"], size=12,
                     color=theme.TEXT_SECONDARY, align="right", rid="conversation_timestamp"))
        return row


class ComposeScreen(Screen):
    """A new conversation: To field with contact suggestions, and the message field."""

    app: MessagesApp
    activity = CONVERSATION
    background = theme.SURFACE
    auto_focus = "to"

    def __init__(self, app: MessagesApp, to: str = "") -> None:
        super().__init__(app)
        self.scroll = ScrollState()
        self.add_field("to", to, action=lambda: self.phone.focus_field(self, "message"))
        self.add_field("message", action=self.send)

    def build(self, ctx: Ctx) -> list[View]:
        left, t, r, b = ctx.content
        bar = toolbar(ctx, "New conversation")
        y = bar.bounds[3]
        to_row = View(LINEAR, (left, y, r, y + ctx.dp(64)), rid=ctx.rid("recipient_container"))
        to_row.add(text(ctx, (left + ctx.dp(16), y, left + ctx.dp(56), y + ctx.dp(64)), "To", size=16,
                        color=theme.TEXT_SECONDARY, rid="to_label"))
        to_row.add(edit_text(ctx, (left + ctx.dp(56), y + ctx.dp(8), r - ctx.dp(16), y + ctx.dp(56)), "to",
                             "Type name, phone number, or email", rid="recipient_text_view", variant="plain"))
        y += ctx.dp(64)
        views = [bar, to_row, View(TEXT, (left, y, r, y + 2), kind="fill", bg=theme.DIVIDER, dump=False)]
        compose = compose_bar(ctx, self, self.send)
        query = self.fields["to"].text.strip().lower()
        people = contacts_of(self.phone).sorted_contacts()
        if query:
            people = [c for c in people if query in c["name"].lower()
                      or (query.isdigit() and query in c["phone"].replace("-", ""))]
        rows = [Row(ctx.dp(64), partial(self._suggestion, ctx, contact=c)) for c in people]
        views.append(scroll_list(ctx, (left, y + 2, r, compose.bounds[1]), rows, self.scroll, rid="contact_list"))
        views.append(compose)
        return [View(FRAME, ctx.content, *views, rid=ctx.rid("compose_root"))]

    def _suggestion(self, ctx: Ctx, top: int, contact: dict) -> View:
        left, r = ctx.left, ctx.right
        row = View(VIEWGROUP, (left, top, r, top + ctx.dp(64)), clickable=True, rid=ctx.rid("contact_item"),
                   on_click=lambda: self._pick(contact))
        row.add(avatar(ctx, left + ctx.dp(36), top + ctx.dp(32), 40, contact["name"]))
        row.add(text(ctx, (left + ctx.dp(72), top + ctx.dp(8), r - ctx.dp(16), top + ctx.dp(34)), contact["name"],
                     size=16, rid="contact_name"))
        row.add(text(ctx, (left + ctx.dp(72), top + ctx.dp(34), r - ctx.dp(16), top + ctx.dp(56)), contact["phone"],
                     size=13, color=theme.TEXT_SECONDARY, rid="contact_details"))
        return row

    def _pick(self, contact: dict) -> None:
        self.fields["to"].set(contact["name"])
        self.phone.focus_field(self, "message")

    def send(self) -> None:
        body = self.fields["message"].text.strip()
        to = self.fields["to"].text.strip()
        if not body:
            return
        if not to:
            self.phone.toast("Add a recipient first")
            return
        app: MessagesApp = self.app
        name = app.send(to, body)
        i = app.stack.index(self)
        convo = ConversationScreen(app, name)
        convo.return_to = self.return_to
        app.stack[i] = convo
        self.phone.focus_field(convo, "message")


class ConversationScreen(Screen):
    app: MessagesApp
    activity = CONVERSATION
    background = theme.SURFACE

    def __init__(self, app: MessagesApp, name: str) -> None:
        super().__init__(app)
        self.name = name
        self.scroll = ScrollState(at_end=True)
        self.add_field("message", action=self.send)

    def build(self, ctx: Ctx) -> list[View]:
        app: MessagesApp = self.app
        left, t, r, b = ctx.content
        call = icon_button(ctx, 0, 0, "phone", "Call", self._call, rid="action_call")
        bar = toolbar(ctx, self.name, actions=[call])
        compose = compose_bar(ctx, self, self.send)
        max_w = int((r - left) * 0.72)
        px = ctx.sp(16)
        pad = ctx.dp(12)
        rows = []
        for msg in app.conversations.get(self.name, []):
            lines = fonts.wrap(msg["body"], px, max_w - 2 * pad)
            h = len(lines) * fonts.line_height(px) + 2 * pad
            w = max(fonts.width(line, px) for line in lines) + 2 * pad + 2
            rows.append(Row(h + ctx.dp(8), partial(self._bubble, ctx, msg=msg, w=w, h=h)))
        lst = scroll_list(ctx, (left, bar.bounds[3], r, compose.bounds[1]), rows, self.scroll, rid="message_list",
                          pad_top=ctx.dp(8))
        return [View(FRAME, ctx.content, bar, lst, compose, rid=ctx.rid("conversation_root"))]

    def _bubble(self, ctx: Ctx, top: int, msg: dict, w: int, h: int) -> View:
        left, r = ctx.left, ctx.right
        mine = msg["from_me"]
        x0 = r - ctx.dp(12) - w if mine else left + ctx.dp(12)
        holder = View(LINEAR, (left, top, r, top + h + ctx.dp(8)), rid=ctx.rid("message_content"))
        holder.add(text(ctx, (x0, top + ctx.dp(4), x0 + w, top + ctx.dp(4) + h), msg["body"], size=16, lines=0,
                        color=theme.WHITE if mine else theme.TEXT, bg=theme.PRIMARY if mine else theme.SURFACE_VARIANT,
                        radius=ctx.dp(18), pad=ctx.dp(12), rid="message_text"))
        return holder

    def _call(self) -> None:
        contact = contacts_of(self.phone).find(self.name)
        number = contact["phone"] if contact else self.name
        self.phone.open_in_app(dialer_of(self.phone), lambda app: app.call_screen(self.name, number))

    def send(self) -> None:
        body = self.fields["message"].text.strip()
        if not body:
            return
        self.app.send(self.name, body)
        self.fields["message"].set("")
        self.scroll.at_end = True


class MessagesApp(App):
    package = MESSAGES
    label = "Messages"
    glyph = "message"
    main_activity = LIST

    def __init__(self, phone) -> None:
        super().__init__(phone)
        self.conversations: dict[str, list[dict]] = {
            name: [{"from_me": me, "body": body, "time": when} for me, body, when in msgs]
            for name, msgs in CONVERSATIONS.items()}
        self.order = list(CONVERSATIONS)  # most recent first
        self.sent: list[dict] = []

    def activities(self):
        return {LIST: lambda: ListScreen(self), CONVERSATION: lambda: ComposeScreen(self)}

    def pages(self) -> dict[str, Callable[[], object]]:
        return {"conversations": lambda: None,
                "a conversation": lambda: self.push(ConversationScreen(self, self.order[0])),
                "new conversation": lambda: self.push(ComposeScreen(self))}

    def resolve(self, to: str) -> str:
        contact = contacts_of(self.phone).find(to)
        return contact["name"] if contact else to.strip()

    def send(self, to: str, body: str) -> str:
        name = self.resolve(to)
        now = self.phone.now()
        stamp = f"{(now.hour % 12) or 12}:{now.minute:02d} {'AM' if now.hour < 12 else 'PM'}"
        self.conversations.setdefault(name, []).append({"from_me": True, "body": body, "time": stamp})
        if name in self.order:
            self.order.remove(name)
        self.order.insert(0, name)
        self.sent.append({"to": name, "body": body})
        return name

    def conversation_screen(self, name: str) -> Screen:
        return ConversationScreen(self, name)

    def state(self) -> dict:
        return {"messages_sent": [dict(m) for m in self.sent],
                "conversations": {n: [{"from": "me" if m["from_me"] else n, "body": m["body"]} for m in msgs]
                                  for n, msgs in self.conversations.items()}}
