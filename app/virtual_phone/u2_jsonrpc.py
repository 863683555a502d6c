"""JSON-RPC 2.0 as uiautomator2's on-phone server answers it (jsonrpc4j 1.5 + Jackson, Stub.java).

What is copied (briandilley/jsonrpc4j 1.5.0 JsonRpcBasicServer and ErrorResolver; the server's Stub.java
in openatx/android-uiautomator-server sets the error resolver):
- a body that is not JSON: `{"jsonrpc":"jsonrpc","id":"null","error":{"code":-32700,"message":"JSON parse
  error"}}` — jsonrpc4j passes its constants JSONRPC ("jsonrpc") and NULL ("null") there, so both fields
  hold those strings;
- a value that is neither an object nor an array, or an object without "jsonrpc" and "method": -32600
  "invalid request" with id "null"; an array is a batch, answered `[…]` in order;
- an unknown method (or no method): -32601 "method not found"; no overload taking that many parameters
  (params missing or null mean none; an object names parameters, which the server's interface does not
  declare, so only `{}` fits a method without parameters): -32602 "method parameters invalid";
- a request without "id" (or with a null id) is a notification: run, and nothing is written unless
  it failed (jsonrpc4j writes every error);
- a method that throws — including Jackson failing to turn a parameter into the Java type — answers
  code -32001, message the exception's class name, data its stack trace (Stub's ErrorResolver);
- the id comes back as it came (number or string).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = (-32700, "JSON parse error")
INVALID_REQUEST = (-32600, "invalid request")
METHOD_NOT_FOUND = (-32601, "method not found")
METHOD_PARAMS_INVALID = (-32602, "method parameters invalid")
CUSTOM_ERROR_CODE = -32001        # Stub.java: every exception a method throws
MAX_BATCH = 256                   # a batch longer than this is refused as one invalid request
MAX_NESTING = 64                  # JSON deeper than this is a parse error (bounded recursion)


class JavaException(Exception):
    """An exception as the Java side would throw it: its class name and its message."""

    def __init__(self, class_name: str, message: str = ""):
        super().__init__(message)
        self.class_name, self.message = class_name, message

    def stack_trace(self, method: str) -> str:
        head = f"{self.class_name}: {self.message}" if self.message else self.class_name
        return (f"{head}\n\tat com.wetest.uia2.stub.AutomatorServiceImpl.{method}(AutomatorServiceImpl.java)\n"
                "\tat java.lang.reflect.Method.invoke(Native Method)\n"
                "\tat com.googlecode.jsonrpc4j.JsonRpcBasicServer.invoke(JsonRpcBasicServer.java:467)\n"
                "\tat com.googlecode.jsonrpc4j.JsonRpcBasicServer.handleObject(JsonRpcBasicServer.java:352)\n"
                "\tat com.wetest.uia2.stub.AutomatorHttpServer.serve(AutomatorHttpServer.java)\n")


# ---------------------------------------------------------------------- Jackson's conversions
def to_boolean(value: Any) -> bool:
    """Jackson 2.x reading a JSON value as Java `boolean`."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str) and value.strip() in ("true", "false"):
        return value.strip() == "true"
    raise _mismatch("boolean", value)


def to_int(value: Any) -> int:
    """Jackson 2.x reading a JSON value as Java `int` (floats are truncated, numeric strings parsed)."""
    if isinstance(value, bool):
        raise _mismatch("int", value)
    if value is None:
        return 0
    if isinstance(value, int | float):
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            raise JavaException("com.fasterxml.jackson.databind.exc.InvalidFormatException",
                                f"Can not construct instance of int from String value '{value[:200]}': "
                                "not a valid Integer value") from None
    else:
        raise _mismatch("int", value)
    if not -2**31 <= number < 2**31:
        raise JavaException("com.fasterxml.jackson.core.JsonParseException",
                            f"Numeric value ({number}) out of range of int")
    return number


