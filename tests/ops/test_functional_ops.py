"""tf.map_fn, tf.foldl, tf.foldr, tf.scan and tf.vectorized_map: results against NumPy, eager vs traced,
one While op per call in graphs whatever the length, nested structures, empty inputs, TensorFlow's
errors, and gradients against finite differences (eager and traced)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from helpers import numeric_grad
from tensorflux._src.framework import errors

SETTINGS = settings(max_examples=25, deadline=None)
WHILE_TYPES = ("While", "StatelessWhile")


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def op_types(fn, *specs):
    return [op.type for op in tf.function(fn).get_concrete_function(*specs).graph.get_operations()]


def assert_same(a, b):
    """Two (nested) results hold equal tensors: same structure, dtype, shape and values."""
    tf.nest.assert_same_structure(a, b)
    for x, y in zip(tf.nest.flatten(a), tf.nest.flatten(b)):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)


def _scan_ref(f, xs, init=None, reverse=False):
    xs = list(xs)[::-1] if reverse else list(xs)
    out, acc = [], init
    for x in xs:
        acc = x if acc is None else f(acc, x)
        out.append(acc)
    out = np.stack(out)
    return out[::-1] if reverse else out


# -- map_fn ---------------------------------------------------------------------------------------------
def test_map_fn_basic_against_numpy():
    x = rand(4, 3)
    r = tf.map_fn(lambda v: v * v + 1.0, tf.constant(x, tf.float32))
    assert r.dtype == tf.float32 and r.shape == (4, 3)
    np.testing.assert_allclose(r.numpy(), (x * x + 1).astype(np.float32), rtol=1e-6)
    r = tf.map_fn(lambda v: v * 2, tf.constant([1, 2, 3]))
    assert r.dtype == tf.int32 and r.numpy().tolist() == [2, 4, 6]


def test_map_fn_output_signature_dtype_and_spec():
    e = tf.constant([1, 2, 3])
    r = tf.map_fn(lambda v: tf.cast(v, tf.float32) / 2, e, fn_output_signature=tf.float32)
    assert r.dtype == tf.float32 and r.numpy().tolist() == [0.5, 1.0, 1.5]
    assert tf.map_fn(lambda v: tf.cast(v, tf.int64), e, dtype=tf.int64).dtype == tf.int64  # legacy `dtype`
    assert tf.map_fn(lambda v: tf.cast(v, tf.int64), e, dtype=tf.int32, fn_output_signature=tf.int64).dtype == \
        tf.int64  # fn_output_signature wins, as in TensorFlow
    assert tf.map_fn(lambda v: tf.cast(v, tf.float64), e, fn_output_signature="float64").dtype == tf.float64
    r = tf.map_fn(lambda v: tf.fill([2], v), e, fn_output_signature=tf.TensorSpec([None], tf.int32))
    assert r.shape == (3, 2) and r.numpy().tolist() == [[1, 1], [2, 2], [3, 3]]


def test_map_fn_python_results_take_the_signature_dtype():
    r = tf.map_fn(lambda v: 1, tf.constant([1.0, 2.0, 3.0]))
    assert r.dtype == tf.float32 and r.numpy().tolist() == [1.0, 1.0, 1.0]
    r = tf.map_fn(lambda v: "a", tf.constant(["x", "y"]))
    assert r.dtype == tf.string and r.numpy().tolist() == [b"a", b"a"]


def test_map_fn_nested_elems_and_outputs():
    a, b = tf.constant([1.0, 2.0, 3.0]), tf.constant([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    r = tf.map_fn(lambda x: x[0] * tf.reduce_sum(x[1]), (a, b), fn_output_signature=tf.float32)
    assert r.numpy().tolist() == [1.0, 2.0, 12.0]
    r = tf.map_fn(lambda d: {"s": d["a"] + 1, "p": (d["a"], d["b"] * 2)}, {"a": a, "b": b},
                  fn_output_signature={"s": tf.float32, "p": (tf.float32, tf.TensorSpec([2], tf.float32))})
    assert set(r) == {"s", "p"} and isinstance(r["p"], tuple)
    assert r["s"].numpy().tolist() == [2.0, 3.0, 4.0]
    np.testing.assert_array_equal(r["p"][1].numpy(), b.numpy() * 2)
    # Without a signature, fn must return elems' structure
    r = tf.map_fn(lambda d: {"a": d["a"] * 2}, {"a": a})
    assert r["a"].numpy().tolist() == [2.0, 4.0, 6.0]


def test_map_fn_converts_numpy_and_nested_lists():
    r = tf.map_fn(lambda v: v + 1, np.array([1.0, 2.0]))
    assert r.dtype == tf.float64 and r.numpy().tolist() == [2.0, 3.0]
    r = tf.map_fn(lambda v: v[0] + v[1], [tf.constant([1, 2]), np.array([10, 20], np.int32)],
                  fn_output_signature=tf.int32)
    assert r.numpy().tolist() == [11, 22]


@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 9))
def test_map_fn_eager_equals_traced(shape, seed):
    x = tf.constant(rand(*shape, seed=seed))

    def f(x):
        return tf.map_fn(lambda v: (tf.sin(v) * 2.0, tf.reduce_sum(v)), x,
                         fn_output_signature=(tf.float64, tf.float64))

    eager = f(x)
    assert_same(eager, tf.function(f)(x))
    np.testing.assert_allclose(eager[0].numpy(), np.sin(x.numpy()) * 2, rtol=1e-12)
    np.testing.assert_allclose(eager[1].numpy(), x.numpy().reshape(shape[0], -1).sum(1), rtol=1e-12)
    traced = tf.function(f).get_concrete_function(tf.TensorSpec([None] + shape[1:], tf.float64))
    assert_same(eager, traced(x))


def test_map_fn_traced_static_shape():
    f = tf.function(lambda x: tf.map_fn(lambda v: v * 2, x))
    assert f.get_concrete_function(tf.TensorSpec([5, 3])).structured_outputs.shape == (5, 3)
    assert f.get_concrete_function(tf.TensorSpec([None, 3])).structured_outputs.shape.as_list() == [None, 3]


# -- graph structure --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 60, None])
def test_one_while_op_whatever_the_length(n):
    spec = tf.TensorSpec([n, 2], tf.float32)
    for fn in (lambda x: tf.map_fn(lambda v: tf.sin(v), x),
               lambda x: tf.foldl(lambda a, v: a * tf.sin(v), x),
               lambda x: tf.foldr(lambda a, v: a + tf.sin(v), x, initializer=tf.zeros([2])),
               lambda x: tf.scan(lambda a, v: tf.sin(a + v), x),
               lambda x: tf.scan(lambda a, v: tf.sin(a - v), x, reverse=True, initializer=tf.ones([2])),
               lambda x: tf.vectorized_map(lambda v: tf.reduce_sum(tf.sin(v)), x)):
        types = op_types(fn, spec)
        assert sum(t in WHILE_TYPES for t in types) == 1, types
        assert "Sin" not in types  # fn's ops live in the loop body, not unrolled


def test_while_body_holds_fn_once():
    graph = tf.function(lambda x: tf.map_fn(lambda v: tf.sin(v) * 2.0, x)).get_concrete_function(
        tf.TensorSpec([50], tf.float32)).graph
    (loop,) = [op for op in graph.get_operations() if op.type in WHILE_TYPES]
    body = [op.type for op in loop.attrs["body_graph"].get_operations()]
    assert body.count("Sin") == 1 and body.count("GatherV2") == 1 and body.count("TensorListSetItem") == 1
    assert loop.name.startswith("map/")


def test_eager_runs_as_python_loop():
    calls = []
    tf.map_fn(lambda v: calls.append(1) or v, tf.zeros([6]))
    assert len(calls) == 6
    calls.clear()
    tf.function(lambda x: tf.map_fn(lambda v: calls.append(1) or v, x))(tf.zeros([6]))
    assert len(calls) == 1  # traced once into the loop body


def test_nested_map_fn():
    x = tf.constant(np.arange(6.0).reshape(2, 3))

    def f(x):
        return tf.map_fn(lambda row: tf.map_fn(lambda v: v * v, row), x)

    assert_same(f(x), tf.function(f)(x))
    np.testing.assert_array_equal(f(x).numpy(), x.numpy() ** 2)
    types = op_types(f, tf.TensorSpec([None, None], tf.float64))
    assert sum(t in WHILE_TYPES for t in types) == 1  # the inner loop lives in the outer body
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    np.testing.assert_array_equal(t.gradient(y, x).numpy(), 2 * x.numpy())


def test_stateful_fn_and_variables_inside_tf_function():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x):
        return tf.map_fn(lambda e: e * v, x)

    x = tf.constant([[1.0, 1.0], [2.0, 3.0]])
    np.testing.assert_allclose(f(x).numpy(), [[1, 2], [2, 6]])
    v.assign([0.0, 1.0])
    np.testing.assert_allclose(f(x).numpy(), [[0, 1], [0, 3]])


# -- foldl / foldr ------------------------------------------------------------------------------------
def test_fold_against_python():
    e = tf.constant([1, 2, 3])
    assert int(tf.foldl(lambda a, x: a * 2 + x, e)) == 11
    assert int(tf.foldr(lambda a, x: a * 2 + x, e)) == 17
    assert float(tf.foldl(lambda a, x: a + x, tf.constant([1.0, 2.0, 3.0]), initializer=10.0)) == 16.0
    assert float(tf.foldr(lambda a, x: a * 2 + x, tf.constant([1.0, 2.0, 3.0]), initializer=1.0)) == 25.0
    r = tf.foldl(lambda a, x: a + x, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert r.numpy().tolist() == [4.0, 6.0]


def test_fold_nested():
    e = tf.constant([1.0, 2.0, 3.0])
    s, p = tf.foldl(lambda a, x: (a[0] + x[0], a[1] * x[1]), (e, e))
    assert (float(s), float(p)) == (6.0, 6.0)
    r = tf.foldr(lambda a, x: {"sum": a["sum"] + x, "last": x}, e, initializer={"sum": 0.0, "last": 0.0})
    assert float(r["sum"]) == 6.0 and float(r["last"]) == 1.0


@SETTINGS
@given(n=st.integers(1, 6), width=st.integers(1, 3), seed=st.integers(0, 9), reverse=st.booleans(),
       with_init=st.booleans())
def test_fold_eager_equals_traced(n, width, seed, reverse, with_init):
    x = tf.constant(rand(n, width, seed=seed))
    init = tf.constant(rand(width, seed=seed + 1)) if with_init else None
    fold = tf.foldr if reverse else tf.foldl

    def f(x):
        return fold(lambda a, v: a * 0.5 + tf.sin(v), x, initializer=init)

    rows = list(x.numpy())[::-1] if reverse else list(x.numpy())
    acc = init.numpy() if with_init else rows.pop(0)
    for r in rows:
        acc = acc * 0.5 + np.sin(r)
    eager = f(x)
    np.testing.assert_allclose(eager.numpy(), acc, rtol=1e-12)
    assert_same(eager, tf.function(f)(x))
    assert_same(eager, tf.function(f).get_concrete_function(tf.TensorSpec([None, width], tf.float64))(x))


def test_fold_empty():
    assert float(tf.foldl(lambda a, x: a + x, tf.zeros([0]), initializer=5.0)) == 5.0
    with pytest.raises(errors.OutOfRangeError, match="Tried to read from index 0 but array size is: 0"):
        tf.foldl(lambda a, x: a + x, tf.zeros([0]))
    with pytest.raises(errors.OutOfRangeError, match="negative indices"):
        tf.foldr(lambda a, x: a + x, tf.zeros([0]))
    f = tf.function(lambda x: tf.foldl(lambda a, v: a + v, x)).get_concrete_function(tf.TensorSpec([None]))
    with pytest.raises(errors.InvalidArgumentError):
        f(tf.zeros([0]))
    g = tf.function(lambda x: tf.foldl(lambda a, v: a + v, x, initializer=2.0))
    assert float(g.get_concrete_function(tf.TensorSpec([None]))(tf.zeros([0]))) == 2.0


def test_fold_errors():
    e = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.foldl(lambda a, x: (a, a), e)
    with pytest.raises(TypeError, match="same nested structure"):  # list vs tuple, as TensorFlow
        tf.foldl(lambda a, x: [a[0] + x, a[1]], e, initializer=(0.0, 1.0))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.function(lambda x: tf.foldl(lambda a, v: (a, a), x))(e)
    # eagerly the accumulator may change dtype (a Python loop); a traced loop variable may not
    assert tf.foldl(lambda a, x: tf.cast(a, tf.int32), e).dtype == tf.int32
    with pytest.raises(TypeError, match="enters the loop with type"):
        tf.function(lambda x: tf.foldl(lambda a, v: tf.cast(a, tf.int32), x))(e)


# -- scan ---------------------------------------------------------------------------------------------
def test_scan_against_python():
    e = tf.constant([1.0, 2.0, 3.0])
    assert tf.scan(lambda a, x: a + x, e).numpy().tolist() == [1.0, 3.0, 6.0]
    assert tf.scan(lambda a, x: a + x, e, reverse=True).numpy().tolist() == [6.0, 5.0, 3.0]
    assert tf.scan(lambda a, x: a + x, e, initializer=10.0).numpy().tolist() == [11.0, 13.0, 16.0]
    assert tf.scan(lambda a, x: a + x, e, initializer=10.0, reverse=True).numpy().tolist() == [16.0, 15.0, 13.0]
    r = tf.scan(lambda a, x: a + x, e, initializer=tf.constant([0.0, 0.0]))
    assert r.shape == (3, 2) and r.numpy().tolist() == [[1, 1], [3, 3], [6, 6]]


def test_scan_nested():
    e = tf.constant([1.0, 2.0, 3.0])
    s, p = tf.scan(lambda a, x: (a[0] + x, a[1] * x), e, initializer=(tf.constant(0.0), tf.constant(1.0)))
    assert s.numpy().tolist() == [1, 3, 6] and p.numpy().tolist() == [1, 2, 6]
    r = tf.scan(lambda a, x: [a[0] + x[0], a[1]], [e, e])
    assert isinstance(r, list) and r[0].numpy().tolist() == [1, 3, 6] and r[1].numpy().tolist() == [1, 1, 1]
    r = tf.scan(lambda a, x: a + x[0] * x[1], (e, e), initializer=0.0)
    assert r.numpy().tolist() == [1.0, 5.0, 14.0]


@SETTINGS
@given(n=st.integers(1, 6), width=st.integers(1, 3), seed=st.integers(0, 9), reverse=st.booleans(),
       with_init=st.booleans())
def test_scan_eager_equals_traced(n, width, seed, reverse, with_init):
    x = tf.constant(rand(n, width, seed=seed))
    init = tf.constant(rand(width, seed=seed + 1)) if with_init else None

    def f(x):
        return tf.scan(lambda a, v: a * 0.5 + tf.cos(v), x, initializer=init, reverse=reverse)

    expected = _scan_ref(lambda a, v: a * 0.5 + np.cos(v), x.numpy(), None if init is None else init.numpy(),
                         reverse)
    eager = f(x)
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-12)
    assert_same(eager, tf.function(f)(x))
    traced = tf.function(f).get_concrete_function(tf.TensorSpec([None, width], tf.float64))
    assert traced.structured_outputs.shape.as_list() == [None, width]
    assert_same(eager, traced(x))


def test_scan_empty():
    r = tf.scan(lambda a, x: a + x, tf.zeros([0, 2]), initializer=tf.zeros([2]))
    assert r.shape == (0, 2) and r.dtype == tf.float32
    with pytest.raises(errors.OutOfRangeError, match="array size is: 0"):
        tf.scan(lambda a, x: a + x, tf.zeros([0, 2]))
    f = tf.function(lambda x: tf.scan(lambda a, v: a + v, x, initializer=tf.zeros([2])))
    r = f.get_concrete_function(tf.TensorSpec([None, 2]))(tf.zeros([0, 2]))
    assert r.shape == (0, 2)


def test_scan_errors():
    e = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to write "
                                                          "dtype int32"):
        tf.scan(lambda a, x: tf.cast(a, tf.int32), e)
    with pytest.raises(errors.InvalidArgumentError, match="TensorArray dtype is float32"):
        tf.function(lambda x: tf.scan(lambda a, v: tf.cast(a, tf.int32), x))(e)
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(1,\)\), expected \(\(0,\)\)"):
        tf.scan(lambda a, x: tf.concat([a, [x]], 0), e, initializer=tf.zeros([0]))
    with pytest.raises(ValueError, match="same nested structure"):
        tf.scan(lambda a, x: (a, a), e)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.scan(lambda a, x: a + x[0], (e, e))  # the accumulator has elems' structure
    # infer_shape=False lets the accumulator's shape vary eagerly (a Python loop)
    r = tf.foldl(lambda a, x: tf.concat([a, [x]], 0), e, initializer=tf.zeros([0]))
    assert r.numpy().tolist() == [1.0, 2.0, 3.0]


# -- vectorized_map ------------------------------------------------------------------------------------
def test_vectorized_map_basics():
    e = tf.constant([1.0, 2.0, 3.0])
    assert tf.vectorized_map(lambda x: x * 2, e).numpy().tolist() == [2.0, 4.0, 6.0]
    a, b = tf.vectorized_map(lambda x: (x * 2, x), e)
    assert a.numpy().tolist() == [2.0, 4.0, 6.0] and b.numpy().tolist() == [1.0, 2.0, 3.0]
    assert tf.vectorized_map(lambda x: x[0] * x[1], (e, e)).numpy().tolist() == [1.0, 4.0, 9.0]
    r = tf.vectorized_map(lambda x: 2.0, e)  # outputs independent of the element are repeated
    assert r.dtype == tf.float32 and r.numpy().tolist() == [2.0, 2.0, 2.0]
    r = tf.vectorized_map(lambda m: tf.linalg.matvec(m, tf.ones([2])), tf.ones([4, 3, 2]))
    assert r.shape == (4, 3)
    r = tf.vectorized_map(lambda d: {"n": tf.cast(tf.reduce_sum(d["x"]), tf.int32)}, {"x": tf.ones([2, 3])})
    assert r["n"].dtype == tf.int32 and r["n"].numpy().tolist() == [3, 3]


def test_vectorized_map_empty_and_errors():
    r = tf.vectorized_map(lambda x: x * 2, tf.zeros([0, 2]))
    assert r.shape == (0, 2)
    r = tf.vectorized_map(lambda x: tf.cast(tf.reduce_sum(x), tf.int64), tf.zeros([0, 2]))
    assert r.shape == (0,) and r.dtype == tf.int64
    with pytest.raises(ValueError, match="not scalars"):
        tf.vectorized_map(lambda x: x, tf.constant(3.0))
    with pytest.raises(ValueError, match="Dimensions 3 and 1 are not compatible"):
        tf.vectorized_map(lambda x: x[0] + x[1], (tf.ones([3]), tf.ones([1])))
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.vectorized_map(lambda x: tf.range(tf.cast(x, tf.int32)), tf.constant([1, 2]))
    with pytest.raises(TypeError, match="not callable"):
        tf.vectorized_map(3, tf.ones([2]))


@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), seed=st.integers(0, 9))
def test_vectorized_map_eager_equals_traced(shape, seed):
    x = tf.constant(rand(*shape, seed=seed))

    def f(x):
        return tf.vectorized_map(lambda v: {"a": tf.tanh(v), "b": tf.reduce_max(v), "c": 1}, x)

    eager = f(x)
    np.testing.assert_allclose(eager["a"].numpy(), np.tanh(x.numpy()), rtol=1e-12)
    assert eager["c"].dtype == tf.int32 and eager["c"].shape == (shape[0],)
    assert_same(eager, tf.function(f)(x))
    assert_same(eager, tf.function(f).get_concrete_function(tf.TensorSpec([None] + shape[1:], tf.float64))(x))


def test_vectorized_map_traced_empty():
    f = tf.function(lambda x: tf.vectorized_map(lambda v: v * 2.0, x))
    assert f.get_concrete_function(tf.TensorSpec([None, 2])).structured_outputs.shape.as_list() == [None, 2]
    assert f(tf.zeros([0, 2])).shape == (0, 2)


# -- empty elems and errors ----------------------------------------------------------------------------
def test_map_fn_empty_elems():
    # eagerly fn never runs: the element shape is known only from a fully defined signature
    r = tf.map_fn(lambda x: x * 2, tf.zeros([0, 3]))
    assert r.shape == (0,) and r.dtype == tf.float32
    r = tf.map_fn(lambda x: tf.cast(x, tf.int64), tf.zeros([0, 3]), fn_output_signature=tf.int64)
    assert r.shape == (0,) and r.dtype == tf.int64
    r = tf.map_fn(lambda x: x * 2, tf.zeros([0, 3]), fn_output_signature=tf.TensorSpec([3], tf.float32))
    assert r.shape == (0, 3)
    r = tf.map_fn(lambda x: x * 2, tf.zeros([0, 3]), fn_output_signature=tf.TensorSpec(None, tf.float32))
    assert r.shape == (0,)
    with pytest.raises(ValueError, match=r"Tensor's shape \(0,\) is not compatible with supplied shape"):
        tf.map_fn(lambda x: x, tf.zeros([0, 3]), fn_output_signature=tf.TensorSpec([None], tf.float32))
    # traced, the body's output shape is known, as in TensorFlow
    f = tf.function(lambda x: tf.map_fn(lambda v: v * 2, x))
    assert f(tf.zeros([0, 3])).shape == (0, 3)
    assert f.get_concrete_function(tf.TensorSpec([None, 3]))(tf.zeros([0, 3])).shape == (0, 3)


def test_elems_errors():
    with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional Tensors, not scalars"):
        tf.map_fn(lambda x: x, tf.constant(3))
    with pytest.raises(ValueError, match="not scalars"):
        tf.map_fn(lambda x: x, [1, 2, 3])  # a list is a structure of three scalars
    with pytest.raises(ValueError, match="not scalars"):
        tf.foldl(lambda a, x: a + x, tf.constant(3.0))
    with pytest.raises(ValueError, match="does not contain any Tensors"):
        tf.map_fn(lambda x: x, [])
    with pytest.raises(ValueError, match="does not contain any Tensors"):
        tf.scan(lambda a, x: a + x, [])
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.map_fn(lambda x: x[0] + x[1], (tf.constant([1, 2]), tf.constant([1, 2, 3])), fn_output_signature=tf.int32)
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.function(lambda a, b: tf.map_fn(lambda x: x[0] + x[1], (a, b), fn_output_signature=tf.int32))(
            tf.constant([1, 2]), tf.constant([1, 2, 3]))
    for fn in (tf.map_fn, tf.foldl, tf.foldr, tf.scan):
        with pytest.raises(TypeError, match="not callable"):
            fn(3, tf.ones([2]))


def test_mismatched_lengths_known_only_at_run_time():
    f = tf.function(lambda a, b: tf.map_fn(lambda x: x[0] + x[1], (a, b), fn_output_signature=tf.float32))
    cf = f.get_concrete_function(tf.TensorSpec([None]), tf.TensorSpec([None]))
    np.testing.assert_allclose(cf(tf.ones([2]), tf.ones([2])).numpy(), [2.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError):
        cf(tf.ones([2]), tf.ones([3]))
    with pytest.raises(errors.InvalidArgumentError):
        cf(tf.ones([3]), tf.ones([2]))


def test_map_fn_output_errors():
    e = tf.constant([1, 2])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: (x, x), e)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: x[0] + x[1], (e, e))  # fn_output_signature is required
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: (x, x), e, fn_output_signature=tf.int32)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: x, e, fn_output_signature={"a": tf.int32})
    with pytest.raises(TypeError, match="don't have the same nested structure"):
        tf.map_fn(lambda x: [x[0], x[1]], (e, e))
    with pytest.raises(errors.InvalidArgumentError, match="TensorArray dtype is int32 but Op is trying to write "
                                                          "dtype float32"):
        tf.map_fn(lambda x: tf.cast(x, tf.float32), e)
    with pytest.raises(errors.InvalidArgumentError, match="TensorArray dtype is int32 but Op is trying to write "
                                                          "dtype float32"):
        tf.function(lambda x: tf.map_fn(lambda v: tf.cast(v, tf.float32), x))(e)
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected \(\(2, 2\)\)"):
        tf.map_fn(lambda x: tf.fill([2], x), e, fn_output_signature=tf.TensorSpec([2, 2], tf.int32))
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected \(\(1,\)\)"):
        tf.map_fn(lambda x: tf.range(x), e)  # ragged results
    with pytest.raises(ValueError, match="Incompatible shape"):
        tf.function(lambda x: tf.map_fn(lambda v: tf.fill([2], v), x,
                                        fn_output_signature=tf.TensorSpec([3], tf.int32)))(e)
    with pytest.raises(ValueError, match="unsupported type"):
        tf.map_fn(lambda x: None, e)
    with pytest.raises(TypeError, match="fn_output_signature"):
        tf.map_fn(lambda x: x, e, fn_output_signature=object())


# -- gradients ----------------------------------------------------------------------------------------
def _check_grads(fn, arrays, seed=0):
    """d sum(fn(*xs)·w)/dxs (w random) against finite differences, then traced against eager."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = tf.constant(np.random.default_rng(seed).uniform(-1.5, 1.5, size=out.shape.as_list()))

    def tape_grads(*xs):
        with tf.GradientTape() as tape:
            tape.watch(xs)
            loss = tf.reduce_sum(fn(*xs) * weights)
        return tape.gradient(loss, list(xs))

    eager = tape_grads(*[tf.constant(a) for a in arrays])
    for k, a in enumerate(arrays):
        def scalar(value, k=k):
            args = [tf.constant(value if j == k else b) for j, b in enumerate(arrays)]
            return float(np.sum(fn(*args).numpy() * weights.numpy()))
        assert eager[k] is not None, f"no gradient for input {k}"
        np.testing.assert_allclose(eager[k].numpy(), numeric_grad(scalar, a), rtol=1e-6, atol=1e-7)
    graph = tf.function(tape_grads)(*[tf.constant(a) for a in arrays])
    for e, g in zip(eager, graph):
        assert g is not None
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-10, atol=1e-12)


