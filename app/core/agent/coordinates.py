"""The one place where a model's coordinates and device pixels are mapped into each other (GUIDE §2).

A model sees a downscaled screenshot, so the points it returns are pixels of that image
("image" mode) or 0–1000 on both axes ("normalized" mode, independent of the image).
Results are rounded to ints and never clamped: a point off the screen must be rejected
by validation, not silently moved.
"""

from __future__ import annotations

from typing import Literal

from app.core.agent.action_kinds import kind_of
from app.core.agent.actions import Action

CoordinateMode = Literal["image", "normalized"]
NORMALIZED_RANGE = 1000


class CoordinateMapper:
    """Maps between device pixels (`screen_size`) and the model's coordinates for one sent image."""

    def __init__(self, screen_size: tuple[int, int], image_size: tuple[int, int], mode: CoordinateMode = "image"):
        if min(*screen_size, *image_size) <= 0:
            raise ValueError(f"screen size {screen_size} and image size {image_size} must both be positive")
        if mode not in ("image", "normalized"):
            raise ValueError(f"coordinate mode must be 'image' or 'normalized', not {mode!r}")
        self.screen_size = screen_size
        self.image_size = image_size
        self.mode = mode
        model_width, model_height = (NORMALIZED_RANGE, NORMALIZED_RANGE) if mode == "normalized" else image_size
        self._x_scale = model_width / screen_size[0]     # model units per device pixel
        self._y_scale = model_height / screen_size[1]

    @property
    def is_identity(self) -> bool:
        return self._x_scale == 1 and self._y_scale == 1

    def to_device(self, x: float, y: float) -> tuple[int, int]:
        """A model point → device pixels."""
        return round(x / self._x_scale), round(y / self._y_scale)

    def to_model(self, x: float, y: float) -> tuple[int, int]:
        """Device pixels → the point as the model should name it."""
        return round(x * self._x_scale), round(y * self._y_scale)

    def rect_to_model(self, rect: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        left, top = self.to_model(rect[0], rect[1])
        right, bottom = self.to_model(rect[2], rect[3])
        return left, top, right, bottom

    def action_to_device(self, action: Action) -> Action:
        """A copy of `action` with its points (the kind's `point_arguments`) in device pixels; functions
        without points are copied unchanged."""
        mapped = action.model_copy(deep=True)
        kind = kind_of(action.function)
        if kind is None:
            return mapped
        args = action.args  # validated: the points are numbers (or absent, where a control may stand instead)
        for x_name, y_name in kind.point_arguments:
            x, y = getattr(args, x_name), getattr(args, y_name)
            if x is not None and y is not None:
                mapped.arguments[x_name], mapped.arguments[y_name] = self.to_device(x, y)
        return mapped