def to_long(value: Any) -> int:
    if isinstance(value, dict | list | bool):
        raise _mismatch("long", value)
    if value is None:
        return 0
    try:
        number = int(value.strip()) if isinstance(value, str) else int(value)
    except (ValueError, OverflowError):
        raise _mismatch("long", value) from None
    if not -2**63 <= number < 2**63:
        raise JavaException("com.fasterxml.jackson.core.JsonParseException",
                            f"Numeric value ({number}) out of range of long")
    return number


def _mismatch(java_type: str, value: Any) -> JavaException:
    token = {dict: "START_OBJECT", list: "START_ARRAY", str: "VALUE_STRING", bool: "VALUE_TRUE"}.get(
        type(value), "VALUE_NUMBER_FLOAT")
    return JavaException("com.fasterxml.jackson.databind.JsonMappingException",
                         f"Can not deserialize instance of {java_type} out of {token} token")


# ---------------------------------------------------------------------- dispatch
Handler = Callable[..., Any]


@dataclass(frozen=True)
class Overload:
    """One Java method: how many parameters it takes and how to call it (converting each)."""

    arity: int
    call: Handler


class JsonRpcService:
    """Methods by name, each with its overloads by parameter count (as the Java interface declares)."""

    def __init__(self, methods: dict[str, list[Overload]]):
        self.methods = methods

    def handle(self, body: bytes) -> bytes:
        """The response body for one HTTP request body (b"" for notifications only)."""
        try:
            node = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
            _check_depth(node)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return _dumps({"jsonrpc": "jsonrpc", "id": "null",
                           "error": {"code": PARSE_ERROR[0], "message": PARSE_ERROR[1]}})
        if isinstance(node, list):
            if len(node) > MAX_BATCH:
                return _dumps(_error("2.0", "null", INVALID_REQUEST))
            parts = [self._one(item) for item in node]
            return b"[" + b",".join(part for part in parts if part is not None) + b"]"
        return self._one(node) or b""

    def _one(self, node: Any) -> bytes | None:
        if not isinstance(node, dict) or "jsonrpc" not in node or "method" not in node:
            return _dumps(_error("2.0", "null", INVALID_REQUEST))
        request_id = node.get("id")
        version = _as_text(node["jsonrpc"])
        name = node["method"]
        if name is None or not isinstance(name, str) or name not in self.methods:
            return _dumps(_error(version, request_id, METHOD_NOT_FOUND))
        params = node.get("params")
        if params is None or params == {}:
            args: list[Any] = []
        elif isinstance(params, list):
            args = params
        else:   # named parameters: the interface names none, so nothing fits; a scalar is not params
            return _dumps(_error(version, request_id, METHOD_PARAMS_INVALID))
        overload = next((o for o in self.methods[name] if o.arity == len(args)), None)
        if overload is None:
            return _dumps(_error(version, request_id, METHOD_PARAMS_INVALID))
        try:
            result = overload.call(*args)
        except JavaException as error:   # written even for a notification, as jsonrpc4j's handleError does
            return _dumps({"jsonrpc": version, "id": request_id,
                           "error": {"code": CUSTOM_ERROR_CODE, "message": error.class_name,
                                     "data": error.stack_trace(name)}})
        if request_id is None:
            return None
        return _dumps({"jsonrpc": version, "id": request_id, "result": result})


def _as_text(value: Any) -> str:
    """Jackson's JsonNode.asText() of the "jsonrpc" member; "2.0" when it is null."""
    if value is None:
        return "2.0"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return ""


def _error(version: str, request_id: Any, error: tuple[int, str]) -> dict[str, Any]:
    return {"jsonrpc": version, "id": request_id, "error": {"code": error[0], "message": error[1]}}


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _no_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")   # NaN / Infinity are not JSON to Jackson either


def _check_depth(node: Any) -> None:
    stack: list[tuple[Any, int]] = [(node, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ValueError("nested too deeply")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
