"""`agentdesk bench perception`: screenshot, hierarchy, parse, annotate — against the virtual phone.

Every "ours" figure has, where one exists, a baseline measured in the same run:
adbutils' own screenshot()/dump_hierarchy(), and for the whole step the plain
approach of seed 000 (PNG screenshot, full-size annotation, full-size PNGs to the model).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from pathlib import Path

from app.core.device.adb_transport import AdbTransport
from app.core.device.android_device import AndroidDevice
from app.core.device.screen_capture import PNG_METHOD, RAW_METHOD, decode_png, decode_raw
from app.core.perception.annotate import annotate
from app.core.perception.hierarchy import parse_hierarchy, screen_size_from_hierarchy
from app.core.perception.model_image import encode_image, fit_for_model
from app.core.perception.selection import select_controls
from app.virtual_phone.adb_server import VirtualAdbServer

from .table import BenchTable, median_ms

STEP_BUDGET_MS = 30.0
MODEL_MAX_SIDE = 1280
LARGEST_SCREEN_PACKAGE = "com.android.contacts"


def corpus_dir() -> Path | None:
    root = Path(os.environ.get("AGENTDESK_SHARED", Path(__file__).resolve().parents[2].parent / "shared"))
    folder = root / "corpus" / "ui-dumps"
    return folder if folder.is_dir() else None


def _parse_and_select(xml: bytes | str):
    hierarchy = parse_hierarchy(xml)
    return select_controls(hierarchy, screen_size_from_hierarchy(hierarchy))


async def _timed(coro_factory, rounds: int) -> list[float]:
    await coro_factory()  # warm-up
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        await coro_factory()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def _measure(server: VirtualAdbServer, rounds: int, table: BenchTable) -> None:
    serial = server.devices[0].serial
    device = AndroidDevice(AdbTransport("127.0.0.1", server.port), serial)
    await device.launch_app(LARGEST_SCREEN_PACKAGE)

    # Screenshots: fetch (includes the phone's own time) and decode (app-side), per path.
    raw_bytes = await device.exec_out("screencap")
    png_bytes = await device.exec_out("screencap -p")
    fetch = {m: statistics.median(await _timed(lambda m=m: device.screenshot(m), rounds)) for m in (RAW_METHOD, PNG_METHOD)}
    decode_raw_ms = median_ms(lambda: decode_raw(raw_bytes), rounds)
    decode_png_ms = median_ms(lambda: decode_png(png_bytes), rounds)
    import adbutils

    adb_device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(serial)
    baseline_shot = statistics.median(await _timed(lambda: asyncio.to_thread(adb_device.screenshot), max(3, rounds // 3)))
    table.add("screenshot fetch+decode, raw path", fetch[RAW_METHOD], baseline=baseline_shot,
              baseline_name="adbutils screenshot()")
    table.add("screenshot fetch+decode, PNG path", fetch[PNG_METHOD], baseline=baseline_shot,
              baseline_name="adbutils screenshot()")
    table.add("  decode only, raw", decode_raw_ms, baseline=decode_png_ms, baseline_name="PNG decode")
    chosen = await device.choose_capture_method()
    table.notes.append(f"PNG path / raw path (fetch+decode): {fetch[PNG_METHOD] / fetch[RAW_METHOD]:.2f}x; "
                       f"the device layer chose '{chosen}' for this phone.")

    # Hierarchy: one round trip (dump + cat) vs adbutils' dump + sync pull.
    hierarchy_ms = statistics.median(await _timed(device.dump_hierarchy, rounds))
    baseline_dump = statistics.median(await _timed(lambda: asyncio.to_thread(adb_device.dump_hierarchy), max(3, rounds // 3)))
    table.add("hierarchy fetch (uiautomator dump)", hierarchy_ms, baseline=baseline_dump,
              baseline_name="adbutils dump_hierarchy()")

    xml = await device.dump_hierarchy()
    node_count = xml.count("<node ")
    screen = decode_raw(raw_bytes)
    controls = _parse_and_select(xml)

    # Parse + select: corpus median, the largest corpus dump, and the virtual phone's screen.
    corpus = corpus_dir()
    if corpus is not None:
        dumps = sorted(corpus.rglob("*.xml"))
        per_dump = [median_ms(lambda data=p.read_bytes(): _parse_and_select(data), 5) for p in dumps]
        largest = max(dumps, key=lambda p: p.read_bytes().count(b"<node "))
        table.add(f"parse+select, corpus median ({len(dumps)} dumps)", statistics.median(per_dump))
        table.add(f"parse+select, largest corpus dump ({largest.read_bytes().count(b'<node ')} nodes)",
                  median_ms(lambda data=largest.read_bytes(): _parse_and_select(data), rounds))
    else:
        table.notes.append("corpus not found (set AGENTDESK_SHARED): corpus rows skipped")
    table.add(f"parse+select, virtual phone screen ({node_count} nodes, {len(controls)} controls)",
              median_ms(lambda: _parse_and_select(xml), rounds))

    table.add("annotate, full size 1080x2400", median_ms(lambda: annotate(screen, controls), rounds))
    model_image, scale = fit_for_model(screen, MODEL_MAX_SIDE)
    table.add(f"annotate, model size {model_image.width}x{model_image.height}",
              median_ms(lambda: annotate(model_image, controls, scale=scale), rounds))

    def our_step():
        image = decode_raw(raw_bytes)
        found = _parse_and_select(xml)
        small, factor = fit_for_model(image, MODEL_MAX_SIDE)
        marked = annotate(small, found, scale=factor)
        return encode_image(small), encode_image(marked)

    def plain_step():
        image = decode_png(png_bytes)
        found = _parse_and_select(xml)
        marked = annotate(image, found)
        return encode_image(image, "PNG"), encode_image(marked, "PNG")

    step_ms = median_ms(our_step, rounds)
    plain_ms = median_ms(plain_step, max(3, rounds // 3))
    table.add("one data-collection step, app-side total", step_ms, baseline=plain_ms,
              baseline_name="PNG + full-size PNGs", budget=STEP_BUDGET_MS)
    table.notes.append("App-side = decode + parse + select + downscale + annotate + JPEG-encode both model "
                       "images; time inside the phone and on the wire is excluded (it is in the fetch rows).")


def run_perception_bench(rounds: int = 15) -> BenchTable:
    table = BenchTable(f"agentdesk bench perception — virtual phone 1080x2400 on loopback, median of {rounds}")
    server = VirtualAdbServer().start()
    try:
        server.add_phone(width=1080, height=2400, density=420)
        asyncio.run(_measure(server, rounds, table))
    finally:
        server.stop()
    return table
