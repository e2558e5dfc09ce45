"""Build the near-duplicate engine (fingerprinter and store) from settings, in one place."""

from __future__ import annotations

from typing import Any

import redis

from news_crawler.config import as_list, zone
from news_crawler.dedup.fingerprint import Fingerprinter
from news_crawler.dedup.index import RedisStore, SentenceRule
from news_crawler.dedup.index.layout import Layout


def fingerprinter_from_settings(settings: Any) -> Fingerprinter:
    """A ``Fingerprinter`` configured by the ``DEDUP_*`` settings."""
    return Fingerprinter(
        idf_path=settings.get("DEDUP_IDF_PATH") or None,
        stop_words_path=settings.get("DEDUP_STOP_WORDS_PATH") or None,
        topic_words=as_list(settings.get("DEDUP_TOPIC_WORDS")),
        topic_weight=settings.getfloat("DEDUP_TOPIC_WEIGHT"),
        top_k=settings.getint("DEDUP_TOP_K") or None,
        use_title=settings.getbool("DEDUP_USE_TITLE"),
        strip_boilerplate=settings.getbool("DEDUP_STRIP_BOILERPLATE"),
        max_chars=settings.getint("DEDUP_MAX_CHARS"),
        hmm=settings.getbool("DEDUP_HMM"),
        position_decay=settings.getfloat("DEDUP_POSITION_DECAY"),
        max_word_share=settings.getfloat("DEDUP_MAX_WORD_SHARE"),
        user_dict=settings.get("DEDUP_USER_DICT") or None,
        segmenter=settings.get("DEDUP_SEGMENTER") or "auto",
        sentence_count=settings.getint("DEDUP_SENTENCE_COUNT") if settings.getbool("DEDUP_SENTENCES") else 0,
        sentence_min_chars=settings.getint("DEDUP_SENTENCE_MIN_CHARS"),
    )


def sentence_rule_from_settings(settings: Any) -> SentenceRule | None:
    """The second signal's rule, or None when ``DEDUP_SENTENCES`` is off."""
    if not settings.getbool("DEDUP_SENTENCES"):
        return None
    return SentenceRule(
        settings.getint("DEDUP_SENTENCE_MATCH"),
        settings.getint("DEDUP_SENTENCE_MAX_DISTANCE"),
        settings.getfloat("DEDUP_SENTENCE_LENGTH_RATIO"),
    )


def store_from_settings(settings: Any, client: redis.Redis, reader: bool = False) -> RedisStore:
    """The Redis index of ``DEDUP_NAMESPACE``, deciding within ``DEDUP_MAX_DISTANCE`` and by
    the sentence rule unless ``DEDUP_SENTENCES`` is off."""
    return RedisStore(
        client,
        namespace=settings.get("DEDUP_NAMESPACE"),
        max_distance=settings.getint("DEDUP_MAX_DISTANCE"),
        batch_size=settings.getint("DEDUP_BATCH_SIZE"),
        sentences=sentence_rule_from_settings(settings),
        retention_days=settings.getfloat("DEDUP_RETENTION_DAYS"),
        generation_days=settings.getfloat("DEDUP_GENERATION_DAYS"),
        drops_max=settings.getint("DEDUP_DROPS_MAX"),
        zone=zone(settings),
        original=settings.get("DEDUP_ORIGINAL"),
        blocks=layout_from_settings(settings).widths,
        reader=reader,
        archive_sealed=settings.getbool("DEDUP_ARCHIVE"),
    )


def layout_from_settings(settings: Any) -> Layout:
    """``DEDUP_BLOCKS`` at ``DEDUP_MAX_DISTANCE``; ``LayoutError`` (one line) when they do not fit."""
    blocks = settings.get("DEDUP_BLOCKS")
    return Layout.parse(blocks if isinstance(blocks, str) else list(blocks), settings.getint("DEDUP_MAX_DISTANCE"))


def check_index(settings: Any) -> None:
    """Stop with one line (``IndexFormatError``, ``ArchiveFormatError``) when ``DEDUP_NAMESPACE``
    holds an index or an archived generation of another format: before a crawl starts, not at
    its first article."""
    if settings.getbool("DEDUP_ENABLED"):
        from news_crawler import connection

        client = connection.from_settings(settings)
        try:
            generations = store_from_settings(settings, client).generations
            generations.check_format()
            generations.check_archives()
        finally:
            client.close()
