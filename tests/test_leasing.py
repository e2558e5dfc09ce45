"""The leased queue against a real Redis: a taken request is held, not lost, until acked."""

import subprocess
import sys

from scrapy import Request, Spider

from news_crawler.frontier import request_json
from news_crawler.frontier.leasing.owner import is_dead_here, this_owner
from news_crawler.frontier.leasing.queue import LEASE_META, LeasedPriorityQueue


class Site(Spider):
    name = "site"


def queue(client, lease_seconds=120.0) -> LeasedPriorityQueue:
    q = LeasedPriorityQueue(client, Site(), "%(spider)s:requests", request_json)
    q.lease_seconds = lease_seconds
    return q


def test_pop_leases_and_ack_ends_the_lease(redis_client):
    q = queue(redis_client)
    q.push(Request("https://x.example/low", priority=0))
    q.push(Request("https://x.example/high", priority=5))
    first = q.pop()
    assert first.url == "https://x.example/high" and first.meta[LEASE_META].startswith(this_owner().encode() + b"\n")
    assert len(q) == 1 and q.in_flight() == 1
    q.ack(first)
    assert q.in_flight() == 0


def test_a_dead_workers_leases_come_back_first_thing_and_only_once(redis_client):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    owner = this_owner().split(":")[0] + f":{dead.stdout.strip()}:1"
    assert is_dead_here(owner)
    payload = request_json.dumps(Request("https://x.example/taken", priority=3).to_dict())
    redis_client.zadd("site:requests:inflight", {f"{owner}\n{payload}": 9e12})  # a lease far from expiry
    live = queue(redis_client)
    held = live.push(Request("https://x.example/mine")) or live.pop()  # this worker's own lease stays
    assert live.reclaim() == 1 and queue(redis_client).reclaim() == 0
    back = live.pop()
    assert back.url == "https://x.example/taken" and back.priority == 3
    assert live.in_flight() == 2 and held.url == "https://x.example/mine"


def test_an_unreadable_lease_of_a_dead_worker_comes_back_at_priority_zero_then_is_set_aside(redis_client):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    owner = this_owner().split(":")[0] + f":{dead.stdout.strip()}:1"
    redis_client.zadd("site:requests:inflight", {f"{owner}\nnot a request": 9e12})
    q = queue(redis_client)
    assert q.reclaim() == 1 and redis_client.zrange("site:requests", 0, -1, withscores=True) == [(b"not a request", 0)]
    assert q.pop() is None and redis_client.lrange("site:requests:unreadable", 0, -1) == [b"not a request"]


