"""What every part of a crawl process shares: its runtime (Redis client, outage, worker pool),
the page work the pool does, counts, request meta, log lines, the quick stop and the summary."""
