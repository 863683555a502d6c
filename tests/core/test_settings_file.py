"""The settings file: every section the Settings model has is written and read back (the learning section
was once left out when reading, so its choices went back to the defaults at every start)."""

from __future__ import annotations

from typing import Literal, get_args, get_origin

from pydantic import BaseModel

from app.core.config import Settings, load_settings, save_settings, settings_sections


def changed_value(annotation, value):
    """A valid value of the field other than its default."""
    if get_origin(annotation) is Literal:
        return next((choice for choice in get_args(annotation) if choice != value), None)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.5
    if isinstance(value, list) and not value:
        return ["192.168.1.20:5037"]          # adb servers, say
    return None


def test_every_section_is_read_back_with_what_was_saved(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings()
    changed: dict[str, tuple[str, object]] = {}
    for name, model in settings_sections().items():
        section: BaseModel = getattr(settings, name)
        for field_name in model.model_fields:
            new = changed_value(model.model_fields[field_name].annotation, getattr(section, field_name))
            if new is None:
                continue
            try:
                section = model.model_validate({**section.model_dump(), field_name: new})
            except ValueError:
                continue
            changed[name] = (field_name, new)
            break
        settings = settings.model_copy(update={name: section})
    assert set(changed) == set(settings_sections()), "each section has a field the test can change"
    assert {"learning", "appearance"} <= set(changed)
    save_settings(settings, path)
    loaded, warnings = load_settings(path)
    assert warnings == []
    for name, (field_name, new) in changed.items():
        assert getattr(getattr(loaded, name), field_name) == new, f"{name}.{field_name} was not read back"
