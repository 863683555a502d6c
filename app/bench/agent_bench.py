"""`agentdesk bench agent`: the app's own work per step, whole steps in real runs, and the prompt's size.

Real AgentRuns (auto mode) run against each phone and a loopback model that answers after
MODEL_LATENCY_S (real vision models take seconds). Every ADB service and model request is
timed; what is left of a step's wall time is the app's own work on the step's critical path.
Ours and the baseline make the same model images (JPEG, 1280 px) and differ in how they
capture the screen: ours takes the path the device layer chose (raw on most phones), the
baseline `screencap -p` and a PNG decode. Their runs alternate, the same number of steps each.

Whole steps whose action moves the screen compare issue 13's way (scrcpy's stream: frames and
stillness from the video, taps over its control socket, a wait until the screen is still) with
screenshot polling waiting for stillness and with today's (polling and a fixed 0.6 s wait).

The prompt is counted as a model receives it: the system message plus the step's text, on a
~300-node screen (the corpus dump closest to 300 nodes; without ../shared that row says it was not
measured) and on the phone's own screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from app.core.agent.events import StepFinished, StepStarted
from app.core.agent.llm_client import ModelClient
from app.core.agent.prompts import PromptBuilder, ScreenContext
from app.core.agent.trajectory import TrajectoryWriter
from app.core.config import AgentSettings, ImageSettings, MirrorSettings, ProviderSettings, Settings
from app.core.device.android_device import AndroidDevice
from app.core.device.phone_id import PhoneId
from app.core.device.phone_session import PhoneSession
from app.core.device.screen_capture import PNG_METHOD, RAW_METHOD, decode_png
from app.core.perception.hierarchy import extract_controls
from app.core.runs.service import RunRequest
from app.desk import Desk

from .corpus import NO_DENSE_SCREEN, dense_corpus_screen, node_count
from .moving_steps import DROIDRUN_SOURCE, measure_moving_steps
from .phones import DEFAULT_CHOICE, BenchPhone, PhoneChoice, each_phone, open_densest_screen
from .prompt_size import PROMPT_TOKEN_BUDGET, prompt_size
from .step_work import images_made, our_step, plain_step
from .table import BenchTable
from .timing import interleaved_ms

MODEL_LATENCY_S = 0.3
STEP_BUDGET_MS = 30.0
STEPS_PER_RUN = 6           # short runs: the stuck detector never ends them (a run's first step is not counted)
REQUEST = "Text Ben Carter that I am running 10 minutes late"


class _LoopbackModel(BaseHTTPRequestHandler):
    """Answers every chat request after MODEL_LATENCY_S with the next of `replies`, in turn.

    The default taps (300, 60): the title of the virtual phone's screen, the status bar of most
    phones; it changes nothing."""

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


class _MovingScreenModel(_LoopbackModel):
    """Opens Settings, then goes Home, in turn: every action moves the screen for a while."""

    replies = [json.dumps({"thought": "open", "comment": "", "action": {
                   "function": "launch_app", "arguments": {"package_name": "com.android.settings"},
                   "status": "CONTINUE"}}),
               json.dumps({"thought": "home", "comment": "", "action": {
                   "function": "press_key", "arguments": {"key_code": "HOME"}, "status": "CONTINUE"}})]
    answered = 0


@contextlib.contextmanager
def loopback_model(handler: type[BaseHTTPRequestHandler] = _LoopbackModel) -> Iterator[str]:
    """A loopback OpenAI-style endpoint; yields its base URL."""
    http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{http.server_address[1]}/v1"
    finally:
        http.shutdown()
        http.server_close()
        thread.join(5)


@contextlib.contextmanager
def bench_home() -> Iterator[None]:
    """A throwaway AGENTDESK_HOME for the runs' records, unless the caller chose one."""
    if os.environ.get("AGENTDESK_HOME"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="agentdesk-bench-") as home:
        os.environ["AGENTDESK_HOME"] = home
        try:
            yield
        finally:
            os.environ.pop("AGENTDESK_HOME", None)


