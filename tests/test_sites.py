"""Sites files: a user's own sites, declared without code, crawled by every command; and a
bad file stopped at once with one line. Real crawls over HTTP of a local site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from news_crawler.spiders.sites import Site, SitesFileError, active_sites, load_sites, read_sites_file
from tests.crawl_helpers import ROOT
from tests.hostile_web import HostileWeb, article, list_page

pytestmark = pytest.mark.xdist_group("sites")


@pytest.fixture(scope="module")
def two_sites(tmp_path_factory, sina_articles):
    """Two sites on one local server: ``gov-news`` at 127.0.0.1 (a list and its page 2) and
    ``city-daily`` at localhost (an RSS feed); a sites file declaring both."""
    tmp = tmp_path_factory.mktemp("sites")
    texts = [a for a in sina_articles if len(a["body"]) > 600][5::23][:6]
    web = HostileWeb()
    other = f"http://localhost:{web.port}"
    gov = [
        web.add(f"/xwdt/202405/t2024050{n}_{n}.html", article(texts[n]["title"], texts[n]["body"])) for n in range(3)
    ]
    web.add("/xwdt/", list_page(gov[:2] + ["/video/1.html"], "<a href='/xwdt/index_1.html'>下一页</a>"))
    web.add("/xwdt/index_1.html", list_page(gov[2:]))
    city = [f"{other}/news/{n}.html" for n in range(3, 5)]
    for n, _url in zip(range(3, 5), city):
        web.add(f"/news/{n}.html", article(texts[n]["title"], texts[n]["body"]))
    web.add(
        "/rss.xml",
        (
            "<?xml version='1.0'?><rss><channel>"
            + "".join(f"<item><link>{u}</link></item>" for u in city)
            + "</channel></rss>"
        ).encode(),
        "application/rss+xml",
    )
    sites_file = tmp / "my-sites.toml"
    sites_file.write_text(
        f"""
[sites.gov-news]
start_urls = ["{web.url}/xwdt/"]
allow = '/xwdt/\\d{{6}}/t\\d+_\\d+\\.html$'
follow = '/xwdt/index_\\d+\\.html'
deny = '/video/'
download_delay = 0.1

