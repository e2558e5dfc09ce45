"""``news-crawler watch`` on a live simulated news web, against the best fixed-interval schedule.

    python benchmarks/watch.py [--duration 600] [--min 2] [--max 120] [--seed 1]
    python benchmarks/watch.py --simulate 30 [--overhead 0.05]    # the schedule alone, on 30 draws

Twelve sites publish real articles (the sina2018 corpus of ``NEWS_DATA``, else the shipped
excerpt): ten as Poisson processes whose mean gaps run from 3 s to 300 s (a hundredfold), one
bursty site (quiet, with bursts of fifteen articles in twenty seconds) and one that never
changes; each starts with a few articles already up. Some are RSS feeds, some HTML lists;
most give ETag and Last-Modified, three do not. ``news-crawler watch --for DURATION`` runs
on them with REVISIT_MIN and REVISIT_MAX, on its own embedded Redis, as a user would run it.

Printed: coverage (articles published during the run that reached the feed, all and those
published 10 s before the end), discovery latency (``crawled_at`` minus the true publication
time) median and 90th percentile, the list fetches made, the shortest and longest gap
between two fetches of one page, the never-changing site's fetches, the share of unchanged
revisits of sites with validators that were answered 304, how long after DURATION the
command exited, and URLs in the feed more than once.

The baseline: the fixed interval that makes the same number of list fetches (sites x
DURATION / fetches), each site at a random phase (the mean of 50 draws), each article found
at the first fetch after it appears plus this run's own median time from a list fetch to the
article's feed line (the same machinery would take as long): the ratio of the two medians and
of the two 90th percentiles.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from news_mirror.data import NEWS_DATA  # noqa: E402
from news_mirror.live import LiveSite, LiveWeb, articles, serve, sites_file  # noqa: E402


def poisson(rng: random.Random, gap: float, duration: float) -> list[float]:
    t, out = 0.0, []
    while True:
        t += rng.expovariate(1 / gap)
        if t > duration:
            return out
        out.append(t)


def build_sites(duration: float, seed: int) -> list[LiveSite]:
    rng = random.Random(seed)
    sites = []
    for i in range(10):
        gap = 3 * 100 ** (i / 9)
        old = [-rng.uniform(60, 3600) for _ in range(5)]
        sites.append(
            LiveSite(f"rate{i}", sorted(old) + poisson(rng, gap, duration), feed=i % 3 == 1, validators=i % 4 != 3)
        )
    bursty = [-rng.uniform(60, 3600) for _ in range(5)] + poisson(rng, 200, duration)
    for _ in range(max(1, int(duration // 200))):  # a burst every 200 s or so
        start = rng.uniform(0, duration - 20)
        bursty += [start + rng.uniform(0, 20) for _ in range(15)]
    sites.append(LiveSite("bursty", sorted(bursty)))
    sites.append(LiveSite("never", sorted(-rng.uniform(60, 3600) for _ in range(10))))
    return sites


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def fixed_baseline(
    web: LiveWeb, duration: float, fetches: int, overhead: float, draws: int = 50
) -> tuple[float, float, float]:
    """Median and p90 latency of the fixed interval making ``fetches`` list fetches; the interval."""
    interval = len(web.sites) * duration / fetches
    rng = random.Random(0)
    medians, p90s = [], []
    for _ in range(draws):
        latencies = []
        for site in web.sites.values():
            phase = rng.uniform(0, interval)
            for t in site.times:
                if 0 <= t <= duration:
                    k = math.ceil((t - phase) / interval)
                    latencies.append(phase + k * interval - t + overhead)
        medians.append(statistics.median(latencies))
        p90s.append(pct(latencies, 0.9))
    return statistics.mean(medians), statistics.mean(p90s), interval


def simulate(draws: int, duration: float, lo: float, hi: float, overhead: float = 0.0) -> None:
    """The schedule's own estimate (``after_visit``) replayed on ``draws`` draws of the web,
    without a crawler: each page visited when its state says, each article found at the first
    visit after it appears, ``overhead`` seconds later (a real run's fetches and parses). What
    a run's figures would be, and how they spread with the draw."""
    from news_crawler.frontier.revisits import after_visit

    rows = []
    for seed in range(1, draws + 1):
        sites = build_sites(duration, seed)
        latencies, fetches, never = [], 0, 0
        for site in sites:
            times = sorted(t for t in site.times if 0 <= t <= duration)
            now, state, k = 0.0, after_visit(None, 0.0, "unchanged", 0, lo, hi), 0
            visits = 1
            while now + state.interval <= duration:
                now += state.interval
                found = 0
                while k < len(times) and times[k] <= now:
                    latencies.append(now - times[k] + overhead)
                    k, found = k + 1, found + 1
                state = after_visit(state, now, "new_links" if found else "unchanged", found, lo, hi)
                visits += 1
            fetches += visits
            never += visits if site.name == "never" else 0
        web = LiveWeb(sites, [{"title": "", "body": ""}] * sum(len(s.times) for s in sites))
        base_median, base_p90, _ = fixed_baseline(web, duration, fetches, 0.0, draws=20)
        rows.append((statistics.median(latencies) / base_median, pct(latencies, 0.9) / base_p90, never))
    medians, p90s = [r[0] for r in rows], [r[1] for r in rows]
    both = sum(m <= 0.6 and p <= 0.8 for m, p, _ in rows)
    within = (sum(m <= 0.6 for m, _, _ in rows), sum(p <= 0.8 for _, p, _ in rows))
    print(
        f"{draws} draws, REVISIT_MIN={lo:g} REVISIT_MAX={hi:g}: ratio median {statistics.mean(medians):.2f} "
        f"(best {min(medians):.2f}, worst {max(medians):.2f}), p90 {statistics.mean(p90s):.2f} "
        f"(best {min(p90s):.2f}, worst {max(p90s):.2f}); both within 0.6 and 0.8 in {both} of {draws} "
        f"(the median in {within[0]}, the p90 in {within[1]}); "
        f"never-changing site fetched at most {max(r[2] for r in rows)} times"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0)
    parser.add_argument("--min", type=float, default=2.0)
    parser.add_argument("--max", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulate", type=int, metavar="DRAWS", help="replay the schedule alone on this many draws")
    parser.add_argument("--overhead", type=float, default=0.0, help="--simulate: seconds added to each latency")
    parser.add_argument("--verbose", action="store_true", help="the command's output, latency by site, missed articles")
    args = parser.parse_args()
    if args.simulate:
        simulate(args.simulate, args.duration, args.min, args.max, args.overhead)
        return
    sites = build_sites(args.duration, args.seed)
    corpus = NEWS_DATA / "sina2018" if (NEWS_DATA / "sina2018" / "articles.jsonl.gz").exists() else None
    web = LiveWeb(sites, articles(sum(len(s.times) for s in sites), seed=args.seed, corpus=corpus))
    server, base = serve(web)
    tmp = Path(tempfile.mkdtemp(prefix="watch-bench-"))
    env = {
        **os.environ,
        "SITES_FILE": str(sites_file(web, base, tmp / "sites.toml")),
        "DATA_DIR": str(tmp / "data"),
        "REVISIT_MIN": str(args.min),
        "REVISIT_MAX": str(args.max),
    }
    web.start = time.time()  # the command starts now: its first visits see the articles already up
    started = time.monotonic()
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "watch", "--for", str(args.duration)]
    run = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    overrun = time.monotonic() - started - args.duration
    server.shutdown()
    # the run's embedded Redis keeps running between commands, as a user's does: not this one's
    subprocess.run([sys.executable, "-m", "news_crawler.cli.crawler", "stop-server"], env=env, capture_output=True)

    lines = [json.loads(x) for f in (tmp / "data" / "output").rglob("*.jsonl") for x in f.read_text().splitlines()]
    urls = [x["url"] for x in lines]
    crawled = {x["url"]: datetime.fromisoformat(x["crawled_at"]).timestamp() for x in lines}
    appeared, caught, latencies, overheads, by_site = 0, 0, [], [], {}
    caught_by_end, appeared_by_end = 0, 0
    for site in web.sites.values():
        fetched_lists = [f for f in web.fetches if f.site == site.name and f.status == 200]
        for n, t in enumerate(site.times):
            if not 0 <= t <= args.duration:
                continue
            url = web.url(base, site.name, n)
            appeared += 1
            appeared_by_end += t <= args.duration - 10
            if url not in crawled:
                continue
            caught += 1
            caught_by_end += t <= args.duration - 10
            latencies.append(crawled[url] - web.published(site.name, n))
            by_site.setdefault(site.name, []).append(latencies[-1])
            shown = next((f.at for f in fetched_lists if n in f.shown), None)
            if shown is not None:
                overheads.append(crawled[url] - (web.start + shown))
    fetches = len(web.fetches)
    overhead = statistics.median(overheads) if overheads else 0.0
    base_median, base_p90, interval = fixed_baseline(web, args.duration, fetches, overhead)
    gaps, longest = [], 0.0
    for name in web.sites:
        times = [f.at for f in web.fetches if f.site == name]
        gaps += [b - a for a, b in zip(times, times[1:])]
        longest = max([longest, *gaps, args.duration - times[-1] if times else args.duration])  # the end's too
    unchanged = [f for f in web.fetches if web.sites[f.site].validators and not f.changed]
    never = sum(1 for f in web.fetches if f.site == "never")
    median, p90 = statistics.median(latencies), pct(latencies, 0.9)
    print(
        f"watch --for {args.duration:g} on {len(web.sites)} sites, REVISIT_MIN={args.min:g} "
        f"REVISIT_MAX={args.max:g}, seed {args.seed}: exit {run.returncode}, {overrun:+.1f}s after the duration"
    )
    print(
        f"coverage {caught}/{appeared} = {caught / appeared:.3f}; published 10 s before the end: "
        f"{caught_by_end}/{appeared_by_end} = {caught_by_end / appeared_by_end:.3f}"
    )
    print(f"latency median {median:.2f}s p90 {p90:.2f}s (list fetch to feed line, median {overhead:.2f}s)")
    print(
        f"fixed interval {interval:.1f}s with the same {fetches} list fetches: "
        f"median {base_median:.2f}s p90 {base_p90:.2f}s"
    )
    print(f"ratio median {median / base_median:.2f} p90 {p90 / base_p90:.2f}")
    print(
        f"gaps between fetches of a page: shortest {min(gaps):.2f}s, longest {longest:.1f}s; "
        f"never-changing site fetched {never} times (D/MAX = {args.duration / args.max:.1f})"
    )
    answered = sum(f.status == 304 for f in unchanged)
    print(f"unchanged revisits of sites with validators answered 304: {answered}/{len(unchanged)}")
    print(f"feed lines {len(urls)}, URLs more than once: {len(urls) - len(set(urls))}")
    if run.returncode or args.verbose:
        print(run.stdout[-3000:], run.stderr[-3000:])
    if args.verbose:
        for name, values in by_site.items():
            tail = sum(v >= p90 for v in values)
            print(
                f"  {name}: {len(values)} articles, median {statistics.median(values):.2f}s, "
                f"p90 {pct(values, 0.9):.2f}s, {tail} at or past the p90"
            )
        for site in web.sites.values():
            times = [round(f.at, 2) for f in web.fetches if f.site == site.name]
            close = [(a, b) for a, b in zip(times, times[1:]) if b - a < args.min]
            missed = [
                n
                for n, t in enumerate(site.times)
                if 0 <= t <= args.duration - 10 and web.url(base, site.name, n) not in crawled
            ]
            if close or missed:
                print(site.name, "close fetches", close, "missed", [(n, round(site.times[n], 1)) for n in missed])
        print(tmp)


if __name__ == "__main__":
    main()
