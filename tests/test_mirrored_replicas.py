"""MirroredStrategy over several logical CPU devices of one process (distribute/mirrored_run.py, values.py):
one replica thread per device, run one at a time; PerReplica results; merge_call/all_reduce across the
local replicas; mirrored variables (one copy per replica) and their checkpoints.

The printed forms were recorded from TensorFlow 2.21 with the CPU split into virtual devices.
"""
import numpy as np
import pytest

import tensorflux as tf


def _split_cpu():
    try:
        cpus = tf.config.list_physical_devices("CPU")
        tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 3)
    except RuntimeError:
        pass   # already fixed by an earlier module of this process (the fidelity tests split it in three)


_split_cpu()   # configures only: listing the devices (which fixes them) waits for the first test


@pytest.fixture(autouse=True)
def _two_logical_cpus():
    if len(tf.config.list_logical_devices("CPU")) < 2:
        pytest.skip("the CPU was fixed as one device before this module was imported")


def _two():
    return tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])


def test_run_gives_per_replica_values_in_replica_order():
    strategy = _two()
    assert strategy.num_replicas_in_sync == 2
    assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",
                                                "/job:localhost/replica:0/task:0/device:CPU:1")
    seen = []

    def fn():
        context = tf.distribute.get_replica_context()
        seen.append(context.replica_id_in_sync_group)
        return tf.constant(10.0) * tf.cast(context.replica_id_in_sync_group + 1, tf.float32)

    result = strategy.run(fn)
    assert seen == [0, 1]
    assert str(result) == ("PerReplica:{\n  0: tf.Tensor(10.0, shape=(), dtype=float32),\n"
                           "  1: tf.Tensor(20.0, shape=(), dtype=float32)\n}")
    assert [v.numpy() for v in strategy.experimental_local_results(result)] == [10.0, 20.0]
    assert strategy.reduce("SUM", result, axis=None).numpy() == 30.0
    assert strategy.reduce("MEAN", result, axis=None).numpy() == 15.0
    assert strategy.run(lambda: None) is None


def test_all_reduce_and_merge_call_wait_for_every_replica():
    strategy = _two()
    order = []

    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        order.append(("before", rid))
        total = tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0, 2.0]) * (rid + 1))
        order.append(("after", rid))
        return total

    result = strategy.run(fn)
    assert order == [("before", 0), ("before", 1), ("after", 0), ("after", 1)]
    # TensorFlow 2.21 (recorded): each replica gets its copy of the sum, so the result is per replica
    assert type(result).__name__ == "PerReplica"
    assert [v.numpy().tolist() for v in strategy.experimental_local_results(result)] == [[3.0, 6.0]] * 2
    assert strategy.reduce("SUM", result, axis=None).numpy().tolist() == [6.0, 12.0]

    def merge(strategy_, per_replica):
        assert tf.distribute.in_cross_replica_context()
        return [int(v) for v in strategy_.experimental_local_results(per_replica)]

    got = strategy.run(lambda: tf.distribute.get_replica_context().merge_call(
        merge, args=(tf.distribute.get_replica_context().replica_id_in_sync_group * 5,)))
    assert got == [0, 5]     # the merge result, the same on both replicas, comes back as one value


def test_a_failing_replica_raises_and_unmatched_merge_calls_are_an_error():
    strategy = _two()

    def fails_on_one():
        if tf.distribute.get_replica_context().replica_id_in_sync_group == 1:
            raise KeyError("replica one")
        return tf.constant(1)

    with pytest.raises(KeyError, match="replica one"):
        strategy.run(fails_on_one)

    def only_first_reduces():
        context = tf.distribute.get_replica_context()
        if context.replica_id_in_sync_group == 0:
            context.all_reduce("SUM", tf.constant(1.0))
        return tf.constant(0.0)

    with pytest.raises(RuntimeError, match="same merge calls"):
        strategy.run(only_first_reduces)


def test_variables_made_in_the_scope_have_a_copy_per_replica():
    strategy = _two()
    with strategy.scope():
        v = tf.Variable(1.0)
    assert type(v).__name__ == "MirroredVariable" and isinstance(v, tf.Variable)
    strategy.run(lambda: v.assign_add(tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                              tf.float32) + 1.0))
    copies = strategy.run(lambda: v.read_value())
    assert [c.numpy() for c in copies.values] == [2.0, 3.0]
    assert v.numpy() == 2.0                  # outside the replicas: the first copy
    with strategy.scope():
        v.assign(7.0)                        # the cross-replica context writes every copy
    assert [c.numpy() for c in strategy.run(lambda: v.read_value()).values] == [7.0, 7.0]
    assert repr(v) == ("MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=7.0>,\n"
                       "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=7.0>\n}")


