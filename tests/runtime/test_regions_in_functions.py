"""Compiled regions as tf.function runs them (function/jit_compile.py): `jit_compile=True` on a graph with
an op tensorflux cannot lower (MatMul, Reshape) compiles the rest in regions instead of running all of it
on the NumPy path; automatic tiering does the same for a hot function holding a loop, and leaves a
loop-free one on its generated NumPy code (regions measured no faster there).

Expected values are the NumPy path's own (a twin function with jit_compile=False and its own variable).
"""
import logging
import time

import numpy as np
import pytest

import tensorflux as tf

pytest.importorskip("numba")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORFLUX_CACHE_DIR", str(tmp_path / "jit"))


def _bits(a):
    return np.asarray(a).view(np.uint32).tolist()


_M = np.random.RandomState(0).rand(4, 4).astype(np.float32)


def _accumulating(var, steps):
    """A MatMul and Reshapes (no compiled form) before a While loop adding into `var` (lowerable)."""
    m = tf.constant(_M)

    def body(x):
        y = tf.reshape(tf.matmul(tf.reshape(x, [1, 4]), m), [4])
        i = tf.constant(0)
        while i < steps:
            var.assign_add(y * 0.001 + 0.5)
            i += 1
        return var.read_value() * 2.0
    return body


def _runs_regions(fn, x):
    return getattr(fn.get_concrete_function(x)._fn, "regions", None) is not None


def test_jit_compile_runs_compiled_regions_around_an_op_it_cannot_lower(caplog):
    v, ref = tf.Variable(np.zeros(4, np.float32)), tf.Variable(np.zeros(4, np.float32))
    compiled = tf.function(_accumulating(v, 300), jit_compile=True)
    plain = tf.function(_accumulating(ref, 300), jit_compile=False)
    x = tf.constant([1.0, -2.0, 3.5, 0.25])
    with caplog.at_level(logging.WARNING, logger="tensorflux"):
        for _ in range(3):
            assert _bits(compiled(x).numpy()) == _bits(plain(x).numpy())
    assert _runs_regions(compiled, x)
    assert _bits(v.numpy()) == _bits(ref.numpy())
    assert "runs in compiled regions" in caplog.text


def test_jit_compile_still_raises_for_an_op_xla_cannot_compile():
    @tf.function(jit_compile=True)
    def f(x):
        i = tf.constant(0)
        while i < 10:
            x = x * 2.0
            i += 1
        return tf.strings.as_string(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Detected unsupported operations"):
        f(tf.constant([1.0]))


def test_a_hot_function_holding_a_loop_tiers_up_to_regions():
    v, ref = tf.Variable(np.zeros(4, np.float32)), tf.Variable(np.zeros(4, np.float32))
    hot = tf.function(_accumulating(v, 50))
    plain = tf.function(_accumulating(ref, 50), jit_compile=False)
    x = tf.constant([0.5, 1.5, -1.0, 2.0])
    for _ in range(600):
        assert _bits(hot(x).numpy()) == _bits(plain(x).numpy())
        if _runs_regions(hot, x):
            break
        time.sleep(0.01)
    assert _runs_regions(hot, x), "the hot function did not switch to compiled regions"
    for _ in range(3):
        assert _bits(hot(x).numpy()) == _bits(plain(x).numpy())
    assert _bits(v.numpy()) == _bits(ref.numpy())


def test_a_hot_loop_free_function_keeps_its_numpy_code(monkeypatch):
    from tensorflux._src.runtime import regions, tiering
    started = []
    monkeypatch.setattr(regions, "compile_in_background", lambda *args: started.append(args))
    m = tf.constant(_M)

    @tf.function
    def f(x):
        y = tf.reshape(tf.matmul(tf.reshape(x, [1, 4]), m), [4])
        return ((y * 2.0 + 1.0) * y - 3.0) / 7.0 + y
    x = tf.constant([0.5, 1.5, -1.0, 2.0])
    for _ in range(tiering.threshold() + 5):     # past the point where a hot function is looked at
        f(x)
    assert f.get_concrete_function(x)._lowering is not None, "the function was never looked at for tiering"
    assert not started and not _runs_regions(f, x)
