"""tf.function tracing, retracing and dispatch: the rules of TensorFlow's tf.function guide."""
import gc
import logging

import numpy as np
import pytest

import tensorflux as tf


def counting(fn_body=lambda x: x + x, **kwargs):
    traces = []

    def fn(*args):
        traces.append(args)
        return fn_body(*args)

    return tf.function(fn, **kwargs), traces


def test_traces_once_per_dtype_and_shape():
    f, traces = counting()
    f(tf.constant(1))
    f(tf.constant(2))
    assert len(traces) == 1
    f(tf.constant(1.5))
    f(tf.constant([1, 2]))
    f(tf.constant([3, 4]))
    assert len(traces) == 3
    assert f.experimental_get_tracing_count() == 3


def test_python_values_retrace_per_value_and_are_constants():
    f, traces = counting(lambda x: x * 2)
    assert f(2).numpy() == 4
    f(2)
    f(3)
    assert len(traces) == 2
    assert isinstance(traces[0][0], int)


def test_python_int_and_float_and_bool_are_distinct_literals():
    f, traces = counting(lambda x: tf.constant(1))
    f(1)
    f(1.0)
    f(True)
    assert len(traces) == 3


def test_placeholders_are_symbolic_and_named_after_arguments():
    seen = {}

    @tf.function
    def f(a, b):
        seen["a"], seen["b"] = str(a), repr(b)
        return a + b

    f(tf.constant(1.0), tf.constant(2.0))
    assert seen["a"] == 'Tensor("a:0", shape=(), dtype=float32)'
    assert seen["b"] == "<tf.Tensor 'b:0' shape=() dtype=float32>"


def test_unknown_rank_symbolic_tensor_prints_without_shape():
    seen = []

    @tf.function
    def f(a):
        seen.append(str(a))
        return a

    f.get_concrete_function(tf.TensorSpec(None, tf.string))
    assert seen == ['Tensor("a:0", dtype=string)']


def test_nested_structures_and_dicts_are_flattened():
    @tf.function
    def f(pair, table):
        return pair[0] + pair[1] + table["b"] - table["a"]

    out = f((tf.constant(1), tf.constant(2)), {"b": tf.constant(10), "a": tf.constant(4)})
    assert out.numpy() == 9
    out = f((tf.constant(1), tf.constant(2)), {"a": tf.constant(4), "b": tf.constant(10)})
    assert f.experimental_get_tracing_count() == 1


def test_outputs_keep_structure_and_python_values_become_tensors():
    @tf.function
    def f(x):
        return {"sum": x + 1, "none": None, "n": 3, "pair": (x, "s")}

    out = f(tf.constant(1))
    assert out["sum"].numpy() == 2 and out["none"] is None
    assert isinstance(out["n"], tf.Tensor) and out["n"].numpy() == 3
    assert out["pair"][1].numpy() == b"s"


def test_returning_an_arbitrary_object_is_a_type_error():
    @tf.function
    def f():
        return object()

    with pytest.raises(TypeError, match="must return zero or more Tensors"):
        f()


def test_print_runs_only_while_tracing_tf_print_every_call(capfd):
    @tf.function
    def f(x):
        print("traced")
        tf.print("ran", x)
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    out, err = capfd.readouterr()
    assert out.count("traced") == 1
    assert err.splitlines() == ["ran 1", "ran 2"]


def test_list_side_effects_happen_only_while_tracing():
    log = []

    @tf.function
    def f(x):
        log.append(1)
        return x

    f(tf.constant(1))
    f(tf.constant(2))
    assert log == [1]


