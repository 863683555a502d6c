"""`agentdesk bench perception`: round trip, screenshot, hierarchy, parse, annotate, one step's app-side work.

Measured on the quick and the realistic virtual phone (each in its own process), or on an
attached phone with `--device`. Every ratio is like for like, from interleaved rounds against
the same phone: adbutils' own shell(), screenshot() and dump_hierarchy() produce what ours
produce (an output string, an RGB image, the dump's XML); the plain step produces the same two
model images as ours (see step_work.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from functools import partial

from adbutils.errors import AdbError
from PIL import Image

from app.core.device.android_device import SERVER_SOURCE, AndroidDevice
from app.core.device.errors import DeviceError
from app.core.device.screen_capture import PNG_METHOD, RAW_METHOD, decode_png, decode_raw
from app.core.device.tree_server import TreeServerPolicy
from app.core.perception.annotate import annotate
from app.core.perception.controls import Control
from app.core.perception.hierarchy import extract_controls, parse_hierarchy, screen_size_from_hierarchy, select_controls
from app.core.perception.model_image import fit_for_model
from app.virtual_phone.cost_sources import source_names
from app.virtual_phone.latency import REALISTIC_COSTS, SERVER_DUMP

from .corpus import NO_DENSE_SCREEN, DenseScreen, corpus_dumps, dense_corpus_screen, node_count
from .phones import DEFAULT_CHOICE, BenchPhone, PhoneChoice, each_phone, open_densest_screen
from .step_work import DEFAULT_SEND, MODEL_MAX_SIDE, describe_images, images_made, our_step, plain_step
from .table import BenchTable
from .timing import interleaved_async_ms, interleaved_ms, median_ms

STEP_BUDGET_MS = 30.0
DUMP_TRIES = 3
DUMP_FIGURE = "hierarchy fetch (uiautomator dump, then read the XML)"
SERVER_FIGURE = "hierarchy fetch through uiautomator2's server on the phone (JSON-RPC dump)"
SERVER_BUDGET_MS = 300.0
STEP_FIGURE = "one step, app-side work (decode, parse, select, annotate, encode the model image(s))"


def _parse_and_select(xml: bytes | str):
    hierarchy = parse_hierarchy(xml)
    return select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))


def _adbutils_dump(adb) -> str:
    """adbutils' dump_hierarchy(), retried as ours is when the phone is not idle."""
    for _ in range(DUMP_TRIES - 1):
        try:
            return adb.dump_hierarchy()
        except AdbError:
            pass
    return adb.dump_hierarchy()


async def _fetch_rows(phone: BenchPhone, device: AndroidDevice, rounds: int, table: BenchTable) -> None:
    """Figures that include the phone and the wire: each ours against adbutils, interleaved."""
    column, adb = phone.column, phone.adbutils_device()
    trip = await interleaved_async_ms({"ours": lambda: device.shell("echo"),
                                       "adbutils": lambda: asyncio.to_thread(adb.shell, "echo")}, rounds)
    table.put(column, "ADB round trip (shell echo)", trip["ours"], trip["adbutils"], baseline_name="adbutils shell()")

    contenders = {"png": lambda: device.screenshot(PNG_METHOD), "adbutils": lambda: asyncio.to_thread(adb.screenshot)}
    try:
        await device.screenshot(RAW_METHOD)
        contenders["raw"] = lambda: device.screenshot(RAW_METHOD)
    except DeviceError as exc:
        table.notes.append(f"{column}: no raw screencap ({exc}); the raw rows are left out.")
    shots = await interleaved_async_ms(contenders, rounds)
    for method in ("raw", "png"):
        if method in shots:
            table.put(column, f"screenshot fetch + decode to RGB, {method} path", shots[method], shots["adbutils"],
                      baseline_name="adbutils screenshot()")

    device.tree_server.policy = TreeServerPolicy(mode="off")          # the two share one UI automation
    await device.release_ui_automation()
    dumps = await interleaved_async_ms({"ours": device.dump_hierarchy,
                                        "adbutils": lambda: asyncio.to_thread(_adbutils_dump, adb)}, rounds)
    table.put(column, DUMP_FIGURE, dumps["ours"], dumps["adbutils"],
              baseline_name="adbutils dump_hierarchy()")
    await _server_fetch_row(phone, device, rounds, table, dumps["ours"])


