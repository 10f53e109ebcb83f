"""tf.train.Coordinator: threads stop together, a reported exception is re-raised by join, stragglers are
named, as TensorFlow 2.21 does (texts recorded)."""
import threading
import time

import pytest

import tensorflux as tf


def _start(target, *args):
    thread = threading.Thread(target=target, args=args)
    thread.start()
    return thread


def test_threads_stop_together():
    coord = tf.train.Coordinator()
    assert (coord.should_stop(), coord.joined) == (False, False)

    def worker(c):
        while not c.should_stop():
            time.sleep(0.005)
    threads = [_start(worker, coord) for _ in range(2)]
    coord.request_stop()
    coord.join(threads)
    assert (coord.should_stop(), coord.joined, coord.wait_for_stop(0.01)) == (True, True, True)
    coord.clear_stop()
    assert coord.should_stop() is False


def test_reported_exception_is_raised_by_join():
    coord = tf.train.Coordinator()

    def failing(c):
        with c.stop_on_exception():
            raise ValueError("boom")
    thread = _start(failing, coord)
    with pytest.raises(ValueError, match="^boom$"):
        coord.join([thread])


def test_clean_stop_exceptions_are_not_raised():
    coord = tf.train.Coordinator(clean_stop_exception_types=(ValueError,))
    with coord.stop_on_exception():
        raise ValueError("x")
    assert coord.should_stop()
    coord.join([])
    default = tf.train.Coordinator()
    default.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    default.join([])                      # OutOfRangeError is a clean stop by default


def test_stragglers_are_named():
    coord = tf.train.Coordinator()
    release = threading.Event()
    thread = threading.Thread(target=release.wait, name="Thread-4 (stuck)")
    thread.start()
    coord.register_thread(thread)
    coord.request_stop()
    try:
        with pytest.raises(RuntimeError, match=r"^Coordinator stopped with threads still running: "
                                               r"Thread-4 \(stuck\)$"):
            coord.join(stop_grace_period_secs=0.05)
    finally:
        release.set()
        thread.join()
