"""Pictures that are shared keep private screens home: the report's step pictures are blurred for a
never-send app's screen and for typing into a password field; a map export leaves such screens' pictures
out (their cards go, redacted like everything else)."""

from __future__ import annotations

import base64
import io
import re
import zipfile

import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageStat

from app.core.agent.memory import ActionOutcome, Decision, MemoryItem, RunResult
from app.core.agent.report import write_report
from app.core.agent.trajectory import TrajectoryWriter
from app.core.learning.map_sharing import export_map
from app.core.learning.screen_cards import CardStore, ScreenCard
from app.core.learning.transitions import Transition, TransitionStore
from app.core.perception.locator import ControlSummary
from app.core.perception.protected_screen import never_send_reason

BANK = "com.example.bank"
DATA_URL = re.compile(r'href="data:image/jpeg;base64,([A-Za-z0-9+/=]+)"')
KIND = "pixel-7-android-14"


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))


def detailed_screen(seed: int) -> Image.Image:
    """A screen full of fine lines (text would look like this to an edge filter)."""
    picture = Image.new("RGB", (1080, 2400), "white")
    draw = ImageDraw.Draw(picture)
    for y in range(0, 2400, 12):
        draw.line((0, y + seed, 1080, y + seed), fill="black", width=2)
    return picture


def sharpness(image: Image.Image) -> float:
    edges = image.convert("L").filter(ImageFilter.FIND_EDGES)
    return ImageStat.Stat(edges.crop((2, 2, edges.width - 2, edges.height - 2))).mean[0]   # the rim is left as it was


def test_the_reports_pictures_of_private_steps_are_blurred():
    writer = TrajectoryWriter.create("Pay the bill", {"serial": "emulator-5554", "size": [1080, 2400]}, {}, {})
    field = ControlSummary(3, "Password", "EditText", flags=["password", "focused"])
    steps = [
        dict(thought="home", action={"function": "launch_app", "arguments": {"package_name": BANK}}),
        dict(thought="the bank", images_withheld=never_send_reason(BANK), foreground=BANK,
             action={"function": "press_key", "arguments": {"key_code": "BACK"}}),
        dict(thought="sign in", controls=[field],
             action={"function": "type_text", "arguments": {"control_id": 3, "text": "••••"}}),
    ]
    for number, fields in enumerate(steps, 1):
        clean, _ = writer.save_screens(number, detailed_screen(number), None)
        writer.append_step(MemoryItem(step=number, request="Pay the bill", decision=Decision("auto"),
                                      result=ActionOutcome(True, "done"), screenshot=clean, **fields))
    writer.finish(RunResult("success", 3, [], 1.0))
    page = write_report(writer.run_dir).read_text(encoding="utf-8")
    pictures = [Image.open(io.BytesIO(base64.b64decode(data))) for data in DATA_URL.findall(page)]
    assert len(pictures) == 3
    plain, bank, password = (sharpness(picture) for picture in pictures)
    assert bank < plain / 5 and password < plain / 5, "the never-send app's and the password's screens are blurred"


def test_a_map_export_leaves_out_the_pictures_of_never_send_apps_and_password_screens(tmp_path):
    root = tmp_path / "graph"
    cards = CardStore(root, KIND)
    screens = {"home": ("com.android.launcher3", []), "bank": (BANK, []),
               "login": ("com.example.mail", [ControlSummary(2, "Password", "EditText", flags=["password"])])}
    for screen, (app, controls) in screens.items():
        cards.write(ScreenCard(id=screen, app=app, controls=controls), detailed_screen(1))
    TransitionStore(root).append([Transition(from_screen="home", to_screen="bank", app="com.android.launcher3",
                                             phone_model="Pixel 7", android_version="14")])
    shared = export_map(KIND, tmp_path / "map.zip", root, never_send_apps=[BANK])
    with zipfile.ZipFile(shared) as archive:
        names = set(archive.namelist())
    card_names = {f"screens/{cards.card_path(screen).name}" for screen in screens}
    assert card_names <= names, "every card goes"
    pictures = {name for name in names if name.endswith(".png")}
    assert pictures == {f"screens/{cards.picture_path('home').name}"}
