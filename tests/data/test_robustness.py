"""tf.data under load and misuse: a shared iterator hands out each element once; bad arguments get
TensorFlow's exception class and message."""
import threading

import numpy as np
import pytest

import tensorflux as tf


def test_iterator_shared_by_threads_hands_each_element_to_one_consumer():
    n, workers = 20_000, 8
    iterator = iter(tf.data.Dataset.range(n).map(lambda x: x * 2))
    seen = [[] for _ in range(workers)]
    failures = []
    start = threading.Barrier(workers)

    def drain(out):
        start.wait()
        try:
            for element in iterator:
                out.append(int(element))
        except Exception as e:  # noqa: BLE001 — any error here is the bug under test
            failures.append(e)

    threads = [threading.Thread(target=drain, args=(seen[i],)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)
    assert not failures, failures[:3]
    everything = [v for part in seen for v in part]
    assert len(everything) == n
    assert sorted(everything) == list(range(0, 2 * n, 2))


def test_batched_iterator_shared_by_threads_loses_no_row():
    iterator = iter(tf.data.Dataset.range(4000).shuffle(100, seed=3).batch(7))
    rows, lock = [], threading.Lock()

    def drain():
        for batch in iterator:
            with lock:
                rows.extend(batch.numpy().tolist())

    threads = [threading.Thread(target=drain) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(rows) == list(range(4000))


DS = tf.data.Dataset.range(10)


@pytest.mark.parametrize("call, message", [
    (lambda: DS.batch(0), "Batch size must be greater than zero."),
    (lambda: DS.batch(-1), "Batch size must be greater than zero."),
    (lambda: DS.shuffle(0), "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"),
    (lambda: DS.shuffle(-1), "buffer_size must be greater than zero or UNKNOWN_CARDINALITY"),
    (lambda: DS.prefetch(-2), "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning"),
    (lambda: tf.data.Dataset.range(0, 10, 0), "step must be a non-zero integer."),
    (lambda: DS.padded_batch(0), "Batch size must be greater than zero."),
    (lambda: DS.window(0), "Window size must be greater than zero."),
])
def test_bad_sizes_raise_invalid_argument(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    assert message in str(info.value)


@pytest.mark.parametrize("call, error, message", [
    (lambda: DS.batch(1.5), TypeError, "Cannot convert 1.5 to EagerTensor of dtype int64"),
    (lambda: DS.batch("a"), TypeError, "Cannot convert 'a' to EagerTensor of dtype int64"),
    (lambda: DS.map(3), ValueError, "Argument `func` must be a callable. Received func=3"),
    (lambda: DS.filter(3), ValueError, "Argument `func` must be a callable. Received func=3"),
    (lambda: tf.data.Dataset.zip((DS, 3)), TypeError, "Invalid input to `zip`"),
    (lambda: tf.data.Dataset.from_tensor_slices(3), ValueError, "only supported for rank >= 1"),
    (lambda: tf.data.Dataset.from_generator(3, output_types=tf.int32), TypeError,
     "`generator` must be a Python callable."),
])
def test_malformed_arguments_raise_tensorflows_errors(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_boundary_sizes_that_tensorflow_accepts():
    assert list(DS.shuffle(tf.data.UNKNOWN_CARDINALITY, seed=1).as_numpy_iterator()) != []
    assert sorted(DS.shuffle(-2, seed=1).as_numpy_iterator()) == list(range(10))
    assert list(DS.skip(-1).as_numpy_iterator()) == []
    assert int(DS.skip(-1).cardinality()) == 0
    assert list(DS.prefetch(0).as_numpy_iterator()) == list(range(10))
    assert list(DS.batch(np.int64(4)).as_numpy_iterator())[0].tolist() == [0, 1, 2, 3]
    assert list(DS.batch(tf.constant(5, tf.int64)).as_numpy_iterator())[1].tolist() == [5, 6, 7, 8, 9]
    with pytest.raises(ValueError, match=r"^batch_size: Tensor conversion requested dtype int64 for Tensor with "
                                         r"dtype int32: <tf.Tensor: shape=\(\), dtype=int32, numpy=5>$"):
        DS.batch(tf.constant(5))    # TensorFlow 2.21 refuses an int32 tensor (a Python int is converted)
