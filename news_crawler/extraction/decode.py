"""Bytes of a page -> text, right for GBK/GB18030/GB2312 and Big5 pages with or without a
charset, and for pages whose declared charset is wrong."""

from __future__ import annotations

import codecs
import re
import unicodedata

from w3lib.encoding import html_to_unicode

_GB = {"gb18030", "gbk", "gb2312", "cp936", "hz"}
MISDECODED = 3  # replacement characters that show a declared UTF-8 page is not UTF-8


_BIG5_MIN_PAIRS = 20  # double-byte characters before Big5 is told from GB
_BIG5_LOW_TRAILS = 0.2  # share of them whose second byte is 0x40-0x7E
_PAIR = re.compile(rb"[\x81-\xfe][\x40-\xfe]")  # a double-byte character of GBK or Big5
_LOW = bytes(range(0x40, 0x7F))


def _guess(body: bytes) -> str:
    # Undeclared Chinese pages are UTF-8, GB18030 (a superset of GBK and GB2312) or Big5. A
    # non-trivial GB or Big5 page is almost never valid UTF-8, so strict UTF-8 decides first.
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "big5hkscs" if _is_big5(body) else "gb18030"


def _is_big5(body: bytes) -> bool:
    """Big5 text puts about two in five of its characters' second bytes in 0x40-0x7E; GB
    text's common characters (GB2312) never do, and GBK's lead bytes 0x81-0xA0 are not Big5:
    a page with many such second bytes that decodes as Big5 is Big5."""
    pairs = b"".join(_PAIR.findall(body))
    trails = pairs[1::2]
    low = len(trails) - len(trails.translate(None, _LOW))
    if len(trails) < _BIG5_MIN_PAIRS or low < _BIG5_LOW_TRAILS * len(trails):
        return False
    return body.decode("big5hkscs", errors="replace").count("\ufffd") <= len(trails) // 200


def _family(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return encoding.lower()


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """``(text, encoding)``: BOM, then the Content-Type header, then ``<meta charset>``,
    then UTF-8 if the bytes are valid UTF-8, else Big5 where they read as Big5 (``_is_big5``),
    else GB18030. Undecodable bytes become U+FFFD.

    A declared charset that the bytes contradict loses: a page declared GBK whose bytes are
    valid UTF-8 with Chinese in them (a page re-saved as UTF-8 under its old ``<meta>``) is
    UTF-8; a page declared UTF-8 that is not, and reads as GB18030, is GB18030."""
    encoding, text = html_to_unicode(content_type, body, default_encoding="utf-8", auto_detect_fun=_guess)
    family = _family(encoding)
    if family in _GB and not body.isascii() and _guess(body) == "utf-8":
        return body.decode("utf-8"), "utf-8"
    if family == "utf-8" and text.count("\ufffd") >= MISDECODED:
        gb = body.decode("gb18030", errors="replace")
        if gb.count("\ufffd") < text.count("\ufffd"):
            return gb, "gb18030"
    return text, encoding


# A page or a body is text when at most this share of its characters is unreadable:
# U+FFFD (bytes its encoding could not decode), control characters, private-use or
# unassigned code points. Real pages stay under 2% (the worst of the 136 saved ones: 1.7%,
# GBK's user-defined characters); random bytes, images and compressed data read as GB18030
# come out at 5-30%.
NOT_TEXT_SHARE = 0.03
_READABLE_CONTROLS = frozenset("\t\n\r\f\v")


# What every page is mostly made of, all readable (assigned, not private, no control): ASCII
# letters and signs, the readable controls, CJK ideographs and punctuation, full-width forms.
# Only what is left is looked at one character at a time.
_COMMON = re.compile("[\t\n\r\f\v\x20-\x7e\u3000-\u303f\u4e00-\u9fff\uff01-\uff5e]+")


def unreadable_share(text: str) -> float:
    """The share of ``text``'s characters that no reader can read (see ``NOT_TEXT_SHARE``)."""
    if not text:
        return 0.0
    bad = 0
    for ch in _COMMON.sub("", text):
        code = ord(ch)
        if code < 0x20:
            bad += ch not in _READABLE_CONTROLS
        elif code < 0x7F:
            continue
        elif (
            code < 0xA0 or ch == "\ufffd" or 0xE000 <= code <= 0xF8FF or unicodedata.category(ch) in ("Cn", "Cs", "Co")
        ):
            bad += 1
    return bad / len(text)


def is_text(text: str) -> bool:
    """``text`` reads as text, not as binary bytes decoded (an image, an archive, noise)."""
    return unreadable_share(text) <= NOT_TEXT_SHARE


_CONTROL_BYTES = bytes(b for b in range(0x20) if b not in b"\t\n\r\f\v\x1b") + b"\x7f"


def is_binary(data: bytes) -> bool:
    """``data`` holds control bytes no text page has (NUL, ...) beyond ``NOT_TEXT_SHARE``:
    an image, an archive or noise, whatever its Content-Type says."""
    return bool(data) and len(data) - len(data.translate(None, _CONTROL_BYTES)) > NOT_TEXT_SHARE * len(data)
