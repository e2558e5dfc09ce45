"""The revisit schedule: the estimate of each start page's interval, and its shared state in a
real Redis (claims, expiry when a watcher dies, the next visit)."""

from __future__ import annotations

import math
import threading

import pytest

from news_crawler.frontier.revisits import (
    PageState,
    RevisitSchedule,
    StateFormatError,
    after_visit,
    interval_for,
    with_more_links,
)
from tests.crawl_helpers import wait_for

LO, HI = 2.0, 120.0


def visits(new_links_each: list[int], gap: float | None = None, lo: float = LO, hi: float = HI) -> list[PageState]:
    """The states after a baseline visit and then one visit for each count, each coming when
    the state before said (or ``gap`` seconds later)."""
    now, state = 0.0, after_visit(None, 0.0, "unchanged", 0, lo, hi)
    states = [state]
    for n in new_links_each:
        now += gap if gap is not None else state.interval
        state = after_visit(state, now, "new_links" if n else "unchanged", n, lo, hi)
        states.append(state)
    return states


def test_the_first_visit_is_a_baseline_and_the_next_comes_after_revisit_min():
    state = after_visit(None, 100.0, "new_links", 30, LO, HI)  # a fresh watcher: every link is new
    assert state.interval == LO
    assert state.rate == 0 and state.new_total == 0  # no evidence of the rate


def test_a_page_that_never_changes_reaches_revisit_max_in_a_few_visits_and_stays():
    states = visits([0] * 12)
    intervals = [s.interval for s in states]
    assert intervals[:4] == [2, 4, 8, 16]  # doubling
    assert intervals[7:] == [HI] * 6
    # Over ten minutes it is fetched about D / REVISIT_MAX times, well under 1.5 x that + 5.
    times = [0.0]
    while times[-1] < 600:
        times.append(times[-1] + states[min(len(times) - 1, len(states) - 1)].interval)
    assert len(times) - 1 <= 1.5 * 600 / HI + 5


def test_the_interval_follows_the_rate_as_the_square_root_of_the_gap():
    # a new link every 50 s on average: visited every sqrt(2 * 50) = 10 s
    states = visits([1, 0, 0, 0, 0] * 40, gap=10.0)
    assert states[-1].rate == pytest.approx(1 / 50, rel=0.1)
    assert states[-1].interval == pytest.approx(math.sqrt(LO * 50), rel=0.1)
    # a busier page is visited more often, a quieter one less, within the bounds
    assert interval_for(1.0, LO, HI) == LO
    assert interval_for(1 / 60, LO, HI) < interval_for(1 / 600, LO, HI) < HI
    assert interval_for(0.0, LO, HI) == HI


def test_a_burst_pulls_a_quiet_page_back_at_once_and_silence_lets_it_drift_away():
    quiet = visits([1] + [0] * 30)[-1]
    assert quiet.interval > 30
    burst = after_visit(quiet, quiet.last + quiet.interval, "new_links", 25, LO, HI)
    assert burst.interval < quiet.interval / 3
    later, now = burst, burst.last
    while now < burst.last + 3600:  # an hour of nothing: visited less often
        now += later.interval
        later = after_visit(later, now, "unchanged", 0, LO, HI)
    assert later.interval > 1.5 * burst.interval
    while now < burst.last + 8 * 3600:  # hours of nothing: back to REVISIT_MAX
        now += later.interval
        later = after_visit(later, now, "unchanged", 0, LO, HI)
    assert later.interval == HI


def test_a_failure_is_no_evidence_and_a_304_is_an_unchanged_visit():
    state = visits([1, 1, 1])[-1]
    before = state.interval
    failed = after_visit(state, state.last + 5, "failed", 0, LO, HI)
    assert failed.interval == before and failed.links == state.links and failed.results["failed"] == 1
    state.etag = '"v1"'
    same = after_visit(state, state.last + before, "not_modified", 0, LO, HI)
    assert same.etag == '"v1"'  # a 304 keeps the validators it answered
    assert same.links < state.links  # and is evidence of no new link
    with pytest.raises(ValueError, match="result"):
        after_visit(state, 1.0, "maybe", 0, LO, HI)


