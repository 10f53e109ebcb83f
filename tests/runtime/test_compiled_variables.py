"""Variables inside compiled kernels (runtime/lowering.py's variable locals, runtime/tiering.py's runner):
reads and writes in program order, in If and While bodies, with the bits eager execution and the NumPy
path give, TensorFlow's errors for a bad update, the locks, the automatic tiering and the disk cache.

Expected values are eager execution's and the NumPy path's own (both tested against TensorFlow); the
error texts were recorded from TensorFlow 2.21 (an assign_add and an assign of a [3] value to a [4]
variable inside a tf.function: InvalidArgumentError at run time).
"""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.runtime import lowering

numba = pytest.importorskip("numba")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    directory = tmp_path / "jit"
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(directory))
    return directory


def _bits(a):
    """Every bit, except which NaN (as test_compiled.py compares: a NaN's sign and payload follow the
    operand order the machine code happens to use, in NumPy's loops as in numba's)."""
    a = np.array(a)
    if a.dtype.kind != "f":
        return a.dtype, a.shape, a.tolist()
    a[np.isnan(a)] = np.nan
    return a.dtype, a.shape, a.view(f"u{a.itemsize}").tolist()


def _modes(make, args_per_call):
    """Runs `make(variables)` -> (function, variables) three ways on fresh variables: eagerly, traced on
    the NumPy path and compiled; each is called once per entry of `args_per_call`. Returns per mode the
    bits of every call's outputs and of the variables after each call; asserts the compiled one ran as a
    kernel."""
    found = {}
    for mode in ("eager", "numpy", "compiled"):
        fn, variables = make()
        if mode != "eager":
            fn = tf.function(fn, jit_compile=mode == "compiled")
        seen = []
        for args in args_per_call:
            out = fn(*args)
            out = out if isinstance(out, (tuple, list)) else (out,)
            seen.append([_bits(o.numpy()) for o in out] + [_bits(v.numpy()) for v in variables])
        if mode == "compiled":
            cf = fn.get_concrete_function(*args_per_call[0])
            assert hasattr(cf._fn, "kernel"), "the function did not run compiled"
        found[mode] = seen
    return found


def _assert_same(make, args_per_call):
    found = _modes(make, args_per_call)
    assert found["numpy"] == found["eager"]
    assert found["compiled"] == found["numpy"]


def _f32(*values):
    return tf.constant(np.array(values, dtype=np.float32))


def test_reads_before_and_after_writes_of_several_variables():
    def make():
        v = tf.Variable(np.linspace(-1.5, 2.5, 4, dtype=np.float32))
        n = tf.Variable(3, dtype=tf.int32)
        s = tf.Variable(0.25, dtype=tf.float32)

        def f(x):
            before = v.read_value()
            v.assign_add(x * 2.0)
            middle = v.read_value() * 3.0
            v.assign_sub(x / 3.0)
            n.assign_add(1)
            s.assign(s.read_value() * 1.5 + 0.1)
            v.assign(v.read_value() * s.read_value())
            return before, middle, v.read_value() + 1.0, n.read_value() * 2, s.read_value()
        return f, (v, n, s)
    _assert_same(make, [(_f32(1.0, -2.0, 0.1, 3.3),), (_f32(1e-8, 7.0, -0.0, np.inf),), (_f32(0.5, 0.5, 0.5, 0.5),)])


def test_updates_fused_into_elementwise_loops():
    def make():
        m = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 7.0)    # rank 2: flat views
        k = tf.Variable(np.array([[1, -5], [2 ** 31 - 2, 3]], np.int32))

        def f(x, j):
            d = x * 2.0 - 0.25
            m.assign_add(d)                   # one loop: d's elements and the update's
            m.assign_sub(x * x)               # the same variable again, in the same loop
            k.assign_add(j * 3)
            k.assign_sub(j)
            return d, m.read_value() + 1.0, k.read_value()
        return f, (m, k)
    rng = np.random.RandomState(7)
    calls = [(tf.constant(rng.randn(3, 4).astype(np.float32)), tf.constant(np.array([[2, 1], [1, -4]], np.int32)))
             for _ in range(3)]
    _assert_same(make, calls)
    fn, _ = make()
    cf = tf.function(fn).get_concrete_function(*calls[0])
    source = lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs)).source
    assert source.count("for ") == 3          # m's two updates with d; k's two; the read's + 1.0


