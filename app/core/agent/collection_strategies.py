"""Phase 1, data collection (seed 000 §1): screenshot, apps, controls, model images, reflection."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from PIL import Image

from app.core.device.errors import DeviceError
from app.core.device.frames import Frame
from app.core.device.settle import newest_picture, same_screen
from app.core.perception.annotate import annotate_measured
from app.core.perception.controls import Control
from app.core.perception.hierarchy import UiHierarchy
from app.core.perception.keyboard import is_input_method
from app.core.perception.model_image import data_url, encode_image, fit_for_model
from app.core.perception.protected_screen import (
    PROTECTED_MESSAGE,
    PROTECTED_REASON,
    UNKNOWN_APP_REASON,
    withheld_reason,
)
from app.core.perception.screen_diff import screen_fingerprint

from .events import ReflectionMade
from .image_choice import (
    COVERED_SHARE_FOR_CLEAN,
    NOTHING_NUMBERED,
    clean_reason_before_annotating,
    covered_reason,
    kinds_for,
)
from .loading_wait import wait_out_loading
from .pipeline import StepContext, Strategy
from .reflection import against_the_outcome, fast_reflection, model_reflection, no_change
from .run_context import RunContext
from .supervisor import discard

SYSTEM_PACKAGES = ("com.android.systemui", "android")


class RunStrategy(Strategy):
    """A strategy with access to the run's shared context."""

    def __init__(self, rc: RunContext, fail_fast: bool):
        super().__init__(fail_fast)
        self.rc = rc


class CaptureScreenshot(RunStrategy):
    """The screen as it is now: the first frame of the phone's frame source taken after the step
    began (the mirror's frames when it runs, else one taken for us) - or, when the step follows an
    action at once, the frame on which the wait after it saw the screen stand still (no input and no
    newer frame since: `RunContext.take_settled_frame`), which spares a screenshot or the stream's
    freshness wait. It also starts reading the controls through the phone's screen tree;
    CollectControls picks them up.

    After input (an action, or the run's first step) the (slow, on a real phone) uiautomator dump
    starts at once - or the one the action's settle wait started goes on - while the frame comes.
    With no input since the tree's last dump (a `wait` step, say), the frame comes first and the
    tree is dumped again only if the picture changed (an animation, a notification): an unchanged
    screen keeps its tree even past the device's 5 s cache."""

    provides = ("screenshot", "controls_request")

    async def run(self, ctx: StepContext) -> None:
        tree = self.rc.screen_tree
        assert tree is not None                   # RunContext makes one when the session has none
        moment = time.monotonic()
        resting = self.rc.take_settled_frame(moment)
        settled = resting.frame if resting is not None else None
        controls_request: asyncio.Future | None = None
        try:
            if tree.reusable():
                frame = await self.rc.control.interruptible(_settled_or_next(self.rc, settled, moment))
                controls_request = asyncio.ensure_future(tree.read(frame))
            else:
                frame_request = asyncio.ensure_future(_settled_or_next(self.rc, settled, moment))
                controls_request = asyncio.ensure_future(tree.read_during(frame_request))
                try:
                    frame = await self.rc.control.interruptible(asyncio.shield(frame_request))
                except BaseException:
                    discard(frame_request)
                    raise
            ctx.set("controls_request", controls_request)
            ctx.set("screenshot_frame", frame)
            if resting is not None and frame is resting.frame and resting.display is not None:
                shot = await asyncio.wrap_future(resting.display)    # made while the wait ran
            else:
                shot = await screenshot_of(frame)
            ctx.set("screenshot", shot)
            # the model's picture is shrunk on the encoder's thread while the controls are still on their way
            max_side = self.rc.settings.images.max_side
            ctx.set("model_picture", (shot.image, max_side, on_picture_thread(fit_for_model, shot.image, max_side)))
        except BaseException:
            if controls_request is not None:
                discard(controls_request)
            raise


