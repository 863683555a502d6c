"""launch_app: open an installed app by its package name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import Field

from app.core.perception.controls import Control

from .base import ActionArguments, ActionKind, Performer, ScriptWriter


class LaunchApp(ActionArguments):
    package_name: str = Field(min_length=1)


class LaunchAppAction(ActionKind[LaunchApp]):
    name = "launch_app"
    arguments = LaunchApp
    hint = "an installed app"
    shorthand = ("launch PACKAGE",)

    def describe(self, args: LaunchApp, name: Callable[[int, str], str]) -> str:
        return f"Open the app {args.package_name}"

    def from_shorthand(self, verb: str, words: list[str]) -> dict[str, Any] | None:
        return {"package_name": " ".join(words)} if verb in ("launch", "open") else None

    async def perform(self, args: LaunchApp, performer: Performer, controls: list[Control]) -> str:
        package = await performer.device.launch_app(args.package_name)
        return f"Opened {package}"

    def export_python(self, args: LaunchApp, writer: ScriptWriter) -> list[str]:
        return [f"d.app_start({args.package_name!r})"]
