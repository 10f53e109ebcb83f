"""`keras.ops` against Keras 3.15 on TensorFlow 2.21: every call of keras_ops_cases.py gives the dtype, shape
and values Keras gave (recorded in keras_ops_recorded.json by record_keras_ops_cases.py). Calls Keras itself
rejects are recorded as errors and skipped here."""
import json
import os
import sys

import pytest

import tensorflux as tf
import keras_ops_cases

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ops"))
from test_tnp_recorded import _compare  # noqa: E402
from tnp_cases import describe  # noqa: E402

with open(os.path.join(os.path.dirname(__file__), "keras_ops_recorded.json")) as f:
    RECORDED = json.load(f)

CASES = keras_ops_cases.cases(tf.keras.ops, tf)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_keras(name):
    expected = RECORDED[name]
    if "error" in expected:
        pytest.skip(f"Keras raised {expected['error']}")
    _compare(describe(CASES[name]()), expected, name)
