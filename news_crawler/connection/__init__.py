"""The one way to get a Redis client, for the scheduler, dupefilter, pipelines, seeds and CLIs.

Which server: ``REDIS_URL`` when set; else ``REDIS_HOST``/``REDIS_PORT`` when either is
set (scrapy-redis' settings); else the embedded server under ``EMBEDDED_REDIS_DIR``,
started on first use. ``REDIS_PARAMS`` (client keyword arguments) is merged over the
defaults; as in scrapy-redis, ``REDIS_PARAMS["redis_cls"]`` (a class or its dotted path)
picks the client class. Each call makes a new client: a crawler's components share the one
its ``runtime.Runtime`` holds, a command line tool makes one per command.

Redis Cluster: when the server named answers ``INFO cluster`` with ``cluster_enabled:1``
(``REDIS_CLUSTER = "auto"``, the default; ``"yes"`` and ``"no"`` skip the question), the
client is redis-py's ``RedisCluster``, started from that node: it finds the others. Keys
that one script or transaction uses together then need one hash slot: ``spider_key``
puts the spider's name in braces (``{news}:requests``) and the index namespace is tagged
the same way (``index/redis_store.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from news_crawler import defaults
from news_crawler.config import data_path, setting_path
from news_crawler.connection.embedded import ensure_server


def resolve_url(
    url: str = "", data_dir: str | Path = "", timeout: float = defaults.EMBEDDED_REDIS_START_TIMEOUT
) -> str:
    """``url`` when given, otherwise the URL of the embedded server under ``data_dir``
    (default: ``EMBEDDED_REDIS_DIR`` under ``DATA_DIR``), started if needed."""
    return url or ensure_server(data_dir or data_path(defaults.EMBEDDED_REDIS_DIR), timeout)


def url_from_settings(settings: Any) -> str:
    """The Redis URL that Scrapy ``settings`` name (see the module docstring)."""
    return resolve_url(
        url_named(settings),
        setting_path(settings, "EMBEDDED_REDIS_DIR"),
        settings.getfloat("EMBEDDED_REDIS_START_TIMEOUT", defaults.EMBEDDED_REDIS_START_TIMEOUT),
    )


def params_from_settings(settings: Any) -> dict[str, Any]:
    """Client keyword arguments: the defaults with ``REDIS_PARAMS`` merged over them."""
    params = {**defaults.REDIS_PARAMS, **settings.getdict("REDIS_PARAMS")}
    if params.pop("decode_responses", False):
        raise ValueError("REDIS_PARAMS: decode_responses must stay off; fingerprints are stored as bytes")
    return params


def _retry() -> Retry:
    """A dropped connection (a failover, a restart) is retried briefly inside the call; a
    timeout is not (a stalled server would hold the caller once per try), and a longer
    outage is the caller's to wait out (see connection/outage.py)."""
    return Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), 2, (redis.ConnectionError, ConnectionError))


def _client_class(params: dict[str, Any]) -> Any:
    """``params`` without ``redis_cls``, and the client class it names (redis.Redis when unset)."""
    cls = params.pop("redis_cls", None) or redis.Redis
    if isinstance(cls, str):
        from scrapy.utils.misc import load_object

        cls = load_object(cls)
    return cls


def is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


def cluster_enabled(url: str, params: dict[str, Any]) -> bool:
    """Whether the server at ``url`` is a node of a Redis Cluster (``INFO cluster``). A server
    that does not answer is taken as a plain one: a client connects on first use, as
    scrapy-redis' does, and the first use says what is wrong (``REDIS_CLUSTER=yes`` when a
    cluster may be down as workers start)."""
    probe = redis.Redis.from_url(url, **{k: v for k, v in params.items() if k != "redis_cls"})
    try:
        return bool(probe.info("cluster").get("cluster_enabled"))
    except (redis.ConnectionError, redis.TimeoutError):
        return False
    finally:
        probe.close()


def _wants_cluster(settings: Any, url: str, params: dict[str, Any]) -> bool:
    mode = str(settings.get("REDIS_CLUSTER", defaults.REDIS_CLUSTER) or "auto").lower()
    if mode not in ("auto", "yes", "no"):
        raise ValueError(f"REDIS_CLUSTER must be auto, yes or no, got {mode!r}")
    if mode != "auto" or "redis_cls" in params:  # a client class named by the user is used as it is
        return mode == "yes"
    return cluster_enabled(url, params)


def from_settings(settings: Any) -> Any:
    """A client for the Redis that ``settings`` name: a ``RedisCluster`` when that server is
    a cluster node, else a ``redis.Redis`` (or ``REDIS_PARAMS["redis_cls"]``)."""
    url, params = url_from_settings(settings), params_from_settings(settings)
    if _wants_cluster(settings, url, params):
        params.pop("redis_cls", None)
        return RedisCluster.from_url(url, **{"retry": _retry(), **params})
    return _client_class(params).from_url(url, **{"retry": _retry(), **params})


def spider_key(template: str, spider: str, client: Any, **names: Any) -> str:
    """``template % {"spider": spider, ...}``; on a cluster the spider's name is a hash tag
    (``{news}:requests``), so all of one spider's keys share a slot, as the scripts that
    move a request between them need."""
    return template % {"spider": f"{{{spider}}}" if is_cluster(client) else spider, **names}


get_redis_from_settings = from_settings  # scrapy-redis' name for it


def probe_client(settings: Any, client: Any) -> redis.Redis:
    """A client for the same server as ``client`` (the node named, on a cluster) that
    answers within a second or fails: for probing an outage from the reactor thread."""
    params = {**params_from_settings(settings), "socket_timeout": 1, "socket_connect_timeout": 1}
    if is_cluster(client):
        params.pop("redis_cls", None)
        return redis.Redis.from_url(url_from_settings(settings), retry=Retry(NoBackoff(), 0), **params)
    return _client_class(params).from_url(url_from_settings(settings), retry=Retry(NoBackoff(), 0), **params)


def get_redis(url: str = "", data_dir: str | Path = "", **kwargs: Any) -> redis.Redis:
    """A new client for ``url``, or for the embedded server under ``data_dir`` when ``url`` is
    empty, with exactly ``kwargs`` (``redis_cls`` picks the client class), as in scrapy-redis."""
    params = dict(kwargs)
    return _client_class(params).from_url(resolve_url(url, data_dir), **params)


def check_reachable(settings: Any) -> None:
    """``RedisUnavailable`` (one line, with the URL, password masked) unless the Redis that
    ``settings`` name answers: asked once, before a command starts its work, so a wrong
    URL or password is a clear line in seconds (at most ``socket_connect_timeout`` and two
    retries), not a traceback from deep inside a crawl."""
    from news_crawler.connection.embedded import EmbeddedServerError
    from news_crawler.errors import redis_problem

    named = settings.get("REDIS_URL") or ""
    try:
        client = from_settings(settings)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, EmbeddedServerError, OSError) as e:
        raise redis_problem(e, named or url_named(settings)) from None


def url_named(settings: Any) -> str:
    """The URL the settings name, without starting the embedded server ("" for it)."""
    url = settings.get("REDIS_URL") or ""
    host, port = settings.get("REDIS_HOST") or "", settings.getint("REDIS_PORT") or 0
    return url or (f"redis://{host or 'localhost'}:{port or 6379}" if host or port else "")
