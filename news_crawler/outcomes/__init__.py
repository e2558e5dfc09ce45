"""The records of what became of each URL, kept in Redis: outcomes, failures, drops, changes
found by rechecks, discovery latency."""
