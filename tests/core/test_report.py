"""report.html: one self-contained, escaped page that shows every step of a run."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image

from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.records import ModelReplyRecord
from app.core.agent.report import REPORT_TEXT_LIMIT, write_report
from app.core.agent.run_words import thought_and_comment
from app.core.agent.trajectory import TrajectoryWriter

REQUEST = "Send <b>hello</b> to Ann"
DATA_URL = re.compile(r'href="data:image/jpeg;base64,([A-Za-z0-9+/=]+)"')


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))


def new_writer() -> TrajectoryWriter:
    return TrajectoryWriter.create(REQUEST, {"serial": "emulator-5554", "size": [1080, 2400]},
                                   {"name": "gpt-4o"}, {"agent": {"mode": "step"}})


def screen(colour: str) -> Image.Image:
    return Image.new("RGB", (1080, 2400), colour)


def three_step_run(finish: bool = True) -> TrajectoryWriter:
    writer = new_writer()
    clean, annotated = writer.save_screens(1, screen("white"), screen("blue"))
    writer.append_step(MemoryItem(
        step=1, request=REQUEST, thought="I see <script>alert('x')</script> and <img src=x onerror=alert(1)>",
        action={"function": "click_control", "arguments": {"control_id": 4, "control_name": "Messages"}},
        action_text='click control 4 "Messages"', decision=Decision("approve"),
        result=ActionOutcome(True, "tapped", 120.0), reflection={"verdict": "success", "confidence": 0.9},
        screenshot=clean, annotated_screenshot=annotated, timings_ms={"llm_interaction": 2310.0},
        tokens={"prompt": 1500, "completion": 80}, cost_usd=0.0045))
    clean, _ = writer.save_screens(2, screen("red"), None)
    writer.append_step(MemoryItem(
        step=2, request=REQUEST, thought="Press back.",
        proposed_action={"function": "press_key", "arguments": {"key_code": "BACK"}},
        action={"function": "click_control", "arguments": {"control_id": 9, "control_name": "Ann"}},
        action_text='click control 9 "Ann"', decision=Decision("override"),
        result=ActionOutcome(False, "control 9 is gone"), screenshot=clean, screen_only=True))
    writer.append_step(MemoryItem(
        step=3, request=REQUEST, thought="Type the message.", decision=Decision("reject", feedback="Ask me first"),
        error="the model replied twice with invalid JSON"))
    if finish:
        writer.finish(RunResult("failed", 3, ['click control 4 "Messages"'], 75.0, error="too many failures",
                                completion_reason="three failures in a row", tokens={"prompt": 1500, "completion": 80},
                                cost_usd=0.0045))
    return writer


def step_sections(page: str) -> list[str]:
    return page.split('<section class="card step"')[1:]


def test_every_step_is_in_the_report_with_what_happened():
    page = write_report(three_step_run().run_dir).read_text(encoding="utf-8")
    steps = step_sections(page)
    assert len(steps) == 3
    for number, section in enumerate(steps, 1):
        assert f"Step {number}" in section
    assert "click control 4 &quot;Messages&quot;" in steps[0] and "approved" in steps[0] and "2.3 s" in steps[0]
    assert "press_key(key_code=&quot;BACK&quot;)" in steps[1] and "Executed instead" in steps[1]
    assert "replaced by the person" in steps[1] and "failed: control 9 is gone" in steps[1]
    assert "screenshot only" in steps[1]
    assert "rejected" in steps[2] and "Ask me first" in steps[2] and "invalid JSON" in steps[2]
    assert "No screenshot was saved" in steps[2]
    header = page.split('<section class="card step"')[0]
    for fact in ("failed", "too many failures", "three failures in a row", "1 min 15 s", "$0.0045", "emulator-5554"):
        assert fact in header


def test_run_text_is_escaped():
    page = write_report(three_step_run().run_dir).read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img src=x" not in page and "<b>hello" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "Send &lt;b&gt;hello&lt;/b&gt; to Ann" in page


def test_the_page_is_self_contained_with_small_embedded_images():
    page = write_report(three_step_run().run_dir).read_text(encoding="utf-8")
    images = DATA_URL.findall(page)
    assert len(images) == 2                      # step 3 has no screenshot; each picture is embedded once
    assert len(re.findall(r'<image\b', page)) == 2
    for forbidden in ('src="http', "<link", "url(", "@import", "<script src", "//cdn", "<iframe"):
        assert forbidden not in page
    # every reference stays inside the page: a picture's data, or a picture defined in it (the zoom is inline script)
    assert all(ref.startswith(("#pic-", "data:image/jpeg;base64,")) for ref in re.findall(r'href="([^"]*)"', page))
    colours = []
    for data in images:
        with Image.open(io.BytesIO(base64.b64decode(data))) as image:
            assert image.format == "JPEG" and max(image.size) == 720
            colours.append(image.convert("RGB").getpixel((10, 10)))
    assert colours[0][2] > 200 and colours[0][0] < 50      # step 1 shows the annotated (blue) screen
    assert colours[1][0] > 200 and colours[1][2] < 50      # step 2 falls back to the clean (red) one


def test_a_run_without_steps_still_has_a_report():
    writer = new_writer()
    writer.finish(RunResult("stopped", 0, [], 0.5, completion_reason="stopped before the first step"))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    assert step_sections(page) == []
    assert "No steps were recorded" in page and "stopped before the first step" in page


def test_a_run_that_crashed_says_it_did_not_finish():
    writer = three_step_run(finish=False)
    with (writer.run_dir / "steps.jsonl").open("ab") as handle:
        handle.write(b'{"step": 4, "thou')
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    assert "did not finish" in page
    assert len(step_sections(page)) == 3
    assert "incomplete" in page                  # the skipped half-written step is mentioned


def test_the_report_replaces_an_older_one():
    writer = three_step_run()
    path = write_report(writer.run_dir)
    path.write_text("stale", encoding="utf-8")
    assert write_report(writer.run_dir) == path and path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_each_model_reply_of_a_step_is_listed_with_why_it_failed_and_huge_texts_are_cut():
    writer = new_writer()
    huge = "x" * (REPORT_TEXT_LIMIT * 50)
    writer.append_step(MemoryItem(step=1, request=REQUEST, raw_reply=huge, error="no usable action", model_replies=[
        ModelReplyRecord(attempt=1, outcome="cut_off", problem="the reply was cut off at 256 tokens",
                         raw_text=huge, prompt_tokens=100, completion_tokens=256, max_output_tokens=256,
                         finish_reason="length", http_status=200, duration_ms=900.0),
        ModelReplyRecord(attempt=2, outcome="invalid", problem="Your reply had no JSON object <b>", raw_text="hi",
                         http_status=200),
        ModelReplyRecord(attempt=3, outcome="error", problem="The model server failed (HTTP 500: boom)")]))
    writer.finish(RunResult("failed", 1, [], 1.0))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    [card] = step_sections(page)
    assert "3 model replies, 3 not used" in card
    assert "cut off</b> — <span class=\"text\">the reply was cut off at 256 tokens" in card
    assert "finish: length" in card and "budget 256" in card and "no HTTP answer" in card
    assert "no JSON object &lt;b&gt;" in card
    assert len(page) < 3 * REPORT_TEXT_LIMIT + 20000           # neither copy of the huge text is dumped whole
    assert f"{len(huge) - REPORT_TEXT_LIMIT:,} more characters" in card


def test_an_older_step_without_model_replies_has_no_replies_row():
    page = write_report(three_step_run().run_dir).read_text(encoding="utf-8")
    assert "Model replies" not in page


def test_the_time_is_split_into_the_agents_and_the_persons():
    writer = new_writer()
    writer.finish(RunResult("success", 0, [], 95.0, agent_seconds=20.0, waiting_seconds=75.0))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    assert "1 min 35 s (the agent 20 s, waiting for you 1 min 15 s)" in page


@pytest.mark.parametrize("thought, comment, shown", [
    ("Opening Settings.", "opening  settings", [("Thought", "Opening Settings.")]),
    ("Open Settings, then Wi-Fi", "Open Settings", [("Thought", "Open Settings, then Wi-Fi")]),
    ("Open Settings", "Open Settings, then Wi-Fi.", [("Comment", "Open Settings, then Wi-Fi.")]),
    ("Wi-Fi is under Network", "Opening Settings", [("Thought", "Wi-Fi is under Network"),
                                                     ("Comment", "Opening Settings")]),
    ("", "Opening Settings", [("Comment", "Opening Settings")]),
    ("  ", "", []),
])
def test_thought_and_comment_are_each_said_once(thought, comment, shown):
    assert thought_and_comment(thought, comment) == shown


def test_the_report_shows_a_thought_the_comment_repeats_once():
    writer = new_writer()
    writer.append_step(MemoryItem(step=1, request=REQUEST, thought="Opening Settings to find Wi-Fi.",
                                  comment="Opening Settings to find Wi-Fi", decision=Decision("approve")))
    writer.finish(RunResult("success", 1, [], 1.0))
    (section,) = step_sections(write_report(writer.run_dir).read_text(encoding="utf-8"))
    assert section.count("Opening Settings to find Wi-Fi") == 1
    assert '<span class="label">Comment</span>' not in section and '<span class="label">Thought</span>' in section
