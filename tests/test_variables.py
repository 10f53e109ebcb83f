"""tf.Variable: creation, reads and assigns through stateful resource ops, conversion, operators, text."""
import copy

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tensorflux as tf
from tensorflux._src.ops import state as S
from tensorflux._src.ops.registry import apply


def test_creation_and_identity():
    v = tf.Variable(1)
    assert v.dtype is tf.int32 and v.shape == tf.TensorShape([]) and v.get_shape() == v.shape
    assert v.name == "Variable:0" and tf.Variable(2).name == "Variable:0"  # eager TF does not uniquify
    assert tf.Variable(2.0, name="w").name == "w:0" and tf.Variable(1, name="a/b").name == "a/b:0"
    assert v.trainable and not tf.Variable(1, trainable=False).trainable
    assert v.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert isinstance(v, tf.Variable) and not isinstance(v, tf.Tensor) and tf.is_tensor(v)
    assert v._handle_id != tf.Variable(1)._handle_id
    assert v.constraint is None


def test_handle_is_a_resource_tensor():
    v = tf.Variable([1, 2])
    h = v.handle
    assert isinstance(h, tf.Tensor) and h.dtype is tf.resource and h.shape == tf.TensorShape([])
    assert isinstance(h._value, S.VariableResource) and h._value.value.tolist() == [1, 2]
    assert repr(h).startswith("<tf.Tensor: shape=(), dtype=resource, value=<ResourceHandle(name=\"Variable/")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Cannot convert a Tensor of dtype resource to a NumPy array."):
        h.numpy()


def test_initial_value_forms():
    assert tf.Variable(lambda: tf.constant([1.0, 1.0])).numpy().tolist() == [1.0, 1.0]
    f = tf.Variable(1, dtype=tf.float32)
    assert f.dtype is tf.float32 and f.numpy() == 1.0
    assert tf.Variable(np.array([1, 2], np.int64)).dtype is tf.int64
    assert tf.Variable("s").dtype is tf.string
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.Variable(1.5, dtype=tf.int32)
    with pytest.raises(ValueError, match="initial_value: Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype int32"):
        tf.Variable(tf.constant(1), dtype=tf.float32)
    with pytest.raises(ValueError, match="The `initial_value` arg to `tf.Variable` must be specified"):
        tf.Variable()


def test_shape_argument():
    u = tf.Variable(1, shape=tf.TensorShape(None))
    assert u.shape.rank is None and "shape=<unknown>" in repr(u)
    w = tf.Variable([1, 2], shape=[None])
    r = w.assign([1, 2, 3])
    assert repr(r) == "<tf.Variable 'UnreadVariable' shape=(None,) dtype=int32, numpy=array([1, 2, 3], dtype=int32)>"
    assert w.shape == tf.TensorShape([None])
    with pytest.raises(ValueError, match=r"the initial value's shape \(\(2,\)\) is not compatible with the "
                                         r"explicitly supplied `shape` argument \(\[3\]\)"):
        tf.Variable([1, 2], shape=[3])
    assert tf.Variable([1, 2], validate_shape=False).shape.rank is None


def test_reads():
    v = tf.Variable([1, 2])
    r = v.read_value()
    assert isinstance(r, tf.Tensor) and r.numpy().tolist() == [1, 2] and r.dtype is tf.int32
    assert v.value().numpy().tolist() == [1, 2]
    n = v.numpy()
    assert isinstance(n, np.ndarray) and n.tolist() == [1, 2]
    assert isinstance(tf.Variable(3).numpy(), np.int32)


def test_assign_family_returns_unread_variable():
    v = tf.Variable(1)
    r = v.assign(5)
    assert isinstance(r, tf.Variable) and repr(r) == "<tf.Variable 'UnreadVariable' shape=() dtype=int32, numpy=5>"
    assert v.assign(6, read_value=False) is None and v.numpy() == 6
    assert repr(v.assign_add(1)) == "<tf.Variable 'UnreadVariable' shape=() dtype=int32, numpy=7>"
    assert v.assign_sub(2, read_value=False) is None and v.numpy() == 5
    r = v.assign(tf.Variable(3))
    assert r.numpy() == 3 and v.numpy() == 3
    u = tf.Variable([1, 2])
    assert u.assign_add(tf.constant([1, 1])).numpy().tolist() == [2, 3]
    r.assign(9)  # the returned object is the same variable
    assert v.numpy() == 9


def test_assign_never_mutates_earlier_reads():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    array = v.handle._value.value
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    assert before.numpy().tolist() == [1.0, 2.0] and array.tolist() == [1.0, 2.0]
    v.assign([7.0, 8.0])
    assert before.numpy().tolist() == [1.0, 2.0] and v.numpy().tolist() == [7.0, 8.0]


