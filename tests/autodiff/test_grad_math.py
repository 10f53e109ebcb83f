"""Gradients of elementwise math ops: tape gradients against central finite differences (float64), the
same gradient traced in a tf.function against the eager one, and TensorFlow's conventions at special
points (ties, zeros, non-differentiable ops).

The helpers here (`check_gradients`, `numeric_grad`…) are shared by the other `test_grad_math_*` files.
"""
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tensorflux as tf
from helpers import check_gradients as _check_gradients, numeric_grad, random_weights, tape_gradients  # noqa: F401

SETTINGS = settings(max_examples=20, deadline=None)


# -- shared helpers --------------------------------------------------------------------------------


def check_gradients(fn, arrays, rtol=1e-5, atol=1e-6, seed=0, wrt=None):
    """helpers.check_gradients with the looser tolerances transcendental ops need in finite differences."""
    return _check_gradients(fn, arrays, seed=seed, rtol=rtol, atol=atol, wrt=wrt)


def gradients_at(fn, *values, dtype=tf.float64):
    """Plain tape gradients of sum(fn(*xs)) at given values (for TensorFlow's special-point values)."""
    xs = [tf.constant(np.asarray(v), dtype=dtype) for v in values]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    grads = tape.gradient(y, xs)
    return [None if g is None else g.numpy() for g in grads]


def values(draw_seed, shape, low, high, away_from_zero=False):
    """Deterministic random float64 values in [low, high] (magnitudes, random signs when away_from_zero)."""
    rng = np.random.default_rng(draw_seed)
    v = rng.uniform(low, high, size=shape)
    if away_from_zero:
        v = v * rng.choice([-1.0, 1.0], size=shape)
    return v


shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
broadcast_pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)
seeds = st.integers(0, 2 ** 31 - 1)


# -- unary ops -------------------------------------------------------------------------------------

# name -> (function, low, high, away_from_zero): the domain keeps finite differences away from poles,
# branch cuts and kinks.
UNARY = {
    "negative": (tf.negative, -2, 2, False),
    "abs": (tf.abs, 0.2, 2, True),
    "square": (tf.square, -2, 2, False),
    "sqrt": (tf.sqrt, 0.2, 3, False),
    "rsqrt": (tf.math.rsqrt, 0.2, 3, False),
    "exp": (tf.exp, -2, 2, False),
    "expm1": (tf.math.expm1, -2, 2, False),
    "log": (tf.math.log, 0.2, 3, False),
    "log1p": (tf.math.log1p, -0.5, 2, False),
    "sin": (tf.sin, -3, 3, False),
    "cos": (tf.cos, -3, 3, False),
    "tan": (tf.tan, -1.2, 1.2, False),
    "tanh": (tf.tanh, -2, 2, False),
    "sigmoid": (tf.sigmoid, -4, 4, False),
    "erf": (tf.math.erf, -2.5, 2.5, False),
    "reciprocal": (tf.math.reciprocal, 0.3, 2, True),
    "sinh": (tf.sinh, -2, 2, False),
    "cosh": (tf.cosh, -2, 2, False),
    "asin": (tf.asin, -0.9, 0.9, False),
    "acos": (tf.acos, -0.9, 0.9, False),
    "atan": (tf.atan, -3, 3, False),
    "asinh": (tf.asinh, -3, 3, False),
    "acosh": (tf.acosh, 1.2, 3, False),
    "atanh": (tf.atanh, -0.9, 0.9, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(shape=shapes, seed=seeds)
def test_unary_gradient_matches_finite_differences(name, shape, seed):
    fn, low, high, away = UNARY[name]
    x = values(seed, shape, low, high, away)
    check_gradients(fn, [x], seed=seed, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf", "reciprocal", "asin",
                                  "atanh", "square", "abs"])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float16, tf.bfloat16])
