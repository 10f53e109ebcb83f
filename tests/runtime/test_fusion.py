"""Fusion of large elementwise chains: region finding, both backends, and bit-for-bit agreement with the
eager ops they replace (every float dtype, sizes up to 2^20, random chains)."""
import ml_dtypes  # the dtype behind tf.bfloat16
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.runtime import fusion


def chain(x, y):
    a = x * 1.5 + y
    b = tf.abs(a * a - 1.0) / 3.0
    return tf.maximum(b, 0.1) - 0.01, a  # `a` is used by two ops and returned: a region output


def reference(x, y):
    a = x * np.float32(1.5) + y
    b = np.abs(a * a - np.float32(1)) / np.float32(3)
    return np.maximum(b, np.float32(0.1)) - np.float32(0.01), a


@pytest.fixture(params=["numpy", "numba"])
def backend(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(fusion, "_NUMBA", [None])
    else:
        module = pytest.importorskip("numba", reason="the numba backend needs `pip install tensorflux[jit]`")
        monkeypatch.setattr(fusion, "_NUMBA", [module])
    return request.param


def test_fused_chain_matches_numpy(backend):
    rs = np.random.RandomState(0)
    x = rs.uniform(-2, 2, 600_000).astype(np.float32)
    y = rs.uniform(-2, 2, 600_000).astype(np.float32)
    f = tf.function(chain)
    out, a = f(tf.constant(x), tf.constant(y))
    ref_out, ref_a = reference(x, y)
    np.testing.assert_array_equal(out.numpy(), ref_out)
    np.testing.assert_array_equal(a.numpy(), ref_a)
    source = f.get_concrete_function(tf.constant(x), tf.constant(y)).generated_source()
    assert source.count("fused") >= 1 and "k_Mul" not in source


def test_small_arrays_are_not_fused():
    x = tf.constant(np.ones(100, np.float32))
    source = tf.function(chain).get_concrete_function(x, x).generated_source()
    assert "fused" not in source


def test_broadcast_operands_and_non_float_stay_unfused():
    big = tf.constant(np.ones((600, 1000), np.float32))
    row = tf.constant(np.ones((1, 1000), np.float32))
    source = tf.function(lambda a, b: (a + b) * 2.0 + a).get_concrete_function(big, row).generated_source()
    assert "k_AddV2(a, b)" in source or "AddV2" in source  # the broadcasting add is a plain call
    ints = tf.constant(np.ones(600_000, np.int32))
    source = tf.function(lambda a: (a + 1) * 2).get_concrete_function(ints).generated_source()
    assert "fused" not in source


def test_nan_and_division_by_zero_follow_numpy(backend):
    x = np.zeros(300_000, np.float32)
    x[:3] = [np.nan, 1.0, -1.0]
    f = tf.function(lambda t: tf.maximum(t / 0.0, -5.0) * 1.0 + 0.0)
    with np.errstate(all="ignore"):
        expected = np.maximum(x / np.float32(0), np.float32(-5)) * np.float32(1) + np.float32(0)
    np.testing.assert_array_equal(f(tf.constant(x)).numpy(), expected)


# -- numerical parity with eager, bit for bit ------------------------------------------------------------
FLOAT_DTYPES = (np.float16, ml_dtypes.bfloat16, np.float32, np.float64)
UNARY = {"Neg": tf.negative, "Abs": tf.abs, "Square": tf.square, "Sqrt": tf.sqrt, "Exp": tf.exp,
         "Log": tf.math.log, "Sin": tf.sin, "Cos": tf.cos, "Tanh": tf.tanh}
BINARY = {"AddV2": tf.add, "Sub": tf.subtract, "Mul": tf.multiply, "RealDiv": tf.divide,
          "Maximum": tf.maximum, "Minimum": tf.minimum}
COMPILED_TYPES = {"Neg", "Abs", "Square", "Sqrt", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"}


def same_bits(a, b):
    """Equal dtype, shape and bits, any NaN equal to any NaN (payloads are not part of the promise)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    return bool(np.array_equal(nan_a, nan_b)
                and np.array_equal(np.where(nan_a, 0, a.view(unsigned)), np.where(nan_b, 0, b.view(unsigned))))


def use_backend(name):
    """Selects the fusion backend for the next traces; returns the previous setting to restore."""
    previous = list(fusion._NUMBA)
    if name == "numba":
        fusion._NUMBA[:] = [pytest.importorskip("numba")]
    else:
        fusion._NUMBA[:] = [None]
    return previous


def run_chain(steps, x, y):
    """Applies `steps` [(op type, operand)] to x; a binary op's operand is "y", "prev" or a constant."""
    values = [x]
    for op_type, operand in steps:
        v = values[-1]
        if op_type in UNARY:
            values.append(UNARY[op_type](v))
        else:
            other = y if operand == "y" else values[-2] if operand == "prev" and len(values) > 1 else operand
            values.append(BINARY[op_type](v, other))
    return values[-1], values[len(values) // 2]  # a middle value is returned too: a region output


def sample_inputs(rs, size, dtype):
    x = rs.uniform(-4, 4, size)
    x[rs.randint(0, size, 64)] = rs.choice([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 70000.0], 64)
    return x.astype(dtype), rs.uniform(-4, 4, size).astype(dtype)


def check_chain_parity(steps, size, dtype, backend, seed=0):
    previous = use_backend(backend)
    try:
        x, y = (tf.constant(a) for a in sample_inputs(np.random.RandomState(seed), size, dtype))
        fn = tf.function(lambda a, b: run_chain(steps, a, b))
        interpreted = fn(x, y)      # the first call walks the op list (runtime/interpret.py)
        before = fusion.RUNS.copy()
        traced = fn(x, y)           # the generated code, fused
        ran = fusion.RUNS - before
        eager = run_chain(steps, x, y)
        for got, first, want in zip(traced, interpreted, eager):
            for value in (got, first):
                assert value.dtype == want.dtype and value.shape == want.shape
                assert same_bits(value.numpy(), want.numpy()), (steps, size, np.dtype(dtype).name, backend)
        compiled_run = any(a[0] in COMPILED_TYPES and b[0] in COMPILED_TYPES for a, b in zip(steps, steps[1:]))
        if backend == "numba" and compiled_run and np.dtype(dtype) in (np.float32, np.float64):
            assert ran["numba"] >= 1, ran   # the compiled loops ran
        else:
            assert ran["numba"] + ran["numpy"] >= 1, ran  # the chain was fused (ufunc calls per block)
    finally:
        fusion._NUMBA[:] = previous


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op_type", ["Exp", "Tanh", "Log", "Sin", "Cos", "Sqrt"])
def test_transcendental_chains_equal_eager_at_fusion_size(backend, op_type, dtype):
    steps = [("Mul", 1.5), (op_type, None), ("AddV2", 0.25), ("Mul", "y")]
    check_chain_parity(steps, fusion.FUSE_MIN_ELEMENTS, dtype, backend)


# float32 Exp, Log and Tanh are computed as TensorFlow's Eigen kernels compute them
# (ops/math/eigen_float.py), not by a ufunc, so they are never fused (they split a chain into regions);
# random chains draw from the fusible unary ops, and the parity test above still runs them in chains.
FUSIBLE_UNARY = sorted(set(UNARY) - {"Exp", "Log", "Tanh"})
CHAIN_STEP = st.one_of(
    st.tuples(st.sampled_from(FUSIBLE_UNARY), st.none()),
    st.tuples(st.sampled_from(sorted(BINARY)), st.sampled_from(["y", "prev", 0.75, -2.0, 3.0])))


@pytest.mark.parametrize("backend_name", ["numba", "numpy"])
@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(CHAIN_STEP, min_size=2, max_size=6),
       size=st.integers(fusion.FUSE_MIN_ELEMENTS, 1 << 20),
       dtype=st.sampled_from(FLOAT_DTYPES))
def test_random_fused_chains_equal_eager_bit_for_bit(backend_name, steps, size, dtype):
    check_chain_parity(steps, size, dtype, backend_name)


def test_compiled_ufuncs_equal_numpy_on_every_kind_of_value():
    """Only ops whose compiled bits equal NumPy's may be compiled: random bit patterns cover subnormals,
    infinities and NaNs; the fixed pairs cover max/min of signed zeros and NaN against a number."""
    numba = pytest.importorskip("numba")
    rs = np.random.RandomState(1)
    compiled = set()
    for dtype in (np.float32, np.float64):
        bits = rs.randint(0, 256, (1 << 17) * np.dtype(dtype).itemsize).astype(np.uint8).view(dtype)
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.0, np.nan, 2.0], dtype)
        x = np.concatenate([bits, specials, rs.uniform(-10, 10, 1000).astype(dtype)])
        y = np.concatenate([np.roll(bits, 7), specials[::-1], rs.uniform(-10, 10, 1000).astype(dtype)])
        spec = tf.TensorSpec([x.size], tf.as_dtype(dtype))
        for op_type in sorted(COMPILED_TYPES):
            fn = UNARY.get(op_type) or BINARY[op_type]
            graph = tf.function(lambda a, b: fn(a) if op_type in UNARY else fn(a, b)).get_concrete_function(
                spec, spec).graph
            op = next(o for o in graph.get_operations() if o.type == op_type)
            ufunc = op.opdef.inplace
            compiled.add(ufunc)
            loop, _ = fusion._compile_loop(numba, [op], [(id(t), False) for t in op.inputs], [id(op.outputs[0])],
                                           np.dtype(dtype))
            result = np.empty_like(x)
            loop(*(x, y)[:ufunc.nin], result)
            with np.errstate(all="ignore"):
                expected = ufunc(*(x, y)[:ufunc.nin])
            assert same_bits(result, expected), (op_type, np.dtype(dtype).name)
    assert compiled == set(fusion.COMPILED_UFUNCS)
