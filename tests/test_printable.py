"""Untrusted text as a person reads it: one line, nothing that drives a terminal."""

from news_crawler.printable import LIMIT, URL_LOG_CHARS, printable, short_url


def test_controls_are_escaped_and_the_result_is_one_line():
    hostile = "标题\x1b[2J\x1b]0;owned\x07\x08\r\n\t\x9b31m\x9d\u202eevil\u2028x\ud800\x7f"
    shown = printable(hostile)
    assert shown == ("标题\\x1b[2J\\x1b]0;owned\\x07\\x08\\r\\n\\t\\x9b31m\\x9d\\u202eevil\\u2028x\\ud800\\x7f")
    assert shown.isprintable()


def test_plain_text_is_unchanged_and_long_text_is_cut_with_its_length():
    assert printable("新华社北京11月27日电 a-b_c (1/2)") == "新华社北京11月27日电 a-b_c (1/2)"
    assert printable("字" * 500, limit=10) == "字" * 10 + "…(500 chars)"
    assert printable("字" * LIMIT) == "字" * LIMIT  # exactly at the limit: whole
    assert printable("字" * (LIMIT + 1)) == "字" * LIMIT + f"…({LIMIT + 1} chars)"


def test_a_url_is_whole_up_to_its_limit_and_cut_past_it():
    url = "https://a.cn/" + "x" * (URL_LOG_CHARS - 13)
    assert len(url) == URL_LOG_CHARS and short_url(url) == url
    assert short_url(url + "y") == url + f"…({URL_LOG_CHARS + 1} chars)"


ACTING = [  # every range that acts instead of showing, as printable's text names them
    (0x00, 0x1F),  # C0 controls
    (0x7F, 0x9F),  # DEL, C1 controls
    (0x061C, 0x061C),  # Arabic letter mark
    (0x200B, 0x200F),  # zero-width space, joiners, LRM, RLM
    (0x2028, 0x202E),  # line and paragraph separators, bidi embeddings and overrides
    (0x2060, 0x2069),  # word joiner, invisible operators, bidi isolates
    (0xFEFF, 0xFEFF),  # zero-width no-break space
]


def test_every_character_that_acts_is_escaped_by_each_way_text_is_shown_and_nothing_beside_it():
    import json
    import unicodedata

    from news_crawler.printable import json_line, log_safe

    acting = {c for low, high in ACTING for c in range(low, high + 1)}
    bidi = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}
    for cp in range(0x3000):
        char = chr(cp)
        principled = unicodedata.category(char) in ("Cc", "Zl", "Zp") or unicodedata.bidirectional(char) in bidi
        assert not principled or cp in acting, hex(cp)  # the list misses nothing Unicode calls a control
        shown = {"printable": printable(char), "log": log_safe(char), "json": json.loads(json_line(char))}
        raw_json = json_line(char)
        if cp in acting:
            assert shown["printable"] != char, hex(cp)
            assert shown["log"] != char or char in "\t\n", hex(cp)  # a log line may hold newlines and tabs
            assert raw_json.isascii() and shown["json"] == char, hex(cp)  # escaped, still the same JSON value
        else:
            assert shown["printable"] == shown["log"] == char and raw_json == json.dumps(char, ensure_ascii=False), hex(
                cp
            )
