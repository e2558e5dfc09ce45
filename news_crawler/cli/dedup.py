"""``news-dedup``: fingerprint and deduplicate a JSON Lines corpus, and look inside the index.

news-dedup check [--redis-url URL] [--namespace NS] [--max-distance K] [--no-sentences] [--original earliest|first]
                 [--workers N] FILE|-
news-dedup stats [--json]
news-dedup explain (--id ID | --text TEXT | --file FILE)
news-dedup drops [--limit N]
news-dedup forget ID [ID ...] | --all
news-dedup expire
news-dedup archive [--all]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import IO, Any, cast

import redis

from news_crawler import connection
from news_crawler.cli.argtypes import positive
from news_crawler.cli.check import check, read_lines
from news_crawler.cli.check_workers import default_workers
from news_crawler.cli.progress import Progress
from news_crawler.config import PlainSettings, parse_overrides, plain_settings, zone
from news_crawler.connection.embedded import EmbeddedServerError
from news_crawler.dedup.fingerprint import UnusableText, distance, from_hex, similarity, to_hex
from news_crawler.dedup.fingerprint.sentences import longest_sentences
from news_crawler.dedup.from_settings import fingerprinter_from_settings, store_from_settings
from news_crawler.dedup.index import Decision, Match, RedisStore
from news_crawler.errors import UserError, redis_problem
from news_crawler.ops.preflight import check_values, known_names, unknown_names, warn_of_environment
from news_crawler.printable import json_line, printable


def _settings(args: argparse.Namespace) -> PlainSettings:
    try:
        overrides = parse_overrides(args.set)
    except ValueError as e:
        raise UserError(str(e)) from None
    given = {
        "REDIS_URL": args.redis_url,
        "EMBEDDED_REDIS_DIR": str(Path(args.data_dir).expanduser().absolute()) if args.data_dir else None,
        "DEDUP_NAMESPACE": args.namespace,
        "DEDUP_MAX_DISTANCE": vars(args).get("max_distance"),
        "DEDUP_BLOCKS": vars(args).get("blocks"),
        "DEDUP_SENTENCES": vars(args).get("sentences"),
        "DEDUP_ORIGINAL": vars(args).get("original"),
    }
    return plain_settings({**overrides, **{k: v for k, v in given.items() if v is not None and v != ""}})


def _store(settings: PlainSettings, reader: bool = True) -> RedisStore:
    """The namespace's index; a ``reader`` (every command but ``check``) takes the layout the
    namespace records, ``check`` must ask for it."""
    connection.check_reachable(settings)  # a wrong URL or password: one line, before any work
    return store_from_settings(settings, connection.from_settings(settings), reader=reader)


EX_REDIS_FAILED = 3  # check: Redis failed mid-run; every line printed before is complete
EX_NOTHING_USABLE = 4  # check: input was given, and not one line of it was usable


def _open(path: str) -> IO[str]:
    return sys.stdin if path == "-" else open(path, encoding="utf-8")


def _open_binary(path: str) -> IO[bytes]:
    return sys.stdin.buffer if path == "-" else open(path, "rb")


def cmd_check(args: argparse.Namespace) -> int:
    settings = _settings(args)
    fingerprinter = fingerprinter_from_settings(settings)
    store = _store(settings, reader=False)
    counts = dict.fromkeys(("kept", "near-duplicates", "replays", "unusable lines"), 0)
    printed = 0
    progress = Progress(args.file)
    first: list[bytes] = []  # the first non-blank line's first byte: '[' is a JSON array, not JSON Lines

    def remembered(lines: Any) -> Any:
        for line in lines:
            if not first and line.strip():
                first.append(line.strip()[:1])
            yield line

    try:
        with _open_binary(args.file) as f:
            for out in check(remembered(read_lines(f)), fingerprinter, store, args.workers, zone(settings)):
                kind = (
                    "unusable lines"
                    if "error" in out
                    else "replays"
                    if out.get("replay")
                    else "kept"
                    if out["duplicate_of"] is None
                    else "near-duplicates"
                )
                counts[kind] += 1
                sys.stdout.write(json_line(out) + "\n")
                printed += 1
                progress.update(counts)
    except redis.RedisError as e:
        sys.stdout.flush()
        progress.close(counts)
        print(f"news-dedup: Redis failed after {printed} lines were decided and printed: {e}", file=sys.stderr)
        return EX_REDIS_FAILED
    progress.close(counts)
    print("news-dedup: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()), file=sys.stderr)
    if printed and counts["unusable lines"] == printed:
        hint = (
            " The input looks like one JSON array; check reads JSON Lines, one object per line: "
            "jq -c '.[]' FILE | news-dedup check -"
            if first == [b"["]
            else ' Each line must be a JSON object with "id" and "body" (or "html").'
        )
        print(f"news-dedup: none of the {printed} input lines was usable.{hint}", file=sys.stderr)
        return EX_NOTHING_USABLE
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    store = _store(_settings(args))
    report = store.report()
    per_kept = store.bytes_per_kept()
    report["bytes_a_kept_fingerprint_live"] = per_kept["live"]
    report["bytes_a_kept_fingerprint_archived"] = per_kept["archived"]
    if args.json:
        print(json.dumps(report))
    else:
        days, memory = report["retention_days"], int(cast(int, report["redis_memory_bytes"]))
        shown = {
            **report,
            "retention_days": f"{days:g}" if days else "off (kept for ever)",
            "redis_memory_bytes": f"{memory:,} ({memory / 2**20:.1f} MiB)",
        }
        width = max(map(len, shown))
        for key, value in shown.items():
            print(f"{key.replace('_', ' '):<{width}}  {value}")
    return 0


def _recorded(store: RedisStore, article_id: str) -> Decision | None:
    """The decision recorded for ``article_id``, or None after saying on stderr that there is none."""
    decision = store.lookup(article_id)
    if decision is None:
        print(
            f"news-dedup: no decision recorded for id {printable(article_id)!r} in namespace {store.namespace!r}",
            file=sys.stderr,
        )
    return decision


def cmd_explain(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = _store(settings)
    report: dict[str, Any] = {}
    sentences: list[str] = []
    if not (args.id or args.simhash or args.text is not None or args.file):
        raise UserError("explain needs --id ID, --simhash HEX, --text TEXT or --file FILE")
    if args.id:
        decision = _recorded(store, args.id)
        if decision is None:
            return 1
        fp = decision.simhash
        report.update(id=args.id, kept=decision.kept, duplicate_of=decision.duplicate_of, distance=decision.distance)
        if not decision.kept:
            report["rule"] = decision.rule
            report["evidence"] = evidence(store, decision, settings, given_text=bool(args.text or args.file))
    elif args.simhash:
        fp = from_hex(args.simhash)
    if args.text is not None or args.file:
        text = args.text if args.text is not None else _open(args.file).read()
        fingerprinter = fingerprinter_from_settings(settings)
        try:
            fingerprint = fingerprinter.fingerprint(text)
        except UnusableText as e:
            print(f"news-dedup: cannot fingerprint that text: {e}", file=sys.stderr)
            return 1
        fp = fp if args.id else fingerprint.value
        if fingerprint.sentences:
            sentences = longest_sentences(
                fingerprinter.prepare(text)[0], fingerprinter.sentence_count, fingerprinter.sentence_min_chars
            )
            holders = store.sentence_holders(fingerprint.sentences, fingerprint.length)
    report["simhash"] = to_hex(fp)
    report["blocks"] = [f"{b:0{-(-w // 4)}x}" for b, w in zip(store.layout.blocks(fp), store.layout.widths)]
    near = [m for m in store.nearest(fp, args.limit + 1) if m.id != args.id][: args.limit]
    if sentences:  # the kept articles holding its sentences are its neighbours too, however far
        listed = {m.id for m in near}
        for held in holders:
            for other, other_fp in held[: args.limit]:
                if other not in listed and other != args.id:
                    listed.add(other)
                    table = store.layout.shared_table(fp, other_fp)
                    near.append(Match(other, other_fp, distance(fp, other_fp), table))
    near.sort(key=lambda m: (m.distance, m.id))
    report["nearest"] = [
        {
            "id": m.id,
            "simhash": to_hex(m.simhash),
            "distance": m.distance,
            "similarity": round(similarity(fp, m.simhash), 4),
            "matched_blocks": store.layout.matched_blocks(fp, m.simhash),
            "within_max_distance": m.distance <= store.max_distance,
        }
        for m in near
    ]
    if report.get("kept") and sentences:  # a kept article: why each near one is not its copy
        shared_with = {
            other: sum(any(i == other for i, _ in held) for held in holders)
            for other in (n["id"] for n in report["nearest"])
        }
        for near in report["nearest"]:
            near["shared_sentences"] = shared_with[near["id"]]
    if report.get("kept"):
        for near in report["nearest"]:
            near["why_not"] = why_not(near, settings, len(sentences))
    if sentences:
        # The text's longest sentences (letters and digits only, as they are hashed), and the
        # kept articles of about its size that hold each one: what the sentence rule counts.
        report["sentences"] = [
            {"sentence": s, "held_by": [{"id": i, "distance": distance(fp, other)} for i, other in held[: args.limit]]}
            for s, held in zip(sentences, holders)
        ]
        kept = report.get("duplicate_of")
        if kept and report.get("rule") == "sentences":
            shared = [s for s, held in zip(sentences, holders) if any(i == kept for i, _ in held)]
            report["evidence"]["shared_sentences"] = shared
    print(json_line(report, indent=None if args.json else 2))
    return 0


def why_not(near: dict[str, Any], settings: PlainSettings, sentence_count: int) -> str:
    """Why a kept article near another kept one was not dropped as its copy (the article
    has ``sentence_count`` sentence keys)."""
    from news_crawler.dedup.index import SentenceRule

    if near["within_max_distance"]:
        return "kept before the other was (the later of two close articles is the copy)"
    reasons = [f"simhash distance {near['distance']} > DEDUP_MAX_DISTANCE {settings.getint('DEDUP_MAX_DISTANCE')}"]
    match = SentenceRule(settings.getint("DEDUP_SENTENCE_MATCH")).needed(sentence_count)
    reach = settings.getint("DEDUP_SENTENCE_MAX_DISTANCE")
    if not settings.getbool("DEDUP_SENTENCES"):
        reasons.append("the sentence rule is off (DEDUP_SENTENCES)")
    elif "shared_sentences" in near:
        if near["shared_sentences"] < match:
            reasons.append(f"shares {near['shared_sentences']} of its longest sentences, fewer than {match}")
        if near["distance"] > reach:
            reasons.append(f"{near['distance']} bits apart, past DEDUP_SENTENCE_MAX_DISTANCE {reach}")
        if len(reasons) == 1:
            reasons.append("shares its longest sentences but differs in size past DEDUP_SENTENCE_LENGTH_RATIO")
    else:
        reasons.append("shared sentences unknown: give the article's text with --file or --text to count them")
    return "; ".join(reasons)


def cmd_story(args: argparse.Namespace) -> int:
    """The story an article belongs to: the first kept article and every copy of it dropped
    since (the drop records that name it), oldest first; one JSON line each."""
    from news_crawler.spiders.sites import SiteNames, load_sites, sites_files

    settings = _settings(args)
    store = _store(settings)
    decision = _recorded(store, args.id)
    if decision is None:
        return 1
    site_of = SiteNames(load_sites(sites_files(settings.get("SITES_FILE"))))
    original = args.id if decision.kept else decision.duplicate_of
    copies = sorted((d for d in store.drops(args.scan) if d.duplicate_of == original), key=lambda d: (d.time, d.id))
    print(json_line({"id": original, "role": "original", "site": site_of(original or ""), "copies": len(copies)}))
    for d in copies:
        print(
            json_line(
                {
                    "id": d.id,
                    "role": "copy",
                    "site": site_of(d.id),
                    "time": d.time,
                    "rule": d.rule,
                    "distance": d.distance,
                }
            )
        )
    return 0


def evidence(store: RedisStore, decision: Any, settings: PlainSettings, given_text: bool) -> dict[str, Any]:
    """Why a dropped document was dropped: the kept one it copies, how close their
    fingerprints are, and for the sentence rule what it counts (the dropped text is not
    stored: with ``--file`` or ``--text`` its shared sentences are named)."""
    kept = store.lookup(decision.duplicate_of) if decision.duplicate_of else None
    out: dict[str, Any] = {"kept": decision.duplicate_of, "distance": decision.distance}
    if kept is not None:
        out.update(
            kept_simhash=to_hex(kept.simhash),
            similarity=round(similarity(decision.simhash, kept.simhash), 4),
            matched_blocks=store.layout.matched_blocks(decision.simhash, kept.simhash),
        )
    if decision.rule == "simhash":
        out["why"] = (
            f"simhash distance {decision.distance} <= DEDUP_MAX_DISTANCE {settings.getint('DEDUP_MAX_DISTANCE')}"
        )
    else:
        out["why"] = (
            f"shares at least {settings.getint('DEDUP_SENTENCE_MATCH')} of its "
            f"{settings.getint('DEDUP_SENTENCE_COUNT')} longest sentences with the kept article, at simhash "
            f"distance {decision.distance} <= {settings.getint('DEDUP_SENTENCE_MAX_DISTANCE')}, of about its "
            f"size (DEDUP_SENTENCE_LENGTH_RATIO {settings.getfloat('DEDUP_SENTENCE_LENGTH_RATIO'):g})"
        )
        if not given_text:
            out["shared_sentences"] = "not stored: give the dropped article's text with --file or --text to name them"
    return out


def cmd_drops(args: argparse.Namespace) -> int:
    store = _store(_settings(args))
    for d in store.drops(args.limit):
        print(
            json_line(
                {
                    "id": d.id,
                    "simhash": to_hex(d.simhash),
                    "duplicate_of": d.duplicate_of,
                    "distance": d.distance,
                    "rule": d.rule,
                    "time": d.time,
                }
            )
        )
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """One line per id: what was removed (``kept``: its fingerprint; ``dropped``: its drop
    record), or null for an id never decided; exit status 1 when any id was unknown."""
    store = _store(_settings(args))
    if args.all == bool(args.ids):
        raise UserError("forget needs the ids to forget, or --all (and no id) to remove the whole index")
    if args.all:
        print(json.dumps({"namespace": store.namespace, "removed_keys": store.generations.remove_all()}))
        return 0
    unknown = 0
    for doc_id in args.ids:
        removed = store.forget(doc_id)
        unknown += not removed
        print(json_line({"id": doc_id, "forgotten": removed or None}))
    return 1 if unknown else 0


def cmd_archive(args: argparse.Namespace) -> int:
    """Archive the sealed generations (``--all``: the live one too), then say so in one line."""
    store = _store(_settings(args))
    started = time.monotonic()
    done = store.archive(include_live=args.all)
    per_kept = store.bytes_per_kept()
    if not done:
        print(f"news-dedup: nothing to archive in namespace {store.namespace!r}: no sealed generation left live")
    else:
        print(
            f"news-dedup: archived generation{'s' if len(done) > 1 else ''} {', '.join(map(str, done))} of "
            f"namespace {store.namespace!r} in {time.monotonic() - started:.1f} s: {per_kept['archived']} bytes "
            "a kept fingerprint archived"
        )
    return 0


def cmd_expire(args: argparse.Namespace) -> int:
    """Delete the generations older than ``DEDUP_RETENTION_DAYS`` now (a decision does it too,
    the first time a new generation starts); one line of JSON."""
    store = _store(_settings(args))
    expired = store.expire()
    print(
        json.dumps(
            {
                "retention_days": store.retention_days,
                "expired_generations": expired,
                "live_generations": [f"g{n}" for n in store.generations.numbers()],
            }
        )
    )
    return 0


def _non_negative(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, got {text!r}")
    return int(text)


def _workers(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a number of processes, 1 or more, got {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--redis-url", help="Redis to use (default: $REDIS_URL, else the embedded server)")
    common.add_argument("--data-dir", help="data directory of the embedded server (default: $EMBEDDED_REDIS_DIR)")
    common.add_argument("--namespace", help="index namespace (default: $DEDUP_NAMESPACE or 'news')")
    common.add_argument(
        "-s", "--set", action="append", default=[], metavar="NAME=VALUE", help="a setting, as for scrapy crawl"
    )
    rules = argparse.ArgumentParser(add_help=False)  # only where articles are decided or explained
    rules.add_argument(
        "--sentences",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the second rule, shared longest sentences (default: DEDUP_SENTENCES, on)",
    )
    parser = argparse.ArgumentParser(  # @FILE: arguments read from FILE, one a line
        prog="news-dedup", description=__doc__.split("\n\n")[0].replace("``", ""), fromfile_prefix_chars="@"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("check", parents=[common, rules], help="decide every article of a JSON Lines file")
    p.add_argument(
        "--max-distance",
        type=_non_negative,
        default=None,
        help="Hamming distance of a near-duplicate (default: DEDUP_MAX_DISTANCE, 3; fewer than the blocks)",
    )
    p.add_argument(
        "--blocks",
        default=None,
        metavar="W,W,...",
        help="the index's layout: the 64 bits cut into blocks (default: DEDUP_BLOCKS, 16,16,16,16; "
        "16,12,12,12,12 reaches distance 4); a namespace keeps the one it began with",
    )
    p.add_argument(
        "--workers",
        type=_workers,
        default=default_workers(),
        help="processes that parse and fingerprint (default: this machine's cores, %(default)s)",
    )
    p.add_argument(
        "--original",
        choices=("earliest", "first"),
        default=None,
        help="which copy of a story is kept: the earliest published (lines with published_at) "
        "or the first decided (default: DEDUP_ORIGINAL, earliest)",
    )
    p.add_argument("file", help="JSON Lines with id and body (or html), '-' for stdin")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("stats", parents=[common], help="fingerprints held, drops, Redis memory")
    p.add_argument("--json", action="store_true", help="one line of JSON")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser(
        "explain",
        parents=[common, rules],
        help="nearest kept articles of an id or a text, and the kept articles sharing its sentences",
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument(
        "--id",
        help="a decided document id (a URL for crawled articles); with --text or --file "
        "(its body), a sentence-rule drop names the sentences it shares",
    )
    what.add_argument("--simhash", help="16 hex digits")
    body = p.add_mutually_exclusive_group()
    body.add_argument("--text", help="an article body")
    body.add_argument("--file", help="a file holding an article body, '-' for stdin")
    p.add_argument(
        "--limit", type=positive, default=5, help="nearest kept articles and sentence holders shown, at most"
    )
    p.add_argument("--json", action="store_true", help="one line of JSON")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser(
        "forget", parents=[common], help="remove articles from the index (their fingerprint or drop record)"
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="a decided document id (a URL for crawled articles)")
    p.add_argument(
        "--all",
        action="store_true",
        help="remove the namespace's whole index, of any format (the spiders' queues and seen URLs stay)",
    )
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("expire", parents=[common], help="delete fingerprint generations older than the retention")
    p.set_defaults(func=cmd_expire)

    p = sub.add_parser("story", parents=[common], help="the first kept article of a story and every copy of it dropped")
    p.add_argument("id", metavar="ID", help="an article's id (its URL): the original or any of its copies")
    p.add_argument("--scan", type=positive, default=1_000_000, help="drop records read, newest first, at most")
    p.set_defaults(func=cmd_story)

    p = sub.add_parser(
        "archive",
        parents=[common],
        help="compress the sealed generations into the seed's sorted tables (read-only, deciding as before)",
    )
    p.add_argument("--all", action="store_true", help="the live generation too: a new one begins first")
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("drops", parents=[common], help="recorded near-duplicates and what they duplicate, newest first")
    p.add_argument("--limit", type=positive, default=100, help="records shown, at most (default 100)")
    p.set_defaults(func=cmd_drops)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.getLogger("jieba").setLevel(logging.WARNING)
    try:
        warn_of_environment()
        if args.set:  # Scrapy's names are read only then: news-dedup starts fast
            for line in unknown_names(_settings(args).keys() & parse_overrides(args.set).keys(), known_names()):
                print(line, file=sys.stderr)
        check_values(_settings(args))
        return args.func(args)
    except (redis.RedisError, EmbeddedServerError) as e:  # before any output: Redis never answered
        problem = redis_problem(e, connection.url_named(_settings(args)))
        print(f"news-dedup: {problem}", file=sys.stderr)
        return problem.exit_code
    except UserError as e:
        print(f"news-dedup: {e}", file=sys.stderr)
        return e.exit_code
    except (ValueError, OSError) as e:
        print(f"news-dedup: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