async def _settled_or_next(rc: RunContext, settled: Frame | None, moment: float) -> Frame:
    """The picture the last action's wait found still (no need to wait for another), else the first
    frame taken at or after `moment`."""
    return settled if settled is not None else await rc.frames.frame_after(moment)


async def screenshot_of(frame: Frame):
    """The frame's picture at the display's size (scaled up off the loop when the stream is scaled)."""
    return frame.shot if frame.shot.size == frame.device_size else await asyncio.to_thread(frame.display_shot)


class CollectApps(RunStrategy):
    """Installed apps (cached 5 minutes by the device layer)."""

    needs = ("screenshot",)
    provides = ("installed_apps",)

    async def run(self, ctx: StepContext) -> None:
        ctx.set("installed_apps", await self.rc.device.installed_apps())

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        ctx.set("installed_apps", [])


def foreground_package(hierarchy: UiHierarchy) -> str:
    """The app in front: the last window that is not system UI or a keyboard."""
    packages = [w.attributes.get("package", "") for w in hierarchy.windows]
    apps = [p for p in packages if p and p not in SYSTEM_PACKAGES and not is_input_method(p)]
    return apps[-1] if apps else (packages[-1] if packages else "")


class CollectControls(RunStrategy):
    """Controls, from the screen tree's reading CaptureScreenshot started (kept while neither input
    nor the picture changed). If the dump fails: a screenshot-only step."""

    needs = ("screenshot", "controls_request")
    provides = ("controls", "screen_only", "foreground", "fingerprint", "activity")

    async def run(self, ctx: StepContext) -> None:
        try:
            reading = await self.rc.control.interruptible(ctx.get("controls_request"))
        finally:
            self._tell_tree_source()
        await self._picture_of_the_dumped_screen(ctx)
        reading = await wait_out_loading(self.rc, ctx, reading)
        snapshot = reading.snapshot
        ctx.set("activity", getattr(reading, "activity", "") or "")      # the screens graph keys screens by it
        ctx.set("controls", snapshot.controls)
        ctx.set("screen_only", False)
        ctx.set("foreground", foreground_package(snapshot.hierarchy))
        ctx.set("fingerprint", screen_fingerprint(snapshot.controls))

    def _tell_tree_source(self) -> None:
        """Why the tree comes from `uiautomator dump` instead of uiautomator2's server, told once per reason
        (the window, the console and the report show the run's messages)."""
        note = self.rc.device.tree_source_note
        if note and note != self.rc.tree_note_told:
            self.rc.tree_note_told = note
            self.rc.events.message(note)

    async def _picture_of_the_dumped_screen(self, ctx: StepContext) -> None:
        """The screen changed while the dump ran (an app still drawing its first frame after a launch, say:
        the dump waits for the phone to be idle, the picture did not): the step's picture becomes the newest
        frame, so the picture and the controls show the same screen."""
        taken: Frame | None = ctx.get_or("screenshot_frame")
        latest = self.rc.frames.latest()
        if taken is None or latest is None or latest.captured_at <= taken.captured_at:
            return
        # The same screen, only sharper (a phone's encoder repeats a still picture, sharpening it): taken as is.
        # Else the dump ended on a still screen, but a stream may still be bringing its last pictures (more so
        # on a loaded machine): the picture of the screen now, as the dump saw it.
        if not same_screen(latest, taken):
            try:
                latest = await self.rc.control.interruptible(asyncio.wait_for(
                    newest_picture(self.rc.frames), NEWEST_PICTURE_WAIT_SECONDS))
            except (DeviceError, TimeoutError):
                latest = self.rc.frames.latest() or latest      # the newest frame at hand will do
        ctx.set("screenshot_frame", latest)
        ctx.set("screenshot", await screenshot_of(latest))

    def fallback(self, ctx: StepContext, error: BaseException) -> None:
        ctx.set("controls", [])
        ctx.set("screen_only", True)
        ctx.set("foreground", "")
        ctx.set("fingerprint", "")
        ctx.set("activity", "")
        self.rc.events.message(f"Step {ctx.step}: no controls this step ({error}); "
                               "continuing with the screenshot only.")