def test_assign_errors():
    v = tf.Variable(1)
    u = tf.Variable([1, 2])
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        v.assign(1.5)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        v.assign_add(1.5)
    with pytest.raises(ValueError, match=r"Cannot assign value to variable ' Variable:0': Shape mismatch.The "
                                         r"variable shape \(\), and the assigned value shape \(2,\) are "
                                         r"incompatible."):
        v.assign([1, 2])
    with pytest.raises(ValueError, match=r"variable shape \(2,\), and the assigned value shape \(3,\)"):
        u.assign([1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot update variable with shape \[2\] using a Tensor with shape \[3\], shapes must "
                             r"be equal. \[Op:AssignAddVariableOp\]"):
        u.assign_add([1, 2, 3])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor with dtype float32"):
        u.assign(tf.constant([1.0, 2.0]))
    assert u.numpy().tolist() == [1, 2]


def test_assign_kernels_check_dtype_and_shape():
    v = tf.Variable([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Trying to assign variable with wrong dtype. Expected int32 got float"):
        apply(S.ASSIGN_VARIABLE, (v.handle, tf.constant([1.0, 2.0])), None, "AssignVariableOp")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"wrong shape. Expected \[2\] got \[3\]"):
        apply(S.ASSIGN_VARIABLE, (v.handle, tf.constant([1, 2, 3])), None, "AssignVariableOp")
    assert apply(S.VAR_IS_INITIALIZED, (v.handle,), None, "VarIsInitializedOp").numpy()
    assert v.is_initialized().numpy()


def test_op_definitions_and_inference():
    for op in (S.READ_VARIABLE, S.ASSIGN_VARIABLE, S.ASSIGN_ADD_VARIABLE, S.ASSIGN_SUB_VARIABLE):
        assert op.stateful
    handle = tf.TensorSpec([], tf.resource)
    assert S.READ_VARIABLE.infer([handle], {"dtype": np.dtype(np.float32), "shape": (None, 3)}) == \
        [(tf.float32, tf.TensorShape([None, 3]))]
    assert S.READ_VARIABLE.infer([handle], {"dtype": np.dtype(object), "shape": None})[0][1].rank is None
    assert S.READ_VARIABLE.infer([handle], {"dtype": np.dtype(object), "shape": None})[0][0] is tf.string
    assert S.ASSIGN_VARIABLE.infer([handle, tf.TensorSpec(None, tf.float32)], {}) == []


def test_conversion_protocol():
    v = tf.Variable(6)
    assert tf.add(v, 1).numpy() == 7 and tf.convert_to_tensor(v).numpy() == 6
    with pytest.raises(ValueError, match=r"Incompatible type conversion requested to type float32 for "
                                         r"`tf.Variable of type int32. \(Variable: <tf.Variable 'Variable:0'"):
        tf.convert_to_tensor(v, dtype=tf.float32)
    assert tf.convert_to_tensor(v, dtype=tf.int32).numpy() == 6


def test_operators_read_the_value():
    v = tf.Variable(6)
    assert (v + 1).numpy() == 7 and (1 + v).numpy() == 7 and (v * v).numpy() == 36
    assert isinstance(v + 1, tf.Tensor)
    w = tf.Variable([1.0, 2.0])
    assert (tf.constant([1.0, 1.0]) + w).numpy().tolist() == [2.0, 3.0]
    assert (np.array([1.0, 1.0], np.float32) + w).numpy().tolist() == [2.0, 3.0]
    v.assign(10)
    assert (v + 1).numpy() == 11  # operators read the current value


def test_python_conversions():
    v = tf.Variable(6)
    assert bool(v) and int(v) == 6 and float(v) == 6.0
    assert np.array(v).tolist() == 6 and np.asarray(tf.Variable([1, 2])).tolist() == [1, 2]
    u = tf.Variable([1, 2])
    with pytest.raises(ValueError, match="The truth value of an array with more than one element is ambiguous"):
        bool(u)
    assert [t.numpy() for t in u] == [1, 2]
    with pytest.raises(TypeError):
        len(u)
    with pytest.raises(TypeError):
        [1, 2, 3][tf.Variable(1)]  # TensorFlow's variables are not indices either


def test_hashing_and_ref():
    v = tf.Variable(1)
    with pytest.raises(TypeError, match=r"Variable is unhashable. Instead, use variable.ref\(\) as the key. "
                                        r"\(Variable: <tf.Variable 'Variable:0' shape=\(\) dtype=int32, numpy=1>\)"):
        hash(v)
    assert v.ref() == v.ref() and v.ref() != tf.Variable(1).ref() and v.ref().deref() is v
    assert {v.ref(): 1}[v.ref()] == 1


def test_repr_and_str():
    assert repr(tf.Variable(1)) == "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=1>"
    assert str(tf.Variable([1, 2])) == ("<tf.Variable 'Variable:0' shape=(2,) dtype=int32, "
                                        "numpy=array([1, 2], dtype=int32)>")
    assert repr(tf.Variable([[1.5, 2], [3, 4]])) == ("<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
                                                     "array([[1.5, 2. ],\n       [3. , 4. ]], dtype=float32)>")
    assert repr(tf.Variable("s")) == "<tf.Variable 'Variable:0' shape=() dtype=string, numpy=b's'>"


def test_name_scope_prefixes_names():
    with tf.name_scope("outer"):
        assert tf.Variable(1, name="q").name == "outer/q:0"
    assert tf.Variable(1, name="q").name == "q:0"


def test_deepcopy_is_independent():
    v = tf.Variable([1, 2], name="c")
    c = copy.deepcopy(v)
    c.assign([3, 4])
    assert v.numpy().tolist() == [1, 2] and c.numpy().tolist() == [3, 4] and c.name == "c:0"
    assert copy.copy(v) is v


def test_initial_value_property_is_eager_error():
    with pytest.raises(RuntimeError, match="not supported when eager execution is enabled"):
        tf.Variable(1).initial_value


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-100, 100), min_size=1, max_size=6), st.integers(-5, 5), st.integers(-5, 5))
def test_update_sequence_matches_numpy(values, a, b):
    v = tf.Variable(np.array(values, np.int32))
    expected = np.array(values, np.int32)
    v.assign_add(np.full(len(values), a, np.int32))
    v.assign_sub(np.full(len(values), b, np.int32))
    expected = expected + a - b
    assert v.numpy().tolist() == expected.tolist() and v.dtype is tf.int32


