"""Text from the web as a person reads it: one place that makes untrusted text safe to show
on a terminal, in a log line or in a one-line error.

A page controls its title, its links, its headers and its bytes. Printed raw, ESC and C1
codes (``\\x1b[2J``, ``\\x9b``) drive the operator's terminal, a newline forges a log line, and
bidirectional overrides reorder what is shown. ``printable`` escapes every such character
the way Python writes it (``\\x1b``, ``\\u202e``) and cuts what is too long to read.
"""

from __future__ import annotations

import json
import re

# C0 and C1 controls, DEL, line and paragraph separators, bidirectional controls, and
# the zero-width characters that hide text: everything that acts instead of showing.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")
LIMIT = 300


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, limit: int = LIMIT) -> str:
    """``text`` with every control character escaped and, past ``limit`` characters, cut
    (its length said); tabs and newlines are escaped too: the result is one line."""
    shown = _UNSAFE.sub(_escape, str(text))
    return shown if len(shown) <= limit else f"{shown[:limit]}…({len(shown)} chars)"


# What json.dumps(ensure_ascii=False) leaves raw that still acts on a terminal: C1 controls,
# DEL, separators, bidirectional and zero-width characters (C0 controls it escapes itself).
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
# A log line may hold newlines (a table, a traceback); what a terminal acts on is escaped.
_UNSAFE_IN_LOG = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def json_line(value: object, **kwargs: object) -> str:
    """``value`` as JSON with Chinese as written, and every character that acts on a
    terminal escaped as ``\\uXXXX`` (still the same JSON value)."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)  # type: ignore[arg-type]
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def log_safe(text: str) -> str:
    """A log message with every control character but newline and tab escaped."""
    return _UNSAFE_IN_LOG.sub(_escape, text)


# A URL as a log line or an error shows it: its password masked, cut when very long (a hostile
# page can link a URL of a megabyte).
_PASSWORD_IN_URL = re.compile(r"(\b\w+://[^:/@\s'\"]*:)[^@/\s'\"]+@")
URL_LOG_CHARS = 200
LONG_URL = re.compile(r"\b[a-zA-Z][\w+.-]*:[^\s<>'\"]{" + str(URL_LOG_CHARS) + ",}")


def short_url(url: str, limit: int = URL_LOG_CHARS) -> str:
    """``url`` as a log line shows it: whole when short, else its start and its length."""
    return url if len(url) <= limit else f"{url[:limit]}…({len(url)} chars)"


def short_urls(text: str) -> str:
    """``text`` with every URL in it longer than ``URL_LOG_CHARS`` cut (``short_url``)."""
    return LONG_URL.sub(lambda m: short_url(m.group(0)), text) if len(text) > URL_LOG_CHARS else text


def redact(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``."""
    return _PASSWORD_IN_URL.sub(r"\1***@", text)


# A password however a connection string gives it: "user:secret@" (with a scheme or without,
# a URL well formed or not) or libpq's "password=secret".
_SECRETS = (re.compile(r"(?:^|[/\s])[^\s:/@]*:([^@\s/:]+)@"), re.compile(r"\bpassword\s*=\s*'?([^\s']+)"))


def masked(text: str, url: str) -> str:
    """``text`` (an error about connecting to ``url``) with ``url``'s password, wherever it
    appears, replaced by ``***``, and every URL's password in it too (``redact``)."""
    for pattern in _SECRETS:
        for secret in pattern.findall(url):
            text = text.replace(secret, "***")
    return redact(text)
