"""`agentdesk bench phone`: how close the virtual phone is to real phones (the fidelity table).

Two tables:
- dumps: the corpus of real phones' dumps (../shared/corpus/ui-dumps) next to the virtual
  phone's own dumps of every app's first screen, for both device profiles (android14,
  android9): top-level nodes, attribute orders, node counts, NAF nodes, depth. The dumps are
  read with adbutils' dump_hierarchy(), a client nobody here wrote.
- services: what each phone service costs over ADB on the quick and the realistic virtual
  phone (or an attached phone), next to what public measurements of real phones say, with the
  sources named (cost_sources.py) and listed with their addresses under the table.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field

from adbutils.errors import AdbError

from app.core.device.android_device import AndroidDevice
from app.core.device.errors import DeviceError
from app.virtual_phone.cost_sources import COST_SOURCES, source_names
from app.virtual_phone.dump_fidelity import DumpFigures, dump_figures
from app.virtual_phone.latency import AM_START, DUMP, INPUT, PM, SCREENCAP_PNG, SCREENCAP_RAW

from .corpus import corpus_dir, corpus_dumps
from .phone_process import virtual_phone_process
from .phones import DEFAULT_CHOICE, QUICK, REALISTIC, BenchPhone, PhoneChoice, attached_phone, virtual_phone
from .scroll_pictures import ScrollPictures, scroll_pictures
from .table import format_number, render_grid

# (cost kind, what the row says, the ADB service; {component} is an activity to start)
SERVICES = ((DUMP, "uiautomator dump", "shell:uiautomator dump /sdcard/window_dump.xml"),
            (SCREENCAP_PNG, "screencap -p", "exec:screencap -p"),
            (SCREENCAP_RAW, "screencap (raw)", "exec:screencap"),
            (INPUT, "input tap", "shell:input tap 300 60"),
            (PM, "pm list packages", "shell:pm list packages"),
            (AM_START, "am start -n", "shell:am start -n {component}"))
START_PACKAGES = ("com.android.settings", "com.android.contacts")
DISPLAY_HZ = 60
DUMP_PROFILES = ("android14", "android9")


@dataclass
class ServiceTimes:
    samples: dict[str, list[float]] = field(default_factory=dict)      # label → ms
    idle_failures: int = 0                                              # dumps that could not get idle state


@dataclass
class PhoneReport:
    """The fidelity tables; `render()` prints them."""

    title: str
    dump_rows: list[tuple[str, list[DumpFigures]]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    times: dict[str, ServiceTimes] = field(default_factory=dict)
    scroll: dict[str, ScrollPictures] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    last_column_full_scale: bool = True      # a scaled realistic phone cannot be held against real phones

    def within_budget(self) -> bool:
        """The fidelity table has no budgets: it reports, it does not judge."""
        return True

    def _dump_grid(self) -> tuple[str, list[str]]:
        labels: dict[tuple[str, ...], str] = {}
        body = []
        for source, shapes in self.dump_rows:
            orders = Counter(labels.setdefault(s.attribute_order, chr(ord("A") + len(labels))) for s in shapes)
            tops = Counter(s.top_level_nodes for s in shapes)
            nodes = [s.node_count for s in shapes]
            depths = [s.max_depth for s in shapes]
            body.append([source, str(len(shapes)),
                         ", ".join(f"{top}: {n}" for top, n in sorted(tops.items())),
                         ", ".join(f"{label}: {n}" for label, n in sorted(orders.items())),
                         f"{statistics.median(nodes):g} ({min(nodes)}–{max(nodes)})",
                         f"{sum(s.naf_count > 0 for s in shapes)} of {len(shapes)}"
                         + ("" if all(s.naf_first for s in shapes) else " (NAF not first in some)"),
                         f"{sum(s.zero_size_nodes > 0 for s in shapes)} of {len(shapes)}",
                         f"{statistics.median(depths):g} ({max(depths)})"])
        header = ["dumps of", "count", "top-level nodes: dumps", "attribute order: dumps",
                  "nodes: median (range)", "dumps with NAF nodes", "dumps with zero-size nodes", "depth: median (max)"]
        legend = [f"attribute order {label}: {' '.join(order)}" for order, label in labels.items()]
        return render_grid(header, body), legend

    def _service_grid(self) -> str:
        body = []
        for kind, label, _ in SERVICES:
            row = [label]
            for column in self.columns:
                samples = self.times[column].samples.get(label)
                row.append(_spread_text(samples) if samples else "-")
            published = COST_SOURCES[kind].published
            row += [_range_text(published) if published else "no figure found", source_names(kind)]
            last = self.times[self.columns[-1]].samples.get(label)
            row.append(_verdict(statistics.median(last), published)
                       if last and published and self.last_column_full_scale else "-")
            body.append(row)
        header = ["service over ADB", *(f"{c}: median (range)" for c in self.columns), "real phones (sources)",
                  "sources", f"{self.columns[-1]} vs sources"]
        return render_grid(header, body)

    def _scroll_grid(self) -> str:
        columns = [c for c in self.columns if c in self.scroll]
        rows = [["pictures a second while a finger drags Settings' list",
                 *(f"{self.scroll[c].dragging:.1f}" for c in columns), f"{DISPLAY_HZ} (a picture per refresh)",
                 *(f"{self.scroll[c].dragging / DISPLAY_HZ:.2f}x" for c in columns)],
                ["pictures a second with the screen still (baseline)",
                 *(f"{self.scroll[c].still:.1f}" for c in columns), "0 (nothing changes)", *("-" for _ in columns)]]
        header = ["scrcpy stream", *columns, "real phones", *(f"{c} / display rate" for c in columns)]
        return render_grid(header, rows)

    def _footnotes(self) -> list[str]:
        """Each source the table names, once: its address and what it measured."""
        seen: dict[str, str] = {}
        for kind, _, _ in SERVICES:
            for m in COST_SOURCES[kind].measurements:
                seen.setdefault(m.source, f"- {m.source}: {m.url} — {m.measured}")
        return ["Sources (how each range follows them: docs/virtual-phone.md):", *seen.values()]

    def render(self) -> str:
        dumps, legend = self._dump_grid()
        scroll = [self._scroll_grid(), ""] if self.scroll else []
        return "\n".join([self.title, "", dumps, "", *legend, "", self._service_grid(), "", *scroll,
                          *self._footnotes(), "", *self.notes])

    def as_dict(self) -> dict:
        return {"title": self.title, "notes": self.notes,
                "dumps": {source: [s.__dict__ for s in shapes] for source, shapes in self.dump_rows},
                "services_ms": {column: t.samples for column, t in self.times.items()},
                "scroll_pictures_per_s": {column: vars(figures) for column, figures in self.scroll.items()},
                "sources": {label: {"real_phones_s": COST_SOURCES[kind].published,
                                    "urls": [m.url for m in COST_SOURCES[kind].measurements]}
                            for kind, label, _ in SERVICES}}


def _spread_text(samples: list[float]) -> str:
    return (f"{format_number(statistics.median(samples), 'ms')} ms "
            f"({format_number(min(samples), 'ms')}–{format_number(max(samples), 'ms')})")


def _range_text(seconds: tuple[float, float]) -> str:
    return f"{seconds[0] * 1000:,.0f}–{seconds[1] * 1000:,.0f} ms"


def _verdict(median_ms: float, published: tuple[float, float]) -> str:
    low, high = published[0] * 1000, published[1] * 1000
    return "within" if low <= median_ms <= high else ("outside (below)" if median_ms < low else "outside (above)")


def _adbutils_dump(phone: BenchPhone) -> str:
    adb = phone.adbutils_device()
    for _ in range(2):
        try:
            return adb.dump_hierarchy()
        except AdbError:
            time.sleep(0.5)
    return adb.dump_hierarchy()


async def _app_screens(phone: BenchPhone) -> list[DumpFigures]:
    """The home screen and the first screen of every app that launches, as adbutils reads them."""
    device = AndroidDevice(phone.transport(), phone.serial)
    await device.home()
    shapes = [dump_figures(await asyncio.to_thread(_adbutils_dump, phone))]
    for package in await device.all_packages():
        try:
            await device.launch_app(package)
        except DeviceError:
            continue
        shapes.append(dump_figures(await asyncio.to_thread(_adbutils_dump, phone)))
    await device.home()
    return shapes


async def _components(device: AndroidDevice) -> list[str]:
    """Activities `am start -n` can start here (Settings and Contacts when installed)."""
    found = []
    for package in START_PACKAGES:
        try:
            await device.launch_app(package)
        except DeviceError:
            continue
        app = await device.foreground_app()
        if app is not None and app.package == package:
            found.append(f"{app.package}/{app.activity}")
    return found


async def _service_times(phone: BenchPhone, rounds: int) -> ServiceTimes:
    """Each service `rounds` times in a row over ADB (one connection per call, as clients do)."""
    device = AndroidDevice(phone.transport(), phone.serial)
    components = await _components(device)
    await device.home()
    transport, times = phone.transport(), ServiceTimes()
    for _kind, label, service in SERVICES:
        if "{component}" in service and not components:
            continue
        samples = []
        for index in range(rounds):
            line = service.format(component=components[index % len(components)]) if components else service
            started = time.perf_counter()
            output = await asyncio.to_thread(transport.run, phone.serial, line)
            samples.append((time.perf_counter() - started) * 1000)
            times.idle_failures += label == "uiautomator dump" and b"could not get idle state" in output
        times.samples[label] = samples
    await device.home()
    return times


def _measure_scrolling(report: PhoneReport, phone: BenchPhone) -> None:
    try:
        report.scroll[phone.column] = asyncio.run(scroll_pictures(phone))
    except DeviceError as exc:
        report.notes.append(f"{phone.column}: the scrolling stream could not be measured: {exc}")


def _corpus_row(report: PhoneReport) -> None:
    shapes = []
    for path in corpus_dumps():
        try:
            shapes.append(dump_figures(path.read_bytes()))
        except ValueError:
            report.notes.append(f"corpus dump {path.name} is not a uiautomator dump; left out.")
    if shapes:
        report.dump_rows.append(("real phones (corpus)", shapes))
        report.notes.append(f"Corpus: {corpus_dir()}.")
    else:
        report.notes.append("The corpus of real phones' dumps was not found (set AGENTDESK_SHARED): "
                            "only the virtual phone's dumps are shown.")


def run_phone_bench(rounds: int = 15, choice: PhoneChoice = DEFAULT_CHOICE) -> PhoneReport:
    report = PhoneReport(f"agentdesk bench phone — the virtual phone next to real phones; services: median of "
                         f"{rounds} calls", columns=choice.columns,
                         last_column_full_scale=bool(choice.device) or choice.latency_scale == 1.0)
    _corpus_row(report)
    if choice.device:
        phone = attached_phone(choice.device, choice.columns[0])
        report.dump_rows.append((phone.column, [dump_figures(_adbutils_dump(phone))]))
        report.times[phone.column] = asyncio.run(_service_times(phone, rounds))
        _measure_scrolling(report, phone)
    else:
        for profile in DUMP_PROFILES:
            with virtual_phone_process("--profile", profile) as port:
                phone = virtual_phone(port, QUICK)
                report.dump_rows.append((f"virtual phone, {profile}", asyncio.run(_app_screens(phone))))
                if profile == choice.profile:
                    report.times[QUICK] = asyncio.run(_service_times(phone, rounds))
                    _measure_scrolling(report, phone)
        with virtual_phone_process("--profile", choice.profile, "--latency", REALISTIC,
                                   "--time-scale", f"{choice.latency_scale:g}") as port:
            phone = virtual_phone(port, choice.columns[1])
            report.times[phone.column] = asyncio.run(_service_times(phone, rounds))
            _measure_scrolling(report, phone)
        report.notes.append(f"Services measured on the {choice.profile} profile. The virtual phone's dumps are "
                            "the home screen and each app's first screen; latency does not change what a dump holds.")
    for column, times in report.times.items():
        if times.idle_failures:
            report.notes.append(f"{column}: {times.idle_failures} of {rounds} dumps failed with "
                                "\"could not get idle state\".")
    report.notes.append("`am start -n` alternates between Settings and Contacts. A dump through uiautomator2's server "
                        "on the phone is measured by `agentdesk bench perception`, beside its cost's sources.")
    return report
