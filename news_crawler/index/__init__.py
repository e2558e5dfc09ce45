"""Where kept fingerprints live: four 16-bit block tables behind one small interface."""

from news_crawler.index.base import Decision, DropRecord, FingerprintStore, Match, check_max_distance
from news_crawler.index.memory import MemoryStore
from news_crawler.index.redis_store import RedisStore

__all__ = ["Decision", "DropRecord", "FingerprintStore", "Match", "MemoryStore", "RedisStore", "check_max_distance"]
