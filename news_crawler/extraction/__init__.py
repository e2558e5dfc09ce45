"""Article extraction from HTML pages."""

from news_crawler.extraction.article import Article, extract_article

__all__ = ["Article", "extract_article"]
