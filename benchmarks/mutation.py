"""Mutation testing of the packages that hold state and rules: how many plausible bugs,
planted one at a time, make a test fail.

    python benchmarks/mutation.py [--packages frontier,dedup] [--workers 2] [--work DIR]
                                  [--sample FRACTION --seed N] [--no-lua] [--only-lua]
                                  [--coverage-only] [--survivors] [--again] [--report]

The mutants are cosmic-ray's (parso-based) operators, chosen for the bugs this project has
had: a comparison's boundary moved (``<`` for ``<=``), a test turned (``==`` for ``!=``, ``is``
for ``is not``, a ``not`` added or dropped, ``and`` for ``or``), a flag flipped (``True`` for
``False``), a number moved by one where it is a bound (a comparison, an index, a slice, an
operand, a positional argument; a named constant or a default is a tuning choice, left out),
``+`` for ``-``, ``break`` for ``continue``, a ``for`` loop that runs no time; and three of our
own in cosmic-ray's ``Operator`` interface: a keyword argument dropped (an option of a step:
``nx=True``, ``timeout=...``), a ``while`` loop made a single step (``if``), and an ``except``
that catches nothing (``except ():``). Nothing inside a logging call is mutated, nor how much
of a text a message shows (``printable(why, 200)``). The Lua
scripts get the hand-written mutants of ``LUA_MUTANTS``: an option of an atomic step dropped,
a comparison turned.

How each mutant is run. A scratch copy of the checkout per worker; the mutant is written to
its file there and the tests run with ``PYTHONPATH`` on the copy, so every process a test
starts (a crawl, a command, a page worker) runs the mutant too. A mutant is run only against
the tests that reach its lines, found beforehand by one run of the whole suite under
coverage.py with the test and phase of every line recorded, subprocesses included
(``mutation_contexts.py``); a line reached while a module's fixture was set up selects the
whole module's tests (they read what that fixture did). The tests go cheapest first and stop
at the first failure (``-x``). A mutant is *killed* when a test fails or the run passes its
time limit, *survives* when every selected test passes, and is *unreached* when no test
reaches its lines (counted as a survivor). Every test that killed a mutant is run once more
on the unmutated code at the end; a kill by a test that fails there too is not a kill, and
that mutant runs again.

Equivalent mutants (no behaviour can tell them from the code) are listed in ``EQUIVALENT``
with a one-line reason, keyed by file, operator and the line's text, and left out of the rate.
Results are kept in ``DIR/results.jsonl`` by the file's content and the mutant, so a run
that stops goes on where it was, and a changed file's mutants run again.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import parso
import parso.python.tree as tree
from cosmic_ray import plugins
from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code
from cosmic_ray.operators.operator import Example, Operator

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["frontier", "pipelines", "outcomes", "dedup", "crawl", "spiders", "middlewares", "printable.py"]
CORE_OPERATORS = [
    "ReplaceComparisonOperator_Lt_LtE",
    "ReplaceComparisonOperator_LtE_Lt",
    "ReplaceComparisonOperator_Gt_GtE",
    "ReplaceComparisonOperator_GtE_Gt",
    "ReplaceComparisonOperator_Eq_NotEq",
    "ReplaceComparisonOperator_NotEq_Eq",
    "ReplaceComparisonOperator_Is_IsNot",
    "ReplaceComparisonOperator_IsNot_Is",
    "ReplaceUnaryOperator_Delete_Not",
    "AddNot",
    "ReplaceAndWithOr",
    "ReplaceOrWithAnd",
    "ReplaceTrueWithFalse",
    "ReplaceFalseWithTrue",
    "NumberReplacer",
    "ReplaceBinaryOperator_Add_Sub",
    "ReplaceBinaryOperator_Sub_Add",
    "ReplaceBreakWithContinue",
    "ReplaceContinueWithBreak",
    "ZeroIterationForLoop",
]
STARTED = "collection"  # the coverage context of a process before any test runs in it
# Which positions the operators mutate: bumped when a rule changes them (the numbers a message
# shows left out, say), so that a file's mutants are found again; a result counts for a mutant
# only while its line and its mutated text are the mutant's (``result_for``).
POSITIONS = 2
LOGGING = {"debug", "info", "warning", "error", "exception", "critical", "log", "warn"}


# -- the operators -------------------------------------------------------------------------


def _in_logging_call(node: parso.tree.NodeOrLeaf) -> bool:
    """``node`` is inside the arguments of ``logger.info(...)``, ``self.logger.warning(...)``,
    ``logging.error(...)``, ``warnings.warn(...)``."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("atom_expr", "power"):
            names = [c for c in parent.children if c.type == "trailer" and c.children[0].value == "."]
            calls = [c for c in parent.children if c.type == "trailer" and c.children[0].value == "("]
            if names and calls and names[-1].children[1].value in LOGGING:
                return True
        if parent.type in ("funcdef", "classdef", "file_input"):
            return False
        parent = parent.parent
    return False


LITERALS = ("param", "argument", "annassign", "atom", "testlist_comp", "dictorsetmaker", "testlist_star_expr")


SHOWN = {"printable", "short_url", "short_urls"}  # how much of a text a message shows: a tuning choice


def _is_shown_length(node: parso.tree.NodeOrLeaf) -> bool:
    """``node`` is an argument of ``printable(text, 200)`` or ``short_url(url, 120)``."""
    parent = node.parent
    if parent is not None and parent.type == "arglist":
        parent = parent.parent
    if parent is None or parent.type != "trailer" or parent.children[0].value != "(":
        return False
    callee = parent.get_previous_sibling()
    return callee is not None and callee.type == "name" and callee.value in SHOWN


