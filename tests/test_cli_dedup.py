import json
import os
import re
import subprocess
import sys

import pytest

from news_crawler.connection.embedded import stop_server
from news_crawler.dedup.fingerprint.text import normalize
from news_crawler.dedup.index.generations import FORMAT


def run(args, stdin="", env=None):
    return subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.dedup", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def corpus(sina_articles):
    a, b = sina_articles[0], sina_articles[1]
    lines = [
        {"id": a["id"], "title": a["title"], "body": a["body"]},
        {"id": "reprint", "title": "新标题", "body": "来源：人民网\n" + a["body"] + "\n责任编辑：王五"},
        "this is not json",
        {"id": "empty", "body": "  "},
        {"id": 7, "body": "数字编号"},
        {
            "id": b["id"],
            "html": f"<html><head><title>t</title></head><body><p>{b['body']}</p></body></html>",
            "url": "https://example.com/b",
        },
        {"id": "no-body", "title": "只有标题"},
    ]
    return "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines) + "\n"


def test_check_contract(redis_server, redis_client, corpus, sina_articles):
    out = run(["check", "--redis-url", redis_server.url, "--namespace", "cli", "-"], corpus)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r.get("id") for r in rows] == [
        sina_articles[0]["id"],
        "reprint",
        None,
        "empty",
        7,
        sina_articles[1]["id"],
        "no-body",
    ]
    first, reprint, bad, empty, numeric, html, nobody = rows
    assert set(first) == {"id", "simhash", "duplicate_of", "distance"} and len(first["simhash"]) == 16
    assert first["duplicate_of"] is None and first["distance"] is None
    assert reprint["duplicate_of"] == sina_articles[0]["id"] and 0 <= reprint["distance"] <= 3
    assert "line 3" in bad["error"] and "empty" in empty["error"] and "id" in numeric["error"]
    assert html["duplicate_of"] is None and "body" in nobody["error"]
    assert "2 kept, 1 near-duplicates, 0 replays, 4 unusable lines" in out.stderr

    again = run(["check", "--redis-url", redis_server.url, "--namespace", "cli", "-"], corpus)
    replayed = [json.loads(line) for line in again.stdout.splitlines()]
    # Decided before: the same answers, marked as replays, nothing new stored.
    assert [{k: v for k, v in r.items() if k != "replay"} for r in replayed] == rows
    assert [r.get("replay") for r in replayed] == [True, True, None, None, None, True, None]
    assert "0 kept, 0 near-duplicates, 3 replays, 4 unusable lines" in again.stderr

    stats = run(["stats", "--redis-url", redis_server.url, "--namespace", "cli", "--json"])
    report = json.loads(stats.stdout)
    assert (report["fingerprints"], report["kept"], report["dropped"], report["dropped_today"]) == (2, 2, 1, 1)
    assert report["redis_memory_bytes"] > 0

    explain = run(["explain", "--redis-url", redis_server.url, "--namespace", "cli", "--id", "reprint", "--json"])
    report = json.loads(explain.stdout)
    assert report["duplicate_of"] == sina_articles[0]["id"]
    assert report["nearest"][0]["id"] == sina_articles[0]["id"] and report["nearest"][0]["matched_blocks"]

    text = run(["explain", "--redis-url", redis_server.url, "--namespace", "cli", "--text", sina_articles[0]["body"]])
    assert json.loads(text.stdout)["nearest"][0]["distance"] == 0

    drops = run(["drops", "--redis-url", redis_server.url, "--namespace", "cli"])
    assert json.loads(drops.stdout)["id"] == "reprint"


def edited_copy(fingerprinter, body):
    """``body`` with a sentence added where that moves its fingerprint by 1 to 3 bits."""
    from news_crawler.dedup.fingerprint import distance

    for twentieth in range(20):
        at = len(body) * twentieth // 20
        copy = body[:at] + "另据报道，警方已介入调查。" + body[at:]
        if 1 <= distance(fingerprinter.fingerprint(body).value, fingerprinter.fingerprint(copy).value) <= 3:
            return copy
    raise AssertionError("no edit of this article lands within distance 1-3")


