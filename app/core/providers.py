"""Known OpenAI-compatible providers, and what a run's tokens cost there. No Qt: the window's Settings
dialog, `agentdesk run --preset` and the model client all read the same table.

A preset holds what a person would otherwise have to know: the base URL, a sensible model, whether a
key is needed, how long to wait for a reply (a local server that is busy generating gets minutes, not
60 s, and a timeout there is not retried several times), whether the default model reads images,
which structured output the server accepts, and the price of its models. Prices are honest: a local
server is free, a model without a known price has an unknown cost, never $0 and never another model's.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from app.core.image_tokens import ImageRule, rule_for_model

if TYPE_CHECKING:
    from app.core.config import ProviderSettings, Settings

CUSTOM = "Custom"
AZURE_PLACEHOLDER = "YOUR-RESOURCE"

LOCAL_TIMEOUT_SECONDS = 600.0
"""A server on this machine or network may take minutes for one reply (a CPU, a large prompt, a queue)."""
LOCAL_HTTP_RETRIES = 1
"""Retries for a local server: its timeout is long, and a second identical request only queues behind the first."""

ImageSupport = Literal["yes", "unknown"]
StructuredOutput = Literal["json_schema", "json_object", "none"]
Price = tuple[float, float]
"""USD per million tokens: (input, output)."""


@dataclass(frozen=True)
class ProviderPreset:
    """A provider's defaults. Choosing a preset other than Custom sets the base URL, the model, the
    timeout and the retries; an empty `model` means there is no sensible default (a deployment or a
    loaded model), so the field is cleared and `model_placeholder` asks for one.

    `images` says whether the default model is known to read images; `structured_output` is the
    strongest `response_format` the server is known to accept when tools are not used; `prices`
    maps model-name prefixes to prices (longest prefix wins) and only applies at this preset's host.
    `image_tokens` names the rule its models count an image's tokens by when the server reports no
    usage (`app.core.image_tokens`: "openai", "anthropic", "gemini"; "" = estimated, or the model's
    name says: "openai/gpt-4o", "claude-…"); `image_detail` is the `detail` sent with each image ("" =
    none, the server's default).
    """

    name: str
    base_url: str
    model: str
    needs_key: bool
    hint: str
    model_placeholder: str = "model name"
    local: bool = False
    timeout_seconds: float = 120.0
    http_retries: int = 3
    images: ImageSupport = "unknown"
    structured_output: StructuredOutput = "none"
    prices: dict[str, Price] = field(default_factory=dict, hash=False, compare=False)
    image_tokens: str = ""
    image_detail: str = ""

    def facts(self) -> str:
        """One line for a person: price, how long a reply may take, and the retries."""
        wait = (f"{self.timeout_seconds / 60:g} min" if self.timeout_seconds >= 120 else f"{self.timeout_seconds:g} s")
        retries = {0: "no retry", 1: "one retry"}.get(self.http_retries, f"{self.http_retries} retries")
        price = "Free (local)" if self.local else ("Priced per token" if self.prices else "Cost unknown in Agent Desk")
        return f"{price}; waits up to {wait} for a reply, {retries}."

    def settings_values(self) -> dict[str, object]:
        """What choosing this preset puts into `ProviderSettings` (Custom changes only its name)."""
        if self.name == CUSTOM:
            return {"preset": self.name}
        return {"preset": self.name, "base_url": self.base_url, "model": self.model,
                "timeout_seconds": self.timeout_seconds, "http_retries": self.http_retries}


def _local(name: str, base_url: str, model: str, hint: str, placeholder: str = "model name",
           structured_output: StructuredOutput = "json_schema", images: ImageSupport = "unknown") -> ProviderPreset:
    return ProviderPreset(name, base_url, model, False, hint, placeholder, local=True,
                          timeout_seconds=LOCAL_TIMEOUT_SECONDS, http_retries=LOCAL_HTTP_RETRIES, images=images,
                          structured_output=structured_output)


OPENAI_PRICES: dict[str, Price] = {"gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00), "gpt-4.1-mini": (0.40, 1.60),
                                   "gpt-4.1-nano": (0.10, 0.40), "gpt-4.1": (2.00, 8.00), "o4-mini": (1.10, 4.40)}

PRESETS: tuple[ProviderPreset, ...] = (
    ProviderPreset("OpenAI", "https://api.openai.com/v1", "gpt-4o", True,
                   "Needs an API key from platform.openai.com. Vision models (gpt-4o, gpt-4.1) see the screen; "
                   "text-only ones get the controls as text.", timeout_seconds=60.0, images="yes",
                   structured_output="json_schema", prices=OPENAI_PRICES, image_tokens="openai", image_detail="high"),
    ProviderPreset("Anthropic", "https://api.anthropic.com/v1", "claude-sonnet-4-5", True,
                   "Needs an API key from console.anthropic.com (Claude through its OpenAI-compatible endpoint). "
                   "Claude models see the screen.", images="yes",
                   prices={"claude-sonnet-4": (3.00, 15.00), "claude-opus-4": (15.00, 75.00),
                           "claude-haiku-4-5": (1.00, 5.00)}, image_tokens="anthropic"),
    ProviderPreset("Gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.5-flash", True,
                   "Needs an API key from aistudio.google.com (Gemini through its OpenAI-compatible endpoint). "
                   "Gemini models see the screen.", images="yes", structured_output="json_schema",
                   prices={"gemini-2.5-flash": (0.30, 2.50), "gemini-2.5-pro": (1.25, 10.00)}, image_tokens="gemini"),
    ProviderPreset("OpenRouter", "https://openrouter.ai/api/v1", "openai/gpt-4o", True,
                   "Needs an OpenRouter key; models are named provider/model, e.g. openai/gpt-4o.", images="yes",
                   structured_output="json_schema",
                   prices={f"openai/{model}": price for model, price in OPENAI_PRICES.items()}),
    ProviderPreset("Groq", "https://api.groq.com/openai/v1", "meta-llama/llama-4-scout-17b-16e-instruct", True,
                   "Needs an API key from console.groq.com. Fast, vision-capable Llama 4 models.",
                   timeout_seconds=60.0, images="yes", structured_output="json_object",
                   prices={"meta-llama/llama-4-scout-17b-16e-instruct": (0.11, 0.34)}),
    ProviderPreset("DashScope (Qwen)", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "qwen-vl-max", True,
                   "Needs a DashScope (Alibaba Cloud Model Studio) API key. Qwen-VL models see the screen.",
                   images="yes", structured_output="json_object"),
    _local("Ollama", "http://localhost:11434/v1", "qwen2.5vl:7b",
           "Runs on this computer, no key needed. Pull the model first: ollama pull qwen2.5vl:7b", images="yes"),
    _local("LM Studio", "http://localhost:1234/v1", "",
           "Runs on this computer, no key needed. Start the server in LM Studio and enter the identifier of a "
           "loaded model (a vision model sees the screen).", "identifier of the loaded model"),
    _local("vLLM", "http://localhost:8000/v1", "",
           "A vLLM server (vllm serve MODEL), no key needed unless it was started with --api-key. Enter the "
           "model name it serves.", "served model name"),
    _local("llama.cpp", "http://localhost:8080/v1", "local",
           "llama.cpp's llama-server, no key needed; it serves the one model it was started with (any model "
           "name works). It sees the screen only when started with a vision projector (--mmproj); otherwise "
           "the model gets the controls as text."),
    ProviderPreset("Azure OpenAI", f"https://{AZURE_PLACEHOLDER}.openai.azure.com/openai/v1", "", True,
                   f"Replace {AZURE_PLACEHOLDER} with your resource name; the model is your deployment name, "
                   "and the key is the Azure resource key (Keys and Endpoint).", "deployment name",
                   timeout_seconds=60.0, structured_output="json_schema", image_tokens="openai", image_detail="high"),
    ProviderPreset(CUSTOM, "", "", True,
                   "Any server that speaks the OpenAI chat-completions API: enter its base URL (usually "
                   "ending in /v1) and the model name."),
)

PRESET_NAMES = tuple(preset.name for preset in PRESETS)


def preset_named(name: str) -> ProviderPreset:
    """The preset called `name`, or Custom for a name this version does not know."""
    return next((preset for preset in PRESETS if preset.name == name), PRESETS[-1])


class UnknownPreset(ValueError):
    """A preset name that matches none; the message lists the names there are."""


def find_preset(name: str) -> ProviderPreset:
    """The preset called `name`, ignoring case, spaces and punctuation ("lm-studio", "llamacpp",
    "dashscope"); raises `UnknownPreset` naming every preset when nothing matches."""
    wanted = _plain(name)
    for preset in PRESETS:
        if wanted and wanted in (_plain(preset.name), _plain(preset.name.split(" (")[0])):
            return preset
    raise UnknownPreset(f"There is no provider preset called {name!r}. The presets are: "
                        f"{', '.join(PRESET_NAMES)}.")


def _plain(text: str) -> str:
    return "".join(character for character in text.lower() if character.isalnum())


# ----------------------------------------------------------------------------- where a server runs


def host_of(base_url: str) -> str:
    """The host name of a base URL, lower case, without port or brackets ('' when there is none)."""
    try:
        return (urlsplit(base_url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def is_local_url(base_url: str) -> bool:
    """A server on this machine or the local network (loopback, private addresses, `*.local`): it
    costs nothing per token, and it may be slow."""
    host = host_of(base_url)
    if not host:
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".localhost", ".local", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def preset_for_url(base_url: str) -> ProviderPreset | None:
    """The preset whose base URL this is (same host and port), if any."""
    wanted = _endpoint(base_url)
    return next((preset for preset in PRESETS if preset.base_url and _endpoint(preset.base_url) == wanted), None)


def preset_for(provider: ProviderSettings) -> ProviderPreset:
    """The preset that describes `provider`: the named one while its base URL is still that preset's
    host (or the preset has no fixed host), else the one whose URL it is, else Custom."""
    named = preset_named(provider.preset)
    by_url = preset_for_url(provider.base_url)
    if named.name != CUSTOM and (_same_host(named, provider.base_url) or named.local and by_url is None):
        return named
    return preset_for_url(provider.base_url) or preset_named(CUSTOM)


def is_local(provider: ProviderSettings) -> bool:
    """Whether `provider` is a server on this machine or network."""
    return is_local_url(provider.base_url)


def structured_output_for(provider: ProviderSettings) -> StructuredOutput:
    """The `response_format` to send when the reply is not asked for as a tool call: the setting, or with
    "auto" what the provider's preset accepts (an unknown server on this machine or network: a JSON schema,
    which llama.cpp, Ollama, LM Studio and vLLM all take; an unknown remote one: none)."""
    chosen = provider.structured_output
    if chosen == "off":
        return "none"
    if chosen != "auto":
        return chosen
    preset = preset_for(provider)
    if preset.name == CUSTOM and is_local(provider):
        return "json_schema"
    return preset.structured_output


def image_rule_for(provider: ProviderSettings) -> ImageRule:
    """How `provider`'s model counts an image's tokens (`image_tokens`): its preset's rule, or the one
    its model's name says (OpenRouter's "openai/gpt-4o"), else an estimate that says it is one."""
    preset = preset_for(provider)
    return rule_for_model(provider.model, preset.image_tokens, image_detail_for(provider) or "high")


def image_detail_for(provider: ProviderSettings) -> str:
    """The `detail` each image is sent with ("" = none). OpenAI's models read a phone screen's small text
    only at "high"; left out, it is "auto", with which the model may take the 512-px "low" version and
    the tokens cannot be known in advance. Other servers get none: they ignore it or may refuse it."""
    return preset_for(provider).image_detail


def connection_defaults_for_url(base_url: str) -> dict[str, float | int]:
    """Timeout and retries for a base URL given without a preset (`agentdesk run --base-url`): those of
    the preset whose URL it is, else a local server's; empty (keep the settings') for any other server."""
    preset = preset_for_url(base_url)
    if preset is not None:
        return {"timeout_seconds": preset.timeout_seconds, "http_retries": preset.http_retries}
    if is_local_url(base_url):
        return {"timeout_seconds": LOCAL_TIMEOUT_SECONDS, "http_retries": LOCAL_HTTP_RETRIES}
    return {}


def _same_host(preset: ProviderPreset, base_url: str) -> bool:
    host = host_of(base_url)
    if preset.name == "Azure OpenAI":
        return host.endswith(".openai.azure.com")
    return host == host_of(preset.base_url)


def _endpoint(base_url: str) -> tuple[str, int | None]:
    try:
        parts = urlsplit(base_url.strip())
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return "", None
    if host in ("127.0.0.1", "::1", "0.0.0.0"):
        host = "localhost"
    return host, port or {"http": 80, "https": 443}.get(parts.scheme)


# ----------------------------------------------------------------------------- prices


@dataclass(frozen=True)
class Pricing:
    """What a run's tokens cost at its provider: `known` (with the price), `free` (a local server) or
    `unknown` (a model no price table names: its cost is not shown as $0)."""

    kind: Literal["known", "free", "unknown"]
    price: Price | None = None

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for these tokens; 0.0 when free or unknown (see `known`)."""
        if self.price is None:
            return 0.0
        per_million_in, per_million_out = self.price
        return (prompt_tokens * per_million_in + completion_tokens * per_million_out) / 1_000_000

    @property
    def known(self) -> bool:
        """A cost can be stated: a price is known, or the server is free."""
        return self.kind != "unknown"

    def words(self, cost_usd: float) -> str:
        """The cost for a person: "$0.0123", "free (local)" or "cost unknown"."""
        if self.kind == "free":
            return "free (local)"
        if self.kind == "unknown":
            return "cost unknown"
        return f"${cost_usd:.4f}"


