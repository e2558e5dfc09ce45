"""Bytes of a page -> text, right for GBK/GB18030/GB2312 pages with or without a charset."""

from __future__ import annotations

from w3lib.encoding import html_to_unicode


def _guess(body: bytes) -> str:
    # Undeclared Chinese pages are UTF-8 or GB18030 (a superset of GBK and GB2312). A
    # non-trivial GB page is almost never valid UTF-8, so strict UTF-8 decides.
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "gb18030"


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """``(text, encoding)``: BOM, then the Content-Type header, then ``<meta charset>``,
    then UTF-8 if the bytes are valid UTF-8, else GB18030. Undecodable bytes become U+FFFD."""
    encoding, text = html_to_unicode(content_type, body, default_encoding="utf-8", auto_detect_fun=_guess)
    return text, encoding
