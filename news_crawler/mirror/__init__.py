"""A local mirror of real portal pages, so spiders can be run and tested with no network.

``catalog`` assigns real saved pages (``../shared/data/pages``) to the portals under real
looking article URLs, adds edited reprints of some stories on other portals, and splits
everything into day 1 and day 2. ``server`` serves it over HTTP, with generated list pages
and feeds at the spiders' real start URLs. ``handler`` is the download handler that
sends a crawl's requests to the mirror while every URL stays the real one.
"""
