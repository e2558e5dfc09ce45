"""Leases instead of pops: a request taken from the Redis queue waits in an in-flight set
until its outcome is recorded, so a worker that dies loses nothing."""

from news_crawler.frontier.leasing.owner import this_owner
from news_crawler.frontier.leasing.queue import LeasedPriorityQueue

__all__ = ["LeasedPriorityQueue", "this_owner"]
