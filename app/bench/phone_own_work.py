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
