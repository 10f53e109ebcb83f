"""`tf.experimental.numpy` beyond single values: gradients through the NumPy-named functions, tracing
inside tf.function, NumPy methods on tensors, preferred float32, `tnp.random` and lazy loading."""
import subprocess
import sys

import numpy as np
import pytest

import tensorflux as tf

tnp = tf.experimental.numpy


def test_ndarray_is_tensor_and_import_form_works():
    import tensorflux.experimental.numpy as tnp2
    assert tnp2 is tnp and tnp.ndarray is tf.Tensor
    assert isinstance(tnp.asarray([1.0]), tnp.ndarray)


def test_import_tensorflux_does_not_load_numpy_api():
    code = ("import sys, tensorflux as tf; assert 'tensorflux._src.numpy_api' not in sys.modules; "
            "tf.experimental.numpy.sin(1.0); assert 'tensorflux._src.numpy_api' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("fn, expected", [
    (lambda x: tnp.sum(tnp.sin(x) * tnp.exp2(x)), None),
    (lambda x: tnp.mean(tnp.cumsum(tnp.square(x))), None),
    (lambda x: tnp.sum(tnp.logaddexp(x, 2.0 * x)), None),
    (lambda x: tnp.sum(tnp.kron(x, x)), None),
    (lambda x: tnp.std(tnp.take_along_axis(x, tf.constant([2, 0, 1]), 0)), None),
])
def test_gradients_match_finite_differences(fn, expected):
    x0 = np.array([0.3, -0.7, 1.1])
    x = tf.Variable(x0)
    with tf.GradientTape() as tape:
        y = fn(x)
    grad = tape.gradient(y, x).numpy()
    eps = 1e-6
    numeric = [(fn(tf.constant(x0 + eps * e)).numpy() - fn(tf.constant(x0 - eps * e)).numpy()) / (2 * eps)
               for e in np.eye(3)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8)


def test_functions_trace_into_tf_function():
    @tf.function
    def f(x):
        y = tnp.where(x > 0, tnp.sqrt(tnp.abs(x)), tnp.zeros_like(x))
        return tnp.concatenate([tnp.cumsum(y), tnp.diff(x), tnp.array([tnp.ptp(x)])])

    x = tf.constant([4.0, -1.0, 9.0])
    np.testing.assert_allclose(f(x).numpy(), [2.0, 2.0, 5.0, -5.0, 10.0, 10.0])
    graph = f.get_concrete_function(x).graph
    assert any(op.type == "Cumsum" for op in graph.get_operations())


@pytest.fixture
def numpy_behavior():
    """Enables NumPy behaviour for one test and takes the added methods off tf.Tensor afterwards, so that
    other tests see TensorFlow's plain Tensor (code elsewhere may probe `hasattr(x, "ndim")`)."""
    from tensorflux._src.numpy_api import behavior
    tnp.experimental_enable_numpy_behavior()
    yield
    while behavior._added:
        delattr(tf.Tensor, behavior._added.pop())


def test_enable_numpy_behavior_adds_methods(numpy_behavior):
    t = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert t.reshape(3, 2).shape.as_list() == [3, 2]
    assert t.reshape((6,)).shape.as_list() == [6]
    assert t.T.shape.as_list() == [3, 2]
    assert t.ravel().numpy().tolist() == [1, 2, 3, 4, 5, 6]
    assert t.astype(tnp.float32).dtype == tf.float32
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert t.ndim == 2 and int(t.size) == 6
    assert t.sum().numpy() == 21 and t.sum().dtype == tf.int64
    assert t.clip(2, 5).numpy().tolist() == [[2, 2, 3], [4, 5, 5]]
    assert t.transpose().shape.as_list() == [3, 2]


def test_prefer_float32(numpy_behavior):
    try:
        tnp.experimental_enable_numpy_behavior(prefer_float32=True)
        assert tnp.asarray(1.5).dtype == tf.float32
        assert tnp.zeros(2).dtype == tf.float32
        assert tnp.sin(tf.constant([1])).dtype == tf.float32
        assert tnp.asarray(1).dtype == tf.int64
    finally:
        tnp.experimental_enable_numpy_behavior(prefer_float32=False)
    assert tnp.asarray(1.5).dtype == tf.float64


def test_enable_numpy_behavior_rejects_unknown_mode():
    with pytest.raises(ValueError, match="promotion mode"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="nope")


def test_random_functions():
    tnp.random.seed(7)
    a = tnp.random.rand(2, 3)
    assert a.dtype == tf.float64 and a.shape.as_list() == [2, 3]
    assert 0 <= float(tnp.min(a)) and float(tnp.max(a)) < 1
    tnp.random.seed(7)
    np.testing.assert_array_equal(tnp.random.rand(2, 3).numpy(), a.numpy())
    assert tnp.random.randn(4).dtype == tf.float64
    ints = tnp.random.randint(3, 6, size=(100,))
    assert ints.dtype == tf.int64 and set(ints.numpy().tolist()) <= {3, 4, 5}
    assert tnp.random.randint(5, size=3, dtype=np.int32).dtype == tf.int32
    u = tnp.random.uniform(-2.0, -1.0, size=(50,))
    assert float(tnp.min(u)) >= -2 and float(tnp.max(u)) < -1
    assert tnp.random.standard_normal((2, 2)).shape.as_list() == [2, 2]
    assert tnp.random.random((3,)).shape.as_list() == [3]
    counts = tnp.random.poisson(4.0, size=(4000,))
    assert counts.dtype == tf.int64
    assert abs(float(tnp.mean(counts)) - 4.0) < 0.2 and abs(float(tnp.var(counts)) - 4.0) < 0.5


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="equal division"):
        tnp.split(tnp.arange(5), 2)
    with pytest.raises(ValueError, match="integers"):
        tnp.gcd(1.5, 2)
    with pytest.raises(ValueError, match="non-zero"):
        tnp.arange(0, 5, 0)
    with pytest.raises(ValueError, match="Geometric sequence cannot include zero"):
        tnp.geomspace(0, 10)
