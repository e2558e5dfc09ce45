"""A local web of real Chinese portal pages, and the demos that crawl it.

Not part of the product (it is neither in the wheel nor in the image): news sites cannot
be reached from every machine, so tests, benchmarks and ``./run demo`` crawl this instead.

``data`` finds the real saved pages (``../shared/data``); ``catalog`` assigns them to the
portals under real-looking article URLs, adds edited reprints of some stories on other
portals, and splits everything into day 1 and day 2; ``server`` serves it over HTTP with
generated list pages and feeds at the spiders' real start URLs; ``handler`` is the Scrapy
download handler that sends a crawl's requests to the mirror while every URL stays the
real one, and ``settings`` is the Scrapy settings module that turns it on.
"""