def test_a_mirrored_variable_checkpoints_its_first_copy_and_restores_every_copy(tmp_path):
    strategy = _two()
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
        checkpoint = tf.train.Checkpoint(v=v)
    prefix = checkpoint.write(str(tmp_path / "ckpt"))
    assert tf.train.list_variables(prefix)[1] == ("v/.ATTRIBUTES/VARIABLE_VALUE", [2])
    strategy.run(lambda: v.assign([9.0, 9.0]))
    checkpoint.read(prefix)
    assert [c.numpy().tolist() for c in strategy.run(lambda: v.read_value()).values] == [[1.0, 2.0]] * 2


def test_run_inside_a_tf_function_traces_every_replica():
    strategy = _two()

    @tf.function
    def step(x):
        per_replica = strategy.run(lambda: x * tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32))
        return strategy.reduce("SUM", per_replica, axis=None)

    with strategy.scope():
        assert step(tf.constant(2.0)).numpy() == 6.0     # 2*1 + 2*2: both replicas' ops in one graph


def test_values_from_function_and_devices_that_do_not_exist():
    strategy = _two()
    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(ctx.replica_id_in_sync_group * 2))
    assert [v.numpy() for v in strategy.run(lambda x: x + 1, args=(values,)).values] == [1, 3]
    with pytest.raises(ValueError, match="logical CPU device"):
        tf.distribute.MirroredStrategy(["cpu:0", "cpu:7"])


def _local_results(strategy, dataset):
    return [[v.numpy().tolist() for v in strategy.experimental_local_results(x)] for x in dataset]


# Recorded from TensorFlow 2.21: MirroredStrategy(["cpu:0", "cpu:1"]) over two logical CPUs.
def test_a_distributed_dataset_gives_each_replica_its_slice_of_the_global_batch():
    strategy = _two()
    assert _local_results(strategy, strategy.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(4))) \
        == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]
    assert _local_results(strategy, strategy.experimental_distribute_dataset(tf.data.Dataset.range(7).batch(7))) \
        == [[[0, 1, 2, 3], [4, 5, 6]]]
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    off = strategy.experimental_distribute_dataset(tf.data.Dataset.range(10).batch(4).with_options(options))
    assert _local_results(strategy, off) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]
    first = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))))
    assert repr(first) == ("PerReplica:{\n  0: <tf.Tensor: shape=(2,), dtype=int64, numpy=array([0, 1])>,\n"
                           "  1: <tf.Tensor: shape=(2,), dtype=int64, numpy=array([2, 3])>\n}")
    assert str(strategy.run(lambda v: v * 2, args=(first,))) == (
        "PerReplica:{\n  0: tf.Tensor([0 2], shape=(2,), dtype=int64),\n  1: tf.Tensor([4 6], shape=(2,), "
        "dtype=int64)\n}")
    assert repr(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)).element_spec) == (
        "PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), "
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None))")


def test_distributed_datasets_from_a_function_take_consecutive_elements_per_replica():
    strategy = _two()
    contexts = []

    def dataset_fn(context):
        contexts.append((context.num_input_pipelines, context.input_pipeline_id, context.num_replicas_in_sync,
                         context.get_per_replica_batch_size(4)))
        return tf.data.Dataset.range(10).batch(2)

    assert _local_results(strategy, strategy.distribute_datasets_from_function(dataset_fn)) == \
        [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], []]]
    assert contexts == [(1, 0, 2, 2)]


def test_per_replica_batches_feed_a_tf_function_traced_once():
    strategy = _two()
    traces = []

    @tf.function
    def step(batch):
        traces.append(1)
        return strategy.run(tf.reduce_sum, args=(batch,))

    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
    results = [[int(v) for v in strategy.experimental_local_results(step(x))] for x in dataset]
    assert results == [[1, 5], [9, 13]] and len(traces) == 1     # TensorFlow's values

    @tf.function
    def total(dataset):
        s = tf.constant(0, tf.int64)
        for x in dataset:
            s += strategy.reduce("SUM", strategy.run(tf.reduce_sum, args=(x,)), axis=None)
        return s

    assert int(total(dataset)) == 28


# Keras fit/evaluate/predict under MirroredStrategy(["cpu:0", "cpu:1"]): recorded from TensorFlow 2.21 / Keras
# 3.15 (the same script with `import tensorflow as tf`); TensorFlow's values equal one replica's on the batch.
def _regression_data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 3)).astype("float32"), rng.normal(size=(40, 1)).astype("float32")


