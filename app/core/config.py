"""Settings: provider, images, agent limits. Stored as JSON in the user config dir; never holds secrets.

A bad settings file never stops the app and never loses what the person wrote: each
section that fails validation falls back to its defaults with a warning saying why,
and the file is not overwritten until the person saves new settings.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from app.core.key_origins import origin_of, origins_of

log = logging.getLogger(__name__)

DEFAULT_SENSITIVE_WORDS = ["pay", "buy", "purchase", "order", "checkout", "delete", "remove", "uninstall",
                           "send", "transfer", "confirm payment", "subscribe", "factory reset", "erase"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)


class ProviderSettings(_Section):
    """An OpenAI-compatible endpoint. The API key is not here: it lives in the OS keyring."""

    preset: str = "OpenAI"
    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o"
    key_name: str = Field("default", description="which keyring entry holds the key")
    key_origin: str = Field("", description="the origin (scheme://host:port) the stored key was stored for and "
                            "goes to; empty: the base URL saved with it (a key stored before origins were kept)")
    key_also_for: list[str] = Field(default_factory=list, description="further origins the person allowed the "
                                    "key to go to (Settings › Also send this key to, `agentdesk key allow`)")
    timeout_seconds: float = Field(60.0, gt=0, le=3600, description="how long one reply may take; a local server "
                                   "that is busy generating may need minutes")
    http_retries: int = Field(3, ge=0, le=10, description="retries on 429 / 5xx / timeouts, with backoff (a local "
                              "server's timeout is retried at most once)")
    use_tools: bool = Field(True, description="send the actions as tools; JSON in text is always accepted")
    temperature: float | None = Field(0.0, ge=0, le=2)
    max_output_tokens: int = Field(1024, ge=64, le=32768)
    coordinate_mode: Literal["image", "normalized"] = Field(
        "image", description="model coordinates are pixels of the sent image, or 0-1000 normalised")
    max_reply_mb: float = Field(1.0, gt=0, le=64, description="a model reply larger than this is refused unread")
    stream: bool = Field(True, description="ask for the reply streamed, so the model's words show as they arrive")
    structured_output: Literal["auto", "json_schema", "json_object", "off"] = Field(
        "auto", description="response_format sent when tools are not: auto = what the provider preset supports")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("the base URL must start with http:// or https://")
        return value

    @model_validator(mode="before")
    @classmethod
    def _key_belongs_to_the_saved_url(cls, data: object) -> object:
        """A key stored before origins were kept belongs to the base URL saved with it: pinned here, when the
        saved settings are read, so that a run's other base URL (a task's, a preset's) never takes it along."""
        if isinstance(data, dict) and not str(data.get("key_origin") or "").strip():
            base_url = str(data.get("base_url") or cls.model_fields["base_url"].default)
            try:
                data = {**data, "key_origin": origin_of(base_url)}
            except ValueError:
                pass                       # the base URL's own error says what is wrong
        return data

    @field_validator("key_origin")
    @classmethod
    def _origin(cls, value: str) -> str:
        return origin_of(value) if value.strip() else ""

    @field_validator("key_also_for", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        return origins_of(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else value


LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "0.0.0.0")


def needs_api_key(base_url: str) -> bool:
    """Local servers (Ollama, LM Studio, vLLM on this machine) usually need no key."""
    host = base_url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0]
    return host not in LOCAL_HOSTS


IMAGE_SEND_CHOICES = ("auto", "annotated", "both", "clean", "none")
_PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*")