shapes = st.tuples(st.integers(2, 4), st.integers(1, 3))  # fn runs at least once without an initializer


@settings(max_examples=15, deadline=None)
@given(shape=shapes, seed=st.integers(0, 9))
def test_map_fn_gradient(shape, seed):
    _check_grads(lambda x, w: tf.map_fn(lambda v: tf.sin(v) * w + v * v, x),
                 [rand(*shape, seed=seed), rand(shape[1], seed=seed + 1)], seed)


@settings(max_examples=15, deadline=None)
@given(shape=shapes, seed=st.integers(0, 9), reverse=st.booleans())
def test_fold_gradient(shape, seed, reverse):
    fold = tf.foldr if reverse else tf.foldl
    _check_grads(lambda x, w: fold(lambda a, v: a * tf.tanh(v) + w * w, x), [rand(*shape, seed=seed),
                                                                           rand(shape[1], seed=seed + 1)], seed)
    _check_grads(lambda x, init: fold(lambda a, v: a * v + 1.0, x, initializer=init),
                 [rand(*shape, seed=seed), rand(shape[1], seed=seed + 2)], seed)


@settings(max_examples=15, deadline=None)
@given(shape=shapes, seed=st.integers(0, 9), reverse=st.booleans())
def test_scan_gradient(shape, seed, reverse):
    _check_grads(lambda x, w: tf.scan(lambda a, v: a * v + tf.sin(w), x, reverse=reverse),
                 [rand(*shape, seed=seed), rand(shape[1], seed=seed + 1)], seed)
    _check_grads(lambda x, init: tf.scan(lambda a, v: tf.sin(a) + v, x, initializer=init, reverse=reverse),
                 [rand(*shape, seed=seed), rand(shape[1], seed=seed + 2)], seed)