def test_unary_gradient_keeps_narrow_float_dtype(name, dtype):
    fn, low, high, away = UNARY[name]
    x = values(3, [4], low, high, away)
    xs = [tf.constant(x, dtype=dtype)]
    (g,) = tape_gradients(fn, xs, tf.ones([4], dtype=dtype))
    assert g.dtype == dtype and g.shape == [4]
    (g64,) = tape_gradients(fn, [tf.constant(x)], tf.ones([4], dtype=tf.float64))
    tol = 1e-5 if dtype == tf.float32 else 5e-2
    np.testing.assert_allclose(tf.cast(g, tf.float64).numpy(), g64.numpy(), rtol=tol, atol=tol)


def test_unary_special_points_follow_tensorflow():
    assert gradients_at(tf.abs, [1.5, 0.0, -1.0])[0].tolist() == [1.0, 0.0, -1.0]
    assert gradients_at(tf.sign, [1.5, 0.0, -3.0])[0].tolist() == [0.0, 0.0, 0.0]
    assert gradients_at(tf.sqrt, [4.0, 0.0])[0].tolist() == [0.25, np.inf]
    assert gradients_at(tf.math.rsqrt, [4.0, 0.0])[0].tolist() == [-0.0625, -np.inf]
    assert gradients_at(tf.math.log, [0.0])[0].tolist() == [np.inf]
    assert gradients_at(tf.math.reciprocal, [0.0])[0].tolist() == [-np.inf]
    np.testing.assert_allclose(gradients_at(tf.math.erf, [0.5])[0], [0.87878258], rtol=1e-7)


@pytest.mark.parametrize("fn", [tf.round, tf.floor, tf.math.ceil, tf.math.rint])
def test_rounding_ops_have_no_gradient(fn):
    assert gradients_at(fn, [1.5, 2.3]) == [None]
    x = tf.constant([1.5, 2.3])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x) * x  # the rounding path contributes nothing; the product rule's other term remains
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), fn(x).numpy())