@dataclass
class ModelImages:
    """The images sent to the model (downscaled), as data URLs, and the annotated one for the record."""

    urls: dict[str, str]          # "clean" / "annotated"
    image_size: tuple[int, int]
    clean: Image.Image            # downscaled, as sent; also what reflection compares
    annotated: Image.Image
    clean_reason: str = ""        # images.send "auto": why the clean image is sent ("" when it is not)


NEWEST_PICTURE_WAIT_SECONDS = 1.0
"""At most this long for the picture of a screen that changed while its controls were dumped."""

_ENCODER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="model-image-encoder")

_T = TypeVar("_T")


def on_picture_thread(work: Callable[..., _T], *args: Any) -> Future[_T]:
    """Run picture work (a shrink, an encode) on the model images' own thread, off the caller's."""
    return _ENCODER.submit(work, *args)


def prepare_model_images(image: Image.Image, controls: list[Control], max_side: int, image_format: str,
                         quality: int, send: str, *, shrunk: tuple[Image.Image, float] | None = None,
                         clean_reason: str = "") -> ModelImages:
    """Downscale once (or take `shrunk`: `fit_for_model(image, max_side)` made earlier, while the
    controls were still on their way); encode the clean image on another thread while this one
    annotates (Pillow's encoders release the GIL, so the two overlap). `send="none"` (text only)
    encodes nothing: the images are still made for the record and for reflection, but none is sent.
    `send="auto"` encodes what `image_choice` says: `clean_reason` is what was known before annotating;
    badges over most labels, seen while annotating, add the clean image too."""
    small, scale = shrunk if shrunk is not None else fit_for_model(image, max_side)
    if send == "auto" and not controls:
        clean_reason = clean_reason or NOTHING_NUMBERED
    kinds = kinds_for(send, clean_reason)
    clean = _ENCODER.submit(encode_image, small, image_format, quality) if "clean" in kinds else None
    marked, covered = annotate_measured(small, controls, scale=scale)
    if send == "auto" and clean is None and covered > COVERED_SHARE_FOR_CLEAN:
        clean_reason = covered_reason(covered)
        clean = _ENCODER.submit(encode_image, small, image_format, quality)
    urls = {}
    if "annotated" in kinds:
        urls["annotated"] = data_url(encode_image(marked, image_format, quality), image_format)
    if clean is not None:
        urls = {"clean": data_url(clean.result(), image_format), **urls}
    return ModelImages(urls, small.size, small, marked, clean_reason if send == "auto" and clean else "")


