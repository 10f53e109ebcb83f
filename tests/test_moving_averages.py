"""tf.train.ExponentialMovingAverage against values and messages recorded from TensorFlow 2.21."""
import numpy as np
import pytest

import tensorflux as tf


def test_shadow_moves_towards_the_variable():
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(5.0, name="w")
    ema = tf.train.ExponentialMovingAverage(decay=0.9)
    assert ema.apply([v, w]) is None
    shadow = ema.average(v)
    assert shadow.name == "v/ExponentialMovingAverage:0" and ema.average_name(v) == "v/ExponentialMovingAverage"
    assert ema.name == "ExponentialMovingAverage" and shadow.trainable is False
    np.testing.assert_array_equal(shadow.numpy(), [1.0, 2.0])
    v.assign([3.0, 4.0])
    w.assign(1.0)
    ema.apply([v, w])
    assert ema.average(v).numpy().tolist() == [np.float32(1.2), np.float32(2.2)] and \
        ema.average(w).numpy() == np.float32(4.6)
    ema.apply([v])
    assert ema.average(v).numpy().tolist() == [np.float32(1.3800001), np.float32(2.38)]   # TF's float32 digits
    assert ema.average(w).numpy() == np.float32(4.6)
    assert ema.average(tf.Variable(1.0)) is None
    assert ema.variables_to_restore(None)["v/ExponentialMovingAverage"] is v


def test_num_updates_caps_the_decay():
    step = tf.Variable(0, dtype=tf.int64)
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step, name="EMA2")
    x = tf.Variable(10.0, name="x")
    ema.apply([x])
    x.assign(0.0)
    step.assign(5)
    ema.apply([x])             # decay min(0.99, 6/15) = 0.4
    assert ema.average(x).numpy() == 4.0 and ema.average(x).name == "x/EMA2:0"


def test_what_cannot_be_averaged():
    ema = tf.train.ExponentialMovingAverage(0.5)
    with pytest.raises(TypeError, match=r"^The variables must be half, float, or double: i:0$"):
        ema.apply([tf.Variable(1, name="i")])
    with pytest.raises(TypeError, match=r"^tf\.train\.ExponentialMovingAverage does not support non-Variable "
                                        r"tensors when eager execution is enabled\.$"):
        ema.apply([tf.constant(1.0)])
