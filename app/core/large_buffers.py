"""Keep large freed buffers in the process for reuse instead of handing them back to the system.

A 1080×2400 picture is 10 MB; glibc serves such a block with its own mmap and unmaps it on free,
so every frame a renderer, encoder or decoder makes pays page faults on fresh memory: measured
here, copying one picture into an encoder's frame took 6 ms on warm memory and 18–24 ms on fresh.
Raising glibc's mmap threshold above a picture's size (and the trim threshold above that) lets
freed pictures be reused; the process keeps at most about `TRIM_BYTES` it no longer uses.
Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3      # glibc's mallopt parameters (malloc.h)
MMAP_BYTES = 64 * 1024 * 1024                     # blocks below this come from the heap and are reused
TRIM_BYTES = 128 * 1024 * 1024                    # free memory above this at the heap's top goes back

_done = False


def reuse_large_buffers() -> bool:
    """Tell glibc's malloc to keep picture-sized blocks; True when it took the settings (once per process)."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):       # musl and others: no mallopt
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_BYTES))
    return _done
