"""Operating a deployment: the daily report, adopting a scrapy-redis queue, settings
checked before a start."""
