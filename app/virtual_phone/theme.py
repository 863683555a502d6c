"""Colours and dimensions of the simulated phone (a light Material look)."""

from __future__ import annotations

from dataclasses import dataclass

Color = tuple[int, int, int]

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
BACKGROUND: Color = (248, 249, 250)
SURFACE: Color = (255, 255, 255)
SURFACE_VARIANT: Color = (232, 234, 237)
TEXT: Color = (32, 33, 36)
TEXT_SECONDARY: Color = (95, 99, 104)
HINT: Color = (128, 134, 139)
DIVIDER: Color = (224, 224, 224)
PRIMARY: Color = (26, 115, 232)
PRIMARY_LIGHT: Color = (210, 227, 252)
ON_PRIMARY: Color = WHITE
DISABLED: Color = (189, 193, 198)
SWITCH_OFF_TRACK: Color = (226, 228, 231)
SWITCH_OFF_BORDER: Color = (128, 134, 139)
DANGER: Color = (217, 48, 37)
CALL_GREEN: Color = (30, 142, 62)
KEYBOARD_BG: Color = (232, 234, 237)
KEY: Color = (255, 255, 255)
KEY_SPECIAL: Color = (203, 208, 214)
KEY_ACTION: Color = (26, 115, 232)
NAV_BG: Color = (250, 250, 250)
SCRIM = (0, 0, 0, 110)

# Per-app accents (launcher icon colour and in-app primary).
APP_COLORS: dict[str, Color] = {
    "com.android.settings": (95, 99, 104),
    "com.android.contacts": (26, 115, 232),
    "com.android.messaging": (11, 87, 208),
    "com.agentdesk.notes": (242, 153, 0),
    "com.android.deskclock": (60, 64, 150),
    "com.android.dialer": (30, 142, 62),
    "com.agentdesk.calculator": (234, 67, 53),
}

# Avatar colours for contacts / conversations.
AVATAR_COLORS: list[Color] = [
    (26, 115, 232), (217, 48, 37), (30, 142, 62), (242, 153, 0), (161, 66, 244),
    (0, 137, 123), (232, 113, 10), (66, 133, 244), (194, 24, 91), (84, 110, 122),
]


def avatar_color(name: str) -> Color:
    return AVATAR_COLORS[sum(map(ord, name)) % len(AVATAR_COLORS)]


def darker(c: Color, f: float = 0.85) -> Color:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def mix(a: Color, b: Color, t: float) -> Color:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def is_dark(c: Color) -> bool:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] < 140


@dataclass(frozen=True)
class Metrics:
    """Sizes in pixels for one density (dp → px = dp × density / 160) and display size."""

    density: int
    width: int   # current display width (rotated)
    height: int  # current display height (rotated)

    def dp(self, v: float) -> int:
        return int(round(v * self.density / 160.0))

    @property
    def landscape(self) -> bool:
        return self.width > self.height

    @property
    def status_h(self) -> int:
        return self.dp(32 if not self.landscape else 28)

    @property
    def nav_size(self) -> int:
        return self.dp(48)

    @property
    def appbar_h(self) -> int:
        return self.dp(64 if not self.landscape else 56)

    @property
    def text_size(self) -> int:  # body 16sp
        return self.dp(16)

    @property
    def keyboard_h(self) -> int:
        return self.dp(4 * 54 + 16 if not self.landscape else 4 * 40 + 10)
