"""Large freed buffers stay in the process for reuse (glibc's malloc), so frames do not pay page faults."""

from __future__ import annotations

import ctypes
import sys

import pytest

from app.core import large_buffers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_glibc_is_given_both_thresholds_once_and_they_are_above_a_picture(monkeypatch):
    calls = []

    class Mallopt:                     # a C function: takes argtypes/restype, then is called
        def __call__(self, parameter, value):
            calls.append((parameter, value))
            return 1

    class FakeLibc:
        mallopt = Mallopt()

    monkeypatch.setattr(large_buffers, "_done", False)
    monkeypatch.setattr(large_buffers.ctypes, "CDLL", lambda name: FakeLibc())
    assert large_buffers.reuse_large_buffers() is True
    assert large_buffers.reuse_large_buffers() is True
    assert calls == [(large_buffers.M_MMAP_THRESHOLD, large_buffers.MMAP_BYTES),
                     (large_buffers.M_TRIM_THRESHOLD, large_buffers.TRIM_BYTES)], "set once, both thresholds"
    assert large_buffers.MMAP_BYTES > 1080 * 2400 * 4 and large_buffers.TRIM_BYTES > large_buffers.MMAP_BYTES


def test_a_libc_without_mallopt_is_left_as_it_is(monkeypatch):
    monkeypatch.setattr(large_buffers, "_done", False)
    monkeypatch.setattr(large_buffers.sys, "platform", "linux")

    def no_libc(name):
        raise OSError("no such library")

    monkeypatch.setattr(large_buffers.ctypes, "CDLL", no_libc)
    assert large_buffers.reuse_large_buffers() is False


def test_a_refused_setting_is_not_taken_for_done(monkeypatch):
    class Refusing:
        def __call__(self, parameter, value):
            return 0

    class RefusingLibc:
        mallopt = Refusing()

    monkeypatch.setattr(large_buffers, "_done", False)
    monkeypatch.setattr(large_buffers.sys, "platform", "linux")
    monkeypatch.setattr(large_buffers.ctypes, "CDLL", lambda name: RefusingLibc())
    assert large_buffers.reuse_large_buffers() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt is Linux's")
def test_on_this_machine_glibc_accepts_them():
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        pytest.skip("not glibc")
    if not hasattr(libc, "mallopt"):
        pytest.skip("a libc without mallopt")
    assert large_buffers.reuse_large_buffers() is True