async def _server_fetch_row(phone: BenchPhone, device: AndroidDevice, rounds: int, table: BenchTable,
                            dump_ms: float) -> None:
    """The tree through uiautomator2's server on the phone, against `uiautomator dump` measured just before
    on the same phone (not interleaved: only one UI-automation client may hold the phone at a time)."""
    device.tree_server.policy = TreeServerPolicy(mode="on", environment_decides=False)
    try:
        started = time.perf_counter()
        await device.dump_hierarchy()                      # the server's start is not a fetch
        start_ms = (time.perf_counter() - started) * 1000
        if device.tree_source != SERVER_SOURCE:
            table.not_measured(SERVER_FIGURE, f"{phone.column}: the server did not start ({device.tree_source_note})",
                               budget=SERVER_BUDGET_MS)
            return
        served = statistics.median([await _timed(device.dump_hierarchy) for _ in range(rounds)])
        table.put(phone.column, SERVER_FIGURE, served, dump_ms, budget=SERVER_BUDGET_MS,
                  baseline_name="ours through uiautomator dump (the row above)")
    finally:
        await device.release_ui_automation()
        device.tree_server.policy = TreeServerPolicy(mode="off")
    low, high = REALISTIC_COSTS[SERVER_DUMP]
    note = (f"{phone.column}: the server started in {start_ms:,.0f} ms (once per 30 s of use). "
            + ("The quick phone charges nothing for a dump, so its figure is the app's own part plus the wire "
               "(our client, ADB, the phone's HTTP server)." if phone.column == "quick" else
               f"The realistic phone charges a server dump {low * 1000:.0f}–{high * 1000:.0f} ms (sources: "
               f"{source_names(SERVER_DUMP)}; docs/virtual-phone.md); the rest is the app's and the wire's."))
    table.notes.append(note)


async def _timed(call) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


def _app_side_rows(column: str, raw: bytes | None, png: bytes, method: str, phone_xml: str, rounds: int,
                   table: BenchTable) -> None:
    """Figures without the phone: decoding, parsing, annotating and the whole step's app-side work."""
    if raw is not None:
        decode = interleaved_ms({"raw": lambda: decode_raw(raw), "png": lambda: decode_png(png)}, rounds)
        table.put(column, "decode only (app side), raw", decode["raw"], decode["png"], baseline_name="PNG decode")
    dumps = corpus_dumps()
    if dumps:
        per_dump = [median_ms(partial(_parse_and_select, p.read_bytes()), 3) for p in dumps]
        table.put(column, f"parse + select, corpus median ({len(dumps)} dumps)", statistics.median(per_dump))
    dense = dense_corpus_screen()
    own = DenseScreen(phone_xml, "this phone's screen", node_count(phone_xml))
    screen = dense or own                         # the step's figure names no screen: the densest there is
    if dense is not None:
        table.put(column, "parse + select, ~300-node screen", median_ms(lambda: _parse_and_select(dense.xml), rounds))
    else:
        table.not_measured("parse + select, ~300-node screen", NO_DENSE_SCREEN)
    table.put(column, "parse + select, this phone's screen", median_ms(lambda: _parse_and_select(phone_xml), rounds))

    image = (decode_raw(raw) if method == RAW_METHOD and raw is not None else decode_png(png))
    small, scale = fit_for_model(image, MODEL_MAX_SIDE)
    for shown in (dense, own):
        figure = f"annotate at model size {small.width}x{small.height}, " + (
            "~300-node screen" if shown is dense else "this phone's screen")
        if shown is None:
            table.not_measured(figure, NO_DENSE_SCREEN)
            continue
        controls = extract_controls(shown.xml, image.size)
        marks = interleaved_ms({"small": partial(annotate, small, controls, scale=scale),
                                "full": partial(_annotate_then_fit, image, controls)}, rounds)
        table.put(column, figure, marks["small"], marks["full"], baseline_name="annotate full size, then shrink")
    _annotate_grid_row(column, rounds, table)

    capture = raw if method == RAW_METHOD and raw is not None else png
    kinds = images_made(capture, method, screen.xml)
    step = interleaved_ms({"ours": lambda: our_step(capture, method, screen.xml),
                           "plain": lambda: plain_step(png, screen.xml, kinds)}, rounds)
    controls = extract_controls(screen.xml, image.size)
    on = "~300-node screen" if dense is not None else "this phone's screen"
    table.put(column, f"{STEP_FIGURE}, {on} ({screen.nodes} nodes, {len(controls)} controls)", step["ours"],
              step["plain"], budget=STEP_BUDGET_MS, baseline_name="plain: PNG decode, annotate full size, shrink")
    if dense is not None:
        note = (f"~300-node screen: {dense.describe()}, {len(controls)} controls, over this phone's "
                f"{image.width}x{image.height} screenshot; the step's figure is measured on it.")
    else:
        note = (f"No ~300-node screen here: the step's figure is measured on {own.describe()}, {len(controls)} "
                f"controls, a sparser screen than its budget's.")
    sent = (f"One step's app-side work makes {describe_images(kinds)} that the default setting sends "
            f"(images.send = {DEFAULT_SEND!r}), ours and the plain way alike.")
    for text in (note, sent):
        if text not in table.notes:
            table.notes.append(text)


