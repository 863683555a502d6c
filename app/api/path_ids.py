"""Ids that go into a URL path: a task's or a phone's, never a way to another path.

A task id of `../devices` put into `/v1/tasks/{id}` by an f-string is `/v1/devices` once the
URL is normalised. The HTTP routes and the MCP tools refuse such ids with the same sentence.
"""

from __future__ import annotations

from urllib.parse import quote

MAX_ID_LENGTH = 300


def path_id_problem(value: str) -> str:
    """Why `value` cannot be an id in a URL path ("" when it can)."""
    if not value:
        return "is empty"
    if len(value) > MAX_ID_LENGTH:
        return f"is longer than {MAX_ID_LENGTH} characters"
    if "/" in value or "\\" in value:
        return "contains a slash, which no task or phone id has"
    if ".." in value:
        return "contains '..', which no task or phone id has"
    if any(ord(character) < 32 for character in value):
        return "contains a control character"
    return ""


def path_segment(name: str, value: str) -> str:
    """`value` quoted as one path segment; ValueError naming `name` when it is not an id."""
    problem = path_id_problem(value)
    if problem:
        raise ValueError(f"{name} {value[:80]!r} {problem}.")
    return quote(value, safe="")
