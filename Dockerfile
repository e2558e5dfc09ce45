# The crawler image: workers, the seeder and the daily job all run from it.
# Two stages: the product's wheel (news_crawler/ only: no tests, no mirror, no benchmarks),
# then an image with that wheel installed and nothing else of the source tree.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY news_crawler ./news_crawler
RUN pip wheel --no-cache-dir --no-deps -w /wheels .

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/*.whl)[postgres]" && rm -rf /wheels \
 && useradd --create-home crawler && mkdir -p /data && chown crawler /data
USER crawler
WORKDIR /home/crawler
# Settings by their own names (README, Configuration); scrapy finds the project without scrapy.cfg.
# DATA_DIR holds the feeds (output/<site>/) and the daily run's files (daily/); a Chinese
# newsroom's day is Asia/Shanghai's.
ENV DATA_DIR=/data \
    TIMEZONE=Asia/Shanghai \
    SCRAPY_SETTINGS_MODULE=news_crawler.settings
VOLUME /data
CMD ["news-crawler", "worker", "--idle", "0"]
