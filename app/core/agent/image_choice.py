"""Which pictures of the screen a step sends the model when `images.send` is "auto".

One annotated image (ids drawn on the controls) by default: it is what the model needs to pick a
control, and a second image roughly doubles the step's image tokens. The clean picture is sent too
when the annotation hides what matters:

- the model asked for it (`"clean_image": true` in its last reply);
- the last action changed nothing on the screen (the model may have misread what lay under a badge);
- much of the screen is web content (a WebView over a quarter of it: its page is often missing from
  the controls list, so the picture is all the model has of it, and boxes drawn over it hide it);
- the badges hide more than half the labelled controls, each with a fifth of its box or more under
  badges (`annotate.hidden_share`: small icons packed edge to edge; a badge in the corner of a wide
  row or a big key hides little of it);

and only the clean one when nothing can be numbered (no controls, or a screenshot-only step: the
annotated picture would be the same pixels).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.perception.controls import Control

COVERED_SHARE_FOR_CLEAN = 0.5
"""More than this share of the labelled controls hidden by badges: the clean image goes too."""
WEB_SHARE_FOR_CLEAN = 0.25
"""A WebView covering more than this share of the screen: the clean image goes too."""

ASKED = "the model asked for it"
UNCHANGED = "the last action changed nothing on the screen"
WEB = "much of the screen is web content"
NOTHING_NUMBERED = "no control could be numbered"


def covered_reason(share: float) -> str:
    return f"the badges hide {share:.0%} of the labelled controls"


def clean_reason_before_annotating(controls: Sequence[Control], screen_size: tuple[int, int], *,
                                   screen_only: bool, asked: bool, unchanged: bool) -> str:
    """Why the clean image goes with the annotated one, as far as is known before annotating ("" when
    nothing says so yet; `covered_reason` may still say so after)."""
    if screen_only or not controls:
        return NOTHING_NUMBERED
    if asked:
        return ASKED
    if unchanged:
        return UNCHANGED
    if web_share(controls, screen_size) > WEB_SHARE_FOR_CLEAN:
        return WEB
    return ""


def web_share(controls: Sequence[Control], screen_size: tuple[int, int]) -> float:
    """The largest share of the screen one WebView control covers (0 without one)."""
    area = max(1, screen_size[0] * screen_size[1])
    return max((control.width * control.height / area for control in controls
                if control.type.endswith("WebView")), default=0.0)


def kinds_for(send: str, clean_reason: str) -> tuple[str, ...]:
    """The kinds of image ("clean", "annotated") a step encodes for the model with `send`; for "auto",
    by `clean_reason` (only the clean one when nothing could be numbered)."""
    if send == "auto":
        if clean_reason == NOTHING_NUMBERED:
            return ("clean",)
        return ("clean", "annotated") if clean_reason else ("annotated",)
    return {"both": ("clean", "annotated"), "clean": ("clean",), "annotated": ("annotated",)}.get(send, ())
