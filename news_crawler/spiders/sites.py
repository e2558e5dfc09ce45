"""Sites declared in TOML sites files: the one place a site is declared, without code.

    [sites.gov-news]                      # the name: a spider name, a site in stats and feeds
    start_urls = ["https://www.example.gov.cn/xwdt/"]   # lists, feeds or sitemaps
    allow = '^https://www\\.example\\.gov\\.cn/xwdt/\\d{6}/t\\d+_\\d+\\.html$'
    follow = '/xwdt/index_\\d+\\.html'       # optional: more list pages
    deny = '/video/'                       # optional
    allowed_domains = ["example.gov.cn"]   # optional: else the start pages' domains
    download_delay = 1.0                   # optional politeness, per site
    concurrent_requests = 2                # optional: at most this many at once, per domain
    revisit_min = 60                       # optional: news-crawler watch's revisits, in seconds
    revisit_max = 3600
    recheck_after = "1h,1d"                # optional: when kept articles are fetched again
    render = "browser"                     # optional: pages built by script, read through Chromium
    wait_for = "#story p"                  # optional, with render: read a page once this CSS selector matches

The built-in portals are ``sites.toml`` beside this module, read the same way: examples,
active only while no ``SITES_FILE`` is set (a setting and an environment variable; several
files are separated by commas). With sites files, their sites are the active ones, and the
portals join them only when a file says ``include_portals = true`` at its top. A file's
site named like a portal is a mistake unless its table says ``replaces_portal = true``; two
files declaring one name are a mistake. Every active site is a spider name: the spider loader
(``SiteSpiderLoader``) makes each a generic ``NewsSpider`` with the site's patterns.
A file with a mistake stops every command with one line naming the file, the site and the
problem (``SitesFileError``).
"""

from __future__ import annotations

import builtins
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scrapy.spiderloader import SpiderLoader

from news_crawler.config import as_list
from news_crawler.errors import UserError
from news_crawler.printable import printable

BUILTIN = Path(__file__).with_name("sites.toml")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
RESERVED = {"news"}  # the generic spider, which takes its patterns from -a arguments
_LISTS = ("start_urls", "allow", "follow", "deny", "allowed_domains")
_POLITENESS = {
    "download_delay": ("DOWNLOAD_DELAY", float, 0),
    "concurrent_requests": ("CONCURRENT_REQUESTS_PER_DOMAIN", int, 1),
    "revisit_min": ("REVISIT_MIN", float, 0.1),  # news-crawler watch: this site's revisits, in seconds
    "revisit_max": ("REVISIT_MAX", float, 0.1),
}
KEYS = (*_LISTS, *_POLITENESS, "recheck_after", "replaces_portal", "strip_params", "render", "wait_for")
RENDERS = ("http", "browser")  # how a site's pages are fetched: plain HTTP, or a browser
INCLUDE_PORTALS = "include_portals"  # a file's top-level key: the built-in portals are active too


class SitesFileError(UserError):
    """A sites file that cannot be read: its name, the site and the problem, in one line."""


@dataclass(frozen=True)
class Site:
    name: str
    source: str  # the file that declared it
    start_urls: tuple[str, ...]
    allow: tuple[str, ...]
    follow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allowed_domains: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)  # the politeness keys, as Scrapy settings
    replaces_portal: bool = False  # named like a built-in portal on purpose
    strip_params: str | None = None  # this site's URL_TRACKING_PARAMS ("" keeps its links as written)
    render: str = "http"  # "browser": its pages read through Chromium (middlewares/browser.py)
    wait_for: str = ""  # a browser site's page is read once this CSS selector matches ("": once it settled)


def sites_files(value: str | list[str] | None) -> list[str]:
    """The files of a ``SITES_FILE`` setting (comma-separated, or a list)."""
    return as_list(value)


@dataclass(frozen=True)
class ActiveSites:
    """The sites every command works on, in declared order, and why they are these."""

    sites: dict[str, Site]
    why: str