def _is_bound(number: tree.Number) -> bool:
    """A number where moving it by one moves a bound: not a named constant, a default, a
    keyword argument's value, an entry of a literal table or how much of a text a message
    shows."""
    node = number
    while node.parent is not None and node.parent.type == "factor":  # -1
        node = node.parent
    parent = node.parent
    if parent is None or _is_shown_length(node):
        return False
    table_entry = node
    while table_entry.parent is not None and table_entry.parent.type in ("term", "arith_expr", "factor"):
        table_entry = table_entry.parent  # 3 * 3600 in a table of bounds: an entry of it
    if table_entry.parent is not None and table_entry.parent.type in ("testlist_comp", "dictorsetmaker"):
        return False
    if parent.type in (
        "param",
        "argument",
        "annassign",
        "atom",
        "testlist_comp",
        "dictorsetmaker",
        "testlist_star_expr",
    ):
        return False
    if parent.type == "expr_stmt":  # x = 1 is a constant; x += 1 is a step
        return any(c.type == "operator" and c.value not in ("=",) and c.value.endswith("=") for c in parent.children)
    return True


class Filtered(Operator):
    """A cosmic-ray operator whose positions inside logging calls (and, for numbers, outside a
    bound) are left out; the occurrences it counts are the ones it mutates."""

    def __init__(self, inner: Operator, name: str) -> None:
        self.inner, self.name = inner, name

    def mutation_positions(self, node):  # type: ignore[no-untyped-def]
        if _in_logging_call(node):
            return
        if isinstance(node, tree.Number) and not _is_bound(node):
            return
        yield from self.inner.mutation_positions(node)

    def mutate(self, node, index):  # type: ignore[no-untyped-def]
        return self.inner.mutate(node, index)

    @classmethod
    def examples(cls):  # type: ignore[no-untyped-def]
        return ()


def _keyword_arguments(node: parso.tree.NodeOrLeaf) -> list[parso.tree.BaseNode]:
    """The ``name=value`` arguments of a call's argument list (``node``: an arglist, or the
    trailer ``( ... )`` of a call with one argument)."""
    if node.type == "arglist" and node.parent is not None and node.parent.type == "trailer":
        children = node.children
    elif node.type == "trailer" and node.children[0].value == "(" and len(node.children) == 3:
        children = [node.children[1]]
    else:
        return []
    return [
        c
        for c in children
        if c.type == "argument"
        and len(c.children) == 3
        and c.children[1].type == "operator"
        and c.children[1].value == "="
    ]


class DropKeywordArgument(Operator):
    """A call's keyword argument left out: an option of a step dropped (``nx=True``)."""

    def mutation_positions(self, node):  # type: ignore[no-untyped-def]
        if _in_logging_call(node):
            return
        for argument in _keyword_arguments(node):
            yield (argument.start_pos, argument.end_pos)

    def mutate(self, node, index):  # type: ignore[no-untyped-def]
        argument = _keyword_arguments(node)[index]
        if node.type == "trailer":
            node.children = [node.children[0], node.children[2]]
            return node
        children = list(node.children)
        at = children.index(argument)
        drop = {at, at + 1} if at + 1 < len(children) else {at, at - 1}  # the comma beside it
        node.children = [c for i, c in enumerate(children) if i not in drop]
        return node

    @classmethod
    def examples(cls):  # type: ignore[no-untyped-def]
        return (Example("f(a, nx=True)", "f(a)"), Example("f(nx=True)", "f()"))


class WhileToIf(Operator):
    """A ``while`` loop made a single step."""

    def mutation_positions(self, node):  # type: ignore[no-untyped-def]
        if node.type == "keyword" and node.value == "while" and node.parent.type == "while_stmt":
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):  # type: ignore[no-untyped-def]
        return tree.Keyword("if", node.start_pos, prefix=node.prefix)

    @classmethod
    def examples(cls):  # type: ignore[no-untyped-def]
        return (Example("while x:\n    x -= 1\n", "if x:\n    x -= 1\n"),)


class CatchNothing(Operator):
    """An ``except`` clause that catches nothing (``except ():``): an error path gone."""

    def mutation_positions(self, node):  # type: ignore[no-untyped-def]
        if node.type == "except_clause" and len(node.children) > 1:
            yield (node.children[1].start_pos, node.children[1].end_pos)

    def mutate(self, node, index):  # type: ignore[no-untyped-def]
        caught = node.children[1]
        nothing = tree.PythonNode(
            "atom",
            [
                tree.Operator("(", caught.start_pos, prefix=caught.get_first_leaf().prefix),
                tree.Operator(")", caught.end_pos),
            ],
        )
        node.children = [node.children[0], nothing, *node.children[2:]]
        return node

    @classmethod
    def examples(cls):  # type: ignore[no-untyped-def]
        return (Example("try:\n    f()\nexcept KeyError:\n    pass\n", "try:\n    f()\nexcept ():\n    pass\n"),)


def operators() -> dict[str, Operator]:
    ops: dict[str, Operator] = {name: Filtered(plugins.get_operator(f"core/{name}")(), name) for name in CORE_OPERATORS}
    ops["DropKeywordArgument"] = DropKeywordArgument()
    ops["WhileToIf"] = WhileToIf()
    ops["CatchNothing"] = CatchNothing()
    return ops


# -- the Lua scripts' mutants ---------------------------------------------------------------

