"""The composition root: `Desk` puts settings, keys, phones, the virtual phone, runs and the task API together
once, for every face (window, CLI, serve, mcp, self-test)."""

from .desk import Desk, load_desk_settings, make_key_store, open_served_desk
from .preflight import Missing

__all__ = ["Desk", "Missing", "load_desk_settings", "make_key_store", "open_served_desk"]
