"""What is to be fetched: the Redis scheduler, the dupefilters, the leased queue and
the codec of its requests."""