@settings(max_examples=15, deadline=None)
@given(shape=shapes, seed=st.integers(0, 9))
def test_vectorized_map_gradient(shape, seed):
    _check_grads(lambda x, w: tf.vectorized_map(lambda v: tf.reduce_sum(v * w) * v, x),
                 [rand(*shape, seed=seed), rand(shape[1], seed=seed + 1)], seed)


def test_capture_gradient_equal_to_the_loop_gradient():
    def f(x, w):
        return tf.foldl(lambda a, v: a * v + w, x)

    x, w = tf.constant([[0.3], [0.7]], tf.float64), tf.constant([0.2], tf.float64)

    def grad(x, w):
        with tf.GradientTape() as t:
            t.watch(w)
            y = tf.reduce_sum(f(x, w))
        return t.gradient(y, w)

    assert float(grad(x, w)[0]) == 1.0
    assert float(tf.function(grad)(x, w)[0]) == 1.0


def test_nested_map_fn_gradient_traced():
    x = tf.constant(np.arange(6.0).reshape(2, 3))

    def grad(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.map_fn(lambda row: tf.map_fn(lambda v: v * v, row), x))
        return t.gradient(y, x)

    np.testing.assert_array_equal(tf.function(grad)(x).numpy(), 2 * x.numpy())


def test_nested_gradient():
    def f(a, b):
        s, p = tf.scan(lambda acc, x: (acc[0] + x["a"] * x["b"], acc[1] * x["b"]), {"a": a, "b": b},
                       initializer=(tf.constant(0.0, tf.float64), tf.constant(1.0, tf.float64)))
        m = tf.map_fn(lambda x: x[0] - x[1], (s, p), fn_output_signature=tf.float64)
        return m + tf.foldl(lambda acc, x: acc + x[0] * x[1], (a, b), initializer=tf.constant(0.0, tf.float64))
    _check_grads(f, [rand(4, seed=1), rand(4, seed=2)])


