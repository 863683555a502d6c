"""The model client stays on its server's origin: a redirect elsewhere is refused, not followed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx2

from app.core.key_origins import origin_of


class LeftOrigin(httpx2.TransportError):
    """The model server redirected to another origin: not followed (the key and the screens stay home)."""


def stay_on_origin(base_url: str) -> Callable[[httpx2.Request], Awaitable[None]]:
    """An httpx2 request hook that refuses any request (a redirect) to another origin than `base_url`'s:
    httpx2 would drop the Authorization header but still send the conversation, screenshots and all."""
    home = origin_of(base_url)

    async def check(request: httpx2.Request) -> None:
        there = origin_of(str(request.url))
        if there != home:
            raise LeftOrigin(f"the model server at {home} redirected to {there}, another origin; not followed, "
                             "so neither the key nor the screen went there", request=request)
    return check
