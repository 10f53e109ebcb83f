"""Once a function's calls have nothing left to decide (no stale-capture guards, captures or tiering
countdown, one array out), the polymorphic fast caller calls its final runner directly: the same values,
TensorFlow's errors naming the node, and a runner switched later (a compiled kernel) is picked up."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.function import concrete


def _hot(f, x, calls=300):
    for _ in range(calls):
        f(x)
    return f.get_concrete_function(x)


def test_hot_single_argument_calls_go_direct_with_the_same_values():
    f = tf.function(lambda x: x * 2.0 + 1.0)
    x = tf.constant([1.0, 2.0])
    cf = _hot(f, x)
    assert cf._direct
    y = f(tf.constant([3.0, -1.0]))
    assert isinstance(y, tf.Tensor) and y.numpy().tolist() == [7.0, -1.0]


def test_errors_in_the_direct_path_are_tensorflows():
    f = tf.function(lambda x: tf.debugging.check_numerics(x, "bad value"))
    x = tf.constant([1.0, 2.0])
    assert _hot(f, x)._direct
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
        f(tf.constant([1.0, np.nan]))
    assert f(x).numpy().tolist() == [1.0, 2.0]


def test_guards_captures_and_several_outputs_keep_the_full_path():
    scale = 3.0
    v = tf.Variable(2.0)
    x = tf.constant(1.0)
    guarded = tf.function(lambda x: x * scale)
    captured = tf.function(lambda x: x * v)
    pair = tf.function(lambda x: (x, x + 1.0))
    assert not _hot(guarded, x)._direct
    assert not _hot(captured, x)._direct
    assert not _hot(pair, x)._direct
    v.assign(5.0)
    assert float(captured(x)) == 5.0


def test_a_runner_switched_after_going_direct_is_used(monkeypatch):
    f = tf.function(lambda x: x + 1.0)
    x = tf.constant(1.0)
    cf = _hot(f, x)
    assert cf._direct
    seen = []
    final = cf._fn

    def switched(*arrays):
        seen.append(True)
        return final(*arrays)
    monkeypatch.setattr(cf, "_fn", switched)
    assert float(f(x)) == 2.0 and seen
    assert isinstance(cf, concrete.ConcreteFunction)


def test_several_positional_arguments_go_direct_too(monkeypatch):
    f = tf.function(lambda x, y: x * y + 1.0)
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    for _ in range(300):
        f(x, y)
    cf = f.get_concrete_function(x, y)
    assert cf._direct
    final, seen = cf._fn, []
    monkeypatch.setattr(cf, "_fn", lambda *arrays: seen.append(len(arrays)) or final(*arrays))
    # `_run` would now pack through `_pack`, which fails: the call succeeds only on the direct path
    monkeypatch.setattr(cf, "_single_output", False)
    monkeypatch.setattr(cf, "_pack", lambda outs: pytest.fail("went through _run"))
    assert f(tf.constant([2.0, 0.5]), y).numpy().tolist() == [7.0, 3.0] and seen == [2]
