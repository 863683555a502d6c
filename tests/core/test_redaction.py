"""Keys never reach the log file, whatever way they slip into a message."""

from __future__ import annotations

import io
import logging
import uuid
from logging.handlers import RotatingFileHandler

import pytest

from app.core.redaction import PARTIAL_MIN_LENGTH, RedactingFilter, redact, redact_data, setup_logging
from app.core.secrets import register_secret


@pytest.fixture
def secret() -> str:
    """A registered secret that matches no credential pattern: only the registry can catch it."""
    value = f"zq{uuid.uuid4().hex}"
    register_secret(value)
    return value


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def clean_root_logger():
    """Remove what setup_logging adds to the root logger, and restore its level."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


def test_a_registered_secret_is_replaced_wherever_it_appears(secret):
    assert redact(f"key={secret}; again:{secret}!") == "key=[redacted]; again:[redacted]!"


@pytest.mark.parametrize("text, expected", [
    ("Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer [redacted]"),
    ('{"Authorization": "Bearer abc.def-ghi"}', '{"Authorization": "Bearer [redacted]"}'),
    ("sent Bearer sk-live-0123456789abcdef", "sent Bearer [redacted]"),
    ("url?api_key=hello123&x=1", "url?api_key=[redacted]&x=1"),
    ('{"api-key": "hello123"}', '{"api-key": "[redacted]"}'),
    ("OPENAI_API_KEY=whatever", "OPENAI_API_KEY=[redacted]"),
    ("pasted sk-proj-AbCdEfGhIjKlMnOpQrSt into the box", "pasted [redacted] into the box"),
])
def test_credential_shaped_text_is_redacted(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "Bearer tokens are short-lived",
    "risk-assessment-of-the-quarterly-plan",
    "sk-short",
    "key_name: default",
    "Tap the Search button",
])
def test_ordinary_text_is_left_alone(text):
    assert redact(text) == text


def test_redact_data_walks_dicts_lists_and_tuples_without_changing_the_input(secret):
    data = {"prompt": f"Bearer {secret}", "nested": [{"reply": secret}, (secret, 3)], secret: None, "n": 1.5}
    result = redact_data(data)
    assert result == {"prompt": "Bearer [redacted]", "nested": [{"reply": "[redacted]"}, ("[redacted]", 3)],
                      "[redacted]": None, "n": 1.5}
    assert data["nested"][0]["reply"] == secret


def test_the_filter_keeps_the_key_out_of_a_real_log_file(tmp_path, secret):
    path = tmp_path / "app.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger(f"test.redaction.{uuid.uuid4().hex}")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.info("calling the model with key %s", secret)
        logger.debug(f"headers: Authorization: Bearer {secret}")
        logger.warning("settings %r", {"api_key": secret})
        try:
            raise RuntimeError(f"401 for key {secret}")
        except RuntimeError:
            logger.exception("request failed")
        logger.info("bad arguments %s %s", secret)   # logging would print the raw record on error
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = path.read_text(encoding="utf-8")
    assert secret not in text
    assert "calling the model with key [redacted]" in text
    assert "RuntimeError: 401 for key [redacted]" in text   # the traceback is kept, redacted
    assert "bad arguments" in text


def test_setup_logging_writes_a_redacted_rotating_log(home, clean_root_logger, secret):
    path = setup_logging()
    assert path == home / "logs" / "agentdesk.log"
    logging.getLogger("app.test").info("using %s", secret)
    handlers = [h for h in clean_root_logger.handlers if isinstance(h, RotatingFileHandler)]
    assert len(handlers) == 1
    assert (handlers[0].maxBytes, handlers[0].backupCount) == (1_000_000, 5)
    handlers[0].flush()
    text = path.read_text(encoding="utf-8")
    assert "using [redacted]" in text and secret not in text


def test_setup_logging_is_idempotent_and_verbose_turns_on_debug(home, clean_root_logger):
    first = setup_logging()
    count = len(clean_root_logger.handlers)
    assert setup_logging(verbose=True) == first
    assert len(clean_root_logger.handlers) == count
    logging.getLogger("app.test").debug("a debug line")
    for handler in clean_root_logger.handlers:
        handler.flush()
    assert "a debug line" in first.read_text(encoding="utf-8")
    setup_logging(verbose=False)
    logging.getLogger("app.test").debug("hidden debug line")
    assert "hidden debug line" not in first.read_text(encoding="utf-8")


def test_setup_logging_moves_to_a_new_log_folder(home, clean_root_logger, tmp_path, monkeypatch):
    setup_logging()
    monkeypatch.setenv("AGENTDESK_HOME", str(tmp_path / "elsewhere"))
    path = setup_logging()
    logging.getLogger("app.test").info("after the move")
    ours = [h for h in clean_root_logger.handlers if isinstance(h, RotatingFileHandler)]
    assert [h.baseFilename for h in ours] == [str(path)]
    ours[0].flush()
    assert "after the move" in path.read_text(encoding="utf-8")


def test_the_consoles_live_line_never_shows_the_start_of_a_key_still_streaming(secret):
    from app.console import ConsoleSupervisor

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    console = ConsoleSupervisor(out)
    console.model_words(1, f'{{"thought": "type {secret[:12]}')       # the rest of the key has not arrived yet
    console.model_words(1, f'{{"thought": "type {secret}", "action"')
    console.say(f"  action:  type_text {secret}")
    assert secret[:PARTIAL_MIN_LENGTH] not in out.getvalue() and "[redacted]" in out.getvalue()
