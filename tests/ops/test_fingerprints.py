"""tf.fingerprint and the tf.strings hash buckets give TensorFlow's exact values (recorded from
TensorFlow 2.21 in fingerprint_cases.json): FarmHash Fingerprint64, SipHash-2-4 and the legacy hash64,
on strings of every length class the algorithms branch on (0-16, 17-32, 33-64, longer)."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf

with open(os.path.join(os.path.dirname(__file__), "fingerprint_cases.json")) as f:
    CASES = json.load(f)
STRINGS = [bytes.fromhex(h) for h in CASES["strings"]]


def test_fingerprint_of_each_string_is_farmhash64():
    got = tf.fingerprint(tf.constant(STRINGS)[:, None]).numpy()
    assert got.dtype == np.uint8 and got.shape == (len(STRINGS), 8)
    assert got.view("<u8").reshape(-1).tolist() == CASES["fingerprint64"]


@pytest.mark.parametrize("fn, key, buckets", [
    (lambda s, n: tf.strings.to_hash_bucket_fast(s, n), "bucket_fast_1000", 1000),
    (lambda s, n: tf.strings.to_hash_bucket(s, n), "bucket_legacy_97", 97),
    (lambda s, n: tf.strings.to_hash_bucket_strong(s, n, [7, 42]), "bucket_strong_1000_key_7_42", 1000),
])
def test_hash_buckets(fn, key, buckets):
    eager = fn(STRINGS, buckets)
    assert eager.dtype == tf.int64 and eager.numpy().tolist() == CASES[key]
    traced = tf.function(lambda s: fn(s, buckets))(tf.constant(STRINGS))
    assert traced.numpy().tolist() == CASES[key]


def test_fingerprint_rows_of_numbers_and_strings():
    assert tf.fingerprint(tf.constant([[1, 2], [3, 4]], tf.int32)).numpy().tolist() == CASES["fingerprint_int32_rows"]
    assert tf.fingerprint(tf.constant([[0.5, -2.0, 3.25]], tf.float64)).numpy().tolist() == \
        CASES["fingerprint_float64_rows"]
    assert tf.fingerprint(tf.constant([["a", "bc"], ["d", "e"]])).numpy().tolist() == CASES["fingerprint_string_rows"]


def test_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported fingerprint method"):
        tf.fingerprint(tf.constant([1]), method="md5")
    with pytest.raises(tf.errors.InvalidArgumentError, match="'num_buckets' of 0 must be at least minimum 1"):
        tf.strings.to_hash_bucket_fast(["a"], 0)
    with pytest.raises(ValueError, match="must be at least minimum 1"):
        tf.function(lambda s: tf.strings.to_hash_bucket_fast(s, 0))(tf.constant(["a"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="should have at least one dimension"):
        tf.fingerprint(tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
        tf.strings.to_hash_bucket_strong(["a"], 10, [1, 2, 3])