class TimedDevice(AndroidDevice):
    """Remembers when ADB services were in flight (the phone plus the wire); they may overlap."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.intervals: list[tuple[float, float]] = []
        self.prefetch = True      # False: as before issue 13, the next step's dump starts only when the step does

    def prefetch_controls(self, settled: bool = False) -> None:
        if self.prefetch:
            super().prefetch_controls(settled)

    async def _run(self, service: str, timeout: float | None = None, max_bytes: int | None = None) -> bytes:
        started = time.perf_counter()
        try:
            return await super()._run(service, timeout, max_bytes)
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


class TimedClient(ModelClient):
    model_ms = 0.0

    async def complete(self, messages, tools=None, **options):
        started = time.perf_counter()
        try:
            return await super().complete(messages, tools, **options)
        finally:
            self.model_ms += (time.perf_counter() - started) * 1000


async def _one_run(phone: BenchPhone, model_url: str, steps: int, capture: str, agent: dict | None = None,
                   settles: list[float] | None = None, stream: str = "screenshots",
                   sources: set[str] | None = None, prefetch: bool = True,
                   models: list[float] | None = None) -> list[tuple[float, float]]:
    """(app overhead, wall time) in ms of each step of one run after its first.

    `agent` overrides its agent settings (no wait after actions by default); `settles` collects
    each counted step's wait for the screen to settle (StepRecord.settle_ms), `models` its time in
    model requests. `stream` is mirror.stream: "screenshots" (frames by the `capture` path) or
    "auto" (scrcpy's stream, input over its control socket); `sources` collects the frame source's
    status at the run's end."""
    device = TimedDevice(phone.transport(), phone.serial)
    device.capture_method = capture
    device.prefetch = prefetch
    settings = Settings(provider=ProviderSettings(base_url=model_url, model="bench", use_tools=False),
                        images=ImageSettings(), mirror=MirrorSettings(stream=stream),
                        agent=AgentSettings(**{"mode": "auto", "max_steps": steps, "settle_seconds": 0,
                                               "stuck_threshold": 10, **(agent or {})}))
    client = TimedClient(settings.provider, "bench-key")
    desk = Desk(settings, virtual=False, client_factory=lambda *args, **kwargs: client, bad_servers_noted=True)
    session = desk.phones.add(PhoneSession(PhoneId(device.transport.address, phone.serial), device,
                                           mirror_settings=lambda: settings.mirror))
    marks: dict[int, tuple[float, float]] = {}
    figures: list[tuple[float, float]] = []

    def on_event(event) -> None:
        if isinstance(event, StepStarted):
            marks[event.step] = (time.perf_counter(), client.model_ms)
        elif isinstance(event, StepFinished):
            wall0, model0 = marks[event.step]
            now = time.perf_counter()
            waiting = device.busy_ms(wall0, now) + (client.model_ms - model0)
            wall = (now - wall0) * 1000
            figures.append((wall - waiting, wall))
            if settles is not None and event.step > 1:
                settles.append(event.item.settle_ms)
            if models is not None and event.step > 1:
                models.append(client.model_ms - model0)

    service = desk.service
    try:
        handle = await service.start(RunRequest("Benchmark: look at the screen", phone=session.id, api_key="bench-key",
                                                policy="fail"))
        handle.events.subscribe(on_event)
        await handle.wait()
        if sources is not None:
            sources.add(f"{session.frames.status}, input by {device.input_path}")
    finally:
        await desk.close()
    return figures[1:]       # the first step also pays for warming caches


def _interleaved_runs(phone: BenchPhone, model_url: str, steps: int, ours_capture: str) -> dict[str, list]:
    """`steps` counted steps each for ours and the baseline, in alternating runs of the same length."""
    figures: dict[str, list[tuple[float, float]]] = {"ours": [], "baseline": []}
    captures = {"ours": ours_capture, "baseline": PNG_METHOD}
    turn = 0
    while min(len(v) for v in figures.values()) < steps:
        length = min(STEPS_PER_RUN, steps - min(len(v) for v in figures.values()))
        order = ["ours", "baseline"] if turn % 2 == 0 else ["baseline", "ours"]
        for name in order:
            counted = asyncio.run(_one_run(phone, model_url, length + 1, captures[name]))[:length]
            if not counted:
                raise RuntimeError(f"a benchmark run on the {phone.column} phone ended before its second step")
            figures[name] += counted
        turn += 1
    return figures


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


async def _open_dense_screen(phone: BenchPhone) -> tuple[str, str, str, bytes, bytes]:
    """The virtual phone's densest app screen, or the attached phone's current one: where it is, its
    dump, the capture path chosen, that capture and a PNG capture."""
    device = AndroidDevice(phone.transport(), phone.serial)
    where = "the screen its owner left it on"
    if phone.virtual:
        package, _ = await open_densest_screen(device)
        where = f"{package}'s first screen, its densest"
    method = await device.choose_capture_method()
    capture = await device.exec_out("screencap" if method == RAW_METHOD else "screencap -p")
    return where, await device.dump_hierarchy(), method, capture, await device.exec_out("screencap -p")


def _step_work(column: str, figure: str, method: str, capture: bytes, png: bytes, xml: str, rounds: int,
               table: BenchTable) -> None:
    """GUIDE §5's app-side work of one step on a screen: decode, parse, select, annotate, encode the
    model images and build the prompt; ours against the plain way."""
    screen_size = decode_png(png).size
    builder = PromptBuilder(Settings())

    def prompt(controls, urls: dict[str, str], image_size: tuple[int, int], screen_size: tuple[int, int]) -> None:
        builder.user_message(REQUEST, ScreenContext(controls=controls, screen_size=screen_size, image_size=image_size,
                                                    foreground_package="com.android.messaging", image_urls=urls))

    def ours() -> None:
        images, controls = our_step(capture, method, xml)
        prompt(controls, images.urls, images.image_size, screen_size)

    kinds = images_made(capture, method, xml)

    def plain() -> None:
        urls, size, controls = plain_step(png, xml, kinds)
        prompt(controls, urls, size, screen_size)

    work = interleaved_ms({"ours": ours, "plain": plain}, rounds)
    table.put(column, figure, work["ours"], work["plain"], budget=STEP_BUDGET_MS,
              baseline_name="PNG decode, annotate full size, shrink")


DENSE_STEP_FIGURE = "app-side work of one step, ~300-node screen (decode to prompt)"
DENSE_PROMPT_FIGURE = "prompt incl. system message, ~300-node screen"
def _measure(phone: BenchPhone, model_url: str, rounds: int, table: BenchTable, settle_model_url: str = "") -> None:
    column = phone.column
    where, phone_xml, method, capture, png = asyncio.run(_open_dense_screen(phone))
    screen = dense_corpus_screen()
    if screen is not None:
        _step_work(column, DENSE_STEP_FIGURE, method, capture, png, screen.xml, rounds, table)
    else:
        table.not_measured(DENSE_STEP_FIGURE, NO_DENSE_SCREEN, budget=STEP_BUDGET_MS)
    _step_work(column, "app-side work of one step, this phone's screen (decode to prompt)", method, capture, png,
               phone_xml, rounds, table)

    runs = _interleaved_runs(phone, model_url, rounds, method)
    ours, base = runs["ours"], runs["baseline"]
    table.put(column, "in-run overhead of one step (all but phone and model time)",
              statistics.median(o for o, _ in ours), statistics.median(o for o, _ in base), budget=STEP_BUDGET_MS,
              baseline_name="screencap -p + PNG decode")
    table.put(column, "one step in a run, wall time (phone, model and app)", statistics.median(w for _, w in ours),
              statistics.median(w for _, w in base), baseline_name="screencap -p + PNG decode")
    table.put(column, "recording a step's two images (background thread, CPU)", _recording_ms(phone_xml, rounds))
    if settle_model_url:
        measure_moving_steps(phone, settle_model_url, rounds, method, table, _one_run, STEPS_PER_RUN)

    if screen is None:
        table.not_measured(DENSE_PROMPT_FIGURE, NO_DENSE_SCREEN, unit="tokens", budget=PROMPT_TOKEN_BUDGET)
    for xml, figure in ((screen.xml if screen else None, DENSE_PROMPT_FIGURE),
                        (phone_xml, "prompt incl. system message, this phone's screen")):
        if xml is None:
            continue
        size = prompt_size(xml, REQUEST)
        table.put(column, figure, size.tokens, size.seed_tokens, unit="tokens", budget=PROMPT_TOKEN_BUDGET,
                  baseline_name="same prompt, controls as seed 000's JSON")
        both = size.image_tokens // max(1, len(size.images)) * 2       # what "both", the old default, sent
        table.put(column, figure.replace("prompt incl. system message", "images sent with that prompt"),
                  size.image_tokens, both, unit="tokens", baseline_name="both images (the old default)")
        source = screen.source if screen is not None and xml is screen.xml else where
        note = f"{figure}: {size.describe()} ({node_count(xml)} nodes, {size.controls} controls; {source})."
        if note not in table.notes:
            table.notes.append(note)
    table.notes.append(f"{column}: the device layer chose the {method} capture path; "
                       f"{len(ours)} steps each for ours and the baseline.")


def run_agent_bench(rounds: int = 8, choice: PhoneChoice = DEFAULT_CHOICE) -> BenchTable:
    table = BenchTable(f"agentdesk bench agent — {choice.describe()}, loopback model "
                       f"({MODEL_LATENCY_S * 1000:.0f} ms), median of {rounds} interleaved rounds or steps",
                       choice.columns)
    with bench_home(), loopback_model() as model_url, loopback_model(_MovingScreenModel) as settle_model_url:
        with contextlib.closing(each_phone(choice)) as phones:
            for phone in phones:
                _measure(phone, model_url, rounds, table, settle_model_url)
    table.notes += [
        "Overhead = a step's wall time minus the time in ADB services (overlapping calls counted once) and in "
        "model requests. Ours and the baseline send the same JPEG images; the baseline captures with "
        "screencap -p and decodes a PNG. Their runs alternate, with the same number of steps.",
        "Prompt tokens are characters / 4, the system message and the reply tool's definition included (both "
        "are sent with every request); the note gives o200k_base's count too when bpe-openai is installed. The "
        "baseline lists the same controls as seed 000's JSON ({\"id\", \"name\", \"type\", \"rect\"}). The "
        "images row counts the pictures the default setting (images.send auto) sends on that screen, by the "
        "default model's own rule (the note names it), against both images, the old default.",
        "The model taps (300, 60) every step: the virtual phone's title, the status bar of most phones.",
        "The settle and moving-screen rows come from other runs, whose model opens Settings and goes Home in "
        "turn (each action moves the screen); a step's wait is its StepRecord.settle_ms. Four kinds of run take "
        "turns: streamed (scrcpy's stream for frames and stillness, taps over its control socket), screenshot "
        "polling waiting for stillness, the same pipeline on screenshots with a fixed 0.6 s wait after each "
        "action (the wait before issue 13) and the dump prefetch on, as in ours, so the ratio shows what the "
        f"stream and the wait for stillness gain by themselves; and a peer's habit: {DROIDRUN_SOURCE}, then "
        "the screen is read (screenshots, the dump started after the wait). 'Excluding the model's time' is a "
        "step's wall time minus its time in model requests; the realistic column is the one a person pays.",
        "The overhead and 'one step in a run' rows poll screenshots (mirror.stream = screenshots), so the "
        "capture path is what differs between ours and the baseline.",
    ]
    return table