def test_check_with_max_distance_zero_keeps_edited_copy(redis_server, redis_client, sina_articles, fingerprinter):
    body = sina_articles[5]["body"]
    lines = [json.dumps({"id": "a", "body": body}), json.dumps({"id": "b", "body": edited_copy(fingerprinter, body)})]
    strict = run(
        ["check", "--redis-url", redis_server.url, "--namespace", "k0", "--max-distance", "0", "--no-sentences", "-"],
        "\n".join(lines),
    )
    rows = [json.loads(x) for x in strict.stdout.splitlines()]
    assert rows[0]["simhash"] != rows[1]["simhash"] and rows[1]["duplicate_of"] is None
    loose = run(["check", "--redis-url", redis_server.url, "--namespace", "k3", "-"], "\n".join(lines))
    rows = [json.loads(x) for x in loose.stdout.splitlines()]
    assert [r["duplicate_of"] for r in rows] == [None, "a"] and rows[1]["rule"] == "simhash"
    assert "rule" not in rows[0]
    # The second rule, on by default, still finds the copy that distance 0 lets through.
    by_sentences = run(
        ["check", "--redis-url", redis_server.url, "--namespace", "s0", "--max-distance", "0", "-"], "\n".join(lines)
    )
    rows = [json.loads(x) for x in by_sentences.stdout.splitlines()]
    assert rows[1]["duplicate_of"] == "a" and rows[1]["rule"] == "sentences" and 1 <= rows[1]["distance"] <= 3
    common = ["--redis-url", redis_server.url, "--namespace", "s0", "--json"]
    by_id = json.loads(run(["explain", *common, "--id", "b"]).stdout)
    assert (by_id["kept"], by_id["duplicate_of"], by_id["rule"]) == (False, "a", "sentences")
    evidence = by_id["evidence"]  # a sentence-rule drop: its evidence, not an empty "nearest"
    assert evidence["kept"] == "a" and evidence["distance"] == rows[1]["distance"] and "3 of its 5" in evidence["why"]
    assert evidence["kept_simhash"] == rows[0]["simhash"] and "--file" in evidence["shared_sentences"]
    with_text = json.loads(run(["explain", *common, "--id", "b", "--text", json.loads(lines[1])["body"]]).stdout)
    shared = with_text["evidence"]["shared_sentences"]  # named, from the text given
    assert len(shared) >= 3 and all(s in [x["sentence"] for x in with_text["sentences"]] for s in shared)
    by_text = json.loads(run(["explain", *common, "--text", json.loads(lines[1])["body"]]).stdout)
    held = [s for s in by_text["sentences"] if s["held_by"]]
    assert len(held) >= 3 and all(s["held_by"][0]["id"] == "a" for s in held)
    letters = re.sub(r"[^\u4e00-\u9fffa-z0-9]", "", normalize(body))  # sentences are shown as they are hashed
    assert all(len(s["sentence"]) >= 8 and s["sentence"] in letters for s in held)
    drops = [
        json.loads(x) for x in run(["drops", "--redis-url", redis_server.url, "--namespace", "s0"]).stdout.splitlines()
    ]
    assert [(d["id"], d["rule"]) for d in drops] == [("b", "sentences")]


def test_max_distance_beyond_the_index_is_refused():
    out = run(["check", "--max-distance", "4", "-"])
    assert out.returncode == 2 and out.stderr.splitlines() == [
        "news-dedup: setting DEDUP_MAX_DISTANCE=4: must be from 0 to 3, fewer than the 4 blocks of "
        "DEDUP_BLOCKS=16,16,16,16 (more blocks reach further: --blocks 16,12,12,12,12 or "
        "DEDUP_BLOCKS=16,12,12,12,12 reaches 4)"
    ]
    for blocks, said in (
        ("16,16,16", "setting DEDUP_BLOCKS='16,16,16': the blocks add up to 48 bits, not the fingerprint's 64"),
        ("16,a,16,16", "setting DEDUP_BLOCKS='16,a,16,16': expected block widths in bits, comma-separated"),
        ("0,16,16,16,16", "setting DEDUP_BLOCKS='0,16,16,16,16': each block is a whole number of bits, 1 or more"),
    ):
        out = run(["check", "--blocks", blocks, "-"])
        assert out.returncode == 2 and said in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr


