"""The IDF table: jieba's semantics, looked up a batch at a time, and its cache."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from news_crawler.dedup.fingerprint.idf import IdfTable, _cache_file, load_idf, parse_idf


@pytest.fixture
def idf_file(tmp_path):
    path = tmp_path / "idf.txt"
    # a repeated word keeps its last value, as jieba.analyse reads the file
    path.write_text("香港 9.5\n逝世 1.0\n武侠小说 7.25\n香港 8.0\n中华人民共和国国务院 3.5\n", encoding="utf-8")
    load_idf.cache_clear()
    yield path
    load_idf.cache_clear()


def test_lookup_gives_the_files_values_and_the_median_for_anything_else(idf_file):
    table = load_idf(str(idf_file))
    text, median = parse_idf(idf_file)
    assert median == table.median == 7.25
    words = ["香港", "逝世", "不在表里", "", "中华人民共和国国务院", "武侠小说", "武侠"]
    assert (
        table.lookup(words).tolist() == [text.get(w, median) for w in words] == [8.0, 1.0, 7.25, 7.25, 3.5, 7.25, 7.25]
    )
    assert table.lookup([]).size == 0


def test_a_word_longer_than_any_in_the_table_is_not_taken_for_its_prefix(idf_file):
    table = load_idf(str(idf_file))
    longer = "中华人民共和国国务院办公厅"  # starts with a table word, and is longer than every one
    assert table.lookup([longer, "中华人民共和国国务院"]).tolist() == [table.median, 3.5]


def test_the_table_is_read_back_from_its_cache_mapped_not_parsed(idf_file):
    first = load_idf(str(idf_file))
    cached = _cache_file(idf_file)
    assert cached.exists()
    load_idf.cache_clear()
    again = load_idf(str(idf_file))
    assert isinstance(again.words.base, np.memmap) or isinstance(again.words, np.memmap)
    assert again.words.tolist() == first.words.tolist() and again.values.tolist() == first.values.tolist()
    assert again.median == first.median


@pytest.mark.parametrize("damage", ["another format", "cut short", "empty"])
def test_a_cache_of_another_format_or_cut_short_is_parsed_again_and_rewritten(idf_file, damage):
    load_idf(str(idf_file))
    cached = _cache_file(idf_file)
    raw = cached.read_bytes()
    cached.write_bytes(
        {"another format": b"news-crawler idf v1 little\n" + raw[27:], "cut short": raw[:-4], "empty": b""}[damage]
    )
    load_idf.cache_clear()
    table = load_idf(str(idf_file))
    assert table.lookup(["香港", "逝世"]).tolist() == [8.0, 1.0]
    assert cached.read_bytes() == raw


def test_an_edited_table_gets_a_new_cache_which_replaces_the_old_one(idf_file):
    load_idf(str(idf_file))
    old = _cache_file(idf_file)
    idf_file.write_text("香港 9.5\n逝世 2.0\n", encoding="utf-8")
    os.utime(idf_file, ns=(old.stat().st_mtime_ns + 10**9,) * 2)  # another time even on a coarse clock
    load_idf.cache_clear()
    assert load_idf(str(idf_file)).lookup(["逝世"]).tolist() == [2.0]
    new = _cache_file(idf_file)
    assert new != old and new.exists() and not old.exists()
    place = new.name.rsplit("-", 1)[0]
    assert [p.name for p in new.parent.glob(place + "-*.bin")] == [new.name]  # one cache a table


def test_an_unwritable_cache_directory_still_gives_the_table(idf_file, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    table = load_idf(str(idf_file))
    assert table.lookup(["香港"]).tolist() == [8.0]


def test_a_pickled_table_maps_its_file_again(idf_file):
    table = load_idf(str(idf_file))
    load_idf.cache_clear()
    copy = pickle.loads(pickle.dumps(table))
    assert copy.lookup(["香港", "没有"]).tolist() == table.lookup(["香港", "没有"]).tolist()


def test_jiebas_own_table_reads_as_jieba_reads_it():
    load_idf.cache_clear()
    table = load_idf()
    assert isinstance(table, IdfTable) and len(table) > 200_000
    words = ["香港", "金庸", "武侠小说", "的", "新冠肺炎疫情防控"]
    import jieba.analyse

    tfidf = jieba.analyse.TFIDF()
    expected = [tfidf.idf_freq.get(w, tfidf.median_idf) for w in words]
    assert table.lookup(words).tolist() == expected
