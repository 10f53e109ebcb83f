"""One worker of a test job, launched by test_multi_worker.py as `mpiexec -n 2 python _mpi_worker.py SCENARIO`.

Each scenario writes one JSON file per rank into $RESULT_DIR, which the test reads; failure scenarios exit
the way they name (an exception, os._exit, SIGKILL, an early exit) and the test checks how the job ends.
"""
import json
import os
import signal
import sys
import tempfile

import numpy as np

import tensorflux as tf


def report(**values):
    """Writes this rank's result where the test reads it (ranks share stdout, so lines could interleave)."""
    path = os.path.join(os.environ["RESULT_DIR"], f"rank-{values['rank']}.json")
    with open(path, "w") as f:
        json.dump(values, f)


def data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 0.1).astype(np.float32)
    return x, y


def linear_steps(strategy, dataset, steps, use_function):
    """A custom loop: replicas average their loss over the global batch and all-reduce gradients."""
    rank = strategy.cluster_resolver.task_id or 0
    with strategy.scope():
        w = tf.Variable(tf.random.normal([4, 1], seed=100 + rank))   # differs per rank until broadcast
        b = tf.Variable(tf.zeros([1]))

    def step_fn(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.1 * grads[0])
        b.assign_sub(0.1 * grads[1])
        return loss

    def train_step(x, y):
        per_replica = strategy.run(step_fn, args=(x, y))
        return strategy.reduce("SUM", per_replica, axis=None)

    step = tf.function(train_step) if use_function else train_step
    losses = []
    for i, (x, y) in enumerate(dataset):
        if i == steps:
            break
        losses.append(float(step(x, y)))
    return w.numpy(), b.numpy(), losses


def scenario_basics():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    resolver = strategy.cluster_resolver
    with strategy.scope():
        v = tf.Variable(tf.random.normal([3], seed=resolver.task_id + 1))
        inside = tf.distribute.in_cross_replica_context()
    summed = strategy.reduce("SUM", tf.constant(float(resolver.task_id + 1)), axis=None)
    mean = strategy.reduce(tf.distribute.ReduceOp.MEAN, tf.constant([1.0, 3.0]) * (resolver.task_id + 1), axis=0)
    gathered = strategy.gather(tf.constant([resolver.task_id]), axis=0)

    def replica_fn():
        context = tf.distribute.get_replica_context()
        return context.all_reduce("SUM", {"one": tf.constant(1.0), "id": tf.constant(context.replica_id_in_sync_group)}), \
            context.num_replicas_in_sync

    reduced, replicas = strategy.run(replica_fn)
    try:
        tf.function(lambda: strategy.gather(tf.constant([1]), axis=0))()
        gather_in_graph = "accepted"
    except NotImplementedError:
        gather_in_graph = "NotImplementedError"
    in_graph = tf.function(lambda: strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
        "MEAN", tf.constant(float(resolver.task_id)))))()
    report(rank=resolver.task_id, task_type=resolver.task_type, size=strategy.num_replicas_in_sync,
           variable=v.numpy().tolist(), cross_replica=inside, sum=float(summed), mean=float(mean),
           gathered=gathered.numpy().tolist(), one=float(reduced["one"]), ids=int(reduced["id"]), replicas=replicas,
           in_graph=float(in_graph), chief=strategy.extended.should_checkpoint,
           spec=resolver.cluster_spec().as_dict(), gather_in_graph=gather_in_graph)