def test_a_live_process_of_this_host_is_not_dead_and_is_sent_no_signal(tmp_path):
    """Telling a live owner from a dead one only asks (signal 0): a worker of this host that
    is alive is left alone, never sent a signal that would stop it."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time\n"
            "for s in (signal.SIGHUP, signal.SIGINT, signal.SIGUSR1, signal.SIGUSR2):\n"
            "    signal.signal(s, lambda n, f: print('signal', n, flush=True))\n"
            "signal.signal(signal.SIGTERM, lambda n, f: sys.exit(0))\n"
            "print('ready', flush=True)\n"
            "while True: time.sleep(1)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline() == "ready\n"
        from news_crawler.frontier.leasing.owner import _start_time

        owner = f"{this_owner().split(':')[0]}:{child.pid}:{_start_time(child.pid)}"
        assert not is_dead_here(owner)
        assert is_dead_here(f"{this_owner().split(':')[0]}:{child.pid}:1")  # the pid reused by another process
    finally:
        child.terminate()
    assert child.wait(60) == 0 and child.stdout.read() == ""  # no signal but the test's own SIGTERM


def test_an_expired_lease_of_a_silent_worker_is_requeued(redis_client):
    expired = request_json.dumps(Request("https://x.example/far").to_dict())
    renewed = request_json.dumps(Request("https://x.example/busy").to_dict())
    redis_client.zadd("site:requests:inflight", {f"other-host:123:456\n{expired}": 1.0})  # expired in 1970
    redis_client.zadd("site:requests:inflight", {f"other-host:124:457\n{renewed}": 9e12})  # alive elsewhere
    q = queue(redis_client)
    assert q.reclaim() == 1 and len(q) == 1 and q.in_flight() == 1


def test_renew_keeps_held_leases_alive(redis_client):
    q = queue(redis_client, lease_seconds=-60)  # popped with a lease that has run out already
    q.push(Request("https://x.example/slow"))
    request = q.pop()
    q.lease_seconds = 3600
    assert q.renew() == 1
    assert queue(redis_client).reclaim() == 0  # another worker sees a live lease
    q.ack(request)
    assert q.renew() == 0  # an acked lease is not brought back by a renewal
    assert q.in_flight() == 0


def test_a_lease_requeued_elsewhere_is_not_made_again_by_a_renewal(redis_client):
    q = queue(redis_client)
    for n in range(2):
        q.push(Request(f"https://x.example/{n}"))
    taken, kept = q.pop(), q.pop()
    # another worker found the lease expired and requeued it; this one still holds it
    redis_client.zrem("site:requests:inflight", taken.meta[LEASE_META])
    assert q.renew() == 1
    assert redis_client.zrange("site:requests:inflight", 0, -1) == [kept.meta[LEASE_META]]


def test_postponed_requests_wait_for_the_next_run(redis_client):
    q = queue(redis_client)
    q.postpone(Request("https://x.example/retry", priority=1))
    assert len(q) == 0
    assert queue(redis_client).resume_postponed() == 1
    back = q.pop()
    assert back.url == "https://x.example/retry" and back.dont_filter  # past the dupefilter that saw it


def test_an_unreadable_entry_is_set_aside_not_run(redis_client, caplog):
    import pickle

    q = queue(redis_client)
    pickled = pickle.dumps({"url": "https://x.example/pickled"}, protocol=4)  # as scrapy-redis queues them
    redis_client.zadd("site:requests", {pickled: -10})
    q.push(Request("https://x.example/json"))
    assert q.pop().url == "https://x.example/json"  # the pickle is skipped, never unpickled
    assert redis_client.lrange("site:requests:unreadable", 0, -1) == [pickled] and q.unreadable == 1
    assert q.in_flight() == 1 and "not JSON" in caplog.text


def test_the_scheduler_renews_its_leases_every_third_of_a_lease(make_crawler, redis_client):
    """The scheduler's own loop renews what it holds: once the loop's clock has moved a third
    of a lease on, the lease ends later than it did when the request was popped."""
    from scrapy import Spider
    from twisted.internet.task import Clock

    from news_crawler.frontier.scheduler import RedisScheduler

    class Site(Spider):
        name = "renewing"

    crawler = make_crawler(
        Site, {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler", "SCHEDULER_LEASE_SECONDS": 60}
    )
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.timer = timer = Clock()
    scheduler.open(crawler.spider)
    assert scheduler.enqueue_request(Request("https://x.example/held"))
    request = scheduler.next_request()
    ((_, first),) = redis_client.zrange("renewing:requests:inflight", 0, -1, withscores=True)
    timer.advance(20)  # a third of the lease: the loop runs once
    ((_, renewed),) = redis_client.zrange("renewing:requests:inflight", 0, -1, withscores=True)
    assert renewed > first
    scheduler.ack(request)
    scheduler.close("finished")
    assert redis_client.zcard("renewing:requests:inflight") == 0


def test_without_the_tracker_a_lease_ends_when_its_response_reaches_the_spider_or_it_is_dropped(
    make_crawler, redis_client
):
    """A scheduler used as a component, outside a crawl (no engine, so no tracker): its leases
    end on the response or the drop, as scrapy-redis' would, never stay until the next run."""
    from scrapy import signals
    from scrapy.http import HtmlResponse

    from news_crawler.frontier.scheduler import RedisScheduler

    class Site(Spider):
        name = "component"

    crawler = make_crawler(Site, {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler"})
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    for path in ("answered", "dropped"):
        assert scheduler.enqueue_request(Request(f"https://x.example/{path}"))
    first, second = scheduler.next_request(), scheduler.next_request()
    answered, dropped = (first, second) if first.url.endswith("answered") else (second, first)
    assert redis_client.zcard("component:requests:inflight") == 2
    response = HtmlResponse(answered.url, body=b"<html></html>", request=answered)
    spider = crawler.spider
    crawler.signals.send_catch_log(signals.response_received, response=response, request=answered, spider=spider)
    assert redis_client.zcard("component:requests:inflight") == 1
    crawler.signals.send_catch_log(signals.request_dropped, request=dropped, spider=spider)
    assert redis_client.zcard("component:requests:inflight") == 0
    scheduler.close("finished")