def test_input_signature_traces_once_and_rejects_mismatches():
    f, traces = counting(lambda x: x, input_signature=[tf.TensorSpec([None], tf.int32)])
    f(tf.constant([1, 2]))
    f(tf.constant([1, 2, 3]))
    assert len(traces) == 1
    with pytest.raises(TypeError, match=r"Binding inputs to tf.function failed.*Can not cast "
                                        r"TensorSpec\(shape=\(2, 2\), dtype=tf.int32, name=None\)"):
        f(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        f(tf.constant([1.0]))


def test_input_signature_accepts_python_values_convertible_to_the_spec():
    f = tf.function(lambda x: x * 2, input_signature=[tf.TensorSpec([], tf.float32)])
    assert f(3.0).numpy() == 6.0


def test_reduce_retracing_generalises_shapes():
    f, traces = counting(lambda x: x, reduce_retracing=True)
    f(tf.constant([1, 2, 3]))
    f(tf.constant([1, 2, 3, 4, 5]))
    f(tf.constant([1, 2, 3, 4, 5, 6, 7]))
    assert len(traces) == 2
    assert str(traces[1][0]) == 'Tensor("args_0:0", shape=(None,), dtype=int32)' or \
        traces[1][0].shape.as_list() == [None]


def test_separate_functions_never_share_traces():
    def body(x):
        return x

    f, g = tf.function(body), tf.function(body)
    f(tf.constant(1))
    g(tf.constant(1))
    assert f.experimental_get_tracing_count() == 1 == g.experimental_get_tracing_count()


def test_method_traces_per_instance():
    class Model:
        def __init__(self, k):
            self.k = k

        @tf.function
        def scale(self, x):
            return x * self.k

    a, b = Model(2), Model(3)
    assert a.scale(tf.constant(1)).numpy() == 2
    assert b.scale(tf.constant(1)).numpy() == 3
    assert a.scale.experimental_get_tracing_count() == 1


def test_custom_tracing_type_protocol():
    class Kind(tf.types.experimental.TraceType):
        def __init__(self, cls):
            self.cls = cls

        def is_subtype_of(self, other):
            return type(other) is Kind and other.cls is self.cls

        def most_specific_common_supertype(self, others):
            return self if all(self == o for o in others) else None

        def placeholder_value(self, placeholder_context=None):
            return self.cls

        def __eq__(self, other):
            return type(other) is Kind and other.cls is self.cls

        def __hash__(self):
            return hash(self.cls)

    class Thing:
        value = 5

        def __tf_tracing_type__(self, context):
            return Kind(type(self))

    f, traces = counting(lambda t: tf.constant(t.value))
    f(Thing())
    f(Thing())
    assert len(traces) == 1


def test_other_objects_retrace_per_instance_and_are_weakly_held():
    class Config:
        pass

    f, traces = counting(lambda c: tf.constant(1))
    c1, c2 = Config(), Config()
    f(c1)
    f(c1)
    f(c2)
    assert len(traces) == 2
    del c1, c2, traces[:]
    gc.collect()
    f(Config())
    assert len(f._cache) == 1  # entries of dead objects were dropped


def test_cache_is_lru_bounded():
    f, traces = counting(lambda x: tf.constant(x))
    f.experimental_cache_size = 3
    for i in range(6):
        f(i)
    assert len(f._cache) == 3
    f(5)
    assert len(traces) == 6
    f(0)
    assert len(traces) == 7


def test_retrace_history_names_the_argument():
    @tf.function
    def f(x, lr):
        return x * lr

    f(tf.constant(1.0), 0.1)
    f(tf.constant(1.0), 0.2)
    text = f.experimental_explain_retracing()
    assert "2 trace(s)" in text
    assert "argument `lr` was Literal[0.1], now Literal[0.2]" in text


def test_frequent_retracing_warning_names_the_cause(caplog):
    f = tf.function(lambda x: tf.constant(x))
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        for i in range(6):
            f(i)
    assert any("triggered tf.function retracing" in r.getMessage() and "argument" in r.getMessage()
               for r in caplog.records)


def test_run_functions_eagerly():
    calls = []

    @tf.function
    def f(x):
        calls.append(tf.executing_eagerly())
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        f(tf.constant(1))
        f(tf.constant(1))
    finally:
        tf.config.run_functions_eagerly(False)
    assert calls == [True, True]
    f(tf.constant(1))
    assert calls[-1] is False


def test_init_scope_lifts_out_of_the_graph():
    seen = []

    @tf.function
    def f(x):
        with tf.init_scope():
            seen.append(tf.executing_eagerly())
        seen.append(tf.executing_eagerly())
        return x

    f(tf.constant(1))
    assert seen == [True, False]


def test_leaked_tensor_is_out_of_scope():
    leak = []

    @tf.function
    def f(x):
        leak.append(x + 1)
        return x

    f(tf.constant(1))
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        leak[0].numpy()

    @tf.function
    def g(y):
        return y + leak[0]

    with pytest.raises(TypeError, match="is out of scope and cannot be used here"):
        g(tf.constant(1))
    with pytest.raises(TypeError, match="is out of scope"):
        tf.add(leak[0], 1)


def test_symbolic_tensor_as_python_bool_raises_operator_not_allowed():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Using a symbolic `tf.Tensor` as a "
                                                                       "Python `bool` is not allowed"):
        f(tf.constant(1))


def test_infinite_recursion_fails_clearly():
    @tf.function
    def f(x):
        return f(x)

    with pytest.raises(Exception, match="maximum recursion depth exceeded"):
        f(tf.constant(1))


def test_recursion_on_python_values_terminates():
    @tf.function
    def fact(n):
        if n <= 1:
            return tf.constant(1)
        return n * fact(n - 1)

    assert fact(5).numpy() == 120


def test_errors_while_tracing_name_user_code():
    @tf.function
    def f(x):
        return x + undefined_name  # noqa: F821

    with pytest.raises(NameError) as info:
        f(tf.constant(1))
    # TensorFlow's form: the message lists the user's converted frame (marked `*`), then the original error.
    message = str(info.value)
    assert message.startswith("in user code:\n\n    File \"") and "test_tracing.py" in message
    assert ", in f  *\n        return x + undefined_name  # noqa: F821\n" in message
    assert message.endswith("\n\n    NameError: name 'undefined_name' is not defined\n")