def test_new_links_on_the_pages_a_visit_led_to_count_as_its_own():
    quiet = visits([0, 0, 0])[-1]  # a sitemap index: its own page never shows an article
    assert quiet.watched == 0 and quiet.interval == 16
    found = with_more_links(quiet, 4, LO, HI)  # its sitemap did
    assert found.new_total == 4 and found.rate == pytest.approx(4 / quiet.span)
    assert found.interval < quiet.interval and quiet.new_total == 0  # a new state
    busy = visits([2, 2])[-1]
    assert with_more_links(busy, 2, LO, HI).links == pytest.approx(busy.links + 2)
    assert with_more_links(busy, 0, LO, HI) is busy


def test_a_state_of_another_format_is_refused_with_what_to_do():
    state = after_visit(None, 1.0, "unchanged", 0, LO, HI)
    assert PageState.from_json(state.to_json()) == state
    with pytest.raises(StateFormatError, match="delete the spider.s revisit keys"):
        PageState.from_json('{"interval": 3, "last": 1, "since": 1}')


def schedule(client, claim_seconds: float = 30.0) -> RevisitSchedule:
    return RevisitSchedule(client, "site:revisits", LO, HI, claim_seconds)


def test_start_pages_are_due_at_once_keep_their_time_and_leave_when_no_longer_listed(redis_client, caplog):
    s = schedule(redis_client)
    assert s.register(["http://a.cn/", "http://a.cn/b/"]) == 2
    claimed = s.claim().pages
    assert sorted(c.url for c in claimed) == ["http://a.cn/", "http://a.cn/b/"]
    assert all(c.state is None for c in claimed)
    s.visited("http://a.cn/", "unchanged", etag='"e"')
    s.visited("http://a.cn/b/", "new_links", 3)
    assert s.register(["http://a.cn/", "http://a.cn/c/"]) == 1  # b/ leaves with its state, c/ is new
    assert redis_client.hget(s.key, "http://a.cn/b/") is None
    pages = {p.url: p for p in s.pages()}
    assert set(pages) == {"http://a.cn/", "http://a.cn/c/"}
    assert pages["http://a.cn/"].state is not None and pages["http://a.cn/"].state.etag == '"e"'
    assert pages["http://a.cn/"].due == pytest.approx(s.now() + LO, abs=1.0)  # kept its time
    assert s.visited("http://a.cn/b/", "unchanged") is None  # a visit of a page no longer listed: not written
    assert redis_client.hget(s.key, "http://a.cn/b/") is None
    assert "kept changing" not in caplog.text  # and not tried again as if another watcher had written


