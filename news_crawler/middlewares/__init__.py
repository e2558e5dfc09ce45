"""What Scrapy runs around the downloader and the spiders: only http(s) on the site's hosts,
retries with backoff, the browser's download handler, and every request to its outcome."""
