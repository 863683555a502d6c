"""The uiautomator2 server's JSON-RPC layer and dump cut, without a phone: jsonrpc4j's rules."""

from __future__ import annotations

import json
from typing import Any

from app.virtual_phone.u2_jsonrpc import JavaException, JsonRpcService, Overload, to_boolean, to_int
from app.virtual_phone.u2_tree import cut_depth, device_info

from .conftest import new_phone


def service() -> JsonRpcService:
    def fail() -> None:
        raise JavaException("java.lang.IllegalStateException", "UiAutomation not connected!")

    return JsonRpcService({"echo": [Overload(1, lambda v: to_int(v)), Overload(2, lambda a, b: to_boolean(a) and b)],
                           "fail": [Overload(0, fail)]})


def call(body: object) -> Any:
    answer = service().handle(json.dumps(body).encode())
    return json.loads(answer) if answer else None


def test_overloads_are_chosen_by_parameter_count_and_values_converted_as_jackson_does():
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": ["42"]})["result"] == 42
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [1.9]})["result"] == 1
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [1, "x"]})["result"] == "x"
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [2**40]})["error"]["code"] == -32001
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo", "params": [True]})["error"]["code"] == -32001
    assert call({"jsonrpc": "2.0", "id": 3, "method": "echo"})["error"]["code"] == -32602


def test_notifications_get_no_answer_but_their_errors_do():
    assert call({"jsonrpc": "2.0", "method": "echo", "params": [1]}) is None
    failed = call({"jsonrpc": "2.0", "method": "fail"})
    assert failed["id"] is None and failed["error"]["message"] == "java.lang.IllegalStateException"
    assert "UiAutomation not connected!" in failed["error"]["data"]   # what uiautomator2's client looks for
    assert call({"jsonrpc": 2, "id": 1, "method": "nope"})["jsonrpc"] == "2"


def test_bad_bodies_end_in_parse_errors():
    for body in (b"\xff\xfe", b"", b"NaN", b"{\"a\": 1", b"[" * 100 + b"]" * 100):
        answer = json.loads(service().handle(body))
        assert answer == {"jsonrpc": "jsonrpc", "id": "null", "error": {"code": -32700, "message": "JSON parse error"}}


def test_the_dump_is_cut_at_max_depth():
    xml = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
           '<node text="a&lt;b&gt;"><node text="b"><node text="c" /></node><node text="d" /></node></hierarchy>')
    assert cut_depth(xml, 50) == xml
    assert cut_depth(xml, 2).endswith('<node text="a&lt;b&gt;"><node text="b" /><node text="d" /></node></hierarchy>')
    assert cut_depth(xml, 1).endswith('<node text="a&lt;b&gt;" /></hierarchy>')
    assert cut_depth(xml, 0).endswith('<hierarchy rotation="0" />')


def test_device_info_reads_the_display_as_ui_device_does():
    phone = new_phone(profile="android9")        # getSize(): the navigation bar left out
    info = device_info(phone)
    assert (info["displayWidth"], info["displayHeight"], info["sdkInt"]) == (720, 1184, 28)
    assert (info["displaySizeDpX"], info["displaySizeDpY"]) == (360, 592) and info["naturalOrientation"]
    phone.set_rotation(1)
    info = device_info(phone)
    assert (info["displayWidth"], info["displayRotation"], info["naturalOrientation"]) == (1184, 1, False)
    modern = device_info(new_phone())           # getRealSize(): the whole display
    assert (modern["displayWidth"], modern["displayHeight"]) == (1080, 2400)