def test_an_earlier_read_keeps_its_value_after_later_assigns():
    v = tf.Variable(np.arange(6, dtype=np.float32))

    @tf.function(jit_compile=True)
    def f(x):
        old = v.read_value()
        v.assign(x)
        v.assign_add(x)
        return old, v.read_value()
    first_old, first_new = f(tf.ones([6]))
    assert hasattr(f.get_concrete_function(tf.ones([6]))._fn, "kernel")
    kept = first_old.numpy().copy()
    second_old, second_new = f(tf.fill([6], 5.0))
    np.testing.assert_array_equal(kept, np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(first_old.numpy(), kept)
    np.testing.assert_array_equal(first_new.numpy(), np.full(6, 2.0, np.float32))
    np.testing.assert_array_equal(second_old.numpy(), np.full(6, 2.0, np.float32))
    np.testing.assert_array_equal(v.numpy(), np.full(6, 10.0, np.float32))


def test_int32_counter_wraps_as_tensorflow():
    def make():
        c = tf.Variable(2 ** 31 - 3, dtype=tf.int32)
        a = tf.Variable(np.array([2 ** 31 - 1, -2 ** 31, 7], dtype=np.int32))

        def f(step, vector):
            c.assign_add(step)
            a.assign_sub(vector)
            return c.read_value(), a.read_value() * 3
        return f, (c, a)
    step, vector = tf.constant(2, tf.int32), tf.constant(np.array([-1, 1, 9], np.int32))
    _assert_same(make, [(step, vector)] * 4)


def test_while_loop_accumulating_into_variables():
    def make():
        total = tf.Variable(np.zeros(5, np.float32))
        count = tf.Variable(0, dtype=tf.int32)

        def f(x, n):
            i = tf.constant(0)
            while i < n:
                total.assign_add(x * tf.cast(i, tf.float32) + 0.1)
                count.assign_add(1)
                i += 1
            return total.read_value(), count.read_value()
        return f, (total, count)
    x = _f32(0.3, -1.7, 1e-3, 2.5, 100.0)
    _assert_same(make, [(x, tf.constant(17)), (x, tf.constant(0)), (x * 3.0, tf.constant(250))])


def test_while_condition_reads_a_variable_the_body_writes():
    def make():
        v = tf.Variable(1.0)

        def f(x):
            steps = tf.constant(0)
            while v.read_value() < 1000.0:
                v.assign(v.read_value() * x + 0.5)
                steps += 1
            return v.read_value(), steps
        return f, (v,)
    _assert_same(make, [(tf.constant(1.7),), (tf.constant(3.1),)])


def test_cond_writes_a_variable_in_one_branch():
    def make():
        v = tf.Variable(np.array([1.0, -2.0, 3.0], np.float32))

        def f(x):
            if tf.reduce_sum(x) > 0.0:
                v.assign(x * 2.0)
            else:
                v.assign_sub(x)
            return v.read_value() + 0.5
        return f, (v,)
    _assert_same(make, [(_f32(1.0, 2.0, 3.0),), (_f32(-1.0, -2.0, 0.5),), (_f32(0.1, 0.2, -0.25),)])


def test_sgd_update_of_small_variables():
    def make():
        w = tf.Variable(np.array([0.5, -0.25, 1.5, 0.0], np.float32))
        b = tf.Variable(0.125, dtype=tf.float32)

        def f(x, y):
            # d/dw and d/db of mean((w * x + b - y)^2), written out elementwise
            error = w * x + b - y
            grad_w = error * x * 0.5
            grad_b = tf.reduce_mean(error) * 2.0
            w.assign_sub(grad_w * 0.1)
            b.assign_sub(grad_b * 0.1)
            return tf.reduce_sum(error * error)
        return f, (w, b)
    rng = np.random.RandomState(3)
    calls = [(tf.constant(rng.randn(4).astype(np.float32)), tf.constant(rng.randn(4).astype(np.float32)))
             for _ in range(6)]
    _assert_same(make, calls)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40),
       st.integers(0, 30), st.floats(width=32, min_value=-4.0, max_value=4.0))
def test_loop_updates_are_bit_equal_for_any_values(values, steps, scale):
    start = np.array(values, np.float32)

    def make():
        v = tf.Variable(start)
        m = tf.Variable(np.float32(0.0))

        def f(x, n, s):
            i = tf.constant(0)
            while i < n:
                v.assign(v.read_value() * s + x)
                m.assign(tf.maximum(m.read_value(), tf.reduce_max(v.read_value())))
                i += 1
            return v.read_value() - x, m.read_value()
        return f, (v, m)
    _assert_same(make, [(tf.constant(start[::-1].copy()), tf.constant(steps), tf.constant(np.float32(scale)))])


def _escaped(text):
    return text.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")


