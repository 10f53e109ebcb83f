"""AutoGraph's "Large unrolled loop detected" warning (autograph/unroll_check.py), as TensorFlow 2.21 logs it:
recorded by running the same functions under TensorFlow."""
import logging

import tensorflux as tf

_HEAD = ("Large unrolled loop detected. Did you mean to use a TF loop? The following ops were created after "
         "iteration 50002: (<tf.Operation 'add_1/y' type=Const>, <tf.Operation 'add_1' type=AddV2>)\n"
         "See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/reference/"
         "common_errors.md#warning-large-unrolled-loop-detected\nLocation:\n")


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records
            if r.name == "tensorflow" and r.levelno == logging.WARNING and "unrolled loop" in r.getMessage()]


def test_a_python_for_that_keeps_adding_ops_past_50000_iterations_warns_once(caplog):
    @tf.function
    def late_ops():
        step = tf.constant(0)
        for i in range(50005):
            if i > 49998:          # ops only in the last iterations keep the trace fast
                step += 1
        return step

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert late_ops().numpy() == 6
    messages = _warnings(caplog)
    assert len(messages) == 1 and messages[0].startswith(_HEAD)
    assert "in late_ops" in messages[0]      # the stack of the loop


def test_python_while_loops_are_checked_and_loops_without_ops_are_not(caplog):
    @tf.function
    def while_loop():
        step, i = tf.constant(0), 0
        while i < 50005:
            if i > 49998:
                step += 1
            i += 1
        return step

    @tf.function
    def counting_only(x):
        n = 0
        for _ in range(60000):
            n += 1
        return x + n

    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        assert while_loop().numpy() == 6
        assert counting_only(tf.constant(1)).numpy() == 60001
        for _ in range(50005):   # eagerly nothing is checked
            pass
    messages = _warnings(caplog)
    # one warning, for the while loop, at the iteration TensorFlow names (it lists the ops of a while loop
    # from a set, in no fixed order)
    assert len(messages) == 1 and messages[0].startswith(_HEAD.split("(")[0]) and "type=AddV2" in messages[0]