class ImageSettings(_Section):
    send: Literal["auto", "annotated", "clean", "both", "none"] = Field(
        "auto", description="screenshots sent to the model: auto = the annotated one, and the clean one too when "
                            "the annotation hides what matters or the model asks for it (`image_choice.py`); "
                            "'none' = text only (the controls list), for a model that cannot read images")
    max_side: int = Field(1280, ge=256, le=4096)
    format: Literal["jpeg", "png"] = "jpeg"
    jpeg_quality: int = Field(80, ge=30, le=95)
    never_send_apps: list[str] = Field(
        default_factory=list,
        description="package names whose screenshots are never sent to the model, only their controls as text "
                    "(e.g. banking apps, password managers; see docs/private-data.md)")

    @field_validator("never_send_apps", mode="before")
    @classmethod
    def _never_send_apps(cls, value: object) -> object:
        """A list of package names, or one string of them separated by commas or spaces; duplicates
        and blanks dropped. Anything that is not a package name gets an error naming it."""
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, (list, tuple)):
            return value
        packages: list[str] = []
        for item in value:
            name = item.strip() if isinstance(item, str) else item
            if not isinstance(name, str) or not _PACKAGE_NAME.fullmatch(name):
                raise ValueError(f"images.never_send_apps holds package names such as com.example.bank, "
                                 f"not {item!r}")
            if name not in packages:
                packages.append(name)
        return packages

    @field_validator("send", mode="before")
    @classmethod
    def _send(cls, value: object) -> object:
        """Accept any case and spacing ("None", " both "); anything else gets an error naming the choices."""
        if isinstance(value, str):
            value = value.strip().lower()
            if value not in IMAGE_SEND_CHOICES:
                raise ValueError(f"images.send must be one of {', '.join(IMAGE_SEND_CHOICES)} "
                                 f"('none' = text only), not {value!r}")
        return value

    @property
    def text_only(self) -> bool:
        """No screenshot is sent: the model gets the controls as text only."""
        return self.send == "none"


class AgentSettings(_Section):
    mode: Literal["step", "auto"] = "step"
    max_steps: int = Field(30, ge=1, le=500)
    timeout_seconds: float = Field(900.0, gt=0)
    max_consecutive_failures: int = Field(3, ge=1, le=20)
    reply_retries: int = Field(3, ge=1, le=10, description="tries for a reply that parses and validates")
    max_rejections_per_step: int = Field(5, ge=1, le=20)
    stuck_threshold: int = Field(3, ge=2, le=10, description="same action on an unchanged screen this often = stuck")
    settle_seconds: float = Field(1.0, ge=0, le=10, description="longest wait for the screen to settle after an "
                                  "action (0 = no wait); the wait ends as soon as the screen is still, and a "
                                  "phone's transitions take up to ~0.5 s")
    settle_quiet_seconds: float = Field(0.2, ge=0, le=5, description="the screen counts as settled once it has not "
                                        "changed for this long")
    loading_wait_seconds: float = Field(5.0, ge=0, le=60, description="after an action, how long a step waits "
                                        "for a moving progress indicator (a list on its way) to go before it reads "
                                        "the screen (0 = no wait)")
    reflection: bool = True
    completion_check: Literal["screen_or_model", "screen_only", "off"] = Field(
        "screen_or_model", description="after FINISH, check a fresh screen (and ask the model when the screen "
                                       "cannot tell) before calling the run a success")
    max_unconfirmed_finishes: int = Field(2, ge=0, le=10, description="times a FINISH the check found not done "
                                                                      "goes back into the loop before the run fails")
    model_reflection: bool = Field(False, description="ask the model to judge before/after when the diff is unclear")
    recent_steps_in_prompt: int = Field(5, ge=0, le=30)
    sensitive_words: list[str] = Field(default_factory=lambda: list(DEFAULT_SENSITIVE_WORDS))
    system_dialogs: Literal["ask", "model"] = Field(
        "ask", description="a dialog of the system over an app (a permission request, \"isn't responding\"): ask "
                           "you before answering it, even in auto mode (ask), or let the model's answer go (model)")
    max_tokens_per_run: int = Field(0, ge=0, le=1_000_000_000, description="the run ends once its model calls have "
                                    "used this many tokens (prompt + reply); 0 = no cap")
    max_cost_usd_per_run: float = Field(0.0, ge=0, le=100_000, description="the run ends once its model calls have "
                                        "cost this many USD, where the model's price is known; 0 = no cap")

    @field_validator("max_tokens_per_run", "max_cost_usd_per_run", mode="before")
    @classmethod
    def _no_cap(cls, value: object) -> object:
        """None (or an empty field) means no cap, as 0 does."""
        return 0 if value is None or (isinstance(value, str) and not value.strip()) else value


class LimitSettings(_Section):
    """Caps on what the phone sends, so a hostile or broken screen fails one step quickly instead of
    eating seconds and hundreds of MB (the model reply's cap is `provider.max_reply_mb`)."""

    max_dump_mb: float = Field(8.0, gt=0, le=256, description="largest UI dump read")
    max_dump_nodes: int = Field(5000, ge=100, le=200_000, description="most nodes read from one UI dump")
    max_screenshot_side: int = Field(4096, ge=256, le=16384, description="widest/tallest screenshot, in pixels")
    max_screenshot_mb: float = Field(80.0, gt=0, le=1024, description="largest screenshot, as sent by the phone")
    dump_seconds: float = Field(2.0, gt=0, le=60, description="longest one reading of the screen's controls from "
                                "uiautomator2's server may take; then uiautomator dump is used")


