"""Variable updates from many threads are atomic: no `assign_add` is lost, eagerly or from traced code,
and no read ever sees part of one value and part of another."""
import numpy as np

import tensorflux as tf

from ._threads import THREADS, run_together

CALLS = 20_000


def test_eager_assign_add_loses_no_update():
    v = tf.Variable(np.int64(0))
    one = tf.constant(np.int64(1))

    def work(_):
        for _ in range(CALLS):
            v.assign_add(one, read_value=False)

    run_together(work)
    assert int(v.numpy()) == THREADS * CALLS


def test_traced_assign_add_and_assign_sub_lose_no_update():
    v = tf.Variable(np.zeros(3))   # float64 counts exactly far beyond these totals
    up, down = tf.constant([1.0, 2.0, 3.0], tf.float64), tf.constant([1.0, 1.0, 1.0], tf.float64)

    @tf.function
    def step(x, y):
        v.assign_add(x)
        v.assign_sub(y)

    step(up, down)  # traced once, before the threads start
    v.assign(np.zeros(3))

    def work(_):
        for _ in range(CALLS):
            step(up, down)

    run_together(work)
    np.testing.assert_array_equal(v.numpy(), np.array([0.0, 1.0, 2.0]) * THREADS * CALLS)
    assert step.experimental_get_tracing_count() == 1


def test_reads_see_whole_values_while_others_assign():
    size = 10_000
    v = tf.Variable(np.zeros(size))
    values = [np.full(size, float(k)) for k in range(THREADS)]

    def work(i):
        torn = 0
        for _ in range(500):
            if i % 2:
                v.assign(values[i], read_value=False)
            else:
                read = v.numpy()
                torn += int(read.min() != read.max())
        return torn

    assert sum(run_together(work, switch_interval=1e-5)) == 0


def test_updates_of_different_variables_do_not_interfere():
    variables = [tf.Variable(np.int64(0)) for _ in range(THREADS)]

    @tf.function
    def bump(k):
        for i, v in enumerate(variables):
            if i == k:
                v.assign_add(np.int64(1))

    def work(i):
        for _ in range(1_000):
            bump(i)
            variables[(i + 1) % THREADS].assign_add(np.int64(1), read_value=False)

    run_together(work)
    assert [int(v.numpy()) for v in variables] == [2_000] * THREADS
