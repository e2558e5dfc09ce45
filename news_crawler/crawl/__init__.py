"""A crawl process's plumbing: the shared runtime, the worker pool, download safety and
retries, stopping, logging, the summary."""