class MirrorSettings(_Section):
    """How the phone's screen reaches the app: scrcpy's video stream (pushed to the phone and started
    there), or screenshots one after another where the stream cannot run."""

    stream: Literal["auto", "screenshots"] = Field(
        "auto", description="auto: stream the screen with scrcpy's server, falling back to screenshots "
        "when it cannot start; screenshots: always poll screenshots")
    max_size: int = Field(1280, ge=0, le=8192, description="the stream's longer side at most this many pixels "
                          "(0 = the phone's full resolution)")
    max_fps: int = Field(60, ge=1, le=240, description="most frames a second the phone sends")
    video_bit_rate_mbps: float = Field(8.0, gt=0, le=200, description="the stream's bit rate, in Mbit/s")
    video_codec: Literal["auto", "h264", "av1"] = Field(
        "auto", description="auto: H.264, which every phone encodes; av1 only for phones that can")
    show_touches: bool = Field(False, description="the phone shows a dot where it is touched while mirrored")
    record_runs: bool = Field(True, description="write each run's video into an MP4 next to its report "
                              "(the stream's own packets, no re-encoding)")


_SERVER_ADDRESS = re.compile(r"(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:]+\]):\d{1,5}")


def parse_adb_servers(value: object) -> list[str]:
    """`host:port` addresses, from a list or one string separated by commas or spaces (as
    AGENTDESK_ADB_SERVERS gives them); duplicates and blanks dropped, anything else an error naming it."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"adb.servers is a list of host:port addresses, not {value!r}")
    servers: list[str] = []
    for item in value:
        address = item.strip() if isinstance(item, str) else item
        if not isinstance(address, str) or not _SERVER_ADDRESS.fullmatch(address) \
                or not 0 < int(address.rsplit(":", 1)[1]) < 65536:
            raise ValueError(f"an ADB server is written host:port, such as 192.168.1.20:5037, not {item!r}")
        if address not in servers:
            servers.append(address)
    return servers


class AdbSettings(_Section):
    """Where phones are found: this machine's ADB server, and other machines' (a lab's phones on
    other computers, served with `adb -a nodaemon server`, or a device farm's remote ADB)."""

    servers: list[str] = Field(default_factory=list, description="more ADB servers as host:port, besides this "
                               "machine's (ANDROID_ADB_SERVER_PORT or 5037); AGENTDESK_ADB_SERVERS adds more")
    keep_virtual_phone: bool = Field(False, description="the built-in virtual phone (shared by every Agent Desk "
                                     "program on this computer, port 5038) keeps running after the last one using "
                                     "it closes; off: it stops some seconds later")
    tree_server: Literal["auto", "on", "off"] = Field(
        "auto", description="read the screen's controls through uiautomator2's server on the phone (about ten "
        "times quicker than uiautomator dump, and it works on screens that never stop moving). auto: on the "
        "built-in virtual phone and emulators only; on: on every phone - while it runs, the server listens on "
        "every network interface of the phone with no password, so any app on the phone and any machine on its "
        "Wi-Fi can read the screen, type, tap and run shell commands through it")

    @field_validator("servers", mode="before")
    @classmethod
    def _servers(cls, value: object) -> object:
        return parse_adb_servers(value)


class ApiSettings(_Section):
    """The local HTTP API (and through it MCP) that lets other programs give the desk tasks."""

    serve: bool = Field(False, description="the desktop app serves the task API while it runs")
    host: str = Field("127.0.0.1", description="the address to listen on; anything but loopback lets "
                      "other machines in (they still need the token)")
    port: int = Field(8765, ge=0, le=65535, description="the TCP port; 0 = any free one (agentdesk mcp still "
                      "finds the desk)")
    max_queued_tasks: int = Field(32, ge=1, le=10_000, description="tasks waiting or running at once; more "
                                  "are refused with 429")
    review_timeout_seconds: float = Field(600.0, gt=0, le=86_400, description="a task waiting for a person's "
                                          "decision that nobody gives ends after this long")
    max_body_kb: int = Field(256, ge=1, le=65_536, description="largest request body accepted")
    programs_may_approve_sensitive: bool = Field(False, description="a program (the task API, MCP) may approve, "
                                                 "edit or override a sensitive action and post tasks that take "
                                                 "them without asking; off: a person decides them, in the window "
                                                 "or the console")


class LearningSettings(_Section):
    """Learning from past runs (seed 003): skills saved from runs, and a planner that replays them."""

    use_skills: bool = Field(True, description="before the model is asked, a saved skill that fits the request "
                             "is replayed (the model takes over where it stops fitting)")
    save_skills: bool = Field(True, description="every successful run is saved as a skill (in the data "
                              "folder's skills/ folder, as YAML a person can edit)")
    record_screens: bool = Field(True, description="record every screen and action as the screens graph's data "
                                 "(the data folder's graph/ folder)")
    use_map: bool = Field(True, description="tell the model where the phone is on the map of screens earlier "
                          "runs recorded, and let it go to a known screen by the known way (go_to_screen)")


class AppearanceSettings(_Section):
    """How the desk looks; applied by the GUI (the core only stores the choice)."""

    theme: Literal["system", "light", "dark"] = Field(
        "system", description="light or dark colours, or follow the system's colour scheme")


class Settings(_Section):
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    images: ImageSettings = Field(default_factory=ImageSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    mirror: MirrorSettings = Field(default_factory=MirrorSettings)
    adb: AdbSettings = Field(default_factory=AdbSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    learning: LearningSettings = Field(default_factory=LearningSettings)
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings)
    # USD per million tokens, [input, output], by model name (prefix match, longest wins).
    prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: {
        "gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00), "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1": (2.00, 8.00), "o4-mini": (1.10, 4.40)})


def describe_validation_error(error: ValidationError) -> str:
    """Pydantic's errors as one readable line per problem: `field: what is wrong`."""
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "value"
        lines.append(f"{where}: {problem['msg']}")
    return "; ".join(lines)


def settings_sections() -> dict[str, type[_Section]]:
    """Every section of the settings file, by name, as the Settings model declares them (a new section is
    read back without being listed anywhere else)."""
    return {name: field.annotation for name, field in Settings.model_fields.items()
            if isinstance(field.annotation, type) and issubclass(field.annotation, _Section)}


SETTINGS_VERSION = 2
"""Written into the settings file as "version". 2: images.send gained "auto", the new default; a file
without a version (1) that holds the old default, "both", is read as "auto" (`_migrate`)."""


def _migrate(data: dict) -> dict:
    """The file's data as the current version reads it. Version 1 wrote every value, so its images.send
    "both" was the default for all who never changed it: it becomes the new default, "auto" (which still
    sends both images when the annotation hides what matters). A chosen "annotated", "clean" or "none" stays."""
    version = data.get("version", 1)
    images = data.get("images")
    if isinstance(version, int) and version < 2 and isinstance(images, dict) and \
            isinstance(images.get("send"), str) and images["send"].strip().lower() == "both":
        data = {**data, "images": {**images, "send": "auto"}}
    return data


def load_settings(path: Path) -> tuple[Settings, list[str]]:
    """Read settings; returns (settings, warnings). Missing file → defaults, no warning. An older
    file's values are read as the current version means them (`_migrate`)."""
    if not path.exists():
        return Settings(), []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("the file does not hold a JSON object")
        data = _migrate(data)
    except (OSError, ValueError) as exc:
        return Settings(), [f"Settings file {path} could not be read ({exc}); using defaults. "
                            "The file was left as it is."]
    warnings: list[str] = []
    sections = {}
    for name, model in settings_sections().items():
        try:
            sections[name] = model.model_validate(data.get(name, {}))
        except ValidationError as exc:
            warnings.append(f"Settings '{name}' in {path} are invalid ({describe_validation_error(exc)}); "
                            f"using defaults for that section.")
            sections[name] = model()
    try:
        settings = Settings(**sections, **({"prices": data["prices"]} if "prices" in data else {}))
    except ValidationError as exc:
        warnings.append(f"Price table in {path} is invalid ({describe_validation_error(exc)}); using defaults.")
        settings = Settings(**sections)
    return settings, warnings


def save_settings(settings: Settings, path: Path) -> None:
    """Write atomically (temp file, then rename), so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps({"version": SETTINGS_VERSION, **settings.model_dump(mode="json")}, indent=2),
                    encoding="utf-8")
    temp.replace(path)
