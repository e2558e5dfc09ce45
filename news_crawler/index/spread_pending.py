"""A spread index call sent to its master now and its reply read later: the next batch is
begun (``spread/decided.lua``) while the worker decides the batch it has claimed, so that
the id hashes' master does that work beside the worker's, not in the round's path.

The call goes out once the round before it has been answered and is read before the next
round is sent, so it runs in its place among the calls that master receives. A call that
did not run (the master lost its scripts or no longer serves the slot, or the connection
failed before it was sent) is made again the usual way (``run_scripts``, which loads
scripts and follows the cluster); a connection lost while waiting for the reply raises, as
any call's would."""

from __future__ import annotations

from typing import Any

from redis.exceptions import (AskError, ClusterDownError, ConnectionError, MovedError, NoScriptError, RedisError,
                              TimeoutError, TryAgainError)

from news_crawler.index.spread_read import run_scripts


class PendingCall:
    """``script(keys, args)`` sent to the master of ``keys[0]``, not waited for."""

    def __init__(self, client: Any, call: tuple[Any, list[str], list[Any]]) -> None:
        self.client, self.call = client, call
        self.pool = client.get_node_from_key(call[1][0]).redis_connection.connection_pool
        self.conn: Any = self.pool.get_connection()
        script, keys, args = call
        try:
            self.conn.send_command("EVALSHA", script.sha, len(keys), *keys, script.name, *args)
        except (ConnectionError, TimeoutError):  # not sent: made again when read
            self._drop()

    def reply(self) -> Any:
        """The call's reply (waited for now if it has not come)."""
        if self.conn is None:
            return run_scripts(self.client, [self.call])[0]
        try:
            reply = self.conn.read_response()
        except (NoScriptError, MovedError, AskError, TryAgainError, ClusterDownError):  # not run
            self._release()
            return run_scripts(self.client, [self.call])[0]
        except RedisError:
            self._drop()
            raise
        self._release()
        return reply

    def discard(self) -> None:
        """Give the connection up unread (its reply would be read by its next user)."""
        if self.conn is not None:
            self._drop()

    def _release(self) -> None:
        self.pool.release(self.conn)
        self.conn = None

    def _drop(self) -> None:
        self.conn.disconnect()
        self._release()