def active_sites(files: list[str] | tuple[str, ...] = ()) -> ActiveSites:
    """The built-in portals when no sites file is given; else the files' sites, the portals
    first when a file includes them (``include_portals = true``)."""
    portals, _ = read_sites_file(str(BUILTIN))
    if not files:
        return ActiveSites(portals, "the built-in portals (examples: SITES_FILE names your own sites files)")
    sites: dict[str, Site] = {}
    including: list[str] = []
    for path in files:
        declared, include = read_sites_file(path)
        if include:
            including.append(path)
        for name, site in declared.items():
            if name in sites:
                raise SitesFileError(
                    f"sites file {path}: [sites.{name}] is declared in {sites[name].source} too; a name is one site"
                )
            if name in portals and not site.replaces_portal:
                raise SitesFileError(
                    f"sites file {path}: [sites.{name}] has a built-in portal's name (its queue, dupefilter and "
                    "outcomes would be the portal's): choose another name, or say replaces_portal = true"
                )
            sites[name] = site
    why = f"the sites of {', '.join(files)}"
    if including:
        why += f" and the built-in portals ({INCLUDE_PORTALS} = true in {', '.join(including)})"
        sites = {**{k: v for k, v in portals.items() if k not in sites}, **sites}
    else:
        why += f" (the built-in portals are left out; {INCLUDE_PORTALS} = true in a sites file adds them)"
    return ActiveSites(sites, why)


def load_sites(files: list[str] | tuple[str, ...] = ()) -> dict[str, Site]:
    """The active sites (``active_sites``) by name."""
    return active_sites(files).sites


