"""Untrusted text as a person reads it: one line, nothing that drives a terminal."""

from news_crawler.printable import printable


def test_controls_are_escaped_and_the_result_is_one_line():
    hostile = "标题\x1b[2J\x1b]0;owned\x07\x08\r\n\t\x9b31m\x9d\u202eevil\u2028x\ud800\x7f"
    shown = printable(hostile)
    assert shown == ("标题\\x1b[2J\\x1b]0;owned\\x07\\x08\\r\\n\\t\\x9b31m\\x9d\\u202eevil\\u2028x\\ud800\\x7f")
    assert shown.isprintable()


def test_plain_text_is_unchanged_and_long_text_is_cut_with_its_length():
    assert printable("新华社北京11月27日电 a-b_c (1/2)") == "新华社北京11月27日电 a-b_c (1/2)"
    assert printable("字" * 500, limit=10) == "字" * 10 + "…(500 chars)"
