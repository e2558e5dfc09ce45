"""Passwords in URLs never reach a log line."""

import logging

from news_crawler.crawl.redact import RedactFilter
from news_crawler.printable import redact


def test_passwords_in_urls_are_masked_and_nothing_else_changes():
    text = "{'REDIS_URL': 'redis://:s3cret@10.0.0.1:6379/0', 'B': 'rediss://user:pw@h/1', 'C': 'unix:///a.sock'}"
    assert (
        redact(text) == "{'REDIS_URL': 'redis://:***@10.0.0.1:6379/0', 'B': 'rediss://user:***@h/1', "
        "'C': 'unix:///a.sock'}"
    )
    assert (
        redact("see https://example.com/a@b and http://x.example:8080/")
        == "see https://example.com/a@b and http://x.example:8080/"
    )


def test_the_filter_masks_messages_and_their_arguments(caplog):
    logger = logging.getLogger("test.redact")
    logger.addFilter(RedactFilter())
    with caplog.at_level(logging.INFO, logger="test.redact"):
        logger.info("Overridden settings:\n%(settings)s", {"settings": "{'REDIS_URL': 'redis://:pw1@h:1/0'}"})
        logger.info("connecting to %s", "redis://:pw2@h:1/0")
        logger.info("direct redis://u:pw3@h/0")
    assert "pw1" not in caplog.text and "pw2" not in caplog.text and "pw3" not in caplog.text
    assert caplog.text.count("***@h") == 3