def test_cast_gradients():
    x = tf.constant([1.5, -2.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        narrow = tf.cast(x, tf.float32)
        through_int = tf.cast(tf.cast(x, tf.int32), tf.float64)
        to_complex = tf.cast(x, tf.complex128)
    g = tape.gradient(narrow, x)
    assert g.dtype == tf.float64 and g.numpy().tolist() == [1.0, 1.0]
    assert tape.gradient(through_int, x) is None
    g = tape.gradient(to_complex, x)
    assert g.dtype == tf.float64 and g.numpy().tolist() == [1.0, 1.0]


def test_complex_gradients_use_conjugate_convention():
    # Values from TensorFlow 2 for the same expressions.
    x = tf.constant([1 + 2j, 0.5 - 1j])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        square = x * x
        exp = tf.exp(x)
        magnitude = tf.abs(x)
        root = tf.sqrt(x)
        product = tf.reduce_prod(x)
    np.testing.assert_allclose(tape.gradient(square, x).numpy(), [2 - 4j, 1 + 2j])
    np.testing.assert_allclose(tape.gradient(exp, x).numpy(), [-1.13120438 - 2.47172667j, 0.8908079 + 1.38735111j])
    np.testing.assert_allclose(tape.gradient(magnitude, x).numpy(),
                               [0.4472136 + 0.89442719j, 0.4472136 - 0.89442719j], rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(root, x).numpy(),
                               [0.28443224 + 0.17578879j, 0.40224793 - 0.24860289j], rtol=1e-7)
    np.testing.assert_allclose(tape.gradient(product, x).numpy(), [0.5 + 1j, 1 - 2j])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.conj(x) * x * (2 + 1j)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [4 + 8j, 2 - 4j])


# -- binary ops ------------------------------------------------------------------------------------

def _div(x, y):
    return x / y


# name -> (function, (x low, high, away), (y low, high, away))
BINARY = {
    "add": (tf.add, (-2, 2, False), (-2, 2, False)),
    "subtract": (tf.subtract, (-2, 2, False), (-2, 2, False)),
    "multiply": (tf.multiply, (-2, 2, False), (-2, 2, False)),
    "truediv": (_div, (-2, 2, False), (0.4, 2, True)),
    "realdiv": (tf.realdiv, (-2, 2, False), (0.4, 2, True)),
    "divide_no_nan": (tf.math.divide_no_nan, (-2, 2, False), (0.4, 2, True)),
    "multiply_no_nan": (tf.math.multiply_no_nan, (-2, 2, False), (0.4, 2, True)),
    "pow": (tf.pow, (0.3, 2, False), (-2, 2, False)),
    "maximum": (tf.maximum, (-2, 2, False), (-2, 2, False)),
    "minimum": (tf.minimum, (-2, 2, False), (-2, 2, False)),
    "squared_difference": (tf.math.squared_difference, (-2, 2, False), (-2, 2, False)),
    "atan2": (tf.atan2, (-2, 2, False), (0.5, 2, True)),
    "floormod": (tf.math.floormod, (-5, 5, False), (0.5, 2, True)),
    "add_operator_scalar_side": (lambda x, y: x + y * 2.0 - 1.0, (-2, 2, False), (-2, 2, False)),
    "clip_by_value": (lambda x, y: tf.clip_by_value(x, y - 1.0, y + 1.0), (-3, 3, False), (-1, 1, False)),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(pair=broadcast_pairs, seed=seeds)
def test_binary_gradient_matches_finite_differences_with_broadcasting(name, pair, seed):
    fn, (xl, xh, xa), (yl, yh, ya) = BINARY[name]
    x_shape, y_shape = pair.input_shapes
    x = values(seed, x_shape, xl, xh, xa)
    y = values(seed + 1, y_shape, yl, yh, ya)
    if name == "floormod":  # floor(x / y) must be locally constant for finite differences
        q = x / y
        assume(np.all(np.abs(q - np.round(q)) > 1e-3))
    if name in ("maximum", "minimum"):
        assume(np.all(np.abs(np.subtract(x, y)) > 1e-3))
    if name == "clip_by_value":  # the bounds may broadcast to t's shape, never beyond it
        assume(tuple(pair.result_shape) == tuple(x_shape))
        assume(np.all(np.abs(np.abs(np.subtract(x, y)) - 1.0) > 1e-3))
    check_gradients(fn, [x, y], seed=seed)


def test_add_n_gradient():
    arrays = [values(k, [2, 3], -1, 1) for k in range(3)]
    check_gradients(lambda a, b, c: tf.add_n([a, b, c]) * a, arrays)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes the inf * 0 / overflow TF hides
def test_pow_special_points_follow_tensorflow():
    gx, gy = gradients_at(tf.pow, [0.0, 0.0, 0.0, -2.0, 2.0], [2.0, 0.0, -1.0, 2.0, 0.5])
    np.testing.assert_allclose(gx, [0.0, np.nan, -np.inf, -4.0, 0.35355339], rtol=1e-7)
    np.testing.assert_allclose(gy, [0.0, 0.0, np.nan, 0.0, 0.98025814], rtol=1e-7)
    gx, gy = gradients_at(tf.pow, [0.0, -2.0], [0.5, 3.0])
    assert gx.tolist() == [np.inf, 12.0] and gy.tolist() == [0.0, 0.0]


def test_maximum_minimum_ties_go_to_x():
    gx, gy = gradients_at(tf.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
    assert gx.tolist() == [1.0, 1.0, 0.0] and gy.tolist() == [0.0, 0.0, 1.0]
    gx, gy = gradients_at(tf.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])
    assert gx.tolist() == [1.0, 0.0, 1.0] and gy.tolist() == [0.0, 1.0, 0.0]
    # A masked-out infinite gradient stays exactly 0 (a select, not a multiplication by 0).
    x, y = tf.constant([1.0, 5.0], tf.float64), tf.constant([2.0, 2.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = tf.maximum(x, y) * tf.constant([np.inf, 1.0], tf.float64)
    assert tape.gradient(z, x).numpy().tolist() == [0.0, 1.0]


def test_clip_by_value_boundaries_follow_tensorflow():
    (g,) = gradients_at(lambda x: tf.clip_by_value(x, 0.0, 1.0), [-1.0, 0.0, 0.5, 1.0, 2.0])
    assert g.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy notes the inf * 0 / overflow TF hides
def test_division_special_points_follow_tensorflow():
    gx, gy = gradients_at(tf.math.divide_no_nan, [1.0, 2.0], [0.0, 2.0])
    assert gx.tolist() == [0.0, 0.5] and gy.tolist() == [0.0, -0.5]
    gx, gy = gradients_at(tf.math.multiply_no_nan, [1.0, np.inf], [0.0, 2.0])
    assert gx.tolist() == [0.0, 2.0] and gy.tolist() == [1.0, np.inf]
    gx, gy = gradients_at(tf.atan2, [0.0], [0.0])
    assert np.isnan(gx).all() and np.isnan(gy).all()
    gx, gy = gradients_at(tf.math.squared_difference, [1.0, 2.0], [3.0])
    assert gx.tolist() == [-4.0, -2.0] and gy.tolist() == [6.0]


def test_floor_division_family_follows_tensorflow():
    assert gradients_at(tf.math.floordiv, [5.0, 3.0], [2.0, 2.0]) == [None, None]
    assert gradients_at(lambda x, y: x // y, [5.0, 3.0], [2.0, 2.0]) == [None, None]
    assert gradients_at(tf.truncatediv, [5.0, 3.0], [2.0, 2.0]) == [None, None]
    gx, gy = gradients_at(tf.math.floormod, [5.0, -3.0], [2.0, 2.0])
    assert gx.tolist() == [1.0, 1.0] and gy.tolist() == [-2.0, 2.0]
    with pytest.raises(LookupError, match="TruncateMod"):
        gradients_at(tf.truncatemod, [5.0, -3.0], [2.0, 2.0])


def test_non_float_results_are_not_differentiated():
    x = tf.constant([1.0, -2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        flags = [tf.equal(x, 1.0), tf.less(x, 0.0), tf.math.is_nan(x), tf.math.is_finite(x)]
        index = tf.argmax(x)
    assert tape.gradient(flags + [index], x) is None


def test_binary_gradients_keep_float32():
    x = tf.constant([[1.0, 2.0]])
    y = tf.constant([[3.0], [4.0]])
    ops = [tf.add, tf.subtract, tf.multiply, _div, tf.pow, tf.maximum, tf.math.squared_difference,
           tf.math.divide_no_nan, tf.math.floormod, tf.atan2]
    for op in ops:
        gx, gy = tape_gradients(op, [x, y], tf.ones([2, 2]))
        assert gx.dtype == tf.float32 and gx.shape == [1, 2], op
        assert gy.dtype == tf.float32 and gy.shape == [2, 1], op


@pytest.mark.parametrize("name", ["add", "multiply", "truediv", "pow", "maximum", "squared_difference"])
def test_binary_gradient_in_graph_with_unknown_shapes(name):
    fn = BINARY[name][0]
    x = values(1, [2, 1, 3], 0.5, 2)
    y = values(2, [4, 1], 0.5, 2)
    weights = random_weights([2, 4, 3], 0)
    eager = tape_gradients(fn, [tf.constant(x), tf.constant(y)], weights)
    for signature in ([tf.TensorSpec([None, None, 3], tf.float64), tf.TensorSpec([None, 1], tf.float64)],
                      [tf.TensorSpec(None, tf.float64), tf.TensorSpec(None, tf.float64)]):
        graph_fn = tf.function(lambda a, b: tape_gradients(fn, [a, b], weights), input_signature=signature)
        graph = graph_fn(tf.constant(x), tf.constant(y))
        for e, g in zip(eager, graph):
            assert g.shape == e.shape
            np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12)
