"""Known OpenAI-compatible providers: choosing one in Settings fills the base URL and model."""

from __future__ import annotations

from dataclasses import dataclass

CUSTOM = "Custom"
AZURE_PLACEHOLDER = "YOUR-RESOURCE"


@dataclass(frozen=True)
class ProviderPreset:
    """A provider's defaults. Choosing a preset other than Custom sets the base URL and the model;
    an empty `model` means there is no sensible default (a deployment or a loaded model), so the
    field is cleared and `model_placeholder` asks for one. Custom keeps what is entered."""

    name: str
    base_url: str
    model: str
    needs_key: bool
    hint: str
    model_placeholder: str = "model name"


PRESETS: tuple[ProviderPreset, ...] = (
    ProviderPreset("OpenAI", "https://api.openai.com/v1", "gpt-4o", True,
                   "Needs an API key from platform.openai.com. Vision models (gpt-4o, gpt-4.1) see the screen; "
                   "text-only ones get the controls as text."),
    ProviderPreset("Azure OpenAI", f"https://{AZURE_PLACEHOLDER}.openai.azure.com/openai/v1", "", True,
                   f"Replace {AZURE_PLACEHOLDER} with your resource name; the model is your deployment name, "
                   "and the key is the Azure resource key (Keys and Endpoint).", "deployment name"),
    ProviderPreset("Groq", "https://api.groq.com/openai/v1", "meta-llama/llama-4-scout-17b-16e-instruct", True,
                   "Needs an API key from console.groq.com. Fast, vision-capable Llama 4 models."),
    ProviderPreset("OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4o", True,
                   "Needs an OpenRouter key; models are named provider/model, e.g. openai/gpt-4o."),
    ProviderPreset("Ollama", "http://localhost:11434/v1", "qwen2.5vl:7b", False,
                   "Runs on this computer, no key needed. Pull the model first: ollama pull qwen2.5vl:7b"),
    ProviderPreset("LM Studio", "http://localhost:1234/v1", "", False,
                   "Runs on this computer, no key needed. Start the server in LM Studio and enter the "
                   "identifier of a loaded model (a vision model sees the screen).", "identifier of the loaded model"),
    ProviderPreset("vLLM", "http://localhost:8000/v1", "", False,
                   "A vLLM server (vllm serve MODEL), no key needed unless it was started with --api-key. "
                   "Enter the model name it serves.", "served model name"),
    ProviderPreset(CUSTOM, "", "", True,
                   "Any server that speaks the OpenAI chat-completions API: enter its base URL (usually "
                   "ending in /v1) and the model name."),
)


def preset_named(name: str) -> ProviderPreset:
    """The preset called `name`, or Custom for a name this version does not know."""
    return next((preset for preset in PRESETS if preset.name == name), PRESETS[-1])
