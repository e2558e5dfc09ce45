"""JSON serializer for scrapy-redis queues: requests never travel as pickle.

scrapy-redis pickles queued requests by default, so anyone who can write to Redis can run
code in every worker. ``Request.to_dict()`` is plain data except for what Scrapy users
commonly put in ``meta`` and ``cb_kwargs``; those are tagged: bytes (body, headers)
``{"__bytes__": base64}``, ``{"__datetime__": iso}``, ``{"__date__": iso}``,
``{"__set__": [...]}``, ``{"__decimal__": "1.5"}``; tuples become lists. Callbacks travel
by name (``to_dict(spider=...)``). Anything else fails when queued, naming the key.
"""

from __future__ import annotations

import base64
import datetime as dt
import importlib
import json
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

_PLAIN = (str, int, float, bool, type(None))


def _encode(obj: Any, path: str) -> Any:
    if isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, bytes):
        return {"__bytes__": base64.b64encode(obj).decode("ascii")}
    if isinstance(obj, dict):
        return {
            (k if isinstance(k, str) else k.decode("latin-1") if isinstance(k, bytes) else _bad_key(k, path)): _encode(
                v, f"{path}[{k!r}]"
            )
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [_encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, (set, frozenset)):
        return {"__set__": [_encode(v, f"{path}{{...}}") for v in sorted(obj, key=repr)]}
    if isinstance(obj, dt.datetime):
        return {"__datetime__": obj.isoformat()}
    if isinstance(obj, dt.date):
        return {"__date__": obj.isoformat()}
    if isinstance(obj, Decimal):
        return {"__decimal__": str(obj)}
    raise TypeError(f"{path} is a {type(obj).__name__}, which a JSON queue cannot carry")


def _bad_key(key: Any, path: str) -> str:
    raise TypeError(f"{path} has a key of type {type(key).__name__}; JSON keys are strings")


_TAGS: dict[str, Callable[[Any], Any]] = {
    "__bytes__": base64.b64decode,
    "__datetime__": dt.datetime.fromisoformat,
    "__date__": dt.date.fromisoformat,
    "__decimal__": Decimal,
}


def _decode(obj: Any) -> Any:
    if isinstance(obj, dict):
        if len(obj) == 1:
            ((tag, value),) = obj.items()
            if tag in _TAGS:
                return _TAGS[tag](value)
            if tag == "__set__":
                return {_decode(v) for v in value}
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def dumps(request_dict: dict) -> str:
    try:
        return json.dumps(_encode(request_dict, "request"), ensure_ascii=False, separators=(",", ":"))
    except TypeError as e:
        raise TypeError(
            f"cannot queue {request_dict.get('url')!r} in Redis as JSON: {e}; keep meta and "
            "cb_kwargs to strings, numbers, lists, dicts, bytes, sets, dates and datetimes"
        ) from None


def loads(data: bytes | str) -> dict:
    return _decode(json.loads(data))


PICKLE_MODULES = {"pickle", "_pickle", "cPickle", "dill", "cloudpickle", "scrapy_redis.picklecompat"}


def load_serializer(name: Any, allow_pickle: bool) -> Any:
    """``SCHEDULER_SERIALIZER``: our JSON codec when unset; a module (or its dotted name)
    with ``loads``/``dumps``; pickle only with ``SCHEDULER_ALLOW_PICKLE`` (it runs code)."""
    if not name:
        return sys.modules[__name__]
    module = importlib.import_module(name) if isinstance(name, str) else name
    if getattr(module, "__name__", "") in PICKLE_MODULES and not allow_pickle:
        raise ValueError(
            f"SCHEDULER_SERIALIZER={module.__name__}: unpickling runs code, so anyone who can write "
            "to Redis could run it in every worker. Leave SCHEDULER_SERIALIZER unset (JSON), or set "
            "SCHEDULER_ALLOW_PICKLE=True if only trusted processes can write to this Redis"
        )
    if not (callable(getattr(module, "loads", None)) and callable(getattr(module, "dumps", None))):
        raise ValueError(f"SCHEDULER_SERIALIZER={name!r} has no loads() and dumps()")
    return module
