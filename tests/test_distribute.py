"""tf.distribute with one CPU replica: the default strategy, MirroredStrategy and OneDeviceStrategy behave
as TensorFlow 2.21's do on a single-CPU machine."""
import numpy as np
import pytest

import tensorflux as tf


def test_default_strategy():
    strategy = tf.distribute.get_strategy()
    assert strategy.num_replicas_in_sync == 1 and not tf.distribute.has_strategy()
    assert strategy.run(lambda a: a * 2, args=(tf.constant(3.0),)).numpy() == 6.0
    np.testing.assert_array_equal(strategy.reduce(tf.distribute.ReduceOp.SUM, tf.constant([1.0, 2.0]), axis=None),
                                  [1.0, 2.0])
    assert strategy.reduce("MEAN", tf.constant([1.0, 2.0]), axis=0).numpy() == 1.5
    assert tf.distribute.get_replica_context().num_replicas_in_sync == 1


def test_mirrored_strategy_scope_and_keras_training():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with strategy.scope():
        assert tf.distribute.has_strategy() and tf.distribute.get_strategy() is strategy
        assert tf.distribute.in_cross_replica_context() and tf.distribute.get_replica_context() is None
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
    assert not tf.distribute.has_strategy()
    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((np.ones((4, 2), np.float32), np.ones((4, 1), np.float32))).batch(2))
    assert len(model.fit(dataset, epochs=2, verbose=0).history["loss"]) == 2
    batch = strategy.distribute_datasets_from_function(
        lambda context: tf.data.Dataset.range(8).batch(context.get_per_replica_batch_size(4)))
    assert [b.tolist() for b in batch.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_only_the_cpu_can_hold_replicas():
    assert tf.distribute.OneDeviceStrategy("/cpu:0").num_replicas_in_sync == 1
    with pytest.raises(ValueError, match="CPU only"):
        tf.distribute.OneDeviceStrategy("/gpu:0")
    with pytest.raises(ValueError, match="No duplicates"):
        tf.distribute.MirroredStrategy(["/cpu:0", "/job:localhost/cpu:0"])
