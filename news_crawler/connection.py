"""The one way to get a Redis client, for the scheduler, dupefilter, pipelines, seeds and CLIs.

Which server: ``REDIS_URL`` when set; else ``REDIS_HOST``/``REDIS_PORT`` when either is
set (scrapy-redis' settings); else the embedded server under ``EMBEDDED_REDIS_DIR``,
started on first use. ``REDIS_PARAMS`` (client keyword arguments) is merged over the
defaults; as in scrapy-redis, ``REDIS_PARAMS["redis_cls"]`` (a class or its dotted path)
picks the client class. A process asks once per server and shares that client (and its
connection pool) between all its components.
"""

from __future__ import annotations

import threading
from typing import Any

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.retry import Retry

from news_crawler import defaults
from news_crawler.embedded import ensure_server

_clients: dict[tuple[str, str], redis.Redis] = {}
_lock = threading.Lock()


def resolve_url(url: str = "", data_dir: str = defaults.EMBEDDED_REDIS_DIR,
                timeout: float = defaults.EMBEDDED_REDIS_START_TIMEOUT) -> str:
    """``url`` when given, otherwise the URL of the embedded server (started if needed)."""
    return url or ensure_server(data_dir, timeout)


def url_from_settings(settings: Any) -> str:
    """The Redis URL that Scrapy ``settings`` name (see the module docstring)."""
    url = settings.get("REDIS_URL") or ""
    host, port = settings.get("REDIS_HOST") or "", settings.getint("REDIS_PORT") or 0
    if not url and (host or port):
        url = f"redis://{host or 'localhost'}:{port or 6379}"
    return resolve_url(url, settings.get("EMBEDDED_REDIS_DIR") or defaults.EMBEDDED_REDIS_DIR,
                       settings.getfloat("EMBEDDED_REDIS_START_TIMEOUT", defaults.EMBEDDED_REDIS_START_TIMEOUT))


def params_from_settings(settings: Any) -> dict[str, Any]:
    """Client keyword arguments: the defaults with ``REDIS_PARAMS`` merged over them."""
    params = {**defaults.REDIS_PARAMS, **settings.getdict("REDIS_PARAMS")}
    if params.pop("decode_responses", False):
        raise ValueError("REDIS_PARAMS: decode_responses must stay off; fingerprints are stored as bytes")
    return params


def _retry() -> Retry:
    """A dropped connection (a failover, a restart) is retried briefly inside the call; a
    timeout is not (a stalled server would hold the caller once per try), and a longer
    outage is the caller's to wait out (see outage.py)."""
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), 2, (redis.ConnectionError, ConnectionError))


def _client_class(params: dict[str, Any]) -> Any:
    """``params`` without ``redis_cls``, and the client class it names (redis.Redis when unset)."""
    cls = params.pop("redis_cls", None) or redis.Redis
    if isinstance(cls, str):
        from scrapy.utils.misc import load_object

        cls = load_object(cls)
    return cls


def from_settings(settings: Any) -> redis.Redis:
    """The process's client for the Redis that ``settings`` name."""
    url, params = url_from_settings(settings), params_from_settings(settings)
    key = (url, repr(sorted(params.items(), key=lambda kv: kv[0])))
    with _lock:
        if key not in _clients:
            cls = _client_class(params)
            _clients[key] = cls.from_url(url, **{"retry": _retry(), **params})
        return _clients[key]


get_redis_from_settings = from_settings  # scrapy-redis' name for it


def probe_client(settings: Any) -> redis.Redis:
    """A client for the same server that answers within a second or fails: for probing
    an outage from the reactor thread."""
    params = {**params_from_settings(settings), "socket_timeout": 1, "socket_connect_timeout": 1}
    return _client_class(params).from_url(url_from_settings(settings), retry=Retry(NoBackoff(), 0), **params)


def get_redis(url: str = "", data_dir: str = defaults.EMBEDDED_REDIS_DIR, **kwargs: Any) -> redis.Redis:
    """A new client for ``url``, or for the embedded server under ``data_dir`` when ``url`` is
    empty, with exactly ``kwargs`` (``redis_cls`` picks the client class), as in scrapy-redis."""
    params = dict(kwargs)
    return _client_class(params).from_url(resolve_url(url, data_dir), **params)