# (script, text, replacement, what the bug is); the text occurs once in the script. The tests
# of a script are the test modules that exercise it (Lua is not measured by coverage).
LUA_TESTS = {
    "news_crawler/frontier/leasing": ["tests/test_leasing.py", "tests/test_scheduling.py", "tests/test_bloom.py"],
    "news_crawler/frontier/revisits": ["tests/test_revisits.py", "tests/test_rechecks.py", "tests/test_watch.py"],
    "news_crawler/dedup/index": [
        "tests/test_index.py",
        "tests/test_table_layouts.py",
        "tests/test_drop_records.py",
        "tests/test_batching.py",
        "tests/test_concurrency.py",
        "tests/test_retention.py",
        "tests/test_cli_dedup.py",
        "tests/test_originals.py",
        "tests/test_original_crawls.py",
    ],
}
LUA_MUTANTS: list[tuple[str, str, str, str]] = [
    ("news_crawler/frontier/leasing/enqueue.lua", "ARGV[1]) == 0 then", "ARGV[1]) == 1 then", "the seen test turned"),
    (
        "news_crawler/frontier/leasing/enqueue.lua",
        "if ARGV[4] ~= '1' and",
        "if ARGV[4] == '1' and",
        "dont_filter turned",
    ),
    (
        "news_crawler/frontier/leasing/enqueue_bloom.lua",
        "ARGV[i]) == 0 then",
        "ARGV[i]) == 1 then",
        "a bit's test turned",
    ),
    (
        "news_crawler/frontier/leasing/enqueue_bloom.lua",
        "for g = 2, #KEYS do",
        "for g = 2, 2 do",
        "older periods not read",
    ),
    (
        "news_crawler/frontier/leasing/enqueue_bloom.lua",
        "tonumber(ARGV[5])), 'EX', ARGV[4])",
        "tonumber(ARGV[5])))",
        "EX dropped: a bitmap never expires",
    ),
    (
        "news_crawler/frontier/leasing/enqueue_bloom.lua",
        "if redis.call('EXISTS', KEYS[2]) == 0 then",
        "if true then",
        "the bitmap made anew every time",
    ),
    (
        "news_crawler/frontier/leasing/pop.lua",
        "redis.call('ZREM', KEYS[1], top[1])\n",
        "",
        "a leased request left in the queue",
    ),
    ("news_crawler/frontier/leasing/pop.lua", "now + tonumber(ARGV[2])", "now", "a lease that expires at once"),
    (
        "news_crawler/frontier/leasing/pop.lua",
        "'ZRANGE', KEYS[1], 0, 0)",
        "'ZRANGE', KEYS[1], -1, -1)",
        "the lowest priority first",
    ),
    (
        "news_crawler/frontier/leasing/renew.lua",
        "'ZADD', KEYS[1], 'XX', 'CH'",
        "'ZADD', KEYS[1], 'CH'",
        "XX dropped: an ended lease made again",
    ),
    (
        "news_crawler/frontier/leasing/renew.lua",
        "'XX', 'CH', until_",
        "'XX', until_",
        "CH dropped: renewals not counted",
    ),
    ("news_crawler/frontier/leasing/requeue.lua", "tonumber(expiry) < now", "tonumber(expiry) > now", "expiry turned"),
    (
        "news_crawler/frontier/leasing/requeue.lua",
        "(force or tonumber(expiry) < now)",
        "(tonumber(expiry) < now)",
        "force ignored",
    ),
    (
        "news_crawler/frontier/leasing/requeue.lua",
        "    redis.call('ZREM', KEYS[2], member)\n",
        "",
        "a requeued lease left in flight",
    ),
    (
        "news_crawler/frontier/revisits/checked.lua",
        "if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[3] then return 0 end\n",
        "",
        "compare-and-set dropped",
    ),
    (
        "news_crawler/frontier/revisits/checked.lua",
        "if ARGV[4] == '1' then",
        "if ARGV[4] ~= '1' then",
        "the last recheck's test turned",
    ),
    (
        "news_crawler/frontier/revisits/checked.lua",
        "  redis.call('HDEL', KEYS[2], ARGV[1])\n",
        "",
        "a finished article's state kept",
    ),
    (
        "news_crawler/frontier/revisits/claim.lua",
        "now + tonumber(ARGV[1]), url",
        "now, url",
        "a claim that does not push the page",
    ),
    (
        "news_crawler/frontier/revisits/claim.lua",
        ", 'LIMIT', 0, tonumber(ARGV[2])",
        "",
        "LIMIT dropped: every due page claimed",
    ),
    ("news_crawler/frontier/revisits/claim.lua", "'-inf', now,", "'-inf', '+inf',", "pages not yet due claimed"),
    (
        "news_crawler/frontier/revisits/register.lua",
        "'ZADD', KEYS[1], 'NX', 0, url",
        "'ZADD', KEYS[1], 0, url",
        "NX dropped: a scheduled page made due at once",
    ),
    (
        "news_crawler/frontier/revisits/register.lua",
        "    redis.call('HDEL', KEYS[2], url)\n",
        "",
        "a removed page's state kept",
    ),
    (
        "news_crawler/frontier/revisits/register.lua",
        "if not wanted[url] then",
        "if wanted[url] then",
        "the start-page test turned",
    ),
    (
        "news_crawler/frontier/revisits/sooner.lua",
        "'XX', 'LT', ARGV[3]",
        "'XX', ARGV[3]",
        "LT dropped: a visit moved later",
    ),
    (
        "news_crawler/frontier/revisits/sooner.lua",
        "if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[4] then return -1 end\n",
        "",
        "compare-and-set dropped",
    ),
    (
        "news_crawler/frontier/revisits/track.lua",
        "'HSETNX'",
        "'HSET'",
        "HSETNX made HSET: a tracked article's state overwritten",
    ),
    (
        "news_crawler/frontier/revisits/visited.lua",
        "if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[4] then return -1 end\n",
        "",
        "compare-and-set dropped",
    ),
    (
        "news_crawler/frontier/revisits/visited.lua",
        "now + tonumber(ARGV[3]), ARGV[1]",
        "now, ARGV[1]",
        "the interval ignored",
    ),
    (
        "news_crawler/frontier/revisits/visited.lua",
        "if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end\n",
        "",
        "an unscheduled page scheduled again",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if d <= s_distance and",
        "if d < s_distance and",
        "the sentence rule's distance bound moved",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if c >= needed then",
        "if c > needed then",
        "one shared sentence more needed",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "local needed = math.min(s_match, #keys > 2 and #keys - 1 or #keys)",
        "local needed = s_match",
        "a short story's rule dropped",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "local best, best_fp = max_distance + 1, nil",
        "local best, best_fp = max_distance + 2, nil",
        "distance max + 1 matched",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if d < best or below(kept, best_fp) then",
        "if d <= best then",
        "a tie takes the last found",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if p_rule == 1 and p_dist < d then",
        "if p_rule == 1 and p_dist > d then",
        "an older generation's nearer match lost",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "    elseif p_rule == 1 then\n",
        "    elseif false then\n",
        "an older generation's simhash match ignored",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if write and redis.call('EXISTS', prefix .. 'sealed') == 1 then return { -1 } end\n",
        "",
        "a sealed generation written",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "  redis.call('LTRIM', recent_key, 0, RECENT_DROPS - 1)\n",
        "",
        "the recent drops unbounded",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "  redis.call('HINCRBY', stats_key, 'drops:' .. day, n_dropped)\n",
        "",
        "the day's drops not counted",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "if dropped and afresh then",
        "if dropped and not afresh then",
        "a stale record's test turned",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "(c == best_n and (d < best_d",
        "(c == best_n and (d > best_d",
        "the farther of two sentence matches",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "word_at(published, 5) + SAME_TIME < kept_at",
        "word_at(published, 5) < kept_at",
        "a copy a few seconds earlier taken for the original",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "local later = known and word_at(published, 1) > kept_at + SAME_TIME",
        "local later = false",
        "a much later page of the credited outlet taken for the original",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "return outlet ~= 0 and outlet == kept_credits and not later",
        "return outlet == kept_credits and not later",
        "no outlet matches no credit",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "rule ~= '' and here and kept ~= ''",
        "rule ~= '' and kept ~= ''",
        "a sealed generation's copy superseded",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "      redis.call('HSET', prefix .. 'moved', kept_fp, fp)\n",
        "",
        "the superseded copy's drops still name it",
    ),
    (
        "news_crawler/dedup/index/decide.lua",
        "(credits ~= NO_CREDITS and credits or '')",
        "''",
        "the credited outlet not kept",
    ),
    (
        "news_crawler/dedup/index/lua/common.lua",
        "if len2 - len <= slack and len - len2 <= slack",
        "if len2 - len <= slack",
        "a longer story's length code not bounded",
    ),
    (
        "news_crawler/dedup/index/lua/common.lua",
        "if (p - 1) % 6 == 0 then",
        "if true then",
        "a sentence key matched inside an entry",
    ),
    (
        "news_crawler/dedup/index/lua/common.lua",
        "for i = 1, 8 do d = d + POP",
        "for i = 1, 7 do d = d + POP",
        "the last byte left out of the distance",
    ),
    (
        "news_crawler/dedup/index/lua/ids.lua",
        "if short and #short <= FILED_MAX then",
        "if short and #short < FILED_MAX then",
        "the short form's bound moved",
    ),
    (
        "news_crawler/dedup/index/lua/ids.lua",
        "if find(rest, '%d%d') and not find(rest, '[\\128-\\255]') then",
        "if find(rest, '%d%d') then",
        "a URL with bytes above 127 paired",
    ),
    (
        "news_crawler/dedup/index/lua/drops.lua",
        "era >= 2 and (n - 1) % rotate == 0",
        "era >= 3 and (n - 1) % rotate == 0",
        "an era kept one longer",
    ),
    ("news_crawler/dedup/index/lua/drops.lua", "return { era, era - 1 }", "return { era }", "the era before forgotten"),
    ("news_crawler/dedup/index/lua/drops.lua", "rule == 'sentences' and 1 or 0", "0", "the rule not recorded"),
    (
        "news_crawler/dedup/index/forget.lua",
        "day) or '0') > 0 then",
        "day) or '0') >= 0 then",
        "a day's count taken below zero",
    ),
    ("news_crawler/dedup/index/forget.lua", "redis.call('DECR', prefix .. 'held')\n", "", "the kept count not lowered"),
    ("news_crawler/dedup/index/format.lua", "if ARGV[1] ~= '' then", "if true then", "a reader records a format"),
]