def test_missing_file_is_a_clear_error(redis_server):
    out = run(["check", "--redis-url", redis_server.url, "/nonexistent.jsonl"])
    assert out.returncode == 2 and "No such file" in out.stderr


def test_default_is_the_embedded_server(tmp_path, sina_articles):
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["EMBEDDED_REDIS_DIR"] = str(tmp_path / "emb")
    try:
        line = json.dumps({"id": "x", "body": sina_articles[2]["body"]}) + "\n"
        out = run(["check", "-"], line, env)
        assert json.loads(out.stdout)["duplicate_of"] is None, out.stderr
        assert (tmp_path / "emb" / "redis.sock").exists()
        stats = json.loads(run(["stats", "--json"], env=env).stdout)
        assert stats["fingerprints"] == 1
        # --data-dir names another embedded server's directory: a server of its own, started there
        other = json.loads(run(["stats", "--json", "--data-dir", str(tmp_path / "other")], env=env).stdout)
        assert other["fingerprints"] == 0 and (tmp_path / "other" / "redis.sock").exists()
    finally:
        stop_server(tmp_path / "emb")
        stop_server(tmp_path / "other")


def test_every_line_gets_one_answer_whatever_it_holds(tmp_path, redis_server, redis_client, sina_articles):
    good = [json.dumps({"id": a["id"], "body": a["body"]}, ensure_ascii=False).encode() for a in sina_articles[:6]]
    bad = [
        b"",  # blank
        b"   \t",  # blank, with whitespace
        b'{"id": "x", "body": "\xff\xfe broken bytes"}',  # invalid UTF-8
        b"[" * 100_000 + b"]" * 100_000,  # nested too deep
        b'{"id": "\\udc80", "body": "lone surrogate id"}',  # id is not valid text
        b'{"id": "cr",\r "body": ' + json.dumps(sina_articles[7]["body"]).encode() + b"}",  # raw CR in whitespace
        b"{broken",  # not JSON
    ]
    lines = [
        good[0],
        bad[0],
        good[1],
        bad[1],
        bad[2],
        good[2],
        bad[3],
        good[3],
        bad[4],
        bad[5],
        good[4],
        bad[6],
        good[5],
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.dedup",
            "check",
            "--redis-url",
            redis_server.url,
            "--namespace",
            "mixed",
            str(path),
        ],
        capture_output=True,
        timeout=300,
    )
    assert out.returncode == 0 and b"Traceback" not in out.stderr, out.stderr
    rows = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert len(rows) == len(lines)
    ids = [json.loads(g)["id"] for g in good]
    assert [r["id"] for r in rows] == [
        ids[0],
        None,
        ids[1],
        None,
        None,
        ids[2],
        None,
        ids[3],
        None,
        "cr",
        ids[4],
        None,
        ids[5],
    ]
    errors = [r["error"] for r in rows if "error" in r]
    assert errors[:2] == ["blank line", "blank line"] and "invalid UTF-8" in errors[2]
    assert "nested too deep" in errors[3] and "not valid text" in errors[4] and "not JSON" in errors[5]
    assert rows[9]["simhash"]  # the CR is JSON whitespace: the line is whole


