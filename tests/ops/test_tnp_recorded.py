"""`tf.experimental.numpy` against TensorFlow 2.21: every call of tnp_cases.py gives the dtype, shape and
values TensorFlow gave (recorded in tnp_recorded.json by record_tnp_cases.py). Calls that TensorFlow
itself rejects are recorded as errors and skipped here (tensorflux accepts some of them)."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf
import tnp_cases

tnp = tf.experimental.numpy

with open(os.path.join(os.path.dirname(__file__), "tnp_recorded.json")) as f:
    RECORDED = json.load(f)

CASES = tnp_cases.cases(tnp, tf)


def _compare(ours, theirs, where):
    assert ours.keys() == theirs.keys(), f"{where}: {ours} vs {theirs}"
    if "sequence" in theirs:
        assert len(ours["sequence"]) == len(theirs["sequence"]), where
        for i, (a, b) in enumerate(zip(ours["sequence"], theirs["sequence"])):
            _compare(a, b, f"{where}[{i}]")
        return
    if "value" in theirs:
        assert ours["dtype"] == theirs["dtype"], f"{where}: dtype {ours['dtype']} != {theirs['dtype']}"
        assert ours["shape"] == theirs["shape"], f"{where}: shape {ours['shape']} != {theirs['shape']}"
        a, b = np.asarray(ours["value"]), np.asarray(theirs["value"])
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            # float32 results of different algorithms agree to a few ulps of the largest value (near-zero
            # entries of an FFT or a window differ by rounding noise)
            rtol, scale = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5, "complex64": 1e-5}.get(
                ours["dtype"], 1e-6), 1e-6 if ours["dtype"] in ("float32", "complex64") else 1e-12
            atol = scale * max(1.0, float(np.nanmax(np.abs(b.astype(float)), initial=0.0)))
            np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=rtol, atol=atol, err_msg=where)
        else:
            assert a.tolist() == b.tolist(), f"{where}: {a.tolist()} != {b.tolist()}"
        return
    if "number" in theirs:
        np.testing.assert_allclose(ours["number"], theirs["number"], rtol=1e-12, err_msg=where)
        return
    assert ours == theirs, where


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_tensorflow(name):
    expected = RECORDED[name]
    if "error" in expected:
        pytest.skip(f"TensorFlow raised {expected['error']}")
    _compare(tnp_cases.describe(CASES[name]()), expected, name)
