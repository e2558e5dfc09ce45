"""What became of each URL: the store in Redis, the tracker that records it, the
pipelines' drops."""
