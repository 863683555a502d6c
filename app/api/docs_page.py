"""The API's /docs page: every route and its words, from the OpenAPI document, in one HTML page.

FastAPI's own /docs loads Swagger UI's script and style from a public CDN: a blank page on a
machine without the internet, and third-party script on a page next to a bearer token. This
page has no script and nothing from another host; /openapi.json is the machine-readable form.
"""

from __future__ import annotations

import html
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete")
STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}"
         "code{background:#f2f2f2;padding:0 .2em}h2{margin-top:1.5em;border-bottom:1px solid #ccc}"
         ".route{margin:1em 0}.method{font-weight:bold;display:inline-block;min-width:4em}"
         "p.words{white-space:pre-line;margin:.3em 0 0 4.3em}")


def docs_html(document: dict[str, Any]) -> str:
    """The page for an OpenAPI `document` (its title, description, and routes by tag)."""
    info = document.get("info", {})
    title = html.escape(str(info.get("title", "API")))
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>{title} <small>{html.escape(str(info.get('version', '')))}</small></h1>",
             f"<p>{html.escape(str(info.get('description', '')))}</p>",
             "<p>Every route but <code>/v1/health</code> needs <code>Authorization: Bearer &lt;token&gt;</code> "
             "(the desk's window shows the token under <em>API token…</em> in its status bar; "
             "<code>agentdesk api token</code> prints it). "
             "The request and result schemas are in <a href='/openapi.json'>/openapi.json</a>; "
             "docs/api.md has examples.</p>"]
    for tag, routes in _routes_by_tag(document).items():
        parts.append(f"<h2>{html.escape(tag)}</h2>")
        for method, path, operation in routes:
            summary = html.escape(str(operation.get("summary", "")))
            words = html.escape(str(operation.get("description", "")))
            parts.append(f"<div class='route'><span class='method'>{method.upper()}</span> <code>"
                         f"{html.escape(path)}</code> {summary}<p class='words'>{words}</p></div>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _routes_by_tag(document: dict[str, Any]) -> dict[str, list[tuple[str, str, dict[str, Any]]]]:
    grouped: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is not None:
                tag = (operation.get("tags") or ["other"])[0]
                grouped.setdefault(tag, []).append((method, path, operation))
    return grouped
