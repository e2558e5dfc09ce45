"""Feed files of kept articles.

``uri_params``: ``%(feed_dir)s`` is the ``FEED_DIR`` setting, so ``-s FEED_DIR=...`` works;
``%(worker)s`` is host and process id, so workers sharing one volume never write the same
file. ``UnbufferedFileStorage``: each item's line reaches the file when the item is
scraped, before its URL is recorded as kept, so a crawl killed at any moment never has a
URL recorded as kept whose line is still in a buffer.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import IO, Any

from scrapy import Spider
from scrapy.extensions.feedexport import FileFeedStorage


def uri_params(params: dict[str, Any], spider: Spider) -> dict[str, Any]:
    return {**params, "feed_dir": spider.settings.get("FEED_DIR"), "worker": f"{socket.gethostname()}-{os.getpid()}"}


class UnbufferedFileStorage(FileFeedStorage):
    def open(self, spider: Spider) -> IO[bytes]:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        return Path(self.path).open(self.write_mode, buffering=0)