def _compiled_in(strategy):
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return model


def test_keras_fit_on_two_local_replicas_trains_as_one_replica_on_the_global_batch():
    x, y = _regression_data()
    model = _compiled_in(_two())
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["loss"], [2.755455493927002, 1.3399251699447632], rtol=1e-5)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel.ravel(), [0.2224496752023697, 0.34586310386657715, 0.2856145203113556],
                               atol=1e-5)
    np.testing.assert_allclose(bias, [-0.3420965075492859], atol=1e-5)
    loss, _ = model.evaluate(x, y, batch_size=16, verbose=0)
    assert abs(loss - 1.051450490951538) < 1e-5
    predictions = model.predict(x, batch_size=16, verbose=0)
    assert predictions.shape == (40, 1)
    np.testing.assert_allclose(predictions[:5, 0], [-0.17690405249595642, -0.400752991437912, 0.07454127073287964,
                                                    -0.8273534774780273, -1.2908210754394531], atol=1e-5)
    np.testing.assert_allclose(predictions[-3:, 0], [-0.28624284267425537, -0.04411721229553223,
                                                     0.4439408779144287], atol=1e-5)


def test_keras_metrics_and_sample_weights_on_two_local_replicas_are_those_of_one_process():
    x, y = _regression_data()
    model = _compiled_in(_two())
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(history.history["mae"], [1.291754961013794, 0.8550427556037903], rtol=1e-5)
    assert abs(model.evaluate(x, y, batch_size=16, verbose=0)[1] - 0.7888873815536499) < 1e-5
    weights = np.random.default_rng(1).uniform(0.5, 1.5, size=40).astype("float32")
    weighted = _compiled_in(_two())
    history = weighted.fit(x, y, sample_weight=weights, batch_size=16, epochs=1, verbose=0, shuffle=False)
    np.testing.assert_allclose([history.history["loss"][0], history.history["mae"][0]],
                               [2.456341505050659, 1.3002889156341553], rtol=1e-5)
    kernel, bias = weighted.get_weights()
    np.testing.assert_allclose(kernel.ravel(), [0.5346719026565552, 0.6583241820335388, 0.5905993580818176],
                               atol=1e-5)
    np.testing.assert_allclose(bias, [-0.2340259850025177], atol=1e-5)


def test_gather_and_local_results_inside_a_tf_function():
    strategy = _two()

    @tf.function
    def step():
        result = strategy.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                              tf.float32) * tf.ones([2]))
        return strategy.gather(result, axis=0), strategy.experimental_local_results(result)

    gathered, local = step()
    assert gathered.numpy().tolist() == [0.0, 0.0, 1.0, 1.0]               # TensorFlow's values
    assert [t.numpy().tolist() for t in local] == [[0.0, 0.0], [1.0, 1.0]]


def test_a_variable_created_in_run_is_one_mirrored_variable():
    strategy = _two()
    made = strategy.run(lambda: tf.Variable(1.0))
    assert repr(made) == ("MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,\n"
                          "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=1.0>\n}")   # TF's


def test_adam_slots_made_in_the_first_step_are_mirrored_so_two_replicas_train_as_one():
    x, y = _regression_data()

    def build():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(tf.keras.optimizers.Adam(0.1), "mse", metrics=["mae"])
        return model

    with _two().scope():
        mirrored = build()
    single = build()
    logs = [m.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False).history for m in (mirrored, single)]
    for name in ("loss", "mae"):
        np.testing.assert_allclose(logs[0][name], logs[1][name], rtol=1e-5)
    for a, b in zip(mirrored.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)
    assert int(mirrored.optimizer.iterations) == int(single.optimizer.iterations) == 6


def test_a_tf_function_updates_each_replicas_copy_of_a_mirrored_variable():
    strategy = _two()
    with strategy.scope():
        v = tf.Variable(0.0)

    @tf.function
    def step():
        strategy.run(lambda: v.assign_add(tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                                  tf.float32) + 1.0))

    step()
    assert repr(v) == ("MirroredVariable:{\n  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,\n"
                       "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=2.0>\n}")   # TF's