# -- the work ------------------------------------------------------------------------------


@dataclass
class Mutant:
    path: str  # relative to the checkout
    package: str
    operator: str
    occurrence: int
    line: int
    lines: list[int]
    text: str  # the line as written
    mutated: str  # the line as mutated
    digest: str  # of the file's content: a changed file's mutants are new
    lua: tuple[str, str] | None = None

    @property
    def key(self) -> str:
        return f"{self.path}:{self.digest}:{self.operator}:{self.occurrence}"

    @property
    def identity(self) -> str:
        """What the equivalents list names a mutant by: file, operator, the line's text."""
        return f"{self.path} | {self.operator} | {self.text.strip()}"


@dataclass
class Result:
    key: str
    identity: str
    package: str
    line: int
    mutated: str
    status: str  # killed, timeout, survived, unreached
    seconds: float
    tests: int
    killer: str = ""
    output: str = ""


COMPOUND = ("if_stmt", "while_stmt", "for_stmt", "with_stmt", "try_stmt", "funcdef", "classdef", "async_stmt")


def statement_lines(node: parso.tree.NodeOrLeaf) -> list[int]:
    """The lines coverage reports for the statement holding ``node``: a simple statement's
    lines, or a compound statement's header (up to its colon)."""
    statement = node
    while statement.parent is not None and statement.type != "simple_stmt" and statement.type not in COMPOUND:
        statement = statement.parent
    if statement.type in COMPOUND and isinstance(statement, parso.tree.BaseNode):
        colon = next((c for c in statement.children if c.type == "operator" and c.value == ":"), None)
        end = colon.start_pos[0] if colon is not None else statement.start_pos[0]
        start = statement.start_pos[0]
        if node.start_pos[0] > end:  # the node lies in a clause after the header (elif, else, except)
            start = end = node.start_pos[0]
        return list(range(start, end + 1))
    return list(range(statement.start_pos[0], statement.end_pos[0] + 1))


