"""readability-lxml made faster without changing what it returns: three of its module-level
helpers replaced, each by a function giving the same answers (tests/test_extraction.py
checks each against the original). Imported for its effect by ``article.py``.

- Its cleaner scrubs ``javascript:`` links and ``on*`` attributes on every element: a third
  of its time on a portal page, for attributes text extraction never reads (the same bodies
  on all 136 real pages of ../shared/data/pages; BENCHMARKS.md).
- ``clean()`` (whitespace squeezed before text is measured): its patterns, tried at every
  position of a run of whitespace, take time in the square of the run's length (portal pages
  indent by hundreds of spaces); here each run is tried from its start only.
- ``tostring()`` (``tostring_`` in 0.8), which it calls only to serialize every child of
  every ``<div>`` and search the text for a block tag (``<p``, ``<div``, ``<table`` ...):
  here the answer comes from the subtree's tags, and only comments and processing
  instructions, whose text may hold such a tag, are serialized. Replaced only where the
  module calls it nowhere else.
"""

from __future__ import annotations

import inspect
import re

import readability.readability
from lxml import etree

_MODULE = readability.readability
ORIGINAL_CLEAN = _MODULE.clean
ORIGINAL_TOSTRING = etree.tostring

_LONG_RUN = re.compile(r"(?<!\s)\s{255,}")
_LINE_RUN = re.compile(r"(?<!\s)[^\S\n]*+\n\s*+")  # a run of spaces holding a newline, whole
_TABS = re.compile(r"\t|[ \t]{2,}")
_BLOCK_TAG = _MODULE.REGEXES["divToPElementsRe"]  # <(blockquote|dl|div|img|ol|p|pre|table|ul), any case (0.9)
_NAMES = re.fullmatch(r"<\(([a-z]+(?:\|[a-z]+)*)\)", _BLOCK_TAG.pattern) if _BLOCK_TAG.flags & re.I else None
_BLOCK_PREFIXES = tuple(_NAMES.group(1).split("|")) if _NAMES else ()  # a tag starting so is found after "<"


def clean(text: str) -> str:
    """readability's ``clean``: the same result. A text under 255 characters with no line
    break, tab or two spaces in a row gives none of the patterns anything to do."""
    if len(text) < 255 and "\n" not in text and "\t" not in text and "  " not in text:
        return text.strip()
    return _TABS.sub(" ", _LINE_RUN.sub("\n", _LONG_RUN.sub(" " * 255, text))).strip()


def holds_block_tag(node: etree._Element) -> bool:
    """Whether readability's pattern finds a block tag in ``node`` serialized: a tag of it or
    of its subtree named like one, or the text of a comment or processing instruction there."""
    for el in node.iter():
        tag = el.tag
        if isinstance(tag, str):
            if tag.startswith("{"):  # a namespaced name serializes otherwise: ask the serializer
                return bool(_BLOCK_TAG.search(str(ORIGINAL_TOSTRING(node, encoding="utf-8"))))
            if tag.lower().startswith(_BLOCK_PREFIXES):
                return True
        elif _BLOCK_TAG.search(str(ORIGINAL_TOSTRING(el, encoding="utf-8", with_tail=False))):
            return True
    return False


def block_tag_marker(node: etree._Element, **_: object) -> bytes:
    """Stands in for ``tostring`` where readability only searches its output for a block
    tag: ``b"<p"`` when the serialization would hold one, else nothing."""
    return b"<p" if holds_block_tag(node) else b""


def faster_cleaner() -> None:
    cleaner = _MODULE.html_cleaner
    options = {k: v for k, v in vars(cleaner).items() if not k.startswith("_")}
    _MODULE.html_cleaner = type(cleaner)(**{**options, "javascript": False})


def serializer_searched_only() -> str | None:
    """The name of the serializer readability calls only in its misused-div test (a line of
    that method, and no other line of the module but imports and comments), or None."""

    def uses(source: str, name: str) -> int:
        return sum(
            1
            for line in source.splitlines()
            if re.search(rf"\b{name}\b", line) and not line.lstrip().startswith(("#", "from ", "import "))
        )

    module_source = inspect.getsource(_MODULE)
    method = inspect.getsource(_MODULE.Document.transform_misused_divs_into_paragraphs)
    if not _BLOCK_PREFIXES:  # a pattern of another form: left as it is
        return None
    for name in ("tostring", "tostring_"):
        if hasattr(_MODULE, name) and uses(method, name) == 1 and uses(module_source, name) == 1:
            return name
    return None


faster_cleaner()
_MODULE.clean = clean
SERIALIZER = serializer_searched_only()
ORIGINAL_SERIALIZER = getattr(_MODULE, SERIALIZER) if SERIALIZER else None
if SERIALIZER:
    setattr(_MODULE, SERIALIZER, block_tag_marker)