def test_a_traced_step_trains_as_one_process_and_uneven_slices_evaluate_as_one_process():
    x, y = _regression_data()
    with _two().scope():
        mirrored = _compiled_in_default_scope()
    single = _compiled_in_default_scope()
    logs = [m.fit(x, y, batch_size=12, epochs=2, verbose=0, shuffle=False).history for m in (mirrored, single)]
    for name in ("loss", "mae"):
        np.testing.assert_allclose(logs[0][name], logs[1][name], rtol=1e-5)
    for a, b in zip(mirrored.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)
    # batch 7: replicas get 4 and 3 rows (the last batch of 5: 3 and 2); averaging replica logs would differ
    np.testing.assert_allclose(mirrored.evaluate(x, y, batch_size=7, verbose=0),
                               single.evaluate(x, y, batch_size=7, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(mirrored.predict(x, batch_size=7, verbose=0),
                               single.predict(x, batch_size=7, verbose=0), atol=1e-5)
    assert hasattr(mirrored.make_train_function(), "get_concrete_function")   # traced after the first step


def _compiled_in_default_scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.Adam(0.1), "mse", metrics=["mae"])
    return model


# -- replicas at once (mirrored_run's concurrent mode, ReplicaAllReduce) ---------------------------------------

def test_replicas_of_replica_functions_run_at_once_and_user_functions_take_turns():
    import threading
    strategy = _two()
    barrier = threading.Barrier(2, timeout=10)
    assert strategy._run_replica_functions(lambda: barrier.wait() * 0 + 1, ()) == 1   # both waited at once
    one_at_a_time = threading.Barrier(2, timeout=0.5)
    with pytest.raises(threading.BrokenBarrierError):
        strategy.run(lambda: one_at_a_time.wait())    # replica 1 starts only when replica 0 is done


def test_an_all_reduce_traced_in_a_replicas_own_tf_function():
    strategy = _two()

    @tf.function
    def inner(v):
        return tf.distribute.get_replica_context().all_reduce("SUM", v)

    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        return inner(tf.constant([1.0, 2.0]) * tf.cast(rid + 1, tf.float32))

    for concurrent in (True, False):      # the op meets its peers at run time, whichever way the replicas run
        result = strategy._run_replica_functions(fn, (), concurrent=concurrent)
        assert [v.numpy().tolist() for v in strategy.experimental_local_results(result)] == [[3.0, 6.0]] * 2
    # TensorFlow's strategy.run refuses a synchronisation inside a nested tf.function (recorded message)
    fresh = tf.function(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v))
    with pytest.raises(RuntimeError, match=r"`merge_call` called while defining a new graph or a tf.function"):
        strategy.run(lambda: fresh(tf.constant(1.0)))
    merging = tf.function(lambda v: tf.distribute.get_replica_context().merge_call(
        lambda s, t: s.reduce("SUM", t, axis=None), args=(v,)))
    with pytest.raises(RuntimeError, match="nested `@tf.function`"):
        strategy._run_replica_functions(lambda: merging(tf.constant(1.0)), ())
    traced = strategy._run_replica_functions(
        lambda: inner.get_concrete_function(tf.TensorSpec([2], tf.float32)), ())
    concrete = strategy.experimental_local_results(traced)[0]
    with pytest.raises(tf.errors.FailedPreconditionError, match="only inside `strategy.run`'s replicas"):
        concrete(tf.constant([1.0, 2.0]))      # called outside the replicas, it has no peers to meet


def test_what_a_replica_graph_may_run_at_once():
    from tensorflux._src.distribute.mirrored_run import safe_to_run_concurrently
    strategy = _two()
    with strategy.scope():
        mirrored = tf.Variable([1.0, 2.0])
    shared = tf.Variable([1.0, 2.0])

    def safe(fn):     # fn traced in each replica (capturing its copies of mirrored variables)
        function = tf.function(fn)
        traced = strategy._run_replica_functions(
            lambda: function.get_concrete_function(tf.TensorSpec([2], tf.float32)), ())
        return [safe_to_run_concurrently(cf.graph) for cf in strategy.experimental_local_results(traced)]

    def printed(x):
        tf.print(x)
        return x + 1.0

    assert safe(lambda x: mirrored.assign_add(tf.nn.dropout(x, 0.5) * mirrored * shared)) == [True, True]
    assert safe(lambda x: tf.cond(x[0] > 0, lambda: x * mirrored, lambda: x + 1.0)) == [True, True]
    assert safe(lambda x: shared.assign_add(x)) == [False, False]    # both replicas would update it at once
    assert safe(printed) == [False, False]                            # the output order would be the threads'
    assert safe(lambda x: tf.cond(x[0] > 0, lambda: printed(x), lambda: x)) == [False, False]


def _mlp_in(strategy, optimizer_outside=None):
    with strategy.scope():
        tf.keras.utils.set_random_seed(3)
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(optimizer_outside or tf.keras.optimizers.Adam(0.05), "mse", metrics=["mae"])
    return model


