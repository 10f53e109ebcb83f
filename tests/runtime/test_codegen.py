"""Generated code: golden snapshots (a codegen change shows up as a readable diff) and its guarantees."""
import linecache
import textwrap

import numpy as np
import pytest

import tensorflux as tf


def source_of(fn, *args):
    cf = tf.function(fn).get_concrete_function(*args)
    return cf.generated_source()


def _normalise(source):
    # The function's name carries a process-wide counter; the rest of the text is deterministic.
    first, rest = source.split("\n", 1)
    return "def f" + first[first.index("("):] + "\n" + rest


def test_snapshot_straight_line_code():
    def f(x, y):
        z = x * y
        return tf.tanh(z) + 1.0

    src = _normalise(source_of(f, tf.constant([1.0]), tf.constant([2.0])))
    line = f.__code__.co_firstlineno
    assert src == textwrap.dedent(f"""\
        def f(x, y):
            mul = k_Mul(x, y)  # test_codegen.py:{line + 1}: z = x * y
            Tanh = k_Tanh(mul)  # test_codegen.py:{line + 2}: return tf.tanh(z) + 1.0
            add = k_AddV2(Tanh, c_add_y)
            return (add,)
        """)


def test_snapshot_loop_and_branch():
    def f(x):
        while tf.reduce_sum(x) > 1.0:
            x = x / 2.0
        if x[0] > 0.1:
            x = -x
        return x

    src = _normalise(source_of(f, tf.constant([4.0, 2.0])))
    assert "while True:" in src and "if not Greater:" in src and "break" in src
    assert src.count("else:") == 1 and "k_Neg(" in src
    assert "k_RealDiv(while_v0, c_truediv_y)" in src


def test_generated_lines_show_in_tracebacks():
    @tf.function
    def f(x):
        return tf.reshape(x, [3])

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    for _ in range(2):      # the first call is interpreted (runtime/interpret.py), the second generated
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            cf(tf.constant([1.0, 2.0]))
        assert "node Reshape" in str(info.value)
    filename = cf._compiled.filename
    assert any("k_Reshape" in line for line in linecache.getlines(filename))


def test_large_intermediates_are_freed_and_reused():
    x = tf.constant(np.ones(10_000, np.float32))
    src = source_of(lambda t: tf.square(t * 2.0) + t, x)
    assert "out=" in src and "del " in src


def test_scalar_code_has_no_buffer_bookkeeping():
    src = source_of(lambda t: tf.square(t * 2.0) + t, tf.constant(1.0))
    assert "out=" not in src and "del " not in src


def test_scalar_arithmetic_is_plain_python_on_numpy_scalars_and_bit_exact():
    def chain(x):
        for i in range(20):
            x = -(x * 1.0001 - 0.3) / 1.7
        return x, x < 0.5

    src = source_of(chain, tf.constant(1.0))
    assert "k_Mul" not in src and " * c_" in src and " < c_" in src
    for value in (1.0, -2.5, 1e-30, 3e38):
        for dtype in (tf.float32, tf.float64):
            eager = chain(tf.constant(value, dtype))
            traced = tf.function(chain)(tf.constant(value, dtype))
            for e, t in zip(eager, traced):
                assert np.asarray(e).tobytes() == np.asarray(t).tobytes()


def test_integer_division_by_a_constant_is_an_operator_but_by_zero_still_raises():
    def f(i, d):
        return i % 3 + i // 4, i % d

    src = source_of(f, tf.constant(7), tf.constant(2))
    assert " % c_" in src and " // c_" in src and "k_FloorMod(i, d)" in src
    for i in (-7, 0, 7, 2 ** 31 - 1):
        eager = f(tf.constant(i), tf.constant(5))
        traced = tf.function(f)(tf.constant(i), tf.constant(5))
        assert [int(t) for t in traced] == [int(e) for e in eager]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.function(f)(tf.constant(1), tf.constant(0))


def test_scalar_strings_between_ops_stay_arrays():
    v = tf.Variable(["a", "bc"])

    @tf.function
    def f():
        return tf.strings.join([v[0], v[1]], separator="-")

    assert f().numpy() == b"a-bc"


def _generated_entries():
    return sum(1 for name in list(linecache.cache) if name.startswith("<tensorflux generated "))


def test_generated_sources_leave_linecache_with_their_function():
    """2000 retraces through a cache of 16 functions: linecache keeps the sources of the live functions
    only, not one per trace (the entry goes when its compiled function is collected)."""
    import gc

    @tf.function
    def f(x):
        return x * 2.0 + 1.0

    f.experimental_cache_size = 16
    gc.collect()
    before = _generated_entries()
    for i in range(2000):
        assert float(f(float(i))) == 2.0 * i + 1.0     # a Python float is a new trace per value
    gc.collect()
    assert len(f._cache) == 16
    assert _generated_entries() - before <= 16 + 2
    del f
    gc.collect()
    assert _generated_entries() <= before + 2