def test_redis_dying_mid_run_ends_with_one_line_and_whole_output(tmp_path, sina_articles):
    from tests.redis_server import TestServer

    server = TestServer(tmp_path / "redis")
    proc = subprocess.Popen(
        [sys.executable, "-m", "news_crawler.cli.dedup", "check", "--redis-url", server.url, "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    lines = [
        json.dumps({"id": f"{n}-{a['id']}", "body": a["body"]}, ensure_ascii=False).encode() + b"\n"
        for n, a in enumerate(sina_articles[:600])
    ]
    try:
        proc.stdin.write(b"".join(lines[:300]))
        proc.stdin.flush()
        first = [proc.stdout.readline() for _ in range(256)]  # the first batch is decided and printed
        server.process.kill()
        server.process.wait()
        try:
            proc.stdin.write(b"".join(lines[300:]))
            proc.stdin.close()
        except BrokenPipeError:
            pass  # check stopped reading once Redis failed: that is the point
        rest = proc.stdout.read()
        assert proc.wait(120) == 3
    finally:
        server.stop()
    stderr = proc.stderr.read().decode().strip()
    assert len(stderr.splitlines()) == 1 and "Redis failed after" in stderr and "Traceback" not in stderr
    printed = [json.loads(line) for line in (b"".join(first) + rest).decode().splitlines()]
    assert len(printed) >= 256 and all(len(r["simhash"]) == 16 for r in printed)


def test_an_id_sent_again_with_another_body_is_a_replay_with_the_stored_simhash(
    redis_server, redis_client, sina_articles
):
    first = run(
        ["check", "--redis-url", redis_server.url, "--namespace", "re", "-"],
        json.dumps({"id": "story", "body": sina_articles[10]["body"]}) + "\n",
    )
    again = run(
        ["check", "--redis-url", redis_server.url, "--namespace", "re", "-"],
        json.dumps({"id": "story", "body": sina_articles[11]["body"]}) + "\n",
    )
    kept, replay = json.loads(first.stdout), json.loads(again.stdout)
    assert replay == {**kept, "replay": True}  # the stored simhash, not the new body's
    assert "0 kept, 0 near-duplicates, 1 replays, 0 unusable lines" in again.stderr


def test_workers_decide_exactly_as_one_process_in_input_order(redis_server, sina_articles):
    lines = [
        json.dumps({"id": f"{n}", "body": a["body"]}, ensure_ascii=False) for n, a in enumerate(sina_articles[:700])
    ]
    lines[5], lines[600] = "not json", json.dumps({"id": "copy", "body": sina_articles[3]["body"]})
    lines[300] = "not json either"  # past the first chunk: numbered as the 301st line either way
    stdin = "\n".join(lines) + "\n"
    one = run(["check", "--redis-url", redis_server.url, "--namespace", "w1", "--workers", "1", "-"], stdin)
    two = run(["check", "--redis-url", redis_server.url, "--namespace", "w3", "--workers", "3", "-"], stdin)
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and len(one.stdout.splitlines()) == 700  # three chunks, in order
    rows = [json.loads(line) for line in two.stdout.splitlines()]
    assert "error" in rows[5] and rows[600]["duplicate_of"] == "3"
    assert rows[300]["error"].startswith("line 301: not JSON")
    assert run(["check", "--workers", "0", "-"]).returncode == 2


def test_progress_bar_on_a_terminal_and_nothing_extra_elsewhere(tmp_path, redis_server, sina_articles):
    import fcntl
    import pty
    import struct
    import termios

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": str(n), "body": a["body"]}, ensure_ascii=False) + "\n"
            for n, a in enumerate(sina_articles[:300])
        ),
        encoding="utf-8",
    )
    args = [
        sys.executable,
        "-m",
        "news_crawler.cli.dedup",
        "check",
        "--redis-url",
        redis_server.url,
        "--namespace",
        "bar",
        str(corpus),
    ]
    master, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal has a size
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the process is done with it
            break
        if not data:
            break
        shown += data
    decisions = proc.stdout.read()
    assert proc.wait(120) == 0 and len(decisions.splitlines()) == 300
    text = shown.decode("utf-8", "replace")
    assert "300/300" in text and "doc/s" in text and "kept=" in text and "dropped=" in text, text[-500:]
    piped = run(["check", "--redis-url", redis_server.url, "--namespace", "bar2", str(corpus)])
    assert len(piped.stderr.splitlines()) == 1, piped.stderr
    assert piped.stderr.startswith("news-dedup: 297 kept, 3 near-duplicates"), piped.stderr