def _in_turn(strategy):
    """`strategy` whose replicas always take turns (as before they could run at once)."""
    run = type(strategy)._run_replica_functions
    strategy._run_replica_functions = lambda fn, args, kwargs=None, concurrent=True: run(
        strategy, fn, args, kwargs, concurrent=False)
    return strategy


def _fit_pinned(model, way, x, y, epochs):
    """fit with the traced steps run `way` ("whole": one graph of every replica; "at once": each replica's own
    graph, the replicas at once); None: as the step chooses (the faster way, timed)."""
    if way is not None:
        model.make_train_function()._one_step._chooser.choose(way)
    return model.fit(x, y, batch_size=12, epochs=epochs, verbose=0, shuffle=False).history


def test_traced_keras_steps_run_the_replicas_at_once_with_the_bits_of_one_graph(monkeypatch):
    from tensorflux._src.distribute import mirrored_run
    x, y = _regression_data()
    modes = []
    run_on_replicas = mirrored_run.run_on_replicas

    def spy(*args):
        modes.append(args[7])     # concurrent
        return run_on_replicas(*args)

    monkeypatch.setattr(mirrored_run, "run_on_replicas", spy)
    at_once = _mlp_in(_two())
    at_once_history = _fit_pinned(at_once, "at once", x, y, 3)
    # the first step eagerly, replicas in turn; each new input signature traces in turn; then at once
    assert modes[0] is False and modes[-1] is True and modes.count(True) >= 6
    histories, models = [], []
    for way in ("whole", None):
        models.append(_mlp_in(_two()))
        histories.append(_fit_pinned(models[-1], way, x, y, 3))
    for history, model in zip(histories, models):
        assert history == at_once_history
        for a, b in zip(at_once.get_weights(), model.get_weights()):
            np.testing.assert_array_equal(a, b)
    single = _mlp_in(tf.distribute.get_strategy())
    single_history = single.fit(x, y, batch_size=12, epochs=3, verbose=0, shuffle=False).history
    np.testing.assert_allclose(at_once_history["loss"], single_history["loss"], rtol=1e-5)
    for a, b in zip(at_once.get_weights(), single.get_weights()):
        np.testing.assert_allclose(a, b, atol=1e-5)


def test_the_step_times_both_ways_and_keeps_the_faster():
    from tensorflux._src.distribute.faster_way import FasterWay as _FasterWay
    chooser = _FasterWay()
    ways = []
    for step in range(2 * _FasterWay.PROBES):
        ways.append(chooser.next())
        chooser.record(ways[-1], 0.010 if ways[-1] == "whole" else 0.004)
    assert ways.count("whole") == ways.count("at once") == _FasterWay.PROBES
    assert {chooser.next() for _ in range(_FasterWay.REPROBE_AFTER)} == {"at once"}
    assert chooser.next() in ("whole", "at once") and chooser._chosen is None      # timed again


def test_replicas_updating_a_shared_variable_take_turns():
    # An optimizer made outside the scope keeps one `iterations` for both replicas (each adds 1 per step):
    # run at once, the two updates would race, so these steps keep the replicas' turns and their results
    x, y = _regression_data()
    at_once = _mlp_in(_two(), tf.keras.optimizers.Adam(0.05))
    history = _fit_pinned(at_once, "at once", x, y, 2)
    assert at_once.make_train_function()._one_step._concurrent is False
    in_turn = _mlp_in(_in_turn(_two()), tf.keras.optimizers.Adam(0.05))
    assert history == _fit_pinned(in_turn, "at once", x, y, 2)


# Uneven slices: a global batch of 7 over two replicas is 4 + 3 rows. Recorded from TensorFlow 2.21 / Keras 3.15,
# MirroredStrategy(["cpu:0", "cpu:1"]) over two logical CPUs, this custom loop (TensorFlow's own Keras `fit` fails
# on uneven slices: "Inputs to operation AddN of type AddN must have the same size and shape"): per replica its
# loss and gradients before the all-reduce, and the weights after each of two steps.
_UNEVEN_TF = {
    "global_mean": [
        ([0.45722296833992004, 3.084003448486328],
         [[[0.6675117611885071, 0.6187143325805664, -0.423332542181015],
           [2.923272132873535, 1.1751152276992798, 1.274449110031128]],
          [[-0.004467755556106567], [-0.49418550729751587]]],
         [[0.6409215927124023, 0.8206170201301575, 0.914888322353363], [0.04986532777547836]]),
        ([0.09500938653945923, 0.05873050168156624],
         [[[0.20641839504241943, -0.11705552786588669, -0.06782449036836624],
           [0.13465487957000732, 0.02982272207736969, 0.053464144468307495]],
          [[0.423009991645813], [0.15681003034114838]]],
         [[0.6068142652511597, 0.8293402791023254, 0.9163243770599365], [-0.008116677403450012]])],
    "mean_of_means": [
        ([0.40007010102272034, 3.598004102706909],
         [[[0.5840728282928467, 0.5413750410079956, -0.37041592597961426],
           [3.410484790802002, 1.3709677457809448, 1.4868574142456055]],
          [[-0.003909260034561157], [-0.576549768447876]]],
         [[0.6005442142486572, 0.808765709400177, 0.8883558511734009], [0.058045901358127594]]),
        ([0.08260179311037064, 0.06275121867656708],
         [[[0.13747040927410126, -0.10265355557203293, -0.061541568487882614],
           [0.1106247752904892, 0.06476746499538422, 0.02429869771003723]],
          [[0.38076043128967285], [0.15371796488761902]]],
         [[0.5757346749305725, 0.8125542998313904, 0.8920801281929016], [0.004598058760166168]])],
}


