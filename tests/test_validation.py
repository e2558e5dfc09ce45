"""Settings checked before a command starts, and settings read from the environment."""

import pytest

from news_crawler.config import from_environment, plain_settings
from news_crawler.errors import UserError
from news_crawler.ops.preflight import check_values, environment_names, known_names, unknown_names


def test_the_environment_sets_any_setting_by_its_name_as_its_default_s_type():
    known = {
        "DAILY_SPIDERS": [],
        "DEDUP_MAX_DISTANCE": 3,
        "DEDUP_SENTENCES": True,
        "DEDUP_RETENTION_DAYS": 0.0,
        "REDIS_PARAMS": {},
        "REDIS_URL": "",
        "LIST_LINKS_MAX": 1000,
    }
    environ = {
        "DAILY_SPIDERS": "sina, 163",
        "DEDUP_MAX_DISTANCE": "2",
        "DEDUP_SENTENCES": "false",
        "DEDUP_RETENTION_DAYS": "7.5",
        "REDIS_PARAMS": '{"socket_timeout": 1}',
        "REDIS_URL": "",
        "LIST_LINKS_MAX": "",
        "PATH": "/bin",
    }
    assert from_environment(known, environ) == {
        "DAILY_SPIDERS": ["sina", "163"],
        "DEDUP_MAX_DISTANCE": 2,
        "DEDUP_SENTENCES": False,
        "DEDUP_RETENTION_DAYS": 7.5,
        "REDIS_PARAMS": {"socket_timeout": 1},
        "REDIS_URL": "",
    }  # empty: unset
    assert from_environment(known, {"DEDUP_MAX_DISTANCE": "two"}) == {"DEDUP_MAX_DISTANCE": "two"}  # for the check


def test_plain_settings_read_the_environment_too(monkeypatch):
    monkeypatch.setenv("DEDUP_MAX_DISTANCE", "1")
    monkeypatch.setenv("SITES_FILE", "/x.toml,/y.toml")
    import importlib

    import news_crawler.settings

    importlib.reload(news_crawler.settings)
    try:
        settings = plain_settings()
        assert settings.getint("DEDUP_MAX_DISTANCE") == 1 and settings["SITES_FILE"] == "/x.toml,/y.toml"
    finally:
        monkeypatch.undo()
        importlib.reload(news_crawler.settings)


@pytest.mark.parametrize(
    "name,value,message",
    [
        (
            "DEDUP_MAX_DISTANCE",
            9,
            "setting DEDUP_MAX_DISTANCE=9: must be from 0 to 3, fewer than the 4 blocks of DEDUP_BLOCKS=16,16,16,16 "
            "(more blocks reach further: --blocks 16,12,12,12,12 or DEDUP_BLOCKS=16,12,12,12,12 reaches 4)",
        ),
        (
            "DEDUP_BLOCKS",
            "16,16,16",
            "setting DEDUP_BLOCKS='16,16,16': the blocks add up to 48 bits, not the fingerprint's 64",
        ),
        ("DEDUP_MAX_DISTANCE", "two", "setting DEDUP_MAX_DISTANCE='two': expected a whole number"),
        ("LIST_STOP_AT_SEEN", "maybe", "setting LIST_STOP_AT_SEEN='maybe': expected true or false"),
        ("LIST_LINKS_MAX", -1, "setting LIST_LINKS_MAX=-1: must be 0 or more"),
        ("REDIS_CLUSTER", "perhaps", "setting REDIS_CLUSTER='perhaps': must be one of auto, yes, no"),
        ("DEDUP_SENTENCE_LENGTH_RATIO", "1.5", "setting DEDUP_SENTENCE_LENGTH_RATIO='1.5': must be from 0 to 1"),
        ("OUTCOME_RETRY_RUNS", 0, "setting OUTCOME_RETRY_RUNS=0: must be from 1 to 1000"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_setting_the_value_and_what_is_allowed(name, value, message):
    with pytest.raises(UserError) as e:
        check_values(plain_settings({name: value}))
    assert str(e.value) == message


def test_the_project_s_own_settings_hold_every_checked_setting_and_pass():
    from news_crawler.ops.preflight import checked_defaults

    settings = plain_settings()
    missing = [
        name for name in checked_defaults() if settings.get(name) is None and checked_defaults()[name] is not None
    ]
    assert not missing and len(checked_defaults()) > 50
    assert check_values(settings) is None  # a bad value would be a UserError (the test above)


def test_an_unknown_name_is_warned_of_with_the_closest_known_one():
    known = known_names()
    assert {"DEDUP_MAX_DISTANCE", "LIST_LINKS_MAX", "CONCURRENT_REQUESTS", "SITES_FILE"} <= known
    assert unknown_names(["DEDUP_MAX_DISTNCE", "CONCURRENT_REQUESTS", "ZZZ"], known) == [
        "warning: DEDUP_MAX_DISTNCE is not a setting of Scrapy or of this project, it has no effect; "
        "did you mean DEDUP_MAX_DISTANCE?",
        "warning: ZZZ is not a setting of Scrapy or of this project, it has no effect",
    ]
    assert environment_names({"LIST_PAGE_LIMT": "1", "PATH": "/bin", "REDISCLI_AUTH": "x"}) == ["LIST_PAGE_LIMT"]