[sites.city-daily]
start_urls = ["{other}/rss.xml"]
allow = '/news/\\d+\\.html$'
""",
        encoding="utf-8",
    )
    yield web, sites_file, gov, city, texts
    web.stop()


def run(cmd: list[str], tmp: Path, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    return subprocess.run(
        cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env={**base, "AUTOTHROTTLE_ENABLED": "False", **env}
    )


def feed(out: Path) -> list[dict]:
    return [json.loads(line) for f in sorted(out.glob("*/*.jsonl")) for line in f.read_text().splitlines() if line]


def test_the_built_in_portals_are_a_sites_file():
    sites = load_sites()
    assert list(sites) == [
        "sina",
        "163",
        "sohu",
        "qq",
        "ifeng",
        "people",
        "xinhuanet",
        "chinanews",
        "thepaper",
        "huanqiu",
    ]
    assert sites["sina"].start_urls[0] == "https://news.sina.com.cn/" and sites["sina"].source == "built-in sites"
    assert sites["chinanews"].allowed_domains == ("chinanews.com.cn", "chinanews.com")


def test_a_sites_file_makes_its_sites_the_active_ones_and_may_include_the_portals(tmp_path):
    mine = tmp_path / "s.toml"
    mine.write_text("[sites.mine]\nstart_urls = 'https://a.cn/'\nallow = ['/n/']\nconcurrent_requests = 2\n")
    active = active_sites([str(mine)])
    assert list(active.sites) == ["mine"] and "the built-in portals are left out" in active.why
    assert active.sites["mine"].settings == {"CONCURRENT_REQUESTS_PER_DOMAIN": 2}
    more = tmp_path / "more.toml"
    more.write_text("include_portals = true\n[sites.more]\nstart_urls = 'https://b.cn/'\nallow = '/m/'\n")
    active = active_sites([str(mine), str(more)])
    assert list(active.sites) == [*load_sites(), "mine", "more"] and f"include_portals = true in {more}" in active.why


def test_a_portals_name_needs_replaces_portal_and_a_name_is_one_site(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[sites.sina]\nstart_urls = ['https://m.sina.cn/']\nallow = 'doc-'\n")
    with pytest.raises(SitesFileError, match=r"\[sites.sina\] has a built-in portal's name .* replaces_portal = true"):
        load_sites([str(path)])
    path.write_text("[sites.sina]\nstart_urls = ['https://m.sina.cn/']\nallow = 'doc-'\nreplaces_portal = true\n")
    sites = load_sites([str(path)])
    assert list(sites) == ["sina"] and sites["sina"] == Site(
        name="sina", source=str(path), start_urls=("https://m.sina.cn/",), allow=("doc-",), replaces_portal=True
    )
    other = tmp_path / "other.toml"
    other.write_text("[sites.sina]\nstart_urls = ['https://x.cn/']\nallow = 'x'\nreplaces_portal = true\n")
    with pytest.raises(SitesFileError, match=f"declared in {path} too"):
        load_sites([str(path), str(other)])


@pytest.mark.parametrize(
    "text,problem",
    [
        ("[sites.a\nstart_urls = 1", "not valid TOML"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nalow = 'y'\n", "[sites.a]: unknown key 'alow'"),
        ("[sites.a]\nallow = 'x'\n", "[sites.a]: missing start_urls"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\n", "[sites.a]: missing allow"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = '(x'\n", "[sites.a]: allow pattern '(x' does not compile"),
        ("[sites.'a b']\nstart_urls = ['https://a.cn/']\nallow = 'x'\n", "[sites.a b]: a site's name is a spider name"),
        ("[sites.news]\nstart_urls = ['https://a.cn/']\nallow = 'x'\n", "[sites.news]: 'news' is the generic spider's"),
        ("[sites.a]\nstart_urls = ['ftp://a.cn/']\nallow = 'x'\n", "[sites.a]: start URL 'ftp://a.cn/' needs http"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\ndownload_delay = -1\n", "download_delay must be"),
        (
            "[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrevisit_min = 0\n",
            "revisit_min must be a number >= 0.1",
        ),
        (
            "[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrevisit_min = 600\nrevisit_max = 60\n",
            "revisit_min must not be more than revisit_max",
        ),
        ("[site.a]\nstart_urls = ['https://a.cn/']\n", "unknown key 'site'"),
        ("[sites.'..']\nstart_urls = ['https://a.cn/']\nallow = 'x'\n", "[sites...]: a site's name is a spider name"),
        ("[sites.'a/b']\nstart_urls = ['https://a.cn/']\nallow = 'x'\n", "[sites.a/b]: a site's name"),
        ('[sites."a\\u001b[2Jb\\nc"]\nstart_urls = ["https://a.cn/"]\nallow = "x"\n', "[sites.a\\x1b[2Jb\\nc]: a site"),
        ("include_portals = 'yes'\n", "include_portals must be true or false"),
        ("[sites]\na = 1\n", "[sites.a]: expected a table of keys (start_urls"),
        (
            "[sites.a]\nstart_urls = ['https://a.cn/']\nallow = ['x', 2]\n",
            "allow must be a string or a list of strings",
        ),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = ['x', ' ']\n", "allow must be a string or a list"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nreplaces_portal = 1\n", "replaces_portal must be"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nstrip_params = ['a']\n", "strip_params must be a"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nstrip_params = 'a('\n", "strip_params 'a(' does not"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrender = 'chrome'\n", 'render must be "http" or'),
        (
            "[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrecheck_after = 6\n",
            "recheck_after must be durations",
        ),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrecheck_after = '6x'\n", "recheck_after must be"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\ndownload_delay = true\n", "download_delay must be"),
        ("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nwait_for = '#story'\n", "wait_for is for a site"),
        (
            "[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrender = 'browser'\nwait_for = 3\n",
            "wait_for must be a CSS selector",
        ),
    ],
)
def test_a_bad_sites_file_is_one_line_naming_file_site_and_problem(tmp_path, text, problem):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SitesFileError) as e:
        read_sites_file(str(path))
    assert str(e.value).startswith(f"sites file {path}") and problem in str(e.value) and "\n" not in str(e.value)


def test_every_command_stops_at_once_on_a_bad_sites_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[sites.gov]\nstart_urls = ['https://a.cn/']\nallow = '(x'\n")
    for cmd in (
        ["-m", "news_crawler.cli.crawler", "crawl"],
        ["-m", "news_crawler.cli.crawler", "daily"],
        ["-m", "news_crawler.cli.crawler", "seed"],
        ["-m", "news_crawler.cli.crawler", "sites"],
        ["-m", "scrapy", "crawl", "gov"],
    ):
        result = run(
            [sys.executable, *cmd],
            tmp_path,
            SITES_FILE=str(bad),
            DAILY_DIR=str(tmp_path / "daily"),
            REDIS_URL="redis://127.0.0.1:1",
        )
        assert result.returncode == 2, (cmd, result.stderr[-2000:])
        assert "Traceback" not in result.stderr, cmd
        assert f"sites file {bad}: [sites.gov]: allow pattern '(x' does not compile" in result.stderr, cmd
    missing = run([sys.executable, "-m", "news_crawler.cli.crawler", "sites"], tmp_path, SITES_FILE="/nonexistent.toml")
    assert missing.returncode == 2 and "sites file /nonexistent.toml: not found" in missing.stderr


def test_configured_sites_crawl_by_name_everywhere_and_a_recrawl_fetches_nothing_new(tmp_path, redis_server, two_sites):
    web, sites_file, gov, city, _ = two_sites
    env = {"SITES_FILE": str(sites_file), "REDIS_URL": redis_server.url, "DEDUP_NAMESPACE": "sites"}
    one = run(
        [sys.executable, "-m", "scrapy", "crawl", "gov-news", "-s", f"FEED_DIR={tmp_path / 'one'}"], tmp_path, **env
    )
    assert one.returncode == 0, one.stderr[-3000:]
    items = feed(tmp_path / "one")
    assert sorted(i["url"] for i in items) == sorted(gov) and {i["site"] for i in items} == {"gov-news"}
    assert not web.asked("/video/1.html")  # deny

    both = run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.crawler",
            "crawl",
            "gov-news",
            "city-daily",
            "-s",
            f"FEED_DIR={tmp_path / 'both'}",
        ],
        tmp_path,
        **env,
    )
    assert both.returncode == 0, both.stderr[-3000:]
    assert sorted(i["url"] for i in feed(tmp_path / "both")) == sorted(city)  # gov-news's were fetched before
    assert "city-daily" in both.stdout and "gov-news" in both.stdout  # the summary's rows

    since = len(web.requests)
    daily = run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "daily"],
        tmp_path,
        **env,
        DAILY_SPIDERS="gov-news,city-daily",
        DAILY_DIR=str(tmp_path / "daily"),
        FEED_DIR=str(tmp_path / "d"),
    )
    assert daily.returncode == 0, daily.stderr[-3000:]
    (summary,) = (tmp_path / "daily" / "summaries").glob("*.json")  # DAILY_DIR from the environment
    assert set(json.loads(summary.read_text())["spiders"]) == {"gov-news", "city-daily"}  # DAILY_SPIDERS too
    assert json.loads(summary.read_text())["exit"] == 0
    assert (tmp_path / "daily" / "reports" / "latest.html").exists()  # and the day's report
    from news_crawler.cli.metrics import RedisCollector
    from news_crawler.config import build_settings

    families = {
        f.name: f
        for f in RedisCollector(
            build_settings({"DAILY_DIR": str(tmp_path / "daily"), "REDIS_URL": redis_server.url})
        ).collect()
    }
    assert families["news_crawler_daily_last_run_exit_status"].samples[0].value == 0
    assert families["news_crawler_daily_last_run_duration_seconds"].samples[0].value > 0
    articles = [p for _, p in web.requests[since:] if p.startswith(("/xwdt/2024", "/news/"))]
    assert articles == [] and feed(tmp_path / "d") == []  # the lists read again, no article fetched again


def test_the_generic_spider_takes_its_arguments_from_news_crawler_crawl(tmp_path, redis_server, two_sites):
    web, _, gov, _, _ = two_sites
    result = run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.crawler",
            "crawl",
            "news",
            "-a",
            f"start_urls={web.url}/xwdt/",
            "-a",
            r"allow=/xwdt/\d{6}/",
            "-s",
            f"FEED_DIR={tmp_path}",
            "-s",
            "LIST_FOLLOW_NEXT=False",
        ],
        tmp_path,
        REDIS_URL=redis_server.url,
        DEDUP_NAMESPACE="generic",
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert sorted(i["url"] for i in feed(tmp_path)) == sorted(gov[:2])
    missing = run([sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "news"], tmp_path)
    assert missing.returncode == 2 and missing.stderr.strip().splitlines() == [
        "news-crawler: news: spider 'news' needs start pages: -a start_urls=URL[,URL...]"
    ]


def test_sites_lists_every_site_with_where_it_was_declared(tmp_path, two_sites):
    _, sites_file, _, _, _ = two_sites
    result = run([sys.executable, "-m", "news_crawler.cli.crawler", "sites"], tmp_path, SITES_FILE=str(sites_file))
    assert result.returncode == 0
    assert f"gov-news  ({sites_file})" in result.stdout and "sina  (built-in sites)" not in result.stdout
    assert f"2 sites: the sites of {sites_file} (the built-in portals are left out" in result.stdout
    portals = run([sys.executable, "-m", "news_crawler.cli.crawler", "sites"], tmp_path)
    assert "sina  (built-in sites)" in portals.stdout and "10 sites: the built-in portals" in portals.stdout


def test_sites_check_shows_what_the_patterns_match_and_extracts_articles(tmp_path, two_sites):
    web, sites_file, gov, _, texts = two_sites
    good = run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "sites", "check", "gov-news"],
        tmp_path,
        SITES_FILE=str(sites_file),
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "2 match allow (articles)" in good.stdout and "1 match follow" in good.stdout
    assert "1 match deny" in good.stdout and gov[0] in good.stdout
    assert f"title        {texts[0]['title']}" in good.stdout and "length" in good.stdout
    wrong = run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.crawler",
            "sites",
            "check",
            f"{web.url}/xwdt/",
            "--allow",
            r"/xwdt/\d{8}/",
        ],
        tmp_path,
    )
    assert wrong.returncode == 1
    assert "0 match allow" in wrong.stdout and gov[0] in wrong.stdout  # among the links that matched nothing
    assert "no article link matched allow" in wrong.stdout
    # a start URL with the named site's three patterns given as options: what the site gives
    given = run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "sites", "check", f"{web.url}/xwdt/",
         "--allow", r"/xwdt/\d{6}/t\d+_\d+\.html$", "--follow", r"/xwdt/index_\d+\.html", "--deny", "/video/"],
        tmp_path,
    )  # fmt: skip
    assert given.returncode == 0, given.stdout + given.stderr
    assert "2 match allow (articles)" in given.stdout and "1 match follow" in given.stdout
    assert "1 match deny" in given.stdout


def test_daily_as_cron_runs_it_crawls_the_sites_file_only_and_writes_under_its_data_dir(tmp_path, two_sites):
    """``env -i HOME=... PATH=/usr/bin:/bin SITES_FILE=... ./run news-crawler daily`` from an
    empty directory, on the embedded Redis: only the file's sites, everything under DATA_DIR
    (an absolute path it prints), nothing in the directory it ran from."""
    import shutil
    import tempfile

    _, sites_file, gov, city, _ = two_sites
    home = Path(tempfile.mkdtemp(prefix="home"))  # short: the embedded server's socket lives under it
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SITES_FILE": str(sites_file), "AUTOTHROTTLE_ENABLED": "False"}
    try:
        daily = subprocess.run(
            [str(ROOT / "run"), "news-crawler", "daily"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        assert daily.returncode == 0, daily.stdout[-2000:] + daily.stderr[-3000:]
        data = home / ".local" / "share" / "news-crawler"
        assert f"articles: {data / 'output'}/<site>/ (FEED_DIR)" in daily.stdout
        assert sorted(i["url"] for i in feed(data / "output")) == sorted(gov + city)
        (summary,) = (data / "daily" / "summaries").glob("*.json")
        assert set(json.loads(summary.read_text())["spiders"]) == {"gov-news", "city-daily"}
        assert (data / "daily" / "reports" / "latest.html").is_file()
        assert list(cwd.iterdir()) == []
    finally:
        subprocess.run([str(ROOT / "run"), "news-crawler", "stop-server"], cwd=cwd, env=env, capture_output=True)
        shutil.rmtree(home, ignore_errors=True)


def test_relative_paths_in_settings_are_under_data_dir_from_any_directory(tmp_path, monkeypatch):
    from news_crawler.config import build_settings, setting_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATA_DIR", raising=False)  # the default's place is asked of below
    settings = build_settings({"DATA_DIR": "/srv/news", "FEED_DIR": "feeds", "DAILY_DIR": "/var/daily"})
    assert setting_path(settings, "FEED_DIR") == Path("/srv/news/feeds")
    assert setting_path(settings, "DAILY_DIR") == Path("/var/daily")
    assert setting_path(settings, "EMBEDDED_REDIS_DIR") == Path("/srv/news/redis")
    home = build_settings({"FEED_DIR": "~/feeds"})
    assert setting_path(home, "FEED_DIR") == Path.home() / "feeds"
    assert setting_path(build_settings(), "FEED_DIR") == Path.home() / ".local/share/news-crawler/output"


def test_a_sites_file_that_cannot_be_read_is_one_line_with_the_reason(tmp_path):
    with pytest.raises(SitesFileError, match=r"^sites file .*: cannot be read \(Is a directory\)$"):
        read_sites_file(str(tmp_path))