def test_an_update_of_the_wrong_shape_raises_tensorflows_error():
    v = tf.Variable(np.arange(4, dtype=np.float32))
    update_text = "Cannot update variable with shape [4] using a Tensor with shape [3], shapes must be equal."
    assign_text = "Trying to assign to variable with tensor with wrong shape. Expected [4] got [3]"
    made = []
    # An update's shape is checked at run time only, whether the graph knows it or not; an assignment's
    # at run time when the graph does not know it (a known wrong shape is a ValueError while tracing).
    for spec in (tf.TensorSpec([None], tf.float32), tf.TensorSpec([3], tf.float32)):
        @tf.function(input_signature=[spec], jit_compile=True)
        def update(x):
            v.assign_add(x)
            return v.read_value()
        made.append((update, update_text))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], jit_compile=True)
    def assign(x):
        v.assign(x)
        return v.read_value()
    made.append((assign, assign_text))
    for fn, text in made:
        with pytest.raises(errors.InvalidArgumentError, match=_escaped(text)):
            fn(tf.ones([3]))
        assert hasattr(fn.get_concrete_function()._fn, "kernel")
        np.testing.assert_array_equal(v.numpy(), np.arange(4, dtype=np.float32))  # nothing stored
    # the same kernels still run a good call
    assert made[0][0](tf.ones([4])).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert made[2][0](tf.ones([4])).numpy().tolist() == [1.0, 1.0, 1.0, 1.0]


def test_a_variable_of_free_dimensions_is_checked_against_its_current_shape():
    v = tf.Variable(np.zeros(3, np.float32), shape=tf.TensorShape([None]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], jit_compile=True)
    def f(x):
        v.assign(x)
        v.assign_add(x)
        return v.read_value()
    assert f(tf.ones([5])).numpy().tolist() == [2.0] * 5
    assert hasattr(f.get_concrete_function()._fn, "kernel")

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)], jit_compile=True)
    def g(x):
        v.assign_add(x)
        return v.read_value()
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot update variable with shape \[5\]"):
        g(tf.ones([2]))
    assert g(tf.ones([5])).numpy().tolist() == [3.0] * 5


@pytest.mark.parametrize("written", [1, 2])
def test_the_kernel_holds_the_locks_of_the_variables_it_writes(written):
    v = tf.Variable(0, dtype=tf.int32)
    u = tf.Variable(np.zeros(2, np.int32))

    @tf.function(jit_compile=True)
    def f(n):
        i = tf.constant(0)
        while i < n:
            v.assign_add(1)
            if written == 2:
                u.assign_add(tf.constant([1, 2]))
            i += 1
        return v.read_value()
    f(tf.constant(1))
    assert hasattr(f.get_concrete_function(tf.constant(1))._fn, "kernel")
    v.assign(0)
    u.assign([0, 0])

    def work(kind):
        for _ in range(200):
            if kind:
                f(tf.constant(50))
            else:
                v.assign_add(1)     # the eager updates take the same locks
                u.assign_add([1, 1])
    threads = [threading.Thread(target=work, args=(k % 2,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(v.numpy()) == 2 * 200 * 50 + 2 * 200    # no update lost
    if written == 2:
        assert u.numpy().tolist() == [2 * 200 * 50 + 2 * 200, 2 * 200 * 100 + 2 * 200]


def test_lowered_kernel_reads_and_writes_variables_through_locals():
    v = tf.Variable(np.ones(3, np.float32))

    @tf.function
    def f(x):
        v.assign_add(x)
        return v.read_value() * 2.0
    cf = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    lowered = lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))
    assert [(k.dtype, k.rank, k.output) for k in lowered.variables] == [("float32", 1, 1)]
    assert lowered.n_results == 1 and len(lowered.outputs) == 2
    # variable values never appear in the source (the disk cache key)
    v.assign([7.0, 8.0, 9.0])
    cf2 = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert lowering.lower(cf2.graph, list(cf2.outputs), list(cf2.graph.inputs)).source == lowered.source


def test_variables_the_lowering_refuses():
    u = tf.Variable(np.ones(2, np.float32), shape=tf.TensorShape(None))

    @tf.function
    def unknown_rank(x):
        u.assign(x)
        return x
    cf = unknown_rank.get_concrete_function(tf.TensorSpec([2], tf.float32))
    with pytest.raises(lowering.Unsupported, match="unknown rank"):
        lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))

    @tf.function
    def argument(var, x):
        var.assign_add(x)
        return x
    w = tf.Variable(1.0)
    cf = argument.get_concrete_function(w, tf.constant(1.0))
    with pytest.raises(lowering.Unsupported, match="argument"):
        lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))


