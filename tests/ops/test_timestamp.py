"""tf.timestamp: a float64 scalar of the epoch time, read anew on every run (eagerly and in a tf.function),
as TensorFlow 2.21 does (its traced graph holds one Timestamp op)."""
import time

import tensorflux as tf


def test_eager_timestamp_is_now():
    before = time.time()
    stamp = tf.timestamp()
    after = time.time()
    assert stamp.dtype == tf.float64 and stamp.shape == ()
    assert before <= float(stamp) <= after


def test_function_reads_the_clock_on_every_call():
    @tf.function
    def now():
        return tf.timestamp()
    first = float(now())
    time.sleep(0.02)
    second = float(now())
    assert second - first >= 0.015
    ops = [node.op for node in now.get_concrete_function().graph.as_graph_def().node]
    assert ops.count("Timestamp") == 1
