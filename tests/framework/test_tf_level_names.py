"""tf-level names recorded against TensorFlow 2.21: name-scope queries, the variable policy and gradient
aggregation enums, and TensorFlow's own initializers (seeded draws bit-exact with TF's)."""
import numpy as np
import pytest

import tensorflux as tf


def test_name_scope_queries_eager_and_traced():
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            assert tf.get_current_name_scope() == "a/b"
    seen = []

    @tf.function
    def f():
        with tf.name_scope("c"):
            seen.append(tf.get_current_name_scope())
        seen.append((tf.inside_function(), tf.is_symbolic_tensor(tf.constant(1.0))))
        return 1
    f()
    assert seen == ["c", (True, True)]
    assert (tf.inside_function(), tf.is_symbolic_tensor(tf.constant(1.0)), tf.is_symbolic_tensor(np.ones(2))) == \
        (False, False, False)


def test_enums_print_as_tensorflows():
    assert str(list(tf.VariableAggregation)) == (
        "[<VariableAggregationV2.NONE: 0>, <VariableAggregationV2.SUM: 1>, <VariableAggregationV2.MEAN: 2>, "
        "<VariableAggregationV2.ONLY_FIRST_REPLICA: 3>]")
    assert str(list(tf.VariableSynchronization)) == (
        "[<VariableSynchronization.AUTO: 0>, <VariableSynchronization.NONE: 1>, "
        "<VariableSynchronization.ON_WRITE: 2>, <VariableSynchronization.ON_READ: 3>]")
    assert str(tf.VariableSynchronization.ON_READ) == "VariableSynchronization.ON_READ"
    assert tf.VariableAggregation.SUM != "sum"
    method = tf.AggregationMethod
    assert (method.ADD_N, method.DEFAULT, method.EXPERIMENTAL_TREE, method.EXPERIMENTAL_ACCUMULATE_N) == (0, 0, 1, 2)


def test_seeded_random_initializers_repeat_tensorflows_draws():
    assert tf.random_normal_initializer(mean=1.0, stddev=2.0, seed=7)([2, 3]).numpy().tolist() == [
        [-0.3483455181121826, 0.28261488676071167, -2.7591633796691895],
        [-1.9457862377166748, -3.012507438659668, -1.2668647766113281]]
    assert tf.random_uniform_initializer(minval=-1.0, maxval=1.0, seed=7)([4]).numpy().tolist() == [
        0.4941575527191162, 0.3443603515625, -0.8844408988952637, 0.28842639923095703]
    assert tf.random_uniform_initializer(minval=0, maxval=10, seed=3)([4], dtype=tf.int32).numpy().tolist() == \
        [8, 7, 2, 2]


def test_constant_zeros_ones_initializers():
    assert tf.constant_initializer([1, 2, 3, 4])([2, 2]).numpy().tolist() == [[1, 2], [3, 4]]
    five = tf.constant_initializer(5)([2], dtype=tf.int32)
    assert five.dtype == tf.int32 and five.numpy().tolist() == [5, 5]
    zeros = tf.zeros_initializer()([2], dtype=tf.int64)
    assert zeros.dtype == tf.int64 and zeros.numpy().tolist() == [0, 0]
    assert tf.ones_initializer()([1, 2]).numpy().tolist() == [[1.0, 1.0]]


def test_initializer_configs_and_errors():
    assert tf.random_normal_initializer().get_config() == {"mean": 0.0, "stddev": 0.05, "seed": None}
    assert tf.random_uniform_initializer().get_config() == {"minval": -0.05, "maxval": 0.05, "seed": None}
    assert tf.constant_initializer(3).get_config() == {"value": 3} and tf.zeros_initializer().get_config() == {}
    assert tf.random_normal_initializer.from_config({"mean": 1.0, "stddev": 2.0, "seed": 7}).seed == 7
    with pytest.raises(TypeError, match=r"^Eager execution of tf.constant with unsupported shape\. Tensor \[1 2 3\] "
                                        r"\(converted from \[1, 2, 3\]\) has 3 elements, but got `shape` \(2, 2\) "
                                        r"with 4 elements\)\.$"):
        tf.constant_initializer([1, 2, 3])([2, 2])
    with pytest.raises(ValueError, match=r"^Argument `dtype` is expected to be floating point\. Received: "
                                         r"<dtype: 'int32'>\.$"):
        tf.random_normal_initializer()([2], dtype=tf.int32)
    with pytest.raises(TypeError, match=r"^Invalid type for initial value: EagerTensor\. Expected Python scalar, "
                                        r"list or tuple of values, or numpy\.ndarray\.$"):
        tf.constant_initializer(tf.constant(1.0))
