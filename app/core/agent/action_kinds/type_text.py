"""type_text: type into a control (else the focused field), optionally replacing what it holds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.core.perception.controls import Control

from .base import (
    ActionArguments,
    ActionKind,
    ActionRejected,
    Box,
    Gesture,
    Performer,
    Place,
    Point,
    ScriptWriter,
    TypedText,
    find_control,
    no_box,
)

SECRET_REFUSED = ("Refused: the text holds the stored API key or the API token, and these are never typed on a "
                  "phone. Nothing was typed.")


class TypeText(ActionArguments):
    text: str
    control_id: int | None = None
    clear_current_text: bool = False


class TypeTextAction(ActionKind[TypeText]):
    name = "type_text"
    arguments = TypeText
    hint = "else the focused field; clear_current_text replaces its text"
    places = (Place(control="control_id"),)
    shorthand = ("type [ID] TEXT",)

    def describe(self, args: TypeText, name: Callable[[int, str], str]) -> str:
        target = f" into {name(args.control_id, '')}" if args.control_id is not None else ""
        shown = args.text if len(args.text) <= 60 else args.text[:57] + "…"
        return f"{'Replace the text with' if args.clear_current_text else 'Type'} “{shown}”{target}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        if verb != "type":
            return None
        if len(words) >= 2 and words[0].isdigit():
            return {"control_id": int(words[0]), "text": " ".join(words[1:])}
        return {"text": " ".join(words)}

    async def perform(self, args: TypeText, performer: Performer, controls: list[Control]) -> str:
        from ..sensitive import secret_in_text  # here: the sensitive check reads the registry of kinds
        if secret_in_text(args.text):      # whoever asked: the model, a person's edit, a skill, a replay
            raise ActionRejected(SECRET_REFUSED)
        device = performer.device
        where = ""
        field = next((control for control in controls if control.focused), None)
        if args.control_id is not None:
            field = find_control(controls, args.control_id)
            await device.tap(*field.center)
            where = f" into “{field.name}”"
        await device.type_text(args.text, clear_first=args.clear_current_text,
                               current_length=len(field.text) if field is not None else None,
                               password=field.password if field is not None else None)
        named = field.name if field is not None and field.name.strip() != field.text.strip() else ""
        performer.typed = TypedText(args.text, field if args.control_id is not None else None,
                                    bool(field and field.password), f"the field “{named}”" if named else "the field")
        return f"Typed {len(args.text)} characters{where}"

    def sensitive_reason(self, args: TypeText, controls: Sequence[Control],
                         check_control: Callable[[Control, str], str], check_point: Callable[[str, Point], str]) -> str:
        """Typing into a password, payment or one-time-code field asks first; then the target's words."""
        from ..sensitive import field_kind  # here: the sensitive check reads the registry of kinds
        target = next((c for c in controls if c.id == args.control_id), None) if args.control_id is not None else None
        field = target or next((c for c in controls if c.focused), None)
        if field is not None and (kind := field_kind(field)):
            return f"it types into {kind} (“{field.name}”)"
        return super().sensitive_reason(args, controls, check_control, check_point)

    def gesture(self, args: TypeText, target: Box | None, screen_size: tuple[int, int],
                box_of: Callable[[int], Box | None] = no_box) -> Gesture | None:
        return Gesture("typed here", "rejected typing (dashed)") if target is not None else None

    def export_python(self, args: TypeText, writer: ScriptWriter) -> list[str]:
        value = writer.typed_value(args.text)
        clear = args.clear_current_text
        if not writer.has_target():
            return [f"d.send_keys({value}, clear={clear!r})"]
        at = writer.found_at()
        if at is not None:
            return [f"d.click({at[0]}, {at[1]})", f"d.send_keys({value}, clear={clear!r})"]
        if clear:
            return [f"{writer.found()}.set_text({value})   # set_text replaces what the field held"]
        return [f"{writer.found()}.click()", f"d.send_keys({value})"]

    def export_yaml(self, arguments: dict[str, Any], writer: ScriptWriter) -> dict[str, Any]:
        kept = super().export_yaml(arguments, writer)
        text = kept.get("text")
        if isinstance(text, str) and writer.secret_env(text) is not None:
            del kept["text"]
        return kept
