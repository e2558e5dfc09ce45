"""Feed URI parameters: ``%(feed_dir)s`` is the ``FEED_DIR`` setting, so ``-s FEED_DIR=...`` works;
``%(worker)s`` is host and process id, so workers sharing one volume never write the same file."""

from __future__ import annotations

import os
import socket
from typing import Any

from scrapy import Spider


def uri_params(params: dict[str, Any], spider: Spider) -> dict[str, Any]:
    return {**params, "feed_dir": spider.settings.get("FEED_DIR"), "worker": f"{socket.gethostname()}-{os.getpid()}"}