@pytest.mark.parametrize("variant", ["global_mean", "mean_of_means"])
def test_a_custom_loop_on_uneven_slices_gives_tensorflows_gradients_and_weights(variant):
    x, y = _regression_data()
    strategy = _two()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        optimizer = tf.keras.optimizers.SGD(0.1)
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x[:14], y[:14])).batch(7))

    def replica_step(xr, yr):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(model(xr, training=True) - yr), axis=1)
            if variant == "global_mean":     # TensorFlow's guide: the sum over the replicas is the global mean
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=7)
            else:                            # Keras 3's scaling: each replica's mean over the replicas
                loss = tf.reduce_mean(per_example) / strategy.num_replicas_in_sync
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss, grads

    @tf.function
    def step(xb, yb):
        return strategy.run(replica_step, args=(xb, yb))

    for (xb, yb), (losses, grads, weights) in zip(dataset, _UNEVEN_TF[variant]):
        assert [len(v) for v in strategy.experimental_local_results(xb)] == [4, 3]
        loss, got = step(xb, yb)
        np.testing.assert_allclose([float(v) for v in strategy.experimental_local_results(loss)], losses, rtol=1e-6)
        for g, expected in zip(got, grads):
            np.testing.assert_allclose([np.asarray(v).ravel() for v in strategy.experimental_local_results(g)],
                                       expected, rtol=1e-6, atol=1e-7)
        for w, expected in zip(model.get_weights(), weights):
            np.testing.assert_allclose(w.ravel(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("way", ["whole", "at once"])
def test_keras_fit_on_uneven_slices_scales_each_replicas_loss_as_keras_3(way):
    # Keras 3 divides each replica's mean loss by the replicas (its scale_loss_for_distribution), so its update
    # is TensorFlow's "mean_of_means" custom loop above, step by step (the eager first step and the traced one)
    x, y = _regression_data()
    with _two().scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.make_train_function()._one_step._chooser.choose(way)
    history = model.fit(x[:14], y[:14], batch_size=7, epochs=1, verbose=0, shuffle=False)
    for w, expected in zip(model.get_weights(), _UNEVEN_TF["mean_of_means"][1][2]):
        np.testing.assert_allclose(w.ravel(), expected, rtol=1e-6, atol=1e-7)
    # the logged loss is each step's mean over its 7 rows (the replicas' means weighted by their 4 and 3 rows, not
    # averaged), averaged over the two steps; TensorFlow's replica losses above are those means / 2 replicas
    step_means = [(4 * 2 * losses[0] + 3 * 2 * losses[1]) / 7 for losses, _, _ in _UNEVEN_TF["mean_of_means"]]
    np.testing.assert_allclose(history.history["loss"], [np.mean(step_means)], rtol=1e-5)


# -- strategy.run traced in a tf.function: one function per replica, run by a ReplicaCall op ------------------

def _replica_call(function, *args):
    """The ReplicaCall op of `function`'s graph for `args` (its attrs: the chooser, the cut functions)."""
    (op,) = [op for op in function.get_concrete_function(*args).graph.get_operations() if op.type == "ReplicaCall"]
    return op


def test_a_traced_run_traces_each_replica_in_turn_and_runs_them_by_one_op():
    strategy = _two()
    traced = []

    @tf.function
    def step():
        def fn():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            traced.append(rid)
            if tf.constant(rid) > 0:           # AutoGraph converts fn, as TensorFlow's strategy.run does
                scale = tf.constant(2.0)
            else:
                scale = tf.constant(1.0)
            return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0, 2.0]) * scale)
        return strategy.run(fn)

    result = step()
    assert traced == [0, 1]                    # TensorFlow's trace order
    # TensorFlow 2.21 returns the all-reduced value as a PerReplica of equal tensors
    assert [v.numpy().tolist() for v in strategy.experimental_local_results(result)] == [[3.0, 6.0]] * 2
    assert type(result).__name__ == "PerReplica"
    assert [op.type for op in step.get_concrete_function().graph.get_operations()].count("ReplicaCall") == 1


