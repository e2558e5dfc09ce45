"""Spread index calls sent to their masters at once and their replies read when needed:
a round's calls go out together (one connection a master, each master's calls in order,
as ``run_scripts`` sends them), and the next batch's beginning (``spread/decided.lua``),
sent after the claims, is read in the next round, so that the id hashes' master does it
beside the worker's deciding instead of in the round's path.

A call that did not run (its master lost its scripts or no longer serves the slot, or the
connection failed before it was sent) is made again the usual way (``run_scripts``, which
loads scripts and follows the cluster), in order with the later calls sent to that master;
a connection lost while waiting for a reply raises, as any call's would."""

from __future__ import annotations

from typing import Any

from redis.exceptions import (AskError, ClusterDownError, ConnectionError, MovedError, NoScriptError, RedisError,
                              TimeoutError, TryAgainError)

from news_crawler.index.spread_read import run_scripts


_NOT_RUN = (NoScriptError, MovedError, AskError, TryAgainError, ClusterDownError)


class SentCalls:
    """``script(keys, args)`` of each call sent at once, on one connection a master in the
    calls' order, each reply read when asked for (``replies``): the replies of a round's
    claims are read while the next batch's beginning, sent after them, is still running."""

    def __init__(self, client: Any, calls: list[tuple[Any, list[str], list[Any]]]) -> None:
        self.client, self.calls = client, calls
        self.got: list[Any] = [None] * len(calls)
        self.done = [False] * len(calls)  # its reply in got
        self.nodes: dict[str, list[Any]] = {}  # node name -> [pool, connection or None, its calls' numbers]
        for i, (script, keys, args) in enumerate(calls):
            node = client.get_node_from_key(keys[0])
            self.nodes.setdefault(node.name, [node.redis_connection.connection_pool, None, []])[2].append(i)
        for entry in self.nodes.values():
            pool, _, numbers = entry
            conn = entry[1] = pool.get_connection()
            try:
                conn.send_packed_command(conn.pack_commands(
                    [("EVALSHA", calls[i][0].sha, len(calls[i][1]), *calls[i][1], calls[i][0].name, *calls[i][2])
                     for i in numbers]))
            except (ConnectionError, TimeoutError):  # not sent: made again when read
                self._drop(entry)

    def replies(self, upto: int | None = None) -> list[Any]:
        """The replies of the first ``upto`` calls (all by default), waited for if they have
        not come. Calls that did not run (their master lost its scripts, or no longer serves
        the slot; once one of a master's calls did not, the replies after it there are read
        at once) are made again in their order."""
        upto = len(self.calls) if upto is None else upto
        again: list[int] = []
        for entry in self.nodes.values():
            pool, conn, numbers = entry
            todo = [i for i in numbers if not self.done[i]]
            if not todo or todo[0] >= upto:
                continue
            if conn is None:  # never sent
                again += todo
                continue
            try:
                failed = False
                for i in todo:
                    if i >= upto and not failed:
                        break
                    try:
                        self.got[i], self.done[i] = conn.read_response(), True
                    except _NOT_RUN:
                        failed = True
                        again.append(i)
            except RedisError:
                self._drop(entry)
                raise
            if all(self.done[i] or i in again for i in numbers):
                pool.release(conn)
                entry[1] = None
        if again:
            again.sort()
            for i, reply in zip(again, run_scripts(self.client, [self.calls[i] for i in again])):
                self.got[i], self.done[i] = reply, True
        return self.got[:upto]

    def discard(self) -> None:
        """Give up the connections of replies unread (they would be read by their next user)."""
        for entry in self.nodes.values():
            if entry[1] is not None:
                self._drop(entry)

    @staticmethod
    def _drop(entry: list[Any]) -> None:
        entry[1].disconnect()
        entry[0].release(entry[1])
        entry[1] = None
