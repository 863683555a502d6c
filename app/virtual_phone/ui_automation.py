"""The phone's one UI-automation connection: only one client may hold UiAutomation at a time.

Android's AccessibilityManagerService keeps a single UiTestAutomationService; a second
registration throws `IllegalStateException: UiAutomationService …already registered!`
(UiAutomationManager.registerUiTestAutomationServiceLocked). uiautomator2's server holds it for as
long as it runs; `uiautomator dump` registers it for the length of one dump.
"""

from __future__ import annotations

import threading

ALREADY_REGISTERED = ("java.lang.IllegalStateException: UiAutomationService "
                      "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@{proxy}"
                      "already registered!")


class UiAutomationSlot:
    """Who holds UiAutomation on this phone (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holder: str | None = None
        self._proxy = 0x5deffd5

    def acquire(self, holder: str) -> bool:
        with self._lock:
            if self._holder is not None:
                return False
            self._holder = holder
            return True

    def release(self, holder: str) -> None:
        with self._lock:
            if self._holder == holder:
                self._holder = None

    @property
    def holder(self) -> str | None:
        with self._lock:
            return self._holder

    def already_registered(self) -> str:
        """The exception line a second client gets; it names that client's own binder proxy (a new
        identity hash each time, as Object.toString() prints it)."""
        with self._lock:
            self._proxy = (self._proxy * 1103515245 + 12345) & 0xFFFFFFF
            return ALREADY_REGISTERED.format(proxy=f"{self._proxy:x}")