def python_mutants(packages: list[str], cache_path: Path | None = None) -> list[Mutant]:
    """Every mutant of the packages' Python files (a file's are kept in ``cache_path`` by its
    content: finding them parses the file once a mutant)."""
    ops = operators()
    cache: dict[str, list[dict]] = json.loads(cache_path.read_text()) if cache_path and cache_path.exists() else {}
    found: list[Mutant] = []
    for package in packages:
        base = ROOT / "news_crawler" / package
        files = [base] if base.suffix == ".py" else sorted(base.rglob("*.py"))
        for path in files:
            source = path.read_text(encoding="utf-8")
            digest = hashlib.sha1(source.encode()).hexdigest()[:12]
            cached = f"{POSITIONS}:{digest}"
            if cached in cache:
                found += [Mutant(**m) for m in cache[cached]]
                continue
            lines = source.splitlines()
            module = get_ast(source)
            mine: list[Mutant] = []
            for name, op in ops.items():
                occurrence = 0
                for node in ast_nodes(module):
                    for start, _end in op.mutation_positions(node):
                        mutated = mutate_code(source, op, occurrence)
                        occurrence += 1
                        if mutated is None or mutated == source:
                            continue
                        try:
                            compile(mutated, str(path), "exec")
                        except SyntaxError:  # break outside a loop, and the like: no program
                            continue
                        new_lines = mutated.splitlines()
                        changed = next((i for i, (a, b) in enumerate(zip(lines, new_lines)) if a != b), start[0] - 1)
                        mine.append(
                            Mutant(
                                path=str(path.relative_to(ROOT)),
                                package=package.removesuffix(".py"),
                                operator=name,
                                occurrence=occurrence - 1,
                                line=changed + 1,
                                lines=statement_lines(node),
                                text=lines[changed] if changed < len(lines) else "",
                                mutated=new_lines[changed] if changed < len(new_lines) else "",
                                digest=digest,
                            )
                        )
            cache[cached] = [asdict(m) for m in mine]
            found += mine
    if cache_path:
        cache_path.write_text(json.dumps(cache))
    return found


def lua_mutants(packages: list[str]) -> list[Mutant]:
    found = []
    for script, text, replacement, why in LUA_MUTANTS:
        package = script.split("/")[1]
        if package not in packages:
            continue
        source = (ROOT / script).read_text(encoding="utf-8")
        if source.count(text) != 1:
            raise SystemExit(f"mutation.py: {script}: {text!r} occurs {source.count(text)} times, not once")
        digest = hashlib.sha1(source.encode()).hexdigest()[:12]
        line = source[: source.index(text)].count("\n") + 1
        found.append(
            Mutant(
                path=script,
                package=package,
                operator="lua: " + why,
                occurrence=0,
                line=line,
                lines=[line],
                text=text,
                mutated=replacement,
                digest=digest + hashlib.sha1((text + replacement).encode()).hexdigest()[:6],
                lua=(text, replacement),
            )
        )
    return found