def test_random_ops_of_the_replicas_draw_as_in_one_graph():
    strategy = _two()
    tf.random.set_seed(1)

    @tf.function
    def step(x):
        return strategy.run(lambda x: tf.random.uniform([2]) + x, args=(x,))

    got = [v.numpy().tolist() for v in strategy.experimental_local_results(step(tf.constant(0.0)))]
    # recorded from TensorFlow 2.21: replica 1's op seed follows replica 0's in the caller's graph
    assert got == [[0.8126964569091797, 0.07857465744018555], [0.055544137954711914, 0.018698453903198242]]


def _guide_loop(strategy, way, steps=3):
    """TensorFlow's custom-loop guide on two replicas: Keras model with dropout, Adam, the replicas' step run
    `way` ("in turn"/"at once": the ReplicaCall's pieces; "threads": the replicas' functions in replica threads;
    "one graph": every replica's ops in the caller's graph). Returns the losses and the final weights."""
    from tensorflux._src.distribute.replica_functions import _NOT_CUT
    x, y = _regression_data()
    with strategy.scope():
        tf.keras.utils.set_random_seed(5)
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(16, activation="relu"),
                                     tf.keras.layers.Dropout(0.3), tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(0.05)

    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(model(xb, training=True) - yb), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=12)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    run = strategy._run_in_one_graph if way == "one graph" else strategy.run

    @tf.function
    def step(xb, yb):
        return strategy.reduce("SUM", run(replica_step, args=(xb, yb)), axis=None)

    dataset = list(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(12)))
    losses = [float(step(*dataset[0]))]
    if way != "one graph":
        op = _replica_call(step, *dataset[0])
        assert op.attrs["concurrent_safe"]
        if way == "threads":
            op.attrs["cuts"][0] = None          # as if an all-reduce sat inside control flow
        else:
            assert op.attrs["cuts"][0] not in (None, _NOT_CUT)
        op.attrs["chooser"].choose("at once" if way == "at once" else "in turn")
    for i in range(1, steps):
        losses.append(float(step(*dataset[i % len(dataset)])))
    return losses, model.get_weights()


def test_the_ways_of_running_a_traced_run_give_the_same_bits():
    losses, weights = _guide_loop(_two(), "one graph")
    for way in ("in turn", "at once", "threads"):
        got_losses, got_weights = _guide_loop(_two(), way)
        assert got_losses == losses, way
        for a, b in zip(weights, got_weights):
            np.testing.assert_array_equal(a, b)


def test_replicas_at_once_run_their_pieces_on_worker_threads(monkeypatch):
    import threading
    from tensorflux._src.distribute import replica_segments
    threads = set()
    run_piece = replica_segments._run_piece

    def spy(piece, env):
        threads.add(threading.current_thread().name)
        return run_piece(piece, env)

    monkeypatch.setattr(replica_segments, "_run_piece", spy)
    _guide_loop(_two(), "at once", steps=2)
    assert threading.current_thread().name in threads and "replica_worker_1" in threads


def test_a_traced_run_with_a_merge_call_traces_into_the_callers_graph():
    strategy = _two()

    @tf.function
    def step(x):
        def fn():
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            return tf.distribute.get_replica_context().merge_call(
                lambda s, v: s.reduce("SUM", v, axis=None), args=(x * (rid + 1),))
        return strategy.run(fn)

    assert step(tf.constant(2.0)).numpy() == 6.0
    assert "ReplicaCall" not in [op.type for op in step.get_concrete_function(tf.constant(2.0)).graph.get_operations()]
    nested = tf.function(lambda v: tf.distribute.get_replica_context().all_reduce("SUM", v))
    with pytest.raises(RuntimeError, match="nested `@tf.function`"):     # TensorFlow refuses it too
        tf.function(lambda: strategy.run(lambda: nested(tf.constant(1.0))))()