def test_a_due_page_is_claimed_by_one_watcher_of_many(redis_client):
    urls = [f"http://a.cn/{n}/" for n in range(200)]
    schedule(redis_client).register(urls)
    watchers = [schedule(redis_client.__class__(connection_pool=redis_client.connection_pool)) for _ in range(4)]
    got: list[list[str]] = [[] for _ in watchers]

    def claim(n: int) -> None:
        for _ in range(20):
            got[n] += [c.url for c in watchers[n].claim(7).pages]

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(len(watchers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [url for claimed in got for url in claimed]
    assert sorted(every) == sorted(urls)  # each once, none lost


def test_a_page_whose_watcher_died_is_due_again_when_its_claim_runs_out(redis_client):
    dead, alive = schedule(redis_client, claim_seconds=0.5), schedule(redis_client, claim_seconds=0.5)
    dead.register(["http://a.cn/"])
    assert [c.url for c in dead.claim().pages] == ["http://a.cn/"]  # and never recorded: it was killed
    assert alive.claim().pages == []  # claimed: nobody else fetches it meanwhile
    taken: list[str] = []
    wait_for(lambda: taken.extend(c.url for c in alive.claim().pages) or taken, 10, "the claim to run out")
    assert taken == ["http://a.cn/"]


def test_a_claim_says_how_long_until_the_next_page_is_due(redis_client):
    """A watcher sleeps until then (``poll`` at most), not a fixed poll: a revisit is fetched
    when it is due."""
    s = schedule(redis_client, claim_seconds=30.0)
    assert s.claim().wait == math.inf  # nothing scheduled
    s.register(["http://a.cn/", "http://a.cn/b/"])
    assert len(s.claim().pages) == 2
    s.visited("http://a.cn/", "new_links", 10)  # due again in LO
    claims = s.claim()
    assert claims.pages == [] and LO - 1.0 < claims.wait <= LO
    redis_client.zadd("site:revisits:due", {"http://a.cn/b/": s.now() - 1})  # b/ due (its claim ran out)
    claims = s.claim(1)
    assert [c.url for c in claims.pages] == ["http://a.cn/b/"] and 0 < claims.wait <= LO
    s.register(["http://a.cn/", "http://a.cn/b/", *(f"http://a.cn/{n}/" for n in range(3))])
    claims = s.claim(2)  # three new pages due at once, two claimed: the third is due now
    assert len(claims.pages) == 2 and claims.wait == 0


def test_a_visit_sets_the_next_one_by_the_server_clock(redis_client):
    s = schedule(redis_client)
    s.register(["http://a.cn/"])
    s.claim()
    first = s.visited("http://a.cn/", "new_links", 10)
    assert first is not None and first.interval == LO
    second = s.visited("http://a.cn/", "unchanged")
    assert second is not None and second.interval == 2 * LO
    (page,) = s.pages()
    assert page.due == pytest.approx(s.now() + 2 * LO, abs=1.0)
    assert page.state is not None and page.state.results == {"new_links": 1, "unchanged": 1}


@pytest.mark.parametrize("step", ["visited", "more_links"])
def test_two_watchers_recording_at_once_never_overwrite_each_other(redis_client, step):
    url = "http://a.cn/"
    mine, other = schedule(redis_client), schedule(redis_client)
    mine.register([url])
    mine.claim()
    mine.visited(url, "unchanged")
    reads: list[bytes | None] = []

    def update(raw, now):
        if not reads:  # between this watcher's read and its write, another records a visit
            other.visited(url, "new_links", 3)
        reads.append(raw)
        if step == "visited":
            state = after_visit(PageState.from_json(raw), now, "unchanged", 0, LO, HI)
            return state, [state.interval]
        state = with_more_links(PageState.from_json(raw), 5, LO, HI)
        return state, [state.last + state.interval]

    # the step visited() and more_links() share, each with its script
    state = mine._update(url, mine._visited if step == "visited" else mine._sooner, update)
    assert len(reads) == 2  # the write saw the state change and read it again
    assert state is not None
    assert state.results == (
        {"unchanged": 2, "new_links": 1} if step == "visited" else {"unchanged": 1, "new_links": 1}
    )
    (page,) = mine.pages()
    assert page.state == state


def test_more_links_bring_the_next_visit_sooner_and_never_extend_it(redis_client):
    url = "http://a.cn/"
    s = schedule(redis_client)
    s.register([url])
    s.claim()
    for _ in range(4):
        s.visited(url, "unchanged")  # doubling: 2, 4, 8, 16
    (before,) = s.pages()
    state = s.more_links(url, 10)
    assert state is not None and state.interval < 16
    (after,) = s.pages()
    assert after.due == pytest.approx(state.last + state.interval, abs=0.01) and after.due < before.due
    # a visit due sooner than the links would set it (a claim in progress, or already due) stays so
    soon = s.now() + 1
    redis_client.zadd(s.due_key, {url: soon})
    assert s.more_links(url, 1) is not None
    (kept,) = s.pages()
    assert kept.due == pytest.approx(soon, abs=0.001)
    assert s.more_links("http://b.cn/", 3) is None  # no such page


def test_new_links_a_day_count_a_first_visit_under_a_second_ago_as_one_second():
    from news_crawler.frontier.revisits.estimate import PageState

    state = PageState(interval=60, last=1000.0, since=1000.0, new_total=3)
    assert state.per_day(1000.0) == state.per_day(1000.5) == 3 * 86400  # never a division by nothing
    assert state.per_day(1000.0 + 86400) == 3 and state.per_day(1002.0) == 3 * 43200
