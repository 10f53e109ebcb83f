"""float32 exp, log, tanh and sigmoid give TensorFlow 2.21's bits (recorded by tools/record_eigen_float.py:
Eigen's approximations, denormals flushed, the scalar tail of a tensor whose length is not a multiple of
8), through the public ops eagerly and traced, and through both the NumPy and the compiled loops."""
import os

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.math import eigen_float, eigen_float_compiled

F = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "eigen_float.npz"))
X = F["x"]
CASES = [("exp", tf.math.exp, X), ("tanh", tf.math.tanh, X), ("sigmoid", tf.math.sigmoid, X),
         ("log", tf.math.log, F["log_input"])]


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    both_nan = np.isnan(got) & np.isnan(want)
    return np.array_equal(got.view(np.int32)[~both_nan], want.view(np.int32)[~both_nan])


@pytest.mark.parametrize("name, op, x", CASES)
def test_public_ops_give_tensorflows_bits(name, op, x):
    assert same_bits(op(x).numpy(), F[name])
    assert same_bits(tf.function(op)(x).numpy(), F[name])


def _numpy_forms_only(monkeypatch):
    """No compiled loop at all, the small-input kernels included (one built earlier in this process, or
    built in the background meanwhile, would otherwise stand in for the NumPy form under test)."""
    monkeypatch.setattr(eigen_float, "_compiled", lambda n, size: None)
    for small in list(eigen_float._SMALL_LOOPS.values()) + [eigen_float._SMALL_TANH]:
        monkeypatch.setattr(small, "kernel", None)
        monkeypatch.setattr(small, "started", True)


@pytest.mark.parametrize("name, op, x", CASES)
def test_numpy_and_compiled_loops_agree_bit_for_bit(name, op, x, monkeypatch):
    numba = pytest.importorskip("numba")
    loop = eigen_float_compiled.build(name)(numba)
    _numpy_forms_only(monkeypatch)
    numpy_path = getattr(eigen_float, name)(x)
    monkeypatch.setattr(eigen_float, "_compiled", lambda n, size: loop)
    compiled_path = getattr(eigen_float, name)(x)
    assert same_bits(numpy_path, F[name]) and same_bits(compiled_path, F[name])


def test_special_values_of_log():
    assert same_bits(tf.math.log(np.abs(X[:33])).numpy(), F["log_special"])


def test_other_dtypes_keep_numpy():
    x = np.linspace(-3, 3, 11)
    np.testing.assert_array_equal(tf.math.exp(x).numpy(), np.exp(x))
    np.testing.assert_array_equal(tf.math.tanh(x).numpy(), np.tanh(x))


@pytest.mark.parametrize("name", ["exp", "log", "sigmoid"])
def test_short_tails_in_python_equal_the_numpy_scalar_path(name):
    """Tensors of fewer than 8 elements (or the last n % 8) go through the scalar path; for a few elements
    it runs on Python floats, and must give the NumPy form's values, special values included."""
    values = np.array([0.0, -0.0, 1e-40, -1e-40, 0.5, -3.25, 88.0, 89.0, -100.0, -104.5, 20.0,
                       np.inf, -np.inf, np.nan, 3.4e38, -3.4e38], np.float32)
    if name == "log":
        values = np.abs(values)
    numpy_scalar = {"exp": eigen_float._libm(np.exp), "log": eigen_float._libm(np.log),
                    "sigmoid": eigen_float._sigmoid_scalar}[name]
    for k in range(0, len(values), 4):
        chunk = values[k:k + 4]
        want = eigen_float._ftz(numpy_scalar(eigen_float._daz(chunk)))
        assert same_bits(eigen_float._scalar_tail(chunk, name), want)
        assert same_bits(getattr(eigen_float, name)(chunk), want)


def test_tanh_of_a_few_elements_in_python_equals_the_array_form():
    values = np.concatenate([X[:40], np.array([1e-40, -1e-40, 7.9, 7.91, -8.5], np.float32)])
    for k in range(0, len(values), 5):
        chunk = values[k:k + 5]
        assert same_bits(eigen_float.tanh(chunk), eigen_float._ftz(eigen_float._tanh_all(eigen_float._daz(chunk))))


def _tanh_array_form(x):
    with np.errstate(all="ignore"):
        return eigen_float._ftz(eigen_float._tanh_all(eigen_float._daz(x.reshape(-1)))).reshape(x.shape)


def test_small_tanh_paths_give_tensorflows_bits_at_every_small_size():
    """Small tensors take the float32-scalar form (up to 5 values) or the stacked [p; q] form (up to 64):
    TensorFlow's recorded bits for every chunk size, and the array form's on values at the edges of the
    fast paths (2**-40, subnormals, signed zeros, the clamp, infinities, NaN)."""
    edges = np.array([2.0 ** -40, -2.0 ** -40, 2.0 ** -40 * 0.99, 2.0 ** -41, 1e-38, 1.2e-38, 1e-45, 0.0, -0.0,
                      7.90738964, 7.9073901, -7.9073901, 9.0, -20.0, np.inf, -np.inf, np.nan, 3e-13, -1e-20,
                      0.5, -1.5, 2.5e-7, 4.0], np.float32)
    rs = np.random.RandomState(0)
    for size in range(1, 70):
        for start in range(0, min(len(X), 400), size):
            chunk = X[start:start + size]
            assert same_bits(eigen_float.tanh(chunk), F["tanh"][start:start + size])
        for _ in range(20):
            chunk = rs.choice(edges, size) * rs.choice([1.0, 1.0, 0.37, -3.1], size).astype(np.float32)
            assert same_bits(eigen_float.tanh(chunk), _tanh_array_form(chunk))
    assert eigen_float.tanh(np.float32(0.5).reshape(())).shape == ()
    assert same_bits(eigen_float.tanh(X[:12].reshape(3, 4)), F["tanh"][:12].reshape(3, 4))


def test_small_tanh_raises_no_floating_point_error_under_strict_numpy_settings():
    x = np.array([1e-30, 2.0 ** -40, 0.5, 1e-40, np.nan], np.float32)
    with np.errstate(all="raise"):
        for size in (1, 3, 5, 6, 40):
            chunk = np.resize(x, size)
            assert same_bits(eigen_float.tanh(chunk), _tanh_array_form(chunk))