@pytest.mark.parametrize("way", ["in turn", "at once"])
def test_a_kernel_failing_in_one_replica_raises_in_the_caller(way):
    strategy = _two()

    @tf.function
    def step(x):
        def fn(v):
            checked = tf.debugging.check_numerics(v, "replica input")
            return tf.distribute.get_replica_context().all_reduce("SUM", checked)
        return strategy.run(fn, args=(x,))

    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([1.0, float("nan") if ctx.replica_id_in_sync_group == 1 else 2.0]))
    step(strategy.experimental_distribute_values_from_function(lambda ctx: tf.constant([1.0, 2.0])))
    _replica_call(step, values).attrs["chooser"].choose(way)
    with pytest.raises(tf.errors.InvalidArgumentError, match="replica input"):
        step(values)
    # the workers are free again: the next step runs
    ok = step(strategy.experimental_distribute_values_from_function(lambda ctx: tf.constant([1.0, 2.0])))
    assert [v.numpy().tolist() for v in strategy.experimental_local_results(ok)] == [[2.0, 4.0]] * 2


def test_predict_on_two_replicas_runs_them_by_one_op_with_one_process_outputs():
    x, _ = _regression_data()
    with _two().scope():
        tf.keras.utils.set_random_seed(2)
        mirrored = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8, activation="tanh"),
                                        tf.keras.layers.Dense(2)])
        mirrored.compile("sgd", "mse")           # the model is run by the strategy it was compiled in
    tf.keras.utils.set_random_seed(2)
    single = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(8, activation="tanh"),
                                  tf.keras.layers.Dense(2)])
    for batch in (4, 7):
        np.testing.assert_allclose(mirrored.predict(x, batch_size=batch, verbose=0),
                                   single.predict(x, batch_size=batch, verbose=0), atol=1e-6)
    graphs = [cf.graph for cf in mirrored.make_predict_function()._list_all_concrete_functions()]
    calls = [op for graph in graphs for op in graph.get_operations() if op.type == "ReplicaCall"]
    assert calls and all(op.attrs["concurrent_safe"] for op in calls)
    ways = []
    for way in ("in turn", "at once"):
        for op in calls:
            op.attrs["chooser"].choose(way)
        ways.append(mirrored.predict(x, batch_size=7, verbose=0))
    np.testing.assert_array_equal(ways[0], ways[1])


def test_run_of_a_tf_function_is_traced_on_every_replica_as_tensorflow_lifts_it():
    strategy = _two()
    traced = []

    @tf.function
    def fn(x):
        context = tf.distribute.get_replica_context()
        traced.append(context.replica_id_in_sync_group)
        y = context.all_reduce("SUM", x * tf.cast(context.replica_id_in_sync_group + 1, tf.float32))
        return y, context.merge_call(lambda s, v: s.reduce("SUM", v, axis=None), args=(y,))

    # recorded from TensorFlow 2.21: a merge_call inside the tf.function given to an eager run is allowed
    for x, expected in ((2.0, [[6.0, 6.0], [12.0]]), (3.0, [[9.0, 9.0], [18.0]])):
        y, total = strategy.run(fn, args=(tf.constant(x),))
        assert [[float(v) for v in strategy.experimental_local_results(t)] for t in (y, total)] == expected
    # traced once for both calls (replica 0 first traces on its own, then every replica in one graph)
    assert traced == [0, 0, 1]


def test_a_replica_that_fails_stops_the_later_ones_from_starting():
    strategy = _two()
    started = []

    def fn():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        started.append(rid)
        if rid == 0:
            raise ValueError("replica 0 failed")
        return tf.constant(1.0)

    with pytest.raises(ValueError, match="replica 0 failed"):      # TensorFlow's error, as raised
        strategy.run(fn)
    assert started == [0]


def test_keras_fit_on_two_replicas_runs_its_whole_step_by_a_replica_call_with_the_bits_of_each_way():
    x, y = _regression_data()
    histories, weights = [], []
    for way in (None, "in turn", "at once"):
        model = _mlp_in(_two())
        model.fit(x[:24], y[:24], batch_size=12, epochs=1, verbose=0, shuffle=False)   # eager step, then traced
        step = model.make_train_function()._one_step
        assert step._chooser._chosen == "whole"
        calls = [op for cf in step._whole._list_all_concrete_functions() for op in cf.graph.get_operations()
                 if op.type == "ReplicaCall"]
        assert calls and all(op.attrs["concurrent_safe"] for op in calls)
        if way is not None:
            for op in calls:
                op.attrs["chooser"].choose(way)
        histories.append(model.fit(x, y, batch_size=12, epochs=2, verbose=0, shuffle=False).history)
        weights.append(model.get_weights())
    assert histories[0] == histories[1] == histories[2]
    for other in weights[1:]:
        for a, b in zip(weights[0], other):
            np.testing.assert_array_equal(a, b)