def test_variable_updates_inside_traced_function():
    v = tf.Variable(1)

    @tf.function
    def step(x):
        v.assign_add(x)
        return v.read_value() * 2

    assert step(tf.constant(2)).numpy() == 6
    assert step(tf.constant(3)).numpy() == 12
    assert v.numpy() == 6


# -- gradients with respect to variables ----------------------------------------------------------
def test_gradient_of_a_variable_with_respect_to_itself_is_ones():
    v = tf.Variable([1.0, 2.0])
    frozen = tf.Variable(3, trainable=False)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        pass
    np.testing.assert_array_equal(tape.gradient(v, v).numpy(), [1.0, 1.0])
    assert tape.gradient(frozen, frozen).numpy() == 1 and tape.gradient(frozen, frozen).dtype == tf.int32
    np.testing.assert_array_equal(tape.gradient(v, v, output_gradients=tf.constant([5.0, 7.0])).numpy(),
                                  [5.0, 7.0])
    grads = tape.gradient(v, [v, frozen])
    assert grads[1] is None

    @tf.function
    def traced():
        with tf.GradientTape() as inner:
            pass
        return inner.gradient(v, v)

    np.testing.assert_array_equal(traced().numpy(), [1.0, 1.0])


def test_output_gradients_of_another_shape_or_count_are_refused():
    v = tf.Variable([1.0, 2.0])
    for seed in ([1.0, 2.0, 3.0], 2.0, [[1.0, 2.0]]):
        with tf.GradientTape() as tape:
            y = v * 3.0
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"`output_gradients` must have the shape of its target: expected shape \(2,\)"):
            tape.gradient(y, v, output_gradients=tf.constant(seed))
    with tf.GradientTape() as tape:
        y = v * 3.0
    with pytest.raises(ValueError, match="`output_gradients` must have one entry per target: expected 2"):
        tape.gradient([y, y], v, output_gradients=[tf.constant([1.0, 1.0])])
    with tf.GradientTape() as tape:
        y = v * 3.0
    np.testing.assert_array_equal(tape.gradient(y, v, output_gradients=np.array([2.0, 4.0], np.float32)).numpy(), [6.0, 12.0])

    @tf.function
    def traced(seed):
        with tf.GradientTape() as inner:
            y = v * 3.0
        return inner.gradient(y, v, output_gradients=seed)

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"received shape \(3,\)"):
        traced(tf.constant([1.0, 2.0, 3.0]))


def test_aggregation_and_synchronization_as_tensorflow_reports_them():
    # Recorded from TensorFlow 2.21: the default aggregation is TF 1's enum (equal to TF 2's member),
    # explicit ones are `tf.VariableAggregation` members; integers are taken by value, strings refused.
    v = tf.Variable(1.0)
    assert repr(v.aggregation) == "<VariableAggregation.NONE: 0>"
    assert repr(v.synchronization) == "<VariableSynchronization.AUTO: 0>"
    assert v.aggregation == tf.VariableAggregation.NONE and tf.VariableAggregation.NONE == v.aggregation
    w = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.SUM)
    assert repr(w.aggregation) == "<VariableAggregationV2.SUM: 1>"
    assert repr(w.synchronization) == "<VariableSynchronization.ON_READ: 3>"
    assert w.trainable is False                      # on-read variables are not trained unless asked
    assert tf.Variable(1.0, synchronization=3, trainable=True).trainable is True
    assert repr(tf.Variable(1.0, aggregation=1).aggregation) == "<VariableAggregationV2.SUM: 1>"
    with pytest.raises(ValueError, match="^Invalid variable aggregation mode: sum for variable: None$"):
        tf.Variable(1.0, aggregation="sum")
    with pytest.raises(ValueError, match="^Invalid variable synchronization mode: 7 for variable: None$"):
        tf.Variable(1.0, synchronization=7)
