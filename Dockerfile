# The crawler image: workers, the seeder and the daily job all run from it.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md scrapy.cfg ./
COPY news_crawler ./news_crawler
RUN pip install --no-cache-dir . && useradd --create-home crawler && mkdir -p /data && chown crawler /data
USER crawler
ENV FEED_DIR=/data/output \
    DAILY_DIR=/data/daily
VOLUME /data
CMD ["news-crawler", "worker", "--idle", "0"]
