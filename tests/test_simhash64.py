import random

import pytest
import simhash

from news_crawler.dedup.fingerprint import blocks, distance, fingerprint, from_hex, similarity, to_hex
from news_crawler.dedup.fingerprint.simhash64 import WEIGHT_QUANTUM


def test_bit_identical_to_simhash_package_on_real_articles(sina_articles, fingerprinter):
    checked = 0
    for article in sina_articles[:600]:
        features = fingerprinter.features(article["body"])
        if not features:
            continue
        assert fingerprint(features) == simhash.Simhash(features, f=64).value, article["id"]
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("seed", range(20))
def test_bit_identical_on_random_quantized_weights(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 400)
    features = [(f"w{rng.randrange(10**6)}", rng.randint(1, 50_000) / WEIGHT_QUANTUM) for _ in range(n)]
    assert fingerprint(features) == simhash.Simhash(features, f=64).value


def test_single_feature_is_its_md5_tail():
    import hashlib

    expected = int.from_bytes(hashlib.md5("新闻".encode()).digest()[-8:], "big")
    assert fingerprint([("新闻", 1.0)]) == expected


def test_no_features_gives_zero():
    assert fingerprint([]) == 0


def test_distance_similarity_blocks_hex():
    a = 0x0123_4567_89AB_CDEF
    b = a ^ 0b1011  # three bits flipped
    assert distance(a, b) == 3
    assert similarity(a, b) == (64 - 3) / 64
    assert similarity(a, a) == 1.0 and similarity(a, ~a & (2**64 - 1)) == 0.0
    assert blocks(a) == (0x0123, 0x4567, 0x89AB, 0xCDEF)
    assert to_hex(5) == "0000000000000005" and from_hex(to_hex(a)) == a
    with pytest.raises(ValueError, match="16 hex digits"):
        from_hex("abc")


def test_pigeonhole_any_three_flips_keep_a_block():
    rng = random.Random(7)
    for _ in range(2000):
        a = rng.getrandbits(64)
        b = a
        for bit in rng.sample(range(64), rng.randint(0, 3)):
            b ^= 1 << bit
        assert any(x == y for x, y in zip(blocks(a), blocks(b)))