def test_hot_function_with_variables_tiers_automatically(monkeypatch):
    monkeypatch.setenv("TENSORFLUX_JIT_THRESHOLD", "10")
    from tensorflux._src.runtime import tiering
    monkeypatch.setattr(tiering, "_THRESHOLD", [])
    v = tf.Variable(np.zeros(3, np.float32))
    ref = tf.Variable(np.zeros(3, np.float32))

    def body(var, x):
        i = tf.constant(0)
        while i < 20:
            var.assign_add(x * 0.5 + 0.1)
            i += 1
        return var.read_value()
    hot = tf.function(lambda x: body(v, x))
    plain = tf.function(lambda x: body(ref, x), jit_compile=False)
    x = _f32(0.25, -3.0, 1.1)
    cf = hot.get_concrete_function(x)
    import time
    for _ in range(400):
        got, want = hot(x), plain(x)
        assert _bits(got.numpy()) == _bits(want.numpy())
        if hasattr(cf._fn, "kernel"):
            break
        time.sleep(0.01)
    assert hasattr(cf._fn, "kernel"), "the hot function was not compiled"
    for _ in range(3):
        assert _bits(hot(x).numpy()) == _bits(plain(x).numpy())
    assert _bits(v.numpy()) == _bits(ref.numpy())


def test_second_process_reuses_a_kernel_with_variables(private_cache):
    script = textwrap.dedent("""
        import numpy as np, tensorflux as tf
        v = tf.Variable(np.arange(3, dtype=np.float32) * float(np.random.rand()))   # values differ per run
        @tf.function(jit_compile=True)
        def f(x):
            v.assign_add(x * 2.0)
            return v.read_value() + 1.0
        f(tf.ones([3]))
        print("compiled", hasattr(f.get_concrete_function(tf.ones([3]))._fn, "kernel"))
    """)
    env = dict(os.environ, TENSORFLUX_CACHE_DIR=str(private_cache), NUMBA_DEBUG_CACHE="1")
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert "data saved" in first.stdout and "data loaded" in second.stdout
    assert first.stdout.splitlines()[-1] == second.stdout.splitlines()[-1] == "compiled True"


def test_numpy_path_with_variables_never_imports_numba(tmp_path):
    script = tmp_path / "numpy_path.py"    # a file: AutoGraph reads the function's source
    script.write_text(textwrap.dedent("""
        import sys, numpy as np, tensorflux as tf
        v = tf.Variable(np.zeros(3, np.float32))
        @tf.function
        def f(x):
            i = tf.constant(0)
            while i < 5:
                v.assign_add(x)
                i += 1
            return v.read_value()
        for _ in range(5):
            f(tf.ones([3]))
        print("numba" in sys.modules)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TENSORFLUX_JIT_THRESHOLD="100"))
    assert out.stdout.split()[-1] == "False"


_STEP = st.tuples(st.sampled_from(["read", "assign", "assign_add", "assign_sub", "mul", "add", "loop"]),
                  st.integers(0, 1), st.integers(0, 7), st.floats(width=32, min_value=-3.0, max_value=3.0))


@settings(max_examples=30, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=12))
def test_random_programs_of_reads_and_writes_keep_program_order(program):
    """Random straight-line programs over two variables (reads, the three writes, arithmetic on values
    read earlier, and a While loop updating a variable) give eager execution's bits on both paths."""
    def make():
        variables = (tf.Variable(np.linspace(-1, 1, 4, dtype=np.float32)), tf.Variable(np.full(4, 0.5, np.float32)))

        def f(x):
            values = [x]
            for kind, which, pick, number in program:
                v, value = variables[which], values[pick % len(values)]
                if kind == "read":
                    values.append(v.read_value())
                elif kind == "assign":
                    v.assign(value * number)
                elif kind == "assign_add":
                    v.assign_add(value)
                elif kind == "assign_sub":
                    v.assign_sub(value + number)
                elif kind == "mul":
                    values.append(value * number)
                elif kind == "add":
                    values.append(value + values[-1])
                else:
                    i = tf.constant(0)
                    while i < pick:
                        v.assign(v.read_value() * 0.5 + value)
                        i += 1
            return values[-1], variables[0].read_value(), variables[1].read_value()
        return f, variables
    x = tf.constant(np.array([0.25, -1.5, 3.0, 1e-3], np.float32))
    _assert_same(make, [(x,), (x * 2.0,)])


def test_a_lookup_table_resource_is_refused_not_lowered():
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), tf.constant([10.0, 20.0])), -1.0)

    @tf.function
    def f(k):
        return table.lookup(k) * 2.0
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.int64))
    with pytest.raises(lowering.Unsupported):
        lowering.lower(cf.graph, list(cf.outputs), list(cf.graph.inputs))
    assert f(tf.constant([2, 3], tf.int64)).numpy().tolist() == [40.0, -2.0]
