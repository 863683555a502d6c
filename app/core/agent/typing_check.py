"""Typing that is checked: compare what was typed with what the field shows in the next dump.

A mismatch (text left over from before, characters dropped, text that went elsewhere) makes
the type action a failed action; the message says what the field shows, so the model sees
it in its next prompt and the trajectory keeps it. A password field is compared by length
only and its text is never put in a message.
"""

from __future__ import annotations

from app.core.device.text_fields import FieldReading

QUOTE_LIMIT = 80
"""Characters of typed or found text quoted in a message."""


def quote(text: str) -> str:
    """Text for a message: quoted, newlines shown as ⏎, long text shortened in the middle."""
    shown = text.replace("\n", "⏎")
    if len(shown) > QUOTE_LIMIT:
        half = QUOTE_LIMIT // 2 - 1
        shown = f"{shown[:half]}…{shown[-half:]}"
    return f'"{shown}"'


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _is_subsequence(short: str, long: str) -> bool:
    characters = iter(long)
    return all(ch in characters for ch in short)


def typing_mismatch(typed: str, field: FieldReading | None, *, password: bool = False,
                    where: str = "the field", targeted: bool = False) -> str | None:
    """Why the field does not hold exactly `typed`, in words for the model; None when it does.

    `field` is the field read from the dump after typing (None: no such field could be found:
    the one the action named when `targeted`, else any focused one); `password` says the target
    was a password field (the dump's flag counts too)."""
    if field is None:
        what = f"{len(typed)} characters" if password else quote(typed)
        if targeted:
            return f"typed {what} but {where} was not on the screen afterwards to read it back"
        return f"typed {what} but no text field had focus afterwards, so nothing received it"
    if password or field.password:
        if not field.length_known or len(field.text) == len(typed):
            return None
        return f"typed {len(typed)} characters into the password field but it holds {len(field.text)}"
    found = field.text
    if found == typed:
        return None
    if typed and not any(ch.isalpha() for ch in typed) and _digits(typed) and _digits(found) == _digits(typed):
        return None    # the app formatted a number ("5551234" shown as "555-1234"): nothing was lost
    message = f"typed {quote(typed)} but {where} shows {quote(found)}"
    if typed and found.endswith(typed):
        return message + " (text from before was left in it; use clear_current_text to replace it)"
    if typed and typed in found:
        return message + " (other text was already in it; use clear_current_text to replace it)"
    if len(found) < len(typed) and _is_subsequence(found, typed):
        dropped = len(typed) - len(found)
        return message + (" (1 character was dropped)" if dropped == 1 else f" ({dropped} characters were dropped)")
    return message


def checkable(typed: str) -> bool:
    """Text with Enter in it may submit the field (a search, a chat message): it cannot be read back."""
    return "\n" not in typed