def scenario_sharding():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    out = {}
    base = tf.data.Dataset.range(10).batch(4)
    out["auto"] = [x.numpy().tolist() for x in strategy.experimental_distribute_dataset(base)]
    for policy in ("DATA", "OFF"):
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
        out[policy.lower()] = [x.numpy().tolist() for x in
                               strategy.experimental_distribute_dataset(base.with_options(options))]
    files = text_files()
    lines = lambda d: [[v.decode() for v in x.numpy().tolist()]  # noqa: E731
                       for x in strategy.experimental_distribute_dataset(d)]
    out["file"] = _outcome(lambda: list(strategy.experimental_distribute_dataset(with_policy(base, "FILE"))))      # raised when iterated, as TensorFlow
    out["file_lines"] = lines(with_policy(tf.data.TextLineDataset(files).batch(2), "FILE"))
    out["auto_list_files"] = lines(tf.data.Dataset.list_files(os.path.join(os.path.dirname(files[0]), "*.txt"),
                                                              shuffle=False).flat_map(tf.data.TextLineDataset).batch(2))
    out["file_records"] = lines(with_policy(tf.data.TFRecordDataset(tf.data.Dataset.from_tensor_slices(
        record_files())).batch(2), "FILE"))
    out["too_few_files"] = _outcome(lambda: lines(with_policy(tf.data.Dataset.list_files(files[0]).flat_map(
        tf.data.TextLineDataset).batch(2), "FILE")))
    hint = tf.data.Dataset.range(8).shard(tf.data.experimental.SHARD_HINT, tf.data.experimental.SHARD_HINT).batch(2)
    numbers = lambda d: [x.numpy().tolist() for x in strategy.experimental_distribute_dataset(d)]  # noqa: E731
    out["hint"] = numbers(with_policy(hint, "HINT"))
    out["hint_under_auto"] = _outcome(lambda: numbers(hint))
    fn_data = strategy.distribute_datasets_from_function(
        lambda ctx: tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(
            ctx.get_per_replica_batch_size(4)))
    out["from_function"] = [x.numpy().tolist() for x in fn_data]
    report(rank=strategy.cluster_resolver.task_id, **out)


def with_policy(dataset, policy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = getattr(tf.data.experimental.AutoShardPolicy, policy)
    return dataset.with_options(options)


def _outcome(fn):
    """What a call did: its value, or the class of the TensorFlow error it raised and its message's start."""
    try:
        return fn()
    except tf.errors.OpError as e:
        return f"{type(e).__name__}: {e.message}"


def text_files():
    """Four text files of three lines each ("k-j"), the same on every worker (each writes its own copy)."""
    folder = tempfile.mkdtemp(prefix="tfx-text-")
    paths = []
    for k in range(4):
        path = os.path.join(folder, f"f{k}.txt")
        with open(path, "w") as f:
            f.write("".join(f"{k}-{j}\n" for j in range(3)))
        paths.append(path)
    return paths


def record_files():
    folder = tempfile.mkdtemp(prefix="tfx-records-")
    paths = []
    for k in range(3):
        path = os.path.join(folder, f"r{k}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for j in range(2):
                writer.write(f"r{k}-{j}".encode())
        paths.append(path)
    return paths


def scenario_mirrored(use_function):
    """MirroredStrategy over two logical CPUs in each of the workers: four replicas in all."""
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    rank = int(os.environ.get("PMI_RANK", "0"))
    pieces = [[v.numpy().tolist() for v in strategy.experimental_local_results(x)]
              for x in strategy.experimental_distribute_dataset(tf.data.Dataset.range(16).batch(8))]
    ids = strategy.experimental_local_results(strategy.run(
        lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))
    x, y = data()
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
    with strategy.scope():
        w = tf.Variable(tf.random.normal([4, 1], seed=100 + rank))   # differs per rank until broadcast
        b = tf.Variable(tf.zeros([1]))

    def step_fn(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum(tf.square(tf.matmul(xb, w) + b - yb), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.1 * grads[0])
        b.assign_sub(0.1 * grads[1])
        return loss

    def train_step(xb, yb):
        return strategy.reduce("SUM", strategy.run(step_fn, args=(xb, yb)), axis=None)

    step = tf.function(train_step) if use_function else train_step
    losses = [float(step(xb, yb)) for xb, yb in dataset]
    report(rank=rank, size=strategy.num_replicas_in_sync, pieces=pieces, ids=[int(i) for i in ids],
           w=w.numpy().ravel().tolist(), b=b.numpy().tolist(), losses=losses)


def scenario_train(use_function):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    x, y = data()
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
    w, b, losses = linear_steps(strategy, dataset, steps=4, use_function=use_function)
    report(rank=strategy.cluster_resolver.task_id or 0, size=strategy.num_replicas_in_sync, w=w.ravel().tolist(), b=b.tolist(), losses=losses)


def scenario_keras_optimizer():
    """A custom loop with a Keras optimizer: apply_gradients sums the replicas' gradients itself."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    x, y = data()
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
    with strategy.scope():
        layer = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.RandomNormal(
            seed=7 + (strategy.cluster_resolver.task_id or 0)))
        layer.build((None, 4))
        optimizer = tf.keras.optimizers.Adam(0.05)

    @tf.function
    def train_step(xb, yb):
        def step_fn(xb, yb):
            with tf.GradientTape() as tape:
                per_example = tf.reduce_sum(tf.square(layer(xb) - yb), axis=1)
                loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
            optimizer.apply_gradients(zip(tape.gradient(loss, layer.trainable_weights), layer.trainable_weights))
            return loss
        return strategy.reduce("SUM", strategy.run(step_fn, args=(xb, yb)), axis=None)

    losses = [float(train_step(xb, yb)) for xb, yb in dataset]
    report(rank=strategy.cluster_resolver.task_id or 0, size=strategy.num_replicas_in_sync,
           w=layer.kernel.numpy().ravel().tolist(), b=layer.bias.numpy().tolist(), losses=losses)


def scenario_keras_fit(shuffle):
    """Keras fit under the strategy: each worker trains on its slice of every global batch."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0
    x, y = data(64)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(
            8, activation="tanh", kernel_initializer=tf.keras.initializers.GlorotUniform(seed=3 + rank)),
            tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=11))])
        model.compile(tf.keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=shuffle, verbose=0)
    report(rank=rank, size=strategy.num_replicas_in_sync,
           w=np.concatenate([w.numpy().ravel() for w in model.weights]).tolist(),
           losses=history.history["loss"], mae=history.history["mae"],
           evaluated=model.evaluate(x, y, batch_size=16, verbose=0))