# Mutants no behaviour can tell from the code, by identity (file | operator | line text),
# each with its reason. A key whose line is gone no longer matters.
EQUIVALENT: dict[str, str] = {
    "news_crawler/frontier/bloom.py | DropKeywordArgument | "
    '(Path(__file__).parent / "leasing" / "enqueue_bloom.lua").read_text(encoding="utf-8")': (
        "the script is ASCII: read alike in the locale's encoding (UTF-8 in a C locale since Python 3.7)"
    ),
    "news_crawler/pipelines/validate.py | NumberReplacer | "
    'return f"an error or removal notice, not an article ({printable(notice, 60)!r})", "notice"': (
        "a notice is a match that ends within a text's first 52 characters (NOTICE_WITHIN + 40): "
        "never as long as either bound"
    ),
    "news_crawler/frontier/scheduler.py | ReplaceFalseWithTrue | loop.start(seconds, now=False)": (
        "a loop's first run at open, when the scheduler opens: the watch finds no outage, and the renewal "
        "holds no lease yet and reclaims none the open's own reclaim just left"
    ),
    "news_crawler/dedup/index/generations.py | DropKeywordArgument | "
    'self.client.set(prefix + "sealed", int(now), nx=True)': (
        "only the sealed key's existence is read (decide.lua's EXISTS): a second SET rewrites a time nobody reads"
    ),
    "news_crawler/spiders/sites.py | ReplaceTrueWithFalse | @dataclass(frozen=True)": (
        "frozen only refuses assignment to a Site's fields, and no code assigns to one"
    ),
    "news_crawler/printable.py | ReplaceComparisonOperator_Lt_LtE | "
    'return f"\\\\x{code:02x}" if code < 0x100 else f"\\\\u{code:04x}"': (
        "U+0100 is no character _UNSAFE escapes: no code reaching this line is 0x100"
    ),
    'news_crawler/printable.py | NumberReplacer | return f"\\\\x{code:02x}" if code < 0x100 else f"\\\\u{code:04x}"': (
        "the codes _UNSAFE escapes below U+0100 end at U+009F: 255 or 257 for 256 tells none apart"
    ),
    "news_crawler/printable.py | ReplaceComparisonOperator_Gt_GtE | "
    "return LONG_URL.sub(lambda m: short_url(m.group(0)), text) if len(text) > URL_LOG_CHARS else text": (
        "a text of exactly URL_LOG_CHARS characters holds no URL longer than URL_LOG_CHARS: sub changes nothing"
    ),
    "news_crawler/outcomes/changes.py | ReplaceFalseWithTrue | pipe = self.client.pipeline(transaction=False)": (
        "MULTI/EXEC around writes no step reads between (one spider's keys, one slot on a cluster): the same writes"
    ),
    "news_crawler/outcomes/changes.py | DropKeywordArgument | pipe = self.client.pipeline(transaction=False)": (
        "a pipeline is MULTI/EXEC by default: as transaction=True"
    ),
    "news_crawler/outcomes/changes.py | NumberReplacer | "
    "for raw in self.client.lrange(self.key, 0, CHANGES_MAX - 1):": (
        "the list never holds more than CHANGES_MAX entries (trimmed at every push): reading one more reads the same"
    ),
    "news_crawler/outcomes/changes.py | ReplaceBinaryOperator_Sub_Add | "
    "for raw in self.client.lrange(self.key, 0, CHANGES_MAX - 1):": (
        "the list never holds more than CHANGES_MAX entries (trimmed at every push): reading more reads the same"
    ),
    "news_crawler/outcomes/changes.py | ReplaceBreakWithContinue | break": (
        "the log is newest first: past the first entry of an earlier day every entry is earlier, none is kept"
    ),
    "news_crawler/outcomes/latency.py | ReplaceFalseWithTrue | pipe = self.client.pipeline(transaction=False)": (
        "MULTI/EXEC around writes no step reads between (one spider's keys, one slot on a cluster): the same writes"
    ),
    "news_crawler/outcomes/latency.py | DropKeywordArgument | pipe = self.client.pipeline(transaction=False)": (
        "a pipeline is MULTI/EXEC by default: as transaction=True"
    ),
    "news_crawler/outcomes/store.py | ReplaceFalseWithTrue | pipe = self.client.pipeline(transaction=False)": (
        "MULTI/EXEC around reads of one spider's hashes (one slot on a cluster): the same replies"
    ),
    "news_crawler/outcomes/store.py | DropKeywordArgument | pipe = self.client.pipeline(transaction=False)": (
        "a pipeline is MULTI/EXEC by default: as transaction=True"
    ),
    "news_crawler/dedup/index/decide.lua | lua: a sealed generation's copy superseded | "
    "rule ~= '' and here and kept ~= ''": (
        "a sealed generation's copy has no time or credit in the newest one's published hash: original_of is false"
    ),
}


# -- coverage: which tests reach which lines ------------------------------------------------