def read_sites_file(path: str) -> tuple[dict[str, Site], bool]:
    """The sites of one file, and whether it includes the portals; ``SitesFileError`` for
    anything wrong in it."""
    shown = "built-in sites" if path == str(BUILTIN) else path
    try:
        with open(Path(path).expanduser(), "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise SitesFileError(f"sites file {shown}: not found (SITES_FILE names files, comma-separated)") from None
    except OSError as e:
        raise SitesFileError(f"sites file {shown}: cannot be read ({e.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SitesFileError(f"sites file {shown}: not valid TOML ({e})") from None
    extra = sorted(set(data) - {"sites", INCLUDE_PORTALS})
    if extra or not isinstance(data.get("sites", {}), dict):
        raise SitesFileError(
            f"sites file {shown}: unknown key {printable(extra[0] if extra else 'sites', 80)!r}; declare each site "
            f"as [sites.NAME] ({INCLUDE_PORTALS} = true is the one key allowed at the top)"
        )
    include = data.get(INCLUDE_PORTALS, False)
    if not isinstance(include, bool):
        raise SitesFileError(f"sites file {shown}: {INCLUDE_PORTALS} must be true or false")
    return {name: _site(shown, name, table) for name, table in data.get("sites", {}).items()}, include


def _site(source: str, name: str, table: Any) -> Site:
    where = f"sites file {source}: [sites.{printable(name, 80)}]"
    if not NAME.fullmatch(name):
        raise SitesFileError(
            f"{where}: a site's name is a spider name and a part of Redis keys and file names: letters, digits, "
            "- and _, at most 64, starting with a letter or digit"
        )
    if name in RESERVED:
        raise SitesFileError(f"{where}: {name!r} is the generic spider's name; choose another")
    if not isinstance(table, dict):
        raise SitesFileError(f"{where}: expected a table of keys ({', '.join(KEYS)})")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise SitesFileError(f"{where}: unknown key {printable(unknown[0], 80)!r}; the keys are {', '.join(KEYS)}")
    lists: dict[str, tuple[str, ...]] = {}
    for key in _LISTS:
        value = table.get(key, [])
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            raise SitesFileError(f"{where}: {key} must be a string or a list of strings")
        lists[key] = tuple(v.strip() for v in values)
    for key in ("start_urls", "allow"):
        if not lists[key]:
            raise SitesFileError(f"{where}: missing {key}")
    for url in lists["start_urls"]:
        if not re.match(r"https?://[^/\s]+", url):
            raise SitesFileError(f"{where}: start URL {printable(url, 200)!r} needs http:// or https:// and a host")
    for key in ("allow", "follow", "deny"):
        for pattern in lists[key]:
            try:
                re.compile(pattern)
            except re.error as e:
                raise SitesFileError(
                    f"{where}: {key} pattern {printable(pattern, 200)!r} does not compile: {e}"
                ) from None
    replaces = table.get("replaces_portal", False)
    if not isinstance(replaces, bool):
        raise SitesFileError(f"{where}: replaces_portal must be true or false")
    strip = table.get("strip_params")
    if strip is not None and not isinstance(strip, str):
        raise SitesFileError(f'{where}: strip_params must be a pattern of parameter names ("" keeps them all)')
    try:
        re.compile(strip or "")
    except re.error as e:
        raise SitesFileError(f"{where}: strip_params {printable(strip, 200)!r} does not compile: {e}") from None
    settings = {}
    for key, (setting, kind, lowest) in _POLITENESS.items():
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < lowest:
                raise SitesFileError(f"{where}: {key} must be a number >= {lowest:g}")
            settings[setting] = kind(value)
    if "recheck_after" in table:
        from news_crawler.frontier.revisits.rechecks import parse_durations

        value = table["recheck_after"]
        try:
            if not isinstance(value, str):
                raise ValueError("a string of durations")
            parse_durations(value)
        except ValueError as e:
            raise SitesFileError(
                f'{where}: recheck_after must be durations such as "1h,6h,1d" ("" for none): {e}'
            ) from None
        settings["RECHECK_AFTER"] = value
    if settings.get("REVISIT_MIN", 0) > settings.get("REVISIT_MAX", float("inf")):
        raise SitesFileError(f"{where}: revisit_min must not be more than revisit_max")
    render = table.get("render", "http")
    if render not in RENDERS:
        raise SitesFileError(f'{where}: render must be "http" or "browser"')
    wait_for = table.get("wait_for", "")
    if not isinstance(wait_for, str) or len(wait_for) > 500:
        raise SitesFileError(f'{where}: wait_for must be a CSS selector such as "#story p"')
    if wait_for and render != "browser":
        raise SitesFileError(f'{where}: wait_for is for a site with render = "browser"; add it or drop wait_for')
    return Site(
        name=name,
        source=source,
        settings=settings,
        replaces_portal=replaces,
        strip_params=strip,
        render=render,
        wait_for=wait_for.strip(),
        **lists,
    )


class SiteSpiderLoader(SpiderLoader):
    """Scrapy's spider loader, plus one generic spider per configured site (``SITES_FILE``)."""

    def __init__(self, settings: Any) -> None:
        self.sites_files = sites_files(settings.get("SITES_FILE"))
        self._site_spiders: dict[str, type] | None = None
        super().__init__(settings)

    def _from_sites(self) -> dict[str, type]:
        """The sites' spider classes, made once, on first use (so that a bad sites file is
        reported by the command that needs it, in one line)."""
        if self._site_spiders is None:
            from news_crawler.spiders.news import NewsSpider

            sites = load_sites(self.sites_files)
            clash = sorted(set(sites) & set(self._spiders))
            if clash:
                site = sites[clash[0]]
                raise SitesFileError(
                    f"sites file {site.source}: [sites.{site.name}]: a spider of the project's code "
                    "has that name; choose another"
                )
            self._site_spiders = {name: site_spider(site, NewsSpider) for name, site in sites.items()}
        return self._site_spiders

    def load(self, spider_name: str) -> type:
        spiders = self._from_sites()
        if spider_name in spiders:
            return spiders[spider_name]
        return super().load(spider_name)

    def list(self) -> builtins.list[str]:
        return [*self._from_sites(), *super().list()]

    def site_names(self) -> builtins.list[str]:
        """The configured sites, in the order declared (the built-in ones first)."""
        return list(self._from_sites())


def site_spider(site: Site, base: type) -> type:
    """The generic spider with ``site``'s patterns and politeness filled in."""
    return type(
        f"{site.name.title().replace('-', '').replace('_', '')}SiteSpider",
        (base,),
        {
            "name": site.name,
            "site": site.name,
            "start_urls": list(site.start_urls),
            "allow": list(site.allow),
            "follow": list(site.follow),
            "deny": list(site.deny),
            "allowed_domains": list(site.allowed_domains),
            "strip_params": site.strip_params,
            "render": site.render,
            "wait_for": site.wait_for,
            "custom_settings": dict(site.settings),
            "__module__": __name__,
        },
    )


class SiteNames:
    """Which site an article URL is of: the first site whose ``allow`` pattern matches it
    and whose domains (``allowed_domains``, else its start pages' hosts) hold its host; else
    the first whose domains do; else the URL's host. Reports name sites by it, not by host
    (two sites may share one, a site may span several)."""

    def __init__(self, sites: dict[str, Site]) -> None:
        from news_crawler.spiders.news import site_domain

        self._sites = []
        for site in sites.values():
            hosts = {h for h in (_host(u) for u in site.start_urls) if h}
            domains = [d.lower().strip(".") for d in site.allowed_domains] or sorted({site_domain(h) for h in hosts})
            self._sites.append((site.name, [re.compile(p) for p in site.allow], domains))

    def __call__(self, url: str) -> str:
        host = _host(url)
        on = [(name, allow) for name, allow, domains in self._sites if any(_under(host, d) for d in domains)]
        for name, allow in on:
            if any(p.search(url) for p in allow):
                return name
        return on[0][0] if on else host


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    try:
        return (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ""


def _under(host: str, domain: str) -> bool:
    return bool(host) and (host == domain or host.endswith("." + domain))
