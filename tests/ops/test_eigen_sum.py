"""float32 sums, means, softmax and log_softmax give TensorFlow 2.21's bits (recorded by
record_eigen_sum_cases.py: Eigen's order of additions for full, row, column, middle and scattered-axis
reductions, runs split at 8192 values, two-thread splits of long sums, the packet reciprocal and the
per-row scalar tail of softmax), through the public ops, and through the NumPy and the compiled loops."""
import json
import os

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops import jit
from tensorflux._src.ops.math import eigen_sum, eigen_sum_compiled

FIX = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "eigen_sum.npz"))
META = json.loads(str(FIX["meta"]))
REDUCE = [i for i, m in enumerate(META) if m["kind"] == "reduce"]
LONG = [i for i, m in enumerate(META) if m["kind"] == "long"]
SOFTMAX = [i for i, m in enumerate(META) if m["kind"] == "softmax"]


def same_bits(got, want):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    assert got.shape == want.shape
    both_nan = np.isnan(got) & np.isnan(want)
    return np.array_equal(got.view(np.int32)[~both_nan], want.view(np.int32)[~both_nan])


def long_input(i):
    m = META[i]
    x = (np.random.default_rng(m["seed"]).standard_normal(m["n"]) * 100).astype(np.float32)
    assert np.array_equal(x[:4], FIX[f"head{i}"])       # the generator draws what TensorFlow summed
    return x


@pytest.fixture(params=["numpy", "compiled"])
def path(request, monkeypatch):
    """Runs a test on eigen_sum's NumPy form, then on its compiled loops (skipped without numba)."""
    if request.param == "numpy":
        monkeypatch.setattr(jit, "when_hot", lambda key, build, after, size=None: None)
        # nor the small-input total (built earlier in this process, or meanwhile in the background)
        monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "kernel", None)
        monkeypatch.setattr(eigen_sum._SMALL_TOTAL, "started", True)
        monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "kernel", None)     # small axis-0 sums too
        monkeypatch.setattr(eigen_sum._SMALL_COLUMNS, "started", True)
    else:
        numba = pytest.importorskip("numba")
        loops = {"eigen_sum_rows": eigen_sum_compiled.build(numba),
                 "eigen_sum_columns": eigen_sum_compiled.build_columns(numba)}
        real = jit.when_hot
        monkeypatch.setattr(jit, "when_hot",
                            lambda key, build, after, size=None: loops.get(key) or real(key, build, after))
    return request.param


def test_reductions_give_tensorflows_bits(path):
    bad = []
    for i in REDUCE:
        x, axes = FIX[f"x{i}"], tuple(META[i]["axes"])
        if not (same_bits(eigen_sum.reduce_sum(x, axes), FIX[f"sum{i}"])
                and same_bits(eigen_sum.reduce_mean(x, axes), FIX[f"mean{i}"])):
            bad.append((x.shape, axes))
    assert not bad


def test_long_sums_split_as_eigen_does(path, monkeypatch):
    monkeypatch.setattr(eigen_sum, "_threads", lambda: 2)     # recorded on a two-CPU machine
    for i in LONG:
        x = long_input(i)
        assert same_bits(eigen_sum.reduce_sum(x, None), FIX[f"sum{i}"]), META[i]
        assert same_bits(eigen_sum.reduce_mean(x, None), FIX[f"mean{i}"]), META[i]


def test_public_ops_eager_and_traced():
    for i in REDUCE[:40]:
        x, axes = FIX[f"x{i}"], META[i]["axes"]
        assert same_bits(tf.reduce_sum(x, axis=axes).numpy(), FIX[f"sum{i}"])
        assert same_bits(tf.reduce_mean(x, axis=axes).numpy(), FIX[f"mean{i}"])
    x, axes = FIX[f"x{REDUCE[5]}"], META[REDUCE[5]]["axes"]
    traced = tf.function(lambda t: (tf.reduce_sum(t, axis=axes), tf.reduce_mean(t, axis=axes, keepdims=True)))
    total, mean = traced(x)
    assert same_bits(total.numpy(), FIX[f"sum{REDUCE[5]}"])
    assert same_bits(mean.numpy().reshape(FIX[f"mean{REDUCE[5]}"].shape), FIX[f"mean{REDUCE[5]}"])


def test_keepdims_shapes_and_empty_inputs():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert eigen_sum.reduce_sum(x, (1,), keepdims=True).shape == (2, 1, 4)
    assert eigen_sum.reduce_sum(x, None, keepdims=True).shape == (1, 1, 1)
    np.testing.assert_array_equal(eigen_sum.reduce_sum(x, (0, 2)), x.sum(axis=(0, 2)))
    assert eigen_sum.reduce_sum(np.zeros((0, 3), np.float32), (0,)).tolist() == [0, 0, 0]
    assert np.isnan(tf.reduce_mean(np.zeros((0,), np.float32)).numpy())


def test_softmax_and_log_softmax_give_tensorflows_bits():
    # TensorFlow scales a softmax row by the processor's approximate reciprocal (RCPPS + one Newton step) for
    # all but the last rows % 8 rows, whose bits differ between AMD and Intel processors; tensorflux uses
    # the exact quotient. So: log_softmax and those last rows bit for bit, the other rows within 2 ulp (the
    # reciprocal within 1, then the product).
    bad = []
    for i in SOFTMAX:
        x = FIX[f"x{i}"]
        got, want = tf.nn.softmax(x).numpy(), FIX[f"softmax{i}"]
        rows = got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])
        tail = rows[0].shape[0] % 8
        if tail and not same_bits(rows[0][-tail:], rows[1][-tail:]):
            bad.append(("softmax tail rows", x.shape))
        np.testing.assert_array_max_ulp(got, want, maxulp=2)
        if not same_bits(tf.nn.log_softmax(x).numpy(), FIX[f"log_softmax{i}"]):
            bad.append(("log_softmax", x.shape))
    assert not bad


def test_large_softmax_takes_numpys_exp():
    # Above EXACT_SOFTMAX_LIMIT values the exp is NumPy's (TensorFlow's thread blocks are not reproduced).
    from tensorflux._src.ops.nn import losses
    x = np.linspace(-3, 3, losses.EXACT_SOFTMAX_LIMIT + 8, dtype=np.float32).reshape(-1, 8)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(tf.nn.softmax(x).numpy(), e / e.sum(axis=1, keepdims=True), rtol=2e-6)


def test_softmax_along_another_axis_transposes():
    x = FIX[f"x{SOFTMAX[3]}"]
    np.testing.assert_array_equal(tf.nn.softmax(x.T, axis=0).numpy(), tf.nn.softmax(x).numpy().T)
    np.testing.assert_array_equal(tf.nn.log_softmax(x.T, axis=0).numpy(), tf.nn.log_softmax(x).numpy().T)