class _RowCounter(tf.keras.layers.Layer):
    """Passes its input through, counting the rows this worker computed."""

    def build(self, input_shape):
        self.rows = self.add_weight(shape=(), dtype="int64", initializer="zeros", trainable=False, name="rows")

    def call(self, x):
        self.rows.assign_add(tf.cast(tf.shape(x)[0], tf.int64))
        return x


def scenario_keras_predict():
    """predict under the strategy: each worker computes its slice of every batch; all get every row, in order."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0
    x, _ = data(37)
    with strategy.scope():
        counter = _RowCounter()
        model = tf.keras.Sequential([tf.keras.Input((4,)), counter, tf.keras.layers.Dense(
            3, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=3 + rank))])
        model.compile("sgd", "mse")
    predicted = model.predict(x, batch_size=8, verbose=0)
    report(rank=rank, size=strategy.num_replicas_in_sync, predicted=predicted.tolist(),
           rows=int(counter.rows.numpy()), w=model.layers[-1].kernel.numpy().ravel().tolist())


def scenario_checkpoints():
    """Every worker saves; only the chief's files exist afterwards (TensorFlow's workertemp_<id> convention).
    A BackupAndRestore fit interrupted on every worker at epoch 2 (INTERRUPT=1) is relaunched and resumes."""
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id or 0
    root = os.environ["CHECKPOINT_DIR"]
    x, y = data(32)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(
            1, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=3 + rank))])
        model.compile(tf.keras.optimizers.Adam(0.05), "mse")

    class Interrupt(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2 and os.environ.get("INTERRUPT"):
                raise RuntimeError("interrupted")      # on every worker: the job ends, as a preemption would

    backup = tf.keras.callbacks.BackupAndRestore(os.path.join(root, "backup"))
    keep = tf.keras.callbacks.ModelCheckpoint(os.path.join(root, "models", "{epoch}.weights.h5"),
                                              save_weights_only=True)
    try:
        history = model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0, callbacks=[backup, keep, Interrupt()])
    except RuntimeError:
        strategy.reduce("SUM", tf.constant(0), axis=None)     # both workers are here before the listing
        report(rank=rank, interrupted=True, tree=tree(root))
        strategy.reduce("SUM", tf.constant(0), axis=None)     # both reports are written before the job aborts
        raise
    checkpoint = tf.train.Checkpoint(model=model)
    saved = checkpoint.save(os.path.join(root, "plain", "ckpt"))
    manager = tf.train.CheckpointManager(checkpoint, os.path.join(root, "managed"), max_to_keep=2)
    managed = [manager.save() for _ in range(3)]
    strategy.reduce("SUM", tf.constant(0), axis=None)     # every worker has saved before the listing
    report(rank=rank, interrupted=False, epochs=len(history.history["loss"]), losses=history.history["loss"],
           w=model.layers[-1].kernel.numpy().ravel().tolist(), saved=os.path.relpath(saved, root),
           managed=[os.path.relpath(p, root) for p in managed], latest=os.path.relpath(manager.latest_checkpoint, root),
           tree=tree(root))


def tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files)


def scenario_mismatch():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    try:
        strategy.reduce("SUM", tf.ones([2 + rank]), axis=None)
        report(rank=rank, error=None)
    except tf.errors.InvalidArgumentError as e:
        report(rank=rank, error=e.message)


def scenario_fail(how):
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.cluster_resolver.task_id
    if rank == 1:
        if how == "raise":
            raise RuntimeError("worker 1 broke")
        if how == "exit":
            os._exit(3)
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "early":
            sys.exit(0)          # leaves cleanly while rank 0 still expects a step
    for _ in range(3):
        strategy.reduce("SUM", tf.constant(1.0), axis=None)
    report(rank=rank, finished=True)

def scenario_keras_mirrored():
    """Keras fit/evaluate/predict under MirroredStrategy over two logical CPUs in each worker (four replicas
    under mpiexec -n 2), and the same model trained without a strategy on the same global batches."""
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])
    rank = int(os.environ.get("PMI_RANK", "0"))
    x, y = data(64)

    def build():
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(
            8, activation="tanh", kernel_initializer=tf.keras.initializers.GlorotUniform(seed=3)),
            tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=11))])
        model.compile(tf.keras.optimizers.Adam(0.05), "mse", metrics=["mae"])
        return model

    with strategy.scope():
        model = build()
    alone = build()
    results = {}
    for name, m in (("", model), ("alone_", alone)):
        history = m.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
        results.update({name + "w": np.concatenate([w.numpy().ravel() for w in m.weights]).tolist(),
                        name + "losses": history.history["loss"], name + "mae": history.history["mae"],
                        name + "evaluated": m.evaluate(x, y, batch_size=12, verbose=0),
                        name + "predicted": m.predict(x[:37], batch_size=8, verbose=0).ravel().tolist()})
    report(rank=rank, size=strategy.num_replicas_in_sync, **results)


if __name__ == "__main__":
    name = sys.argv[1]
    if name.startswith("fail-"):
        scenario_fail(name[5:])
    elif name.startswith("keras-fit"):
        scenario_keras_fit(name == "keras-fit-shuffled")
    elif name == "keras-mirrored":
        scenario_keras_mirrored()
    elif name == "keras-predict":
        scenario_keras_predict()
    elif name == "keras-optimizer":
        scenario_keras_optimizer()
    elif name.startswith("mirrored-"):
        scenario_mirrored(name == "mirrored-function")
    elif name.startswith("train-"):
        scenario_train(name == "train-function")
    else:
        globals()["scenario_" + name]()