def test_forget_removes_an_article_so_its_copy_is_kept_next_time(redis_server, sina_articles):
    body = sina_articles[9]["body"]
    lines = [
        json.dumps({"id": "first", "body": body}, ensure_ascii=False),
        json.dumps({"id": "copy", "body": "来源：人民网\n" + body}, ensure_ascii=False),
    ]
    common = ["--redis-url", redis_server.url, "--namespace", "forget"]
    out = run(["check", *common, "-"], "\n".join(lines) + "\n")
    assert json.loads(out.stdout.splitlines()[1])["duplicate_of"] == "first"
    forgot = run(["forget", *common, "first", "copy", "never"])
    assert forgot.returncode == 1  # one id was unknown
    assert [json.loads(line)["forgotten"] for line in forgot.stdout.splitlines()] == ["kept", "dropped", None]
    again = run(["check", *common, "-"], lines[1] + "\n")
    assert json.loads(again.stdout)["duplicate_of"] is None  # nothing kept is near it now


def test_an_index_of_another_format_gives_one_line_and_forget_all_clears_it(redis_server, redis_client, sina_articles):
    """Keys of an unversioned index stop check with one line naming the fix; ``forget --all``
    removes the index (of any format) but not a spider's keys of the same name."""
    common = ["--redis-url", redis_server.url, "--namespace", "legacy"]
    redis_client.set("legacy:held", 2)  # as a version before formats wrote it
    redis_client.hset("legacy:docids", b"k" * 8, b"f" * 8)
    redis_client.set("legacy:0abcd", b"x" * 6)
    redis_client.rpush("legacy:requests", "{}")  # a spider named like the namespace
    line = json.dumps({"id": "a", "body": sina_articles[0]["body"]}, ensure_ascii=False) + "\n"
    out = run(["check", *common, "-"], line)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        "news-dedup: the index in namespace 'legacy' holds index keys with no format version; this version reads "
        f"format {FORMAT.decode()} only: use a new DEDUP_NAMESPACE, or remove the old index with "
        "`news-dedup forget --all --namespace legacy`"
    ]
    assert run(["forget", *common]).returncode == 2  # neither ids nor --all
    cleared = run(["forget", *common, "--all"])
    assert cleared.returncode == 0 and json.loads(cleared.stdout) == {"namespace": "legacy", "removed_keys": 3}
    assert redis_client.llen("legacy:requests") == 1
    again = run(["check", *common, "-"], line)
    assert again.returncode == 0 and json.loads(again.stdout)["duplicate_of"] is None
    assert redis_client.get("legacy:format") == FORMAT and redis_client.exists("legacy:g0:held")


def test_settings_go_after_the_subcommand_as_for_scrapy_crawl(redis_server, redis_client, corpus):
    out = run(
        [
            "check",
            "-s",
            f"REDIS_URL={redis_server.url}",
            "-s",
            "DEDUP_NAMESPACE=after",
            "-s",
            "DEDUP_MAX_DISTNCE=2",
            "-",
        ],
        corpus,
    )
    assert out.returncode == 0, out.stderr
    assert redis_client.get("after:format") == FORMAT  # the namespace -s named
    assert "DEDUP_MAX_DISTNCE is not a setting" in out.stderr and "did you mean DEDUP_MAX_DISTANCE?" in out.stderr
    bad = run(["stats", "-s", "NOEQUALS"])
    assert bad.returncode == 2 and bad.stderr.strip() == "news-dedup: -s takes NAME=VALUE, got 'NOEQUALS'"