def copy_checkout(target: Path) -> None:
    """The tracked files and the working tree's changes, without .venv or caches."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    names = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in names:
        if not name:
            continue
        source = ROOT / name.decode()
        if source.is_file():
            dest = target / name.decode()
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)


def coverage_config(copy: Path, data: Path, label: str) -> str:
    from coverage.config import CoverageConfig

    config = CoverageConfig()
    config.from_args(
        data_file=str(data / ".coverage"),
        parallel=True,
        source=[str(copy / "news_crawler")],
        context=label,
        sigterm=True,
    )
    return config.serialize()


def environment(copy: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(copy / "benchmarks")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant's file is rewritten within a second
    return env


def measure_coverage(work: Path, workers: int) -> None:
    copy = work / "coverage-copy"
    data = work / "coverage"
    copy_checkout(copy)
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    env = environment(copy)
    env["COVERAGE_PROCESS_CONFIG"] = coverage_config(copy, data, STARTED)
    env["MUTATION_DURATIONS"] = str(data / "durations.jsonl")
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "mutation_contexts", "-p", "no:cacheprovider", "-n", str(workers)],
        cwd=copy,
        env=env,
    )
    print(f"coverage: the suite ran in {time.monotonic() - started:.0f} s (exit {run.returncode})", flush=True)
    from coverage import CoverageData

    combined = CoverageData(basename=str(data / "combined"))
    for part in data.glob(".coverage.*"):
        piece = CoverageData(basename=str(part))
        piece.read()
        combined.update(piece)
    combined.write()
    reach: dict[str, dict[int, list[str]]] = {}
    for measured in combined.measured_files():
        relative = str(Path(measured).relative_to(copy))
        reach[relative] = {int(k): v for k, v in combined.contexts_by_lineno(measured).items()}
    (work / "reach.json").write_text(json.dumps(reach))


def plain_id(nodeid: str) -> str:
    """A test's id as pytest takes it: without the ``@<group>`` pytest-xdist's loadgroup adds."""
    return re.sub(r"@[\w-]+$", "", nodeid)


class Selection:
    """Which tests to run for a mutant's lines, cheapest first."""

    def __init__(self, work: Path) -> None:
        # Lua mutants need neither (their tests are LUA_TESTS'): an --only-lua run measures nothing.
        reach, durations = work / "reach.json", work / "coverage" / "durations.jsonl"
        self.reach: dict[str, dict[str, list[str]]] = json.loads(reach.read_text()) if reach.exists() else {}
        self.cost: dict[str, float] = collections.defaultdict(float)
        self.module_cost: dict[str, float] = collections.defaultdict(float)
        for line in (durations.read_text() if durations.exists() else "").splitlines():
            nodeid, _when, seconds, _outcome = json.loads(line)
            nodeid = plain_id(nodeid)
            self.cost[nodeid] += seconds
            self.module_cost[nodeid.split("::")[0]] += seconds

    def tests(self, mutant: Mutant) -> list[str]:
        lines = self.reach.get(mutant.path, {})
        contexts = {c for n in mutant.lines for c in lines.get(str(n), [])}
        if mutant.lua:
            directory = str(Path(mutant.path).parent).replace("/lua", "")
            modules = LUA_TESTS.get(directory, [])
            return sorted(modules, key=lambda m: self.module_cost.get(m, 60.0))
        if not any("|" in c for c in contexts):
            # Reached only while modules were imported (a class attribute, a module's
            # constant): every test that runs this file's code.
            contexts = {c for by_line in lines.values() for c in by_line if c.endswith("|run")}
        single: set[str] = set()
        modules: set[str] = set()
        for context in contexts:
            # In a test process, the static label the process started with, then the test's
            # (collection|<nodeid>|run); in a process a test started, the test's alone.
            nodeid, _, phase = context.removeprefix(f"{STARTED}|").rpartition("|")
            nodeid = plain_id(nodeid)
            if not nodeid:
                continue
            if phase == "run":
                single.add(nodeid)
            else:  # a module's fixture: every test of the module reads what it did
                modules.add(nodeid.split("::")[0])
        single = {t for t in single if t.split("::")[0] not in modules}
        chosen = [(self.cost.get(t, 5.0), t) for t in single] + [(self.module_cost.get(m, 60.0), m) for m in modules]
        return [t for _, t in sorted(chosen)]

    def seconds(self, tests: list[str]) -> float:
        return sum(self.cost.get(t, self.module_cost.get(t, 30.0)) for t in tests)


# -- running the mutants --------------------------------------------------------------------


def write_mutant(copy: Path, mutant: Mutant) -> tuple[Path, str]:
    path = copy / mutant.path
    original = (ROOT / mutant.path).read_text(encoding="utf-8")
    if mutant.lua:
        text, replacement = mutant.lua
        mutated = original.replace(text, replacement, 1)
    else:
        mutated = mutate_code(original, operators()[mutant.operator], mutant.occurrence)
    path.write_text(mutated, encoding="utf-8")
    return path, original


