"""tf.complex, tf.math.real/imag/angle: values and dtypes as TensorFlow 2.21 printed them, and gradients
(TensorFlow's dL/dx + i·dL/dy convention) against finite differences."""
import numpy as np
import pytest

import tensorflux as tf
from tests.helpers import check_gradients


def test_values_and_dtypes():
    z = tf.complex(1.0, 2.0)
    assert z.dtype == tf.complex64 and z.numpy() == 1 + 2j
    assert tf.complex(tf.constant([1.0], tf.float64), tf.constant([2.0], tf.float64)).dtype == tf.complex128
    z = tf.constant([1 + 2j, -3 - 4j], tf.complex64)
    np.testing.assert_array_equal(tf.math.real(z).numpy(), [1, -3])
    np.testing.assert_array_equal(tf.math.imag(z).numpy(), [2, -4])
    np.testing.assert_allclose(tf.math.angle(z).numpy(), [1.1071488, -2.2142975], rtol=1e-6)
    assert tf.math.real(z).dtype == tf.float32
    np.testing.assert_array_equal(tf.math.real(tf.constant([1.5])).numpy(), [1.5])
    np.testing.assert_array_equal(tf.math.imag(tf.constant([1.5])).numpy(), [0.0])
    np.testing.assert_allclose(tf.math.angle(tf.constant([-1.5, 2.0])).numpy(), [np.pi, 0.0], rtol=1e-7)
    np.testing.assert_array_equal(tf.complex([1.0, 2.0], 3.0).numpy(), [1 + 3j, 2 + 3j])   # broadcasting


def test_dtype_errors():
    with pytest.raises(TypeError, match=r"incorrect types: float32 float64\. They must be consistent"):
        tf.complex(tf.constant(1.0), tf.constant(1.0, tf.float64))
    with pytest.raises(TypeError, match="incorrect types: int32 int32"):
        tf.complex(tf.constant(1), tf.constant(2))


def test_gradients_match_tensorflow():
    x, y = tf.Variable([1.0, 2.0]), tf.Variable([3.0, -1.0])
    with tf.GradientTape(persistent=True) as tape:
        c = tf.complex(x, y)
        losses = [tf.reduce_sum(tf.math.real(c * c)), tf.reduce_sum(tf.math.imag(c * c)),
                  tf.reduce_sum(tf.math.angle(c))]
    expected = [([2, 4], [-6, 2]), ([6, -2], [2, 4]), ([-0.3, 0.2], [0.1, 0.4])]
    for loss, (gx, gy) in zip(losses, expected):
        dx, dy = tape.gradient(loss, [x, y])
        np.testing.assert_allclose(dx.numpy(), gx, rtol=1e-6)
        np.testing.assert_allclose(dy.numpy(), gy, rtol=1e-6)


@pytest.mark.parametrize("part", [tf.math.real, tf.math.imag, tf.math.angle, tf.abs])
def test_gradients_against_finite_differences(part):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 2)), rng.standard_normal((2,))
    check_gradients(lambda a, b: part(tf.complex(a, b) * tf.complex(b, a)), [x, y])


def test_traced_graph_has_the_ops():
    @tf.function
    def f(a, b):
        return tf.math.angle(tf.complex(a, b))
    graph = f.get_concrete_function(tf.TensorSpec([None]), tf.TensorSpec([None])).graph
    assert [op.type for op in graph.get_operations()][2:4] == ["Complex", "Angle"]
    np.testing.assert_allclose(f(tf.constant([1.0]), tf.constant([1.0])).numpy(), [np.pi / 4], rtol=1e-6)
