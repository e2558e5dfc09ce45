"""Incremental Chinese news crawler with simhash near-duplicate removal."""

__version__ = "0.1.0"
