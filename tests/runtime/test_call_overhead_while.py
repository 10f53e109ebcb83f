"""The traced While loop's compiled call (bench row "while reduce_sum(x)>1: tanh (traced), per call"): the
runner returns the kernel's own tuple (runtime/tiering.py), and a loop whose variables take each other's
old values binds them all at once (runtime/lowering.py's emit_while): the NumPy path's values."""
import numpy as np
import pytest

import tensorflux as tf

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path / "jit"))


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.view(f"u{a.itemsize}").tolist()


def _both(f, args_list):
    """f's outputs compiled and on the NumPy path, for each argument tuple (bits)."""
    out = {}
    for jit in (True, False):
        g = tf.function(f, jit_compile=jit)
        seen = []
        for args in args_list:
            result = g(*args)
            result = result if isinstance(result, (tuple, list)) else (result,)
            seen.append([_bits(r.numpy()) for r in result])
        if jit:
            assert hasattr(g.get_concrete_function(*args_list[0])._fn, "kernel")
        out[jit] = seen
    return out[True], out[False]


def _tanh_loop(x):
    while tf.reduce_sum(x) > 1:
        x = tf.tanh(x)
    return x


def test_the_tanh_loop_gives_the_numpy_paths_bits():
    # iteration counts 0, 1, 2 and many
    starts = [np.full(5, 0.1, np.float32), np.full(5, 0.25, np.float32), np.full(5, 0.3, np.float32),
              np.array([3.1, 2.8, 3.1, 3.6, 3.5], np.float32)]
    compiled, numpy_path = _both(_tanh_loop, [(tf.constant(s),) for s in starts])
    assert compiled == numpy_path


def test_a_result_held_from_an_earlier_call_keeps_its_value():
    f = tf.function(_tanh_loop, jit_compile=True)
    first = f(tf.constant(np.array([3.1, 2.8, 3.1, 3.6, 3.5], np.float32)))
    kept = first.numpy().copy()
    for _ in range(3):
        f(tf.constant(np.array([1.1, 2.0, 0.4, 0.6, 0.9], np.float32)))
    np.testing.assert_array_equal(first.numpy(), kept)


def test_two_variables_reading_each_others_old_values():
    def f(x, y):
        n = tf.constant(0)
        while n < 7:
            x, y = tf.tanh(x) + y * 0.5, x - y
            n += 1
        return x, y

    rs = np.random.RandomState(0)
    args = [(tf.constant(rs.randn(6).astype(np.float32)), tf.constant(rs.randn(6).astype(np.float32)))
            for _ in range(3)]
    compiled, numpy_path = _both(f, args)
    assert compiled == numpy_path


def test_a_variable_that_takes_anothers_old_value():
    """`x, prev = f(x), x`: prev gets the value x had before this iteration, not x's new one."""
    def f(x):
        prev = x
        n = tf.constant(0)
        while n < 5:
            x, prev = x * 0.5 + 1.0, x
            n += 1
        return x, prev

    compiled, numpy_path = _both(f, [(tf.constant(np.arange(4, dtype=np.float32)),)])
    assert compiled == numpy_path
    x, prev = tf.function(f, jit_compile=True)(tf.constant(np.arange(4, dtype=np.float32)))
    np.testing.assert_array_equal((prev.numpy() * 0.5 + 1.0), x.numpy())


def test_swapped_loop_variables():
    def f(a, b):
        n = tf.constant(0)
        while n < 3:
            a, b = b, a + 1.0
            n += 1
        return a, b

    compiled, numpy_path = _both(f, [(tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0]))])
    assert compiled == numpy_path


def test_a_body_with_a_variable_assignment():
    v = tf.Variable(np.zeros(3, np.float32))

    def f(x):
        n = tf.constant(0)
        while n < 3:
            v.assign(x)
            x = x * 2.0
            n += 1
        return x

    out = tf.function(f, jit_compile=True)(tf.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out.numpy(), [8.0, 16.0, 24.0])
    np.testing.assert_array_equal(v.numpy(), [4.0, 8.0, 12.0])


