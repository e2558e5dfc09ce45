"""The pure near-duplicate core: text in, 64-bit simhash out. No Scrapy, no Redis."""

from news_crawler.dedup.fingerprint.fingerprinter import Fingerprinter, UnusableText
from news_crawler.dedup.fingerprint.simhash64 import (
    BLOCKS,
    blocks,
    distance,
    fingerprint,
    from_hex,
    similarity,
    to_hex,
)

__all__ = [
    "BLOCKS",
    "Fingerprinter",
    "UnusableText",
    "blocks",
    "distance",
    "fingerprint",
    "from_hex",
    "similarity",
    "to_hex",
]
