"""JSON serializer for scrapy-redis queues: requests never travel as pickle.

scrapy-redis pickles queued requests by default, so anyone who can write to Redis can run
code in every worker. ``Request.to_dict()`` is plain data except for bytes (body, header
names and values), which are written as ``{"__bytes__": "<base64>"}``. A request whose
``meta`` or ``cb_kwargs`` holds something JSON cannot carry fails loudly when it is queued.
"""

from __future__ import annotations

import base64
import json
from typing import Any


def _encode(obj: Any) -> Any:
    if isinstance(obj, bytes):
        return {"__bytes__": base64.b64encode(obj).decode("ascii")}
    if isinstance(obj, dict):
        return {k if isinstance(k, str) else k.decode("latin-1"): _encode(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    return obj


def _decode(obj: Any) -> Any:
    if isinstance(obj, dict):
        if obj.keys() == {"__bytes__"}:
            return base64.b64decode(obj["__bytes__"])
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def dumps(request_dict: dict) -> str:
    try:
        return json.dumps(_encode(request_dict), ensure_ascii=False, separators=(",", ":"))
    except TypeError as e:
        raise TypeError(
            f"cannot queue {request_dict.get('url')!r} in Redis as JSON: {e}; keep meta and cb_kwargs to "
            "strings, numbers, lists and dicts"
        ) from e


def loads(data: bytes | str) -> dict:
    return _decode(json.loads(data))