def run_tests(copy: Path, tests: list[str], timeout: float) -> tuple[str, str, str]:
    """``(status, failing test, output tail)`` for ``tests`` on the copy as it is."""
    args_file = copy / ".mutation-args"
    args_file.write_text("\n".join(tests))
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider", "-rfE", f"@{args_file}"]
    try:
        run = subprocess.run(command, cwd=copy, env=environment(copy), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    out = run.stdout + run.stderr
    # "FAILED tests/x.py::test[a parameter with spaces] - the message": the id is up to " - ";
    # a captured log line ("ERROR    module:file.py:91 ...") names no test
    killer = next(
        (
            line.split(" ", 1)[1].split(" - ", 1)[0]
            for line in out.splitlines()
            if line.startswith(("FAILED tests/", "ERROR tests/"))
        ),
        "",
    )
    if run.returncode == 0:
        return "survived", "", ""
    # a usage error or no test collected is the benchmark's fault, not a kill, unless a module
    # failed to import (a mutant that breaks it: pytest then cannot find the tests it names)
    if run.returncode in (4, 5) and not killer:
        raise SystemExit(f"mutation.py: pytest could not run {tests[:3]}...: {out[-1500:]}")
    return "killed", killer, out[-2000:]


def run_mutant(copy: Path, mutant: Mutant, selection: Selection) -> Result:
    tests = selection.tests(mutant)
    base = dict(key=mutant.key, identity=mutant.identity, package=mutant.package, line=mutant.line)
    if not tests:
        return Result(**base, mutated=mutant.mutated, status="unreached", seconds=0.0, tests=0)
    path, original = write_mutant(copy, mutant)
    started = time.monotonic()
    try:
        status, killer, output = run_tests(copy, tests, 120 + 4 * selection.seconds(tests))
    finally:
        path.write_text(original, encoding="utf-8")
    return Result(
        **base,
        mutated=mutant.mutated,
        status=status,
        seconds=round(time.monotonic() - started, 1),
        tests=len(tests),
        killer=killer,
        output=output if status == "survived" else "",
    )


def load_results(work: Path) -> dict[str, Result]:
    path = work / "results.jsonl"
    if not path.exists():
        return {}
    results = {}
    for line in path.read_text().splitlines():
        record = Result(**json.loads(line))
        results[record.key] = record
    return results


def verify_kills(work: Path, results: dict[str, Result], copy: Path) -> set[str]:
    """The tests that killed a mutant, run on the unmutated code: those that fail there too."""
    killers = sorted({r.killer for r in results.values() if r.status == "killed" and r.killer})
    flaky: set[str] = set()
    for killer in killers:
        status, _, _ = run_tests(copy, [killer], 600)
        if status != "survived":
            flaky.add(killer)
    return flaky


def sampled(mutant: Mutant, fraction: float, seed: int) -> bool:
    """Whether ``mutant`` is in the sample of ``fraction`` drawn with ``seed``: by a hash of
    what it is, so that a mutant stays in (or out of) a sample however the others change."""
    digest = hashlib.sha1(f"{seed}|{mutant.identity}|{mutant.mutated}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < fraction * 2**64


def result_for(results: dict[str, Result], mutant: Mutant) -> Result | None:
    """``mutant``'s result, or None: not run, or run as another mutant the same key named
    before a rule moved the operators' positions."""
    result = results.get(mutant.key)
    if result is None or result.identity != mutant.identity or result.mutated != mutant.mutated:
        return None
    return result


def report(mutants: list[Mutant], results: dict[str, Result], show_survivors: bool) -> None:
    by_package: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    survivors = []
    for mutant in mutants:
        result = result_for(results, mutant)
        if result is None:
            by_package[mutant.package]["not run"] += 1
            continue
        status = result.status
        if status in ("survived", "unreached") and mutant.identity in EQUIVALENT:
            status = "equivalent"
        by_package[mutant.package][status] += 1
        if status in ("survived", "unreached"):
            survivors.append((mutant, result))
    columns = ("mutants", "killed", "timeout", "survived", "unreached", "equiv", "rate")
    print("\n" + f"{'package':<12}" + "".join(f"{c:>10}" for c in columns))
    for package in sorted(by_package):
        c = by_package[package]
        total = sum(c.values())
        killed = c["killed"] + c["timeout"]
        counted = killed + c["survived"] + c["unreached"]
        rate = f"{killed / counted:.1%}" if counted else "-"
        cells = (total, c["killed"], c["timeout"], c["survived"], c["unreached"], c["equivalent"], rate)
        extra = f"  ({c['not run']} not run)" if c["not run"] else ""
        print(f"{package:<12}" + "".join(f"{x:>10}" for x in cells) + extra)
    if show_survivors:
        print()
        for mutant, result in sorted(survivors, key=lambda s: (s[0].path, s[0].line)):
            where = f"{mutant.path}:{mutant.line} {mutant.operator}"
            print(f"{result.status:<9} {where}: {mutant.text.strip()}  ->  {mutant.mutated.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packages", default=",".join(p.removesuffix(".py") for p in PACKAGES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/news-mutation"))
    parser.add_argument("--sample", type=float, default=1.0, help="run this fraction of the Python mutants")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-lua", action="store_true")
    parser.add_argument("--only-lua", action="store_true")
    parser.add_argument("--coverage-only", action="store_true", help="measure which tests reach which lines, then stop")
    parser.add_argument("--survivors", action="store_true", help="list every survivor")
    parser.add_argument("--report", action="store_true", help="only print the table of the results so far")
    parser.add_argument(
        "--again", action="store_true", help="run only the survivors of earlier runs again (after new tests)"
    )
    args = parser.parse_args()
    known = {p.removesuffix(".py"): p for p in PACKAGES}
    packages = [known.get(p, p) for p in args.packages.split(",")]
    args.work.mkdir(parents=True, exist_ok=True)
    mutants = [] if args.only_lua else python_mutants(packages, args.work / "mutants-cache.json")
    if args.sample < 1.0:
        mutants = [m for m in mutants if sampled(m, args.sample, args.seed)]
    if not args.no_lua:
        mutants += lua_mutants([p.removesuffix(".py") for p in packages])
    results = load_results(args.work)
    if args.report:
        report(mutants, results, args.survivors)
        return
    if not args.only_lua and not (args.work / "reach.json").exists() or args.coverage_only:
        measure_coverage(args.work, args.workers)
        if args.coverage_only:
            return
    selection = Selection(args.work)
    if args.again:
        left = ("survived", "unreached")
        todo = [m for m in mutants if (r := result_for(results, m)) is not None and r.status in left]
        todo = [m for m in todo if m.identity not in EQUIVALENT]
    else:
        todo = [m for m in mutants if result_for(results, m) is None]
    print(f"{len(mutants)} mutants, {len(todo)} to run, {args.workers} workers", flush=True)
    copies = []
    for n in range(args.workers):
        copy = args.work / f"copy-{n}"
        copy_checkout(copy)
        copies.append(copy)
    free = list(copies)
    out = open(args.work / "results.jsonl", "a", encoding="utf-8")
    done = 0
    started = time.monotonic()

    def work(mutant: Mutant) -> Result:
        copy = free.pop()
        try:
            return run_mutant(copy, mutant, selection)
        finally:
            free.append(copy)

    with ThreadPoolExecutor(args.workers) as pool:
        for result in pool.map(work, todo):
            results[result.key] = result
            out.write(json.dumps(asdict(result), ensure_ascii=False) + "\n")
            out.flush()
            done += 1
            if done % 20 == 0 or done == len(todo):
                rate = done / (time.monotonic() - started)
                print(f"{done}/{len(todo)} ({rate * 3600:.0f} an hour)", flush=True)
    flaky = verify_kills(args.work, results, copies[0])
    if flaky:
        print(f"tests that fail on the unmutated code too: {sorted(flaky)}; their kills run again", flush=True)
        again = [m for m in mutants if (r := result_for(results, m)) is not None and r.killer in flaky]
        for mutant in again:
            result = run_mutant(copies[0], mutant, selection)
            results[result.key] = result
            out.write(json.dumps(asdict(result), ensure_ascii=False) + "\n")
    out.close()
    report(mutants, results, args.survivors)


if __name__ == "__main__":
    main()