def test_gradient_through_variable_inside_tf_function():
    v = tf.Variable([0.5, -1.0], dtype=tf.float64)
    x = tf.constant(rand(3, 2), tf.float64)

    def loss():
        return tf.reduce_sum(tf.map_fn(lambda e: tf.sin(e * v), x))

    def grad():
        with tf.GradientTape() as t:
            y = loss()
        return t.gradient(y, v)

    expected = np.sum(np.cos(x.numpy() * v.numpy()) * x.numpy(), axis=0)
    np.testing.assert_allclose(grad().numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(tf.function(grad)().numpy(), expected, rtol=1e-12)


def test_integer_elems_get_no_gradient():
    w = tf.constant(2.0, tf.float64)
    with tf.GradientTape() as t:
        t.watch(w)
        y = tf.reduce_sum(tf.map_fn(lambda i: tf.cast(i, tf.float64) * w, tf.constant([1, 2, 3]),
                                    fn_output_signature=tf.float64))
    assert float(t.gradient(y, w)) == 6.0


def test_exported_at_top_level():
    from tensorflux._src.ops.control_flow import higher_order as functional_ops
    for name in ("map_fn", "foldl", "foldr", "scan", "vectorized_map"):
        assert getattr(tf, name) is getattr(functional_ops, name)
