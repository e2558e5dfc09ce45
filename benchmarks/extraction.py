"""Article extraction libraries on labelled real pages: cwced's 69 (human labels) and the
gne pages we labelled (``labels/gne.json``).

Body: character-level F1 (multiset of non-whitespace characters) against the labelled
content. Time: right to the minute against the labelled date, on pages whose label has a
time of day (a date-only label needs the right day); "to minute": the pages whose label has
a time of day alone. Author: the labelled author contained
in the extracted one or equal to it, on pages whose label names a writer: a label naming
the page's editor (责任编辑) as its author is left out and counted (an author is never the
editor here: the name is the ``editor`` field's). "News pages" are the article pages of news outlets
and portal news channels; blogs, forums, wiki, papers, notices and book chapters are left
out (the list is below, by id).

    python benchmarks/extraction.py [--all-pages] [--pages cwced|gne] [--by-layout]
    python benchmarks/extraction.py --fields     images, description, tags, updated_at
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urljoin

sys.path.insert(0, str(Path(__file__).resolve().parent))
from labelled_pages import cwced_pages, gne_pages  # noqa: E402

NEWS_PAGES = {
    "0d931936",
    "0ef8393b",
    "274a65d9",
    "2bac7fb2",
    "33a95b71",
    "36efbc69",
    "3832838a",
    "3e1af229",
    "47f387e6",
    "4fa9dfe4",
    "500b350d",
    "5acac71b",
    "7c6d2080",
    "8baa71e3",
    "8cb7b39d",
    "91bdf33e",
    "93498c29",
    "9890f458",
    "a0cb0242",
    "aefcf136",
    "b26fbb82",
    "bbdf5079",
    "c25d25c2",
    "c268c1b4",
    "c4d032a1",
    "d232c5df",
    "d8d4c4ec",
    "ebe9df29",
    "ecbe8d49",
    "f51248cc",
    "f70d9c97",
}
_WS = re.compile(r"\s+")
_NUM = re.compile(r"\d+")


def char_f1(got: str, want: str) -> float:
    g, w = Counter(_WS.sub("", got)), Counter(_WS.sub("", want))
    common = sum((g & w).values())
    if not common:
        return 0.0
    p, r = common / sum(g.values()), common / sum(w.values())
    return 2 * p * r / (p + r)


def time_parts(text: str) -> list[int]:
    return [int(x) for x in _NUM.findall(text or "")][:5]


def time_right(got: str, want: str) -> bool:
    w = time_parts(want)
    g = time_parts(got)
    return len(g) >= len(w) and g[: len(w)] == w


_NAME_GAP = re.compile(r"[\s、，,;；]+")  # "赵延东、风笑天" and our "赵延东 风笑天" name the same two


def author_right(got: str, want: str) -> bool:
    got, want = _NAME_GAP.sub("", got or ""), _NAME_GAP.sub("", want)
    return bool(got) and (got == want or want in got or got in want)


def editor_labelled(article: object, want: str) -> bool:
    """The label names as the author the page's editor (责任编辑: found in ``editor``), on a
    page that credits no writer: an author is never the editor here, so it is scored apart."""
    editor = getattr(article, "editor", "") if not isinstance(article, dict) else article.get("editor", "")
    return bool(editor) and author_right(editor, want)


def with_ours(html: str) -> dict:
    from news_crawler.extraction import extract_article

    a = extract_article(html)
    return {"body": a.body, "time": a.published_at, "author": a.author}


def with_trafilatura(html: str) -> dict:
    import trafilatura

    doc = trafilatura.bare_extraction(html, with_metadata=True, include_comments=False)
    doc = doc.as_dict() if hasattr(doc, "as_dict") else (doc or {})
    return {"body": doc.get("text") or "", "time": doc.get("date") or "", "author": doc.get("author") or ""}


def with_gne(html: str) -> dict:
    from gne import GeneralNewsExtractor

    doc = GeneralNewsExtractor().extract(html)
    return {"body": doc.get("content") or "", "time": doc.get("publish_time") or "", "author": doc.get("author") or ""}


def with_readability(html: str) -> dict:
    import lxml.html
    import readability.readability
    from readability import Document

    from news_crawler.extraction import readability_speed as fast  # which puts faster helpers in readability: not here

    module = readability.readability
    ours = module.clean, getattr(module, fast.SERIALIZER or "clean")
    module.clean = fast.ORIGINAL_CLEAN
    if fast.SERIALIZER:
        setattr(module, fast.SERIALIZER, fast.ORIGINAL_SERIALIZER)
    try:
        summary = Document(html).summary()
    finally:
        module.clean = ours[0]
        if fast.SERIALIZER:
            setattr(module, fast.SERIALIZER, ours[1])
    return {"body": lxml.html.fromstring(summary).text_content() if summary.strip() else "", "time": "", "author": ""}


EXTRACTORS = {"ours": with_ours, "trafilatura": with_trafilatura, "gne": with_gne, "readability-lxml": with_readability}


def score(name: str, pages: list[tuple[dict, str]], show: bool) -> str:
    fn = EXTRACTORS[name]
    f1s, t_ok, t_n, a_ok, a_n, spent = [], 0, 0, 0, 0, 0.0
    m_ok, m_n = 0, 0  # pages whose label gives a time of day: the extractor's to the minute
    none_ok, none_n = 0, 0  # pages that name no author: the extractor gives none
    for label, html in pages:
        start = time.perf_counter()
        try:
            out = fn(html)
        except Exception as e:  # noqa: BLE001 - a library failing on a page scores zero there
            out = {"body": "", "time": "", "author": "", "error": repr(e)[:80]}
        spent += time.perf_counter() - start
        f1 = char_f1(out["body"], label["content"])
        f1s.append(f1)
        has_time = label["date"] not in ("UNKNOWN", "UNKNWON", "") and bool(_NUM.search(label["date"] or ""))
        if has_time:
            t_n += 1
            t_ok += time_right(out["time"], label["date"])
            if len(time_parts(label["date"])) >= 5:
                m_n += 1
                m_ok += time_right(out["time"], label["date"])
        if label["author"] not in ("UNKNOWN", "", None) and not label.get("editor_labelled"):
            a_n += 1
            a_ok += author_right(out["author"], label["author"])
        elif label["author"] in ("UNKNOWN", "", None):
            none_n += 1
            none_ok += not (out["author"] or "").strip()
        if show:
            print(
                f"  {name:<12} {label['id'][:24]:<24} F1 {f1:.3f} time {out['time']!s:<22} want {label['date']!s:<22}"
                f" author {out['author']!s:<14} want {label['author']}"
            )
    f1s.sort()
    return (
        f"{sum(f1s) / len(f1s):12.3f} {f1s[len(f1s) // 2]:7.3f} {sum(f >= 0.95 for f in f1s):4d}/{len(f1s):<2}"
        f" {t_ok:4d}/{t_n:<2} {t_ok / max(t_n, 1):4.0%} {m_ok:4d}/{m_n:<2} {m_ok / max(m_n, 1):4.0%}"
        f" {a_ok:3d}/{a_n:<2} {a_ok / max(a_n, 1):4.0%} "
        f"{none_ok:4d}/{none_n:<2} {spent / len(pages) * 1e3:8.1f}"
    )


def fields_of(name: str, html: str, url: str) -> dict:
    """images, description, tags and updated_at as each library gives them ("-": it does not)."""
    if name == "ours":
        from news_crawler.extraction import extract_article

        a = extract_article(html, url)
        return {
            "images": [i["url"] for i in a.images],
            "description": a.description,
            "tags": a.tags,
            "updated_at": a.updated_at,
        }
    if name == "trafilatura":
        import trafilatura

        doc = trafilatura.bare_extraction(html, url=url, with_metadata=True)
        doc = doc.as_dict() if hasattr(doc, "as_dict") else (doc or {})
        tags = [t for t in (doc.get("tags") or []) + (doc.get("categories") or []) if t]
        return {"images": "-", "description": doc.get("description") or "", "tags": tags, "updated_at": "-"}
    if name == "gne":
        from gne import GeneralNewsExtractor

        doc = GeneralNewsExtractor().extract(html, host=url)
        return {"images": doc.get("images") or [], "description": "-", "tags": "-", "updated_at": "-"}
    return {"images": "-", "description": "-", "tags": "-", "updated_at": "-"}


def score_fields(name: str, labelled: list[tuple[dict, str]]) -> str:
    """Images: precision and recall of the URLs over all pages; description and updated_at:
    pages right (equal, spaces collapsed); tags: mean F1 of the sets."""
    found = wanted = right = 0
    desc = tags = updated = 0.0
    given = {"images": False, "description": False, "tags": False, "updated_at": False}
    for label, html in labelled:
        out = fields_of(name, html, label["url"])
        for key in given:
            given[key] = given[key] or out[key] != "-"
        if out["images"] != "-":
            got = [u if u.startswith("http") else urljoin(label["url"], u) for u in out["images"]]
            found, wanted = found + len(got), wanted + len(label["images"])
            right += len(set(got) & set(label["images"]))
        if out["description"] != "-":
            desc += _WS.sub(" ", out["description"]).strip() == label["description"]
        if out["tags"] != "-":
            g, w = set(out["tags"]), set(label["tags"])
            tags += 1.0 if not g and not w else 2 * len(g & w) / (len(g) + len(w))
        if out["updated_at"] != "-":
            updated += out["updated_at"] == label["updated_at"]
    n = len(labelled)
    images = f"P {right / max(found, 1):.2f} R {right / max(wanted, 1):.2f}" if given["images"] else "—"
    return (
        f"{images:>14} {f'{desc / n:.0%}' if given['description'] else '—':>12} "
        f"{f'{tags / n:.2f}' if given['tags'] else '—':>8} {f'{updated / n:.0%}' if given['updated_at'] else '—':>11}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--pages",
        choices=["cwced", "gne"],
        default="cwced",
        help="cwced's human-labelled pages, or the gne pages we labelled (labels/gne.json)",
    )
    ap.add_argument("--all-pages", action="store_true", help="cwced: every labelled page, not only news pages")
    ap.add_argument("--by-layout", action="store_true", help="gne: a row per layout as well")
    ap.add_argument("--only", nargs="*", default=list(EXTRACTORS))
    ap.add_argument("--show", action="store_true", help="print per-page results of each extractor")
    ap.add_argument("--fields", action="store_true", help="images, description, tags, updated_at (labels/fields.json)")
    args = ap.parse_args()
    if args.fields:
        from labelled_pages import fields_pages

        labelled = fields_pages()
        print(f"{len(labelled)} gne pages with our labels of the other fields")
        print(f"{'extractor':<18} {'images':>14} {'description':>12} {'tags F1':>8} {'updated_at':>11}")
        for name in args.only:
            print(f"{name:<18} {score_fields(name, labelled)}")
        return
    if args.pages == "gne":
        pages = gne_pages()
        print(f"{len(pages)} gne pages with our labels")
    else:
        pages = [(x, html) for x, html in cwced_pages() if args.all_pages or x["id"][:8] in NEWS_PAGES]
        print(f"{len(pages)} labelled pages ({'all' if args.all_pages else 'news pages'}) of cwced")
    from news_crawler.extraction import extract_article

    for label, html in pages:  # a label naming the page's editor as its author: scored apart
        label["editor_labelled"] = label["author"] not in ("UNKNOWN", "", None) and editor_labelled(
            extract_article(html), label["author"]
        )
    named = [x["id"][:8] for x, _ in pages if x["editor_labelled"]]
    if named:
        print(f"author: {len(named)} labels name the page's editor (责任编辑) as author, left out: {' '.join(named)}")
    print(
        f"{'extractor':<18} {'body F1 mean':>12} {'median':>7} {'>=0.95':>7} {'time ok':>10} {'to minute':>10} "
        f"{'author ok':>10} {'no author':>9} {'ms/page':>8}"
    )
    for name in args.only:
        print(f"{name:<18} {score(name, pages, args.show)}")
        if args.by_layout and args.pages == "gne":
            for layout in sorted({x["layout"] for x, _ in pages}):
                subset = [(x, html) for x, html in pages if x["layout"] == layout]
                print(f"  {layout + f' ({len(subset)})':<16} {score(name, subset, False)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
