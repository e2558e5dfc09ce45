"""Scrapy commands of the project (``COMMANDS_MODULE``): ``crawl`` with an exit code a cron
job can act on."""