def test_nested_loops_keep_each_iterations_values():
    def f(x):
        outer = tf.constant(0)
        total = x * 0.0
        while outer < 3:
            inner = tf.constant(0)
            y = x
            while inner < 4:
                y = y * 0.5 + 1.0
                inner += 1
            total = total + y
            x = x + 1.0
            outer += 1
        return total, x

    compiled, numpy_path = _both(f, [(tf.constant(np.linspace(0, 1, 7).astype(np.float32)),)])
    assert compiled == numpy_path


def test_a_loop_of_unknown_length():
    f = tf.function(_tanh_loop, input_signature=[tf.TensorSpec([None], tf.float32)], jit_compile=True)
    plain = tf.function(_tanh_loop, input_signature=[tf.TensorSpec([None], tf.float32)], jit_compile=False)
    for n in (3, 9, 2, 9):
        x = tf.constant(np.linspace(0.5, 3.0, n).astype(np.float32))
        assert _bits(f(x).numpy()) == _bits(plain(x).numpy())


def test_the_runner_returns_the_kernels_tuple_when_it_is_the_result():
    f = tf.function(_tanh_loop, jit_compile=True)
    x = tf.constant(np.full(5, 2.0, np.float32))
    f(x)
    run = f.get_concrete_function(x)._fn
    out = run(x._value)
    assert isinstance(out, tuple) and len(out) == 1 and out[0].shape == (5,)


def _scaled(c):
    def f(x):
        n = tf.constant(0)
        while n < 3:
            x = x * c + c
            n += 1
        return x
    return f


def test_scalar_constants_are_frozen_into_the_kernel_not_passed():
    f = tf.function(_scaled(2.0), jit_compile=True)
    x = tf.constant(np.arange(4, dtype=np.float32))
    f(x)
    run = f.get_concrete_function(x)._fn
    assert run.lowered.constants == []
    assert [v for _, v in run.lowered.frozen] == [0, 3, np.float32(2.0), 1]   # n = 0, n < 3, c, n += 1
    assert "def kernel(p1):" in run.lowered.source


def _times(c):
    def f(x):
        n = tf.constant(0)
        while n < 3:
            x = x * c
            n += 1
        return x
    return f


@pytest.mark.parametrize("constants", [(2.0, 3.0), (0.0, -0.0), (np.inf, -np.inf)])
def test_kernels_of_one_source_with_other_constants_give_their_own_values(constants):
    """Two graphs that differ only in a constant have one source text: the cache key and the compiled
    code take the constant's value (0.0 and -0.0 are equal, and hash alike, in Python)."""
    x = tf.constant(np.array([1.0, -2.0, 0.5, 3.5], np.float32))
    results = []
    for c in constants:
        compiled, numpy_path = _both(_times(c), [(x,)])
        assert compiled == numpy_path
        results.append(compiled)
    assert results[0] != results[1]


def test_a_second_process_with_another_constant_does_not_reuse_the_first_ones_kernel(tmp_path):
    import os
    import subprocess
    import sys
    code = (
        "import numpy as np, tensorflux as tf\n"
        "c = float(__import__('sys').argv[1])\n"
        "def f(x):\n"
        "    n = tf.constant(0)\n"
        "    while n < 3:\n"
        "        x = x * c + c\n"
        "        n += 1\n"
        "    return x\n"
        "x = tf.constant(np.arange(4, dtype=np.float32))\n"
        "print(tf.function(f, jit_compile=True)(x).numpy().tolist())\n")
    script = tmp_path / "scaled.py"      # a file: tf.function reads the function's source
    script.write_text(code)
    env = dict(os.environ, TENSORFLUX_CACHE_DIR=str(tmp_path / "jit"))
    got = [subprocess.run([sys.executable, str(script), c], env=env, capture_output=True, text=True,
                          check=True).stdout for c in ("2.0", "3.0", "2.0")]
    want = []
    for c in (2.0, 3.0, 2.0):
        x = np.arange(4, dtype=np.float32)
        for _ in range(3):
            x = x * np.float32(c) + np.float32(c)
        want.append(str(x.tolist()) + "\n")
    assert got == want
