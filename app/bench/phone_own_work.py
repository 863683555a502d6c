"""The virtual phone's own share of touch to new frame: its render of the new screen and the encode of that
picture, measured apart (in this process, on the same machine) so `bench gui` can say how much of the touch
to frame is the test phone's CPU rather than the app's. A real phone renders on its GPU and encodes in
hardware; this is what the stand-in costs here."""

from __future__ import annotations

import statistics
import time

SAMPLES = 5
STREAM_SIDE = 1280       # the mirror's stream (mirror.max_size) as the bench sets it


def render_and_encode_ms(profile: str = "android14", samples: int = SAMPLES) -> float | None:
    """Median ms from a tap on Home's Settings icon to the new screen rendered and encoded for the stream;
    None when this PyAV cannot encode H.264."""
    from app.core.perception.hierarchy import extract_controls
    from app.virtual_phone.input_events import HOME
    from app.virtual_phone.phone import VirtualPhone
    from app.virtual_phone.video_encoder import EncoderUnavailable, ScreenEncoder, video_size

    phone = VirtualPhone(profile=profile)
    try:
        encoder = ScreenEncoder("h264", video_size(phone.display_size(), STREAM_SIDE))
    except EncoderUnavailable:
        return None
    try:
        pts, times = 0, []
        for _ in range(samples + 1):                 # the first warms the encoder and the glyph caches
            phone.key(HOME)
            pts += 16_667
            encoder.encode(phone.screenshot(), pts)
            target = next((c for c in extract_controls(phone.dump_hierarchy()) if c.name == "Settings"), None)
            if target is None:
                return None
            started = time.perf_counter()
            phone.tap(*target.center)
            pts += 16_667
            encoder.encode(phone.screenshot(), pts)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times[1:])
    finally:
        encoder.close()


def stopwatch_tick_render_ms(samples: int = 40) -> tuple[float, float]:
    """(only what changed, whole picture): median ms the virtual phone takes to make the picture of a running
    stopwatch's next tick (a few digits change), measured on two phones side by side in this process."""
    from app.virtual_phone.apps.clock import ClockApp
    from app.virtual_phone.phone import VirtualPhone

    def tick_ms(phone: VirtualPhone) -> list[float]:
        times = []
        for _ in range(samples + 2):                 # the first two warm the glyph caches and the last picture
            time.sleep(0.011)                        # the stopwatch shows hundredths: every tick is new digits
            started = time.perf_counter()
            phone.screenshot()
            times.append((time.perf_counter() - started) * 1000)
        return times[2:]

    phones = []
    for only_changes in (True, False):
        phone = VirtualPhone()
        phone.repaint_only_changes = only_changes
        phone.launch("com.android.deskclock")
        clock = phone.apps["com.android.deskclock"]
        assert isinstance(clock, ClockApp)
        clock.pages()["stopwatch running"]()
        phone.changed()
        phones.append(phone)
    partial, whole = [], []
    for _ in range(3):                               # interleaved, so both meet the same machine
        partial += tick_ms(phones[0])
        whole += tick_ms(phones[1])
    return statistics.median(partial), statistics.median(whole)