def test_check_keeps_the_earliest_published_copy_and_names_what_it_supersedes(
    redis_server, redis_client, sina_articles
):
    a, b = sina_articles[2], sina_articles[3]
    lines = [
        {"id": "reprint", "body": "来源：人民网\n" + a["body"], "published_at": "2018-06-02T15:00:00+08:00"},
        {"id": "copy", "body": a["body"] + "\n责任编辑：王五"},  # no time: dropped onto the kept one
        {"id": "original", "body": a["body"], "published_at": "2018-06-02 10:00"},  # no offset: TIMEZONE's
        {"id": "later", "body": a["body"], "published_at": "2018-06-03"},
        {"id": "unique", "body": b["body"], "published_at": "2018-06-01T00:00:00Z"},
        {"id": "bad", "body": b["body"], "published_at": "6月2日"},
        {"id": "number", "body": b["body"], "published_at": 1528000000},
    ]
    stdin = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n"
    out = run(
        ["check", "--redis-url", redis_server.url, "--namespace", "orig", "-s", "TIMEZONE=Asia/Shanghai", "-"], stdin
    )
    assert out.returncode == 0, out.stderr
    reprint, copy, original, later, unique, bad, number = [json.loads(x) for x in out.stdout.splitlines()]
    assert reprint["duplicate_of"] is None and copy["duplicate_of"] == "reprint"
    assert original["duplicate_of"] is None and original["supersedes"] == ["reprint"]
    assert later["duplicate_of"] == "original" and "supersedes" not in later
    assert unique["duplicate_of"] is None and "supersedes" not in unique  # a story of its own supersedes nothing
    assert bad == {"id": "bad", "error": "line 6: published_at '6月2日' is not an ISO 8601 time"}
    assert number == {"id": "number", "error": 'line 7: "published_at" must be a string (ISO 8601)'}
    # every copy's story is the original's now
    story = run(["story", "copy", "--redis-url", redis_server.url, "--namespace", "orig"])
    rows = [json.loads(x) for x in story.stdout.splitlines()]
    assert rows[0]["id"] == "original" and {r["id"] for r in rows[1:]} == {"reprint", "copy", "later"}
    # --original first: the first decided stays the original
    first = run(["check", "--redis-url", redis_server.url, "--namespace", "first", "--original", "first", "-"], stdin)
    decided = [json.loads(x) for x in first.stdout.splitlines()]
    assert decided[2]["duplicate_of"] == "reprint" and "supersedes" not in decided[2]


def test_check_keeps_the_copy_of_the_outlet_a_reprint_names_as_its_source(redis_server, redis_client, sina_articles):
    a = sina_articles[4]
    lines = [
        {"id": "reprint", "body": a["body"], "outlet": "某某门户网", "source": "城关县融媒体中心"},
        {"id": "county", "body": a["body"], "outlet": "城关县 融媒体中心"},  # no times: the 来源 line tells
        {"id": "other", "body": a["body"], "outlet": "另一家网站"},
        {"id": "bad", "body": a["body"], "source": ["城关县融媒体中心"]},
    ]
    stdin = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n"
    out = run(["check", "--redis-url", redis_server.url, "--namespace", "named", "-"], stdin)
    assert out.returncode == 0, out.stderr
    reprint, county, other, bad = [json.loads(x) for x in out.stdout.splitlines()]
    assert reprint["duplicate_of"] is None and county["duplicate_of"] is None and county["supersedes"] == ["reprint"]
    assert other["duplicate_of"] == "county"
    assert bad == {"id": "bad", "error": 'line 4: "source" must be a string (an outlet\'s name)'}


def test_check_runs_without_scrapy_or_twisted(redis_server, corpus):
    """news-dedup starts in a fraction of a second: nothing it does (the settings' preflight
    included) imports the crawler's frameworks."""
    code = (
        "import runpy, sys\n"
        "try:\n"
        "    runpy.run_module('news_crawler.cli.dedup', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('loaded:', sorted(m for m in ('scrapy', 'twisted') if m in sys.modules), file=sys.stderr)\n"
    )
    args = ["news-dedup", "check", "--redis-url", redis_server.url, "--namespace", "noscrapy", "--workers", "1", "-"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args[1:]], input=corpus, capture_output=True, text=True, timeout=120
    )
    assert "loaded: []" in done.stderr, done.stderr[-2000:]
    assert "news-dedup: 2 kept, 1 near-duplicates" in done.stderr and len(done.stdout.splitlines()) == 7