ANNOTATE_GRID_FIGURE = "annotate 60 controls on a full 1080x2400 screenshot"
ANNOTATE_GRID_BUDGET_MS = 100.0


def _annotate_then_fit(image: Image.Image, controls: list[Control]) -> Image.Image:
    """The plain way: annotate at full size, then shrink for the model."""
    return fit_for_model(annotate(image, controls), MODEL_MAX_SIDE)[0]


def _annotate_grid_row(column: str, rounds: int, table: BenchTable) -> None:
    """Set-of-mark drawing alone, at full size (a 4-column grid of 60 buttons); the baseline is the copy
    `annotate` makes with nothing to draw, so the ratio is what the boxes and badges cost on top."""
    image = Image.new("RGB", (1080, 2400), (240, 240, 240))
    controls = [Control(id=i + 1, name=f"c{i + 1}", type="Button", class_name="android.widget.Button",
                        resource_id="", text="", content_desc="", clickable=True,
                        rect=((i % 4) * 270, (i // 4) * 160, (i % 4) * 270 + 250, (i // 4) * 160 + 140))
                for i in range(60)]
    annotate(image, controls)                     # the badges' font, loaded once
    marks = interleaved_ms({"ours": lambda: annotate(image, controls), "copy": lambda: annotate(image, [])},
                           max(rounds, 3))
    table.put(column, ANNOTATE_GRID_FIGURE, marks["ours"], marks["copy"], budget=ANNOTATE_GRID_BUDGET_MS,
              baseline_name="the same copy with no controls")


async def _measure(phone: BenchPhone, rounds: int, table: BenchTable) -> None:
    device = AndroidDevice(phone.transport(), phone.serial)
    where = "the screen its owner left it on"
    if phone.virtual:
        package, _ = await open_densest_screen(device)
        where = f"{package}'s first screen, its densest"
    await _fetch_rows(phone, device, rounds, table)
    method = await device.choose_capture_method()
    png = await device.exec_out("screencap -p")
    raw = await device.exec_out("screencap") if RAW_METHOD in device.capture_timings else None
    xml = await device.dump_hierarchy()
    table.notes.append(f"{phone.column}: the device layer chose the {method} capture path; this phone's screen "
                       f"({where}) has {node_count(xml)} nodes.")
    _app_side_rows(phone.column, raw, png, method, xml, rounds, table)


def run_perception_bench(rounds: int = 15, choice: PhoneChoice = DEFAULT_CHOICE) -> BenchTable:
    table = BenchTable(f"agentdesk bench perception — {choice.describe()}, median of {rounds} interleaved rounds",
                       choice.columns)
    with contextlib.closing(each_phone(choice)) as phones:
        for phone in phones:
            asyncio.run(_measure(phone, rounds, table))
    dump = table.row(DUMP_FIGURE)
    ratios = ", ".join(f"{column} {dump.ratio(column):.2f}x" for column in table.columns if dump.ratio(column))
    table.notes += [
        "Ratios are baseline / ours from interleaved rounds against the same phone (above 1: ours is faster).",
        f"The dump against adbutils: {ratios}. The quick virtual phone keeps its view tree and answers a dump in "
        "about a millisecond, so there the ratio only measures adbutils' extra round trips; on a phone (and the "
        "realistic virtual phone) the dump itself dominates and the ratio is what a person would see.",
        "App-side work excludes time inside the phone and on the wire (that is in the fetch rows); both step "
        "variants produce the same JPEGs for the model.",
    ]
    return table
