"""Near-duplicate removal: the fingerprint (pure), the index in Redis, both built from
settings."""
