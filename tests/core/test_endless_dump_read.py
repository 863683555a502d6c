"""An endless answer from the phone (a dump that never ends) is read only up to the cap, and the reading
thread ends then: the phone's side sees the connection closed."""

from __future__ import annotations

import socket
import threading
import tracemalloc

from app.core.device.adb_transport import read_to_end

CAP = 8_000_000                         # limits.max_dump_mb's default


def test_an_endless_answer_is_read_to_the_cap_and_no_further():
    ours, phones = socket.socketpair()
    stopped = threading.Event()

    def endless() -> None:              # the phone's side: writes until the connection is closed
        chunk = b"<node text='row' />" * 4096
        try:
            while True:
                phones.sendall(chunk)
        except OSError:
            stopped.set()
        finally:
            phones.close()

    writer = threading.Thread(target=endless, daemon=True)
    writer.start()
    tracemalloc.start()
    try:
        data = read_to_end(ours, CAP)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        ours.close()
    writer.join(10)
    assert len(data) == CAP + 1                   # the caller sees it passed the cap
    assert peak < 5 * CAP                         # far below 300 MB: the read held about the cap, not the stream
    assert stopped.is_set() and not writer.is_alive()   # the endless writer ended once we stopped reading


def test_an_answer_that_never_ends_stops_at_its_deadline():
    import time

    import pytest

    ours, phones = socket.socketpair()
    try:
        phones.sendall(b"x" * 1000)
        ours.settimeout(5)
        with pytest.raises(socket.timeout):
            read_to_end(ours, None, time.monotonic() - 1)     # a deadline already past: stops after one read
    finally:
        ours.close()
        phones.close()
