"""`agentdesk bench agent`: the app's own overhead per step, and the prompt size, on the virtual phone.

A real AgentRun (auto mode) runs against the virtual phone and a loopback model that
answers after MODEL_LATENCY_S (real vision models take seconds; the step's images are
written to the run folder in the background meanwhile, as in real use). Every ADB
service and every model request is timed; what is left of the step's wall time is the
app's own work on the step's critical path (decode, parse, select, annotate, encode,
prompt, validation, recording the step). The baseline, measured in the same run, is the
plain configuration: PNG screenshots and full-size PNG images for the model. The CPU
cost of the background image writes is reported on its own row.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from app.core.agent.events import StepFinished, StepStarted
from app.core.agent.llm_client import ModelClient
from app.core.agent.prompts import PromptBuilder, ScreenContext
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import AgentSettings, ImageSettings, ProviderSettings, Settings
from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneRegistry, PhoneSession
from app.core.runs.service import RunRequest, RunService
from app.core.perception.hierarchy import extract_controls
from .perception_bench import corpus_dir
from .phone_process import virtual_phone_process
from .table import BenchTable, median_ms

SERIAL = "emulator-5554"
MODEL_LATENCY_S = 0.3
STEP_BUDGET_MS = 30.0
PROMPT_TOKEN_BUDGET = 1500
CHARS_PER_TOKEN = 4


class _LoopbackModel(BaseHTTPRequestHandler):
    """Answers every chat request after MODEL_LATENCY_S with the next of `replies`, in turn.

    The default is a tap on the screen's title (it changes nothing).
    """

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    replies = [json.dumps({"thought": "look", "comment": "", "action": {
        "function": "tap", "arguments": {"x": 300, "y": 60}, "status": "CONTINUE"}})]
    answered = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        time.sleep(MODEL_LATENCY_S)
        cls = type(self)
        reply = cls.replies[cls.answered % len(cls.replies)]
        cls.answered += 1
        body = json.dumps({"id": "bench", "object": "chat.completion", "created": 0, "model": "bench",
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": reply}}],
                           "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class _TimedDevice(AndroidDevice):
    """Remembers when ADB services were in flight (the phone plus the wire); they may overlap."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.intervals: list[tuple[float, float]] = []

    async def _run(self, service: str, timeout: float | None = None) -> bytes:
        started = time.perf_counter()
        try:
            return await super()._run(service, timeout)
        finally:
            self.intervals.append((started, time.perf_counter()))

    def busy_ms(self, since: float, until: float) -> float:
        """How long at least one ADB service was in flight between two moments."""
        total, reach = 0.0, since
        for start, end in sorted(self.intervals):
            start, end = max(start, reach), min(end, until)
            if end > start:
                total += end - start
                reach = end
        return total * 1000


class _TimedClient(ModelClient):
    model_ms = 0.0

    async def complete(self, messages, tools=None):
        started = time.perf_counter()
        try:
            return await super().complete(messages, tools)
        finally:
            self.model_ms += (time.perf_counter() - started) * 1000


async def _overhead_per_step(port: int, model_url: str, steps: int, images: ImageSettings,
                             capture: str) -> list[float]:
    serial = SERIAL
    device = _TimedDevice(AdbTransport("127.0.0.1", port), serial)
    device.capture_method = capture
    phones = PhoneRegistry()
    session = phones.add(PhoneSession(PhoneId(device.transport.address, serial), device))
    settings = Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                        images=images,
                        agent=AgentSettings(mode="auto", max_steps=steps, settle_seconds=0, stuck_threshold=10))
    marks: dict[int, tuple[float, float]] = {}
    overheads: list[float] = []
    client = _TimedClient(settings.provider, "bench-key")

    def on_event(event) -> None:
        if isinstance(event, StepStarted):
            marks[event.step] = (time.perf_counter(), client.model_ms)
        elif isinstance(event, StepFinished):
            wall0, model0 = marks[event.step]
            now = time.perf_counter()
            waiting = device.busy_ms(wall0, now) + (client.model_ms - model0)
            overheads.append((now - wall0) * 1000 - waiting)

    service = RunService(phones, settings, client_factory=lambda *args, **kwargs: client)
    try:
        handle = await service.start(RunRequest("Benchmark: look at the screen", phone=session.id, api_key="bench-key",
                                                policy="fail"))
        handle.events.subscribe(on_event)
        await handle.wait()
    finally:
        await service.shutdown()
        await phones.close()
    return overheads[1:] or overheads      # the first step also pays for warming caches