def cost_words(cost_usd: float, pricing: Pricing | None) -> str:
    """The cost as `pricing` words it; in dollars when the pricing is not known (a record from before)."""
    return pricing.words(cost_usd) if pricing is not None else f"${cost_usd:.4f}"


FREE = Pricing("free")
UNKNOWN = Pricing("unknown")


def pricing_for(settings: Settings, model: str | None = None) -> Pricing:
    """The pricing of `model` (default: the settings' model) at the settings' provider.

    A local server is free. Otherwise the person's price table (`settings.prices`) is asked first,
    then the prices of the preset whose host this is. OpenAI's model names are priced only at
    OpenAI's and Azure's hosts (and wherever the person's own table names them): a model called
    "gpt-4o" on some other server is not assumed to cost what OpenAI charges.
    """
    provider = settings.provider
    model = model or provider.model
    if is_local_url(provider.base_url):
        return FREE
    host = host_of(provider.base_url)
    table = dict(settings.prices)
    if not (host == "api.openai.com" or host.endswith(".openai.azure.com")):
        table = {name: price for name, price in table.items() if OPENAI_PRICES.get(name) != tuple(price)}
    price = _longest_prefix(table, model)
    if price is None:
        preset = preset_for(provider)
        if preset.base_url and host_of(preset.base_url) == host:
            price = _longest_prefix(preset.prices, model)
    return Pricing("known", (float(price[0]), float(price[1]))) if price is not None else UNKNOWN


def pricing_from_record(settings: object) -> Pricing | None:
    """The pricing of a recorded run, from the settings its run.json holds; None when they cannot be read."""
    from pydantic import ValidationError

    from app.core.config import Settings

    if not isinstance(settings, dict) or "provider" not in settings:
        return None
    try:
        return pricing_for(Settings.model_validate(settings))
    except (ValidationError, ValueError, TypeError):
        return None


def _longest_prefix(table: dict[str, Price], model: str) -> Price | None:
    matches = [name for name in table if model.startswith(name)]
    return table[max(matches, key=len)] if matches else None
