"""Every DEDUP_* setting reaches the engine it configures: a setting read and then dropped on
the way is an option a user sets in vain."""

from news_crawler.config import PlainSettings, build_settings
from news_crawler.dedup.from_settings import fingerprinter_from_settings, store_from_settings


def test_each_dedup_setting_reaches_the_fingerprinter(tmp_path):
    """Each given a value other than its default, so that one dropped on the way shows."""
    user_dict = tmp_path / "words.txt"
    user_dict.write_text("新冠肺炎 10 n\n", encoding="utf-8")
    stop_words = tmp_path / "stop.txt"
    stop_words.write_text("记者\n", encoding="utf-8")
    settings = PlainSettings(
        {
            "DEDUP_STOP_WORDS_PATH": str(stop_words),
            "DEDUP_TOPIC_WORDS": "股市,疫情",
            "DEDUP_TOPIC_WEIGHT": 2.5,
            "DEDUP_TOP_K": 40,
            "DEDUP_USE_TITLE": True,
            "DEDUP_STRIP_BOILERPLATE": False,
            "DEDUP_MAX_CHARS": 12345,
            "DEDUP_HMM": True,
            "DEDUP_POSITION_DECAY": 7.5,
            "DEDUP_MAX_WORD_SHARE": 0.25,
            "DEDUP_USER_DICT": str(user_dict),
            "DEDUP_SEGMENTER": "jieba",
            "DEDUP_SENTENCE_COUNT": 3,
            "DEDUP_SENTENCE_MIN_CHARS": 9,
        }
    )
    f = fingerprinter_from_settings(build_settings(dict(settings)))
    w = f.weigher
    assert set(w.stop_words) == {"记者"}
    assert w.topic_words == frozenset({"股市", "疫情"}) and w.topic_weight == 2.5 and w.top_k == 40
    assert (f.use_title, f.strip_boilerplate, f.max_chars, w.hmm) == (True, False, 12345, True)
    assert (w.position_decay, w.max_word_share) == (7.5, 0.25)
    assert w.segment.user_dict == str(user_dict) and w.segment.backend == "jieba" and w.segment.hmm is True
    assert (f.sentence_count, f.sentence_min_chars) == (3, 9)
    off = fingerprinter_from_settings(build_settings({"DEDUP_SENTENCES": False, "DEDUP_SENTENCE_COUNT": 3}))
    assert off.sentence_count == 0  # the second signal off: no sentence keys made


def test_each_dedup_setting_reaches_the_store(redis_client):
    settings = build_settings(
        {
            "DEDUP_NAMESPACE": "tuned",
            "DEDUP_MAX_DISTANCE": 2,
            "DEDUP_BATCH_SIZE": 17,
            "DEDUP_SENTENCE_MATCH": 2,
            "DEDUP_SENTENCE_MAX_DISTANCE": 30,
            "DEDUP_SENTENCE_LENGTH_RATIO": 0.5,
            "DEDUP_RETENTION_DAYS": 30,
            "DEDUP_GENERATION_DAYS": 3,
            "DEDUP_DROPS_MAX": 1000,
            "TIMEZONE": "Asia/Shanghai",
            "DEDUP_ORIGINAL": "first",
            "DEDUP_BLOCKS": "16,12,12,12,12",
            "DEDUP_ARCHIVE": True,
        }
    )
    store = store_from_settings(settings, redis_client)
    assert (store.namespace, store.max_distance, store.batch_size) == ("tuned", 2, 17)
    rule = store.sentence_rule
    assert rule is not None
    assert (rule.match, rule.max_distance, rule.length_ratio) == (2, 30, 0.5)
    assert store.retention_days == 30 and store.generations.seconds == 3 * 86_400
    assert store.drops_rotate == 500 and store.original == "first"
    assert str(store.zone) == "Asia/Shanghai" and store.layout.widths == (16, 12, 12, 12, 12)
    assert store.generations.archive_sealed is True
    plain = store_from_settings(build_settings({"DEDUP_SENTENCES": False}), redis_client)
    assert plain.sentence_rule is None