def test_errors_while_tracing_keep_catchable_type_or_become_staging_errors():
    class WithCode(Exception):
        def __init__(self, code):
            super().__init__(f"code {code}")

    @tf.function
    def plain(x):
        raise ValueError("bad value")

    @tf.function
    def custom(x):
        raise WithCode(3)

    with pytest.raises(ValueError, match="in user code:(.|\n)*    ValueError: bad value\n$"):
        plain(tf.constant(1))
    with pytest.raises(Exception) as info:
        custom(tf.constant(1))
    assert [k.__name__ for k in type(info.value).__mro__][:3] == ["StagingError", "AutoGraphError", "PyCTError"]
    assert str(info.value).endswith("    WithCode: code 3\n")


def test_numpy_arguments_are_tensors():
    f, traces = counting(lambda x: x * 2)
    out = f(np.array([1.0, 2.0]))
    assert out.dtype is tf.float64 and out.numpy().tolist() == [2.0, 4.0]
    f(np.array([3.0, 4.0]))
    assert len(traces) == 1


def test_keyword_arguments_take_the_fast_path_and_keep_their_meaning():
    traces = []

    def body(x, scale=1.0, shift=tf.constant(0.0)):
        traces.append(1)
        return x * scale + shift

    f = tf.function(body)
    x = tf.constant(2.0)
    assert f(x, scale=3.0).numpy() == 6.0
    assert f(x, scale=3.0).numpy() == 6.0
    assert f(x, scale=4.0).numpy() == 8.0
    assert f(x, shift=tf.constant(1.0), scale=3.0).numpy() == 7.0
    assert f(shift=tf.constant(5.0), scale=3.0, x=tf.constant(1.0)).numpy() == 8.0
    assert len(traces) == 2  # a default tensor and a passed tensor of one type share the trace


def test_execution_state_is_per_thread():
    import threading

    seen = {}
    started, release = threading.Event(), threading.Event()

    @tf.function
    def slow_trace(x):
        started.set()
        release.wait(5)
        return x + 1

    def trace_in_thread():
        seen["result"] = slow_trace(tf.constant(1)).numpy()

    t = threading.Thread(target=trace_in_thread)
    t.start()
    started.wait(5)
    seen["main_eager"] = tf.executing_eagerly()     # the other thread is inside a trace right now
    seen["main_op"] = (tf.constant(2) * 3).numpy()  # ...and this op still runs eagerly here
    release.set()
    t.join(5)
    assert seen == {"result": 2, "main_eager": True, "main_op": 6}


def test_ops_without_outputs_are_operations_in_graphs():
    v = tf.Variable(1.0)
    seen = {}

    @tf.function
    def f(x):
        check = tf.debugging.Assert(x > 0, [x])
        update = v.assign_add(1.0, read_value=False)
        seen["types"] = (type(check).__name__, type(update).__name__)
        with tf.control_dependencies([check, update]):
            return tf.identity(x) * 2

    assert f(tf.constant(3.0)).numpy() == 6.0 and v.numpy() == 2.0
    assert seen["types"] == ("Operation", "Operation")
    assert v.assign(5.0, read_value=False) is None  # eagerly there is no operation to return
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        f(tf.constant(-1.0))


def test_py_function_and_numpy_function_run_python_on_every_call():
    calls = []

    def py_add(x, y):
        calls.append("py")
        return x + y, x * y

    def np_double(a):
        calls.append("np")
        assert isinstance(a, np.ndarray) or np.isscalar(a)
        return (a * 2).astype(np.float32)

    @tf.function
    def f(x):
        s, p = tf.py_function(py_add, [x, x], [tf.float32, tf.float32])
        return s + p + tf.numpy_function(np_double, [x], tf.float32)

    assert f(tf.constant(2.0)).numpy() == 12.0
    assert f(tf.constant(3.0)).numpy() == 21.0
    assert calls == ["py", "np", "py", "np"]
    eager = tf.py_function(py_add, [tf.constant(1.0), tf.constant(2.0)], [tf.float32, tf.float32])
    assert [t.numpy() for t in eager] == [3.0, 2.0]


def test_autograph_to_graph_returns_the_converted_function():
    def f(x):
        if x > 0:
            return x
        return -x

    converted = tf.autograph.to_graph(f)
    assert converted is not f
    assert tf.function(converted, autograph=False)(tf.constant(-3)).numpy() == 3


def test_tensor_of_a_loop_body_used_outside_is_inaccessible_as_in_tensorflow():
    # A tensor of a control-flow body used after the loop: InaccessibleTensorError (a ValueError), while a
    # tensor leaked from a finished tf.function stays a TypeError (both as TensorFlow 2.21 raises them).
    def collect(n):
        out = []
        for i in tf.range(n):
            out.append(i)
        return out
    with pytest.raises(tf.errors.InaccessibleTensorError, match="is out of scope") as info:
        tf.function(collect)(tf.constant(3))
    assert isinstance(info.value, ValueError)
