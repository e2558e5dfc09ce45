"""The alert channels' settings read and checked (``ops/alerting.py`` sends the alerts): a module
without Scrapy, since every command's preflight checks them (``news-dedup`` never imports
Scrapy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from news_crawler.errors import UserError
from news_crawler.printable import masked


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    user: str
    password: str


def smtp_server(url: str) -> SmtpServer:
    """``smtp://[user:password@]host:port`` read; ``UserError`` (no password in it) otherwise."""
    shown = masked(url, url)
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "smtp" or not parts.hostname or not port:
        raise UserError(f"setting ALERTS_SMTP_URL={shown!r}: must be smtp://[user:password@]host:port")
    return SmtpServer(parts.hostname, port, unquote(parts.username or ""), unquote(parts.password or ""))


def addresses(value: Any) -> list[str]:
    """``ALERTS_EMAIL_TO``: a comma-separated string or a list."""
    items = value.split(",") if isinstance(value, str) else list(value or ())
    return [str(a).strip() for a in items if str(a).strip()]


def check_alert_settings(settings: Any) -> None:
    """``UserError`` for an alert channel set up wrong (before a crawl starts)."""
    webhook = str(settings.get("ALERTS_WEBHOOK_URL") or "")
    if webhook and not (webhook.startswith(("http://", "https://")) and urlsplit(webhook).hostname):
        raise UserError(f"setting ALERTS_WEBHOOK_URL={masked(webhook, webhook)!r}: must be an http:// or https:// URL")
    smtp = str(settings.get("ALERTS_SMTP_URL") or "")
    if smtp:
        smtp_server(smtp)
        if not addresses(settings.get("ALERTS_EMAIL_TO")):
            raise UserError("setting ALERTS_SMTP_URL is set but ALERTS_EMAIL_TO is empty: name who gets the alerts")
