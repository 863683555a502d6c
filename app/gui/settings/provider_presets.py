"""Known OpenAI-compatible providers for the Settings dialog: the table lives in the core
(`app.core.providers`), so the window, `agentdesk run --preset` and the model client agree."""

from __future__ import annotations

from app.core.providers import AZURE_PLACEHOLDER, CUSTOM, PRESETS, ProviderPreset, preset_named

__all__ = ["AZURE_PLACEHOLDER", "CUSTOM", "PRESETS", "ProviderPreset", "preset_named"]