def _recording_ms(xml: str, rounds: int) -> float:
    """CPU time to write one step's clean (full size) and annotated (model size) PNGs."""
    from PIL import Image

    from app.core.agent.collection_strategies import prepare_model_images

    screen = Image.new("RGB", (1080, 2400), (240, 240, 240))
    images = prepare_model_images(screen, extract_controls(xml, (1080, 2400)), 1280, "jpeg", 80, "both")
    writer = TrajectoryWriter.create("bench-recording", {}, {}, {})
    samples = []
    for step in range(1, max(3, rounds // 3) + 1):
        started = time.perf_counter()
        writer.save_screens(step, screen, images.annotated)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _measure_runs(port: int, model_url: str, steps: int, images: ImageSettings, capture: str) -> list[float]:
    """Overheads of `steps` steps, in runs short enough that the stuck detector never ends them."""
    overheads: list[float] = []
    while len(overheads) < steps:
        overheads += asyncio.run(_overhead_per_step(port, model_url, min(6, steps - len(overheads)) + 1,
                                                    images, capture))
    return overheads


def _prompt_size(settings: Settings, controls, screen_size) -> tuple[int, int]:
    builder = PromptBuilder(settings)
    screen = ScreenContext(controls=controls, screen_size=screen_size, image_size=(screen_size[0] // 2, screen_size[1] // 2),
                           foreground_package="com.android.messaging",
                           installed_apps=["com.agentdesk.notes", "com.agentdesk.calculator"],
                           image_urls={"annotated": "data:image/jpeg;base64,AAAA"})
    message = builder.user_message("Text Ben Carter that I am running 10 minutes late", screen)
    text = "\n".join(p.get("text", "") for p in message["content"] if p.get("type") == "text")
    return len(text), len(builder.system_message()["content"])


async def _open_largest_screen(port: int) -> tuple[str, bytes]:
    """Messages' new-conversation screen with the keyboard up (the densest screen): its dump and raw screencap."""
    device = AndroidDevice(AdbTransport("127.0.0.1", port), SERIAL)
    await device.launch_app("com.android.messaging")
    start = next(c for c in (await device.controls(refresh=True)).controls if c.name == "Start chat")
    await device.tap(*start.center)
    return await device.dump_hierarchy(), await device.exec_out("screencap")


def _step_work_ms(xml: str, raw: bytes, rounds: int) -> float:
    """GUIDE §5's app-side work of one step, timed directly: decode, parse, select, annotate,
    encode the model images and build the prompt."""
    from app.core.agent.collection_strategies import prepare_model_images
    from app.core.device.screen_capture import decode_raw

    builder = PromptBuilder(Settings())

    def one_step() -> None:
        image = decode_raw(raw)
        controls = extract_controls(xml, image.size)
        images = prepare_model_images(image, controls, 1280, "jpeg", 80, "both")
        screen = ScreenContext(controls=controls, screen_size=image.size, image_size=images.image_size,
                               foreground_package="com.android.messaging", image_urls=images.urls)
        builder.user_message("Text Ben Carter that I am running 10 minutes late", screen)

    return median_ms(one_step, rounds)


def run_agent_bench(rounds: int = 8) -> BenchTable:
    table = BenchTable(f"agentdesk bench agent — virtual phone 1080x2400 (own process), loopback model "
                       f"({MODEL_LATENCY_S * 1000:.0f} ms), median of {rounds} steps")
    os.environ.setdefault("AGENTDESK_HOME", tempfile.mkdtemp(prefix="agentdesk-bench-"))
    http = ThreadingHTTPServer(("127.0.0.1", 0), _LoopbackModel)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    model_url = f"http://127.0.0.1:{http.server_address[1]}/v1"
    try:
        with virtual_phone_process() as port:
            xml, raw = asyncio.run(_open_largest_screen(port))
            work = _step_work_ms(xml, raw, rounds)
            ours = statistics.median(_measure_runs(port, model_url, rounds, ImageSettings(), "raw"))
            plain = statistics.median(_measure_runs(port, model_url, max(3, rounds // 2),
                                                    ImageSettings(format="png", max_side=4096), "png"))
    finally:
        http.shutdown()
    table.add("app-side work of one step (decode, parse, select, annotate, encode, prompt)", work,
              budget=STEP_BUDGET_MS)
    table.add("in-run overhead of one step (all but phone and model time)", ours, baseline=plain,
              baseline_name="PNG capture + full-size PNGs", budget=STEP_BUDGET_MS)
    table.add("recording a step's two images (background thread, CPU)", _recording_ms(xml, rounds))
    controls = extract_controls(xml, (1080, 2400))
    chars, system_chars = _prompt_size(Settings(), controls, (1080, 2400))
    table.add(f"prompt text, largest virtual screen ({xml.count('<node ')} nodes, {len(controls)} controls)",
              chars / CHARS_PER_TOKEN, unit="tokens", budget=PROMPT_TOKEN_BUDGET)
    table.notes.append(f"Prompt text of the largest virtual screen: {chars:,} characters; system message "
                       f"{system_chars:,} characters (sent once per request, cacheable by providers).")
    corpus = corpus_dir()
    if corpus is not None:
        biggest = max(corpus.rglob("*.xml"), key=lambda p: p.read_bytes().count(b"<node "))
        dense = extract_controls(biggest.read_bytes(), (1080, 1920))
        dense_chars, _ = _prompt_size(Settings(), dense, (1080, 1920))
        table.add(f"prompt text, largest corpus dump ({biggest.read_bytes().count(b'<node ')} nodes, {len(dense)} controls)",
                  dense_chars / CHARS_PER_TOKEN, unit="tokens", budget=PROMPT_TOKEN_BUDGET)
    table.notes.append("Tokens are estimated at 4 characters each. Overhead = step wall time minus the time in ADB "
                       "services (overlapping calls counted once) and in model requests; the virtual phone runs in "
                       "its own process, as a phone would.")
    return table
