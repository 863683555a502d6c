"""`agentdesk run`'s `e` (edit) asks each argument in turn with its value shown; Enter keeps it."""

from __future__ import annotations

import io

import pytest

import app.console as console
from app.core.agent.actions import Action

pytestmark = pytest.mark.asyncio


def typing(monkeypatch, *lines):
    answers, prompts = list(lines), []

    async def read_line(prompt):
        prompts.append(prompt)
        return answers.pop(0) if answers else None
    monkeypatch.setattr(console, "read_line", read_line)
    return prompts


async def test_each_argument_is_asked_and_enter_keeps_it(monkeypatch):
    prompts = typing(monkeypatch, "Groceries", "", "no")
    action = Action(function="type_text", arguments={"text": "Grocries", "control_id": 4,
                                                    "clear_current_text": True}, status="CONTINUE")
    edited = await console.ConsoleSupervisor(io.StringIO())._edit(action)
    assert prompts == ["  text [Grocries]: ", "  control id [4]: ", "  clear current text [yes]: "]
    assert edited.arguments == {"text": "Groceries", "control_id": 4, "clear_current_text": False}


async def test_numbers_are_numbers_and_nonsense_is_refused_in_words(monkeypatch):
    typing(monkeypatch, "12", "")
    edited = await console.ConsoleSupervisor(io.StringIO())._edit(
        Action(function="click_control", arguments={"control_id": 3}, status="CONTINUE"))
    assert edited.arguments["control_id"] == 12
    out = io.StringIO()
    typing(monkeypatch, "twelve", "")
    assert await console.ConsoleSupervisor(out)._edit(
        Action(function="click_control", arguments={"control_id": 3}, status="CONTINUE")) is None
    assert "✗ not valid" in out.getvalue()
    typing(monkeypatch, "")
    assert await console.ConsoleSupervisor(io.StringIO())._edit(
        Action(function="wait", arguments={"seconds": 2}, status="CONTINUE")) is None      # nothing changed
