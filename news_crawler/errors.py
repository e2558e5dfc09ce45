"""Errors an operator can cause (a bad sites file, an unreachable Redis, a bad setting): each
is reported as one line naming the problem and the fix, with a non-zero exit, never as a
traceback. Tracebacks are for bugs."""


class UserError(Exception):
    """A mistake in how the crawler was run or configured; its message is the one line shown."""

    exit_code = 2


class RedisUnavailable(UserError):
    """Redis could not be reached, or refused us (a wrong password), when a command started."""

    exit_code = 3


def redis_problem(error: BaseException, url: str) -> RedisUnavailable:
    """The one line for a Redis ``error`` met at ``url`` (its password masked): what went
    wrong and what to do."""
    from news_crawler.printable import redact

    shown = redact(url) if url else "the embedded server"
    text = str(error).strip().rstrip(".") or type(error).__name__
    lowered = text.lower()
    if "password" in lowered or "noauth" in lowered or "auth" in type(error).__name__.lower():
        return RedisUnavailable(
            f"Redis at {shown} refused the password ({text}): put the right one in REDIS_URL "
            "(redis://:PASSWORD@HOST:PORT/0)"
        )
    if not url:
        return RedisUnavailable(
            f"the embedded Redis server could not be started ({text}): see EMBEDDED_REDIS_DIR's "
            "server.log, or set REDIS_URL to a running server"
        )
    return RedisUnavailable(
        f"Redis at {shown} is unreachable ({text}): start it, or set REDIS_URL (or --redis-url) "
        "to a running server; empty means the embedded one"
    )