class PrepareModelImages(RunStrategy):
    """Downscale, annotate and encode for the model; then tell the run's readers about the screen
    (the recorder writes the step's images in the background). Nothing is encoded for a text-only
    model: the setting says so (`images.send = "none"`), or the client found the model cannot see.

    Nor for a screen whose picture must not reach the model (`protected_screen.withheld_reason`):
    a protected (FLAG_SECURE) screen, black in the capture while the dump lists its controls, or
    an app in `images.never_send_apps`. The step keeps the reason (`images_withheld`) and the
    person is told once per such screen (a protected stretch of one app, or a listed app)."""

    needs = ("screenshot", "controls")
    provides = ("model_images", "images_withheld")

    def __init__(self, rc: RunContext, fail_fast: bool):
        super().__init__(rc, fail_fast)
        self._protected_app: str | None = None      # the app of the protected screen last told about
        self._told_never_send: set[str] = set()

    async def run(self, ctx: StepContext) -> None:
        settings = self.rc.settings.images
        shot = ctx.get("screenshot")
        controls = ctx.get("controls")
        withheld = await self._withheld(ctx, shot.image, controls)
        ctx.set("images_withheld", withheld)
        text_only = settings.text_only or getattr(self.rc.client, "text_only", False)
        send = "none" if text_only or withheld else settings.send
        early = ctx.get_or("model_picture")
        reason = "" if send != "auto" else clean_reason_before_annotating(
            controls, shot.size, screen_only=bool(ctx.get_or("screen_only")), asked=self.rc.clean_image_asked,
            unchanged=bool(controls) and self.rc.stuck.last_screen() == ctx.get_or("fingerprint"))

        def prepare() -> ModelImages:
            # the picture CaptureScreenshot began to shrink, unless the step's picture changed since (a newer frame)
            same = early is not None and early[0] is shot.image and early[1] == settings.max_side
            shrunk = early[2].result() if same else None
            return prepare_model_images(shot.image, controls, settings.max_side, settings.format,
                                        settings.jpeg_quality, send, shrunk=shrunk, clean_reason=reason)
        images = await asyncio.to_thread(prepare)
        ctx.set("model_images", images)
        self.rc.observed(ctx.step, shot.image, images.annotated, ctx.get("controls"), ctx.get_or("foreground") or "",
                         bool(ctx.get_or("screen_only")))

    async def _withheld(self, ctx: StepContext, image: Image.Image, controls: list[Control]) -> str:
        """Why this step's picture must not reach the model ("" when it may), telling the person
        the first time a screen is withheld."""
        never_send = self.rc.settings.images.never_send_apps
        foreground = ctx.get_or("foreground") or ""
        if never_send and not foreground:       # no dump this step: ask the phone which app is in front
            try:
                app = await self.rc.control.interruptible(self.rc.device.foreground_app())
                foreground = app.package if app is not None else ""
            except DeviceError:                 # unknown: withheld_reason then withholds to be safe
                foreground = ""
        reason = await asyncio.to_thread(withheld_reason, image, controls, foreground, never_send)
        if reason == PROTECTED_REASON:
            if self._protected_app != foreground:
                self._protected_app = foreground
                self.rc.events.message(f"Step {ctx.step}: {PROTECTED_MESSAGE}")
            return reason
        self._protected_app = None
        if reason and foreground and foreground not in self._told_never_send:
            self._told_never_send.add(foreground)
            self.rc.events.message(f"Step {ctx.step}: screenshots of {foreground} are never sent to the model "
                                   "(settings: images.never_send_apps); it gets the controls as text only.")
        elif reason and not foreground:
            self.rc.events.message(f"Step {ctx.step}: {UNKNOWN_APP_REASON}.")
        return reason


class Reflect(RunStrategy):
    """Judge the previous action on this new screen (seed 003, algorithm 3)."""

    needs = ("screenshot", "controls", "model_images")
    provides = ("reflection",)

    async def run(self, ctx: StepContext) -> None:
        rc = self.rc
        previous = rc.previous
        ctx.set("reflection", None)
        if previous is None:
            return
        images = ctx.get("model_images")
        result = await asyncio.to_thread(fast_reflection, previous.step, previous.controls, ctx.get("controls"),
                                         previous.image, images.clean)
        if result is None and rc.settings.agent.model_reflection and images.urls and previous.model_image_url:
            after_url = next(iter(images.urls.values()))
            result, prompt_tokens, completion_tokens = await rc.control.interruptible(model_reflection(
                previous.step, rc.client, rc.prompts, previous.action_text, previous.model_image_url, after_url))
            ctx.set("reflection_tokens", (prompt_tokens, completion_tokens))
        result = result or no_change(previous.step)
        result = against_the_outcome(result, rc.memory.last)
        rc.stuck.screen_checked(result.screen_changed)
        rc.events.emit(ReflectionMade(previous.step, result.to_dict()))
        if rc.settings.agent.reflection:
            ctx.set("reflection", result)
