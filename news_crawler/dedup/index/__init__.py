"""Where kept fingerprints live: four 16-bit block tables and a sentence table behind one
small interface."""

from news_crawler.dedup.index.base import (
    SENTENCES,
    SIMHASH,
    Decision,
    Document,
    DropRecord,
    FingerprintStore,
    Match,
    SentenceRule,
    check_max_distance,
)
from news_crawler.dedup.index.memory import MemoryStore
from news_crawler.dedup.index.redis_store import RedisStore

__all__ = [
    "SENTENCES",
    "SIMHASH",
    "Decision",
    "Document",
    "DropRecord",
    "FingerprintStore",
    "Match",
    "MemoryStore",
    "RedisStore",
    "SentenceRule",
    "check_max_distance",
]
