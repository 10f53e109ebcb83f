"""Multi-worker benchmarks on this machine (loopback MPI): all-reduce bandwidth against message size, and
data-parallel training throughput with 1, 2 and 4 workers.

    python bench/distributed.py            # launches the workers itself with mpiexec
    python bench/distributed.py --workers 1 2 --tf-python ~/venv-tf/bin/python
    python bench/distributed.py --local    # Keras fit on local replicas (logical CPUs) in one process
    python bench/distributed.py --local-loop   # the guide's custom loop on local replicas, three models

`--local` needs no MPI: Keras `fit` of an MLP (784-512-512-10, batch 256) with no strategy, with
MirroredStrategy over one logical CPU and over two, their epochs interleaved in one process (the
machine's load then weighs on all three alike); examples/s of the wall clock and of the CPU time.
`--local-loop` does the same for a custom training loop (`strategy.run` in a tf.function) on a wide MLP,
a narrow MLP (products too small to share out over the cores) and a small convnet, with the two-replica
step adaptive and pinned to each of its ways (replica_functions.py), and checks the ways' weights agree.

With `--tf-python`, the same training loop also runs on TensorFlow's MultiWorkerMirroredStrategy (gRPC
workers on localhost configured through TF_CONFIG, a custom loop as in TensorFlow's multi-worker guide),
in the same run, for the same worker counts.

Needs the extra `[distributed]`. Prints markdown tables; timings are medians of repeated runs.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.abspath(__file__)


def _mpiexec():
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.path.exists(beside) else "mpiexec"


def _threads_per_worker(n):
    """Cores per worker: n ranks on one host must not each start a BLAS pool as wide as the machine (on
    this 2-core machine two such pools make a step ~15x slower)."""
    per = str(max(1, (os.cpu_count() or 1) // n))
    return {"OPENBLAS_NUM_THREADS": per, "OMP_NUM_THREADS": per, "MKL_NUM_THREADS": per,
            "TF_NUM_INTRAOP_THREADS": per, "TF_NUM_INTEROP_THREADS": "1"}


def _launch(n, *args):
    command = ([_mpiexec(), "-n", str(n)] if n > 1 else []) + [sys.executable, HERE, "--worker", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **_threads_per_worker(n)))
    if done.returncode:
        raise SystemExit(done.stderr)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def worker_allreduce():
    from tensorflux._src.distribute import mpi
    world = mpi.world()
    rows = []
    for size in (1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24):   # float32 elements
        data = [np.ones(size // 4, np.float32) for _ in range(4)]          # four tensors, one fused call
        world.all_reduce(data)
        repeats = max(3, min(200, (1 << 24) // size))
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            world.all_reduce(data)
            times.append(time.perf_counter() - start)
        rows.append({"bytes": size * 4, "seconds": float(np.median(times))})
    if world.rank == 0:
        print(json.dumps({"allreduce": rows}))


def worker_train(steps, global_batch):
    import tensorflux as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(global_batch * steps, 256)).astype(np.float32)
    y = rng.normal(size=(global_batch * steps, 1)).astype(np.float32)
    with strategy.scope():
        w1 = tf.Variable(tf.random.normal([256, 512], stddev=0.05, seed=1))
        w2 = tf.Variable(tf.random.normal([512, 1], stddev=0.05, seed=2))
    variables = [w1, w2]

    def step_fn(xb, yb):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(xb, w1))
            per_example = tf.reduce_sum(tf.square(tf.matmul(h, w2) - yb), axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, variables))
        for v, g in zip(variables, grads):
            v.assign_sub(0.01 * g)
        return loss

    @tf.function
    def train_step(xb, yb):
        return strategy.reduce("SUM", strategy.run(step_fn, args=(xb, yb)), axis=None)

    dataset = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))
    batches = list(dataset)
    warm = 5       # traced, and past the calls after which compiled kernels are built (ops/jit.py)
    for xb, yb in batches[:warm]:
        train_step(xb, yb)
    start = time.perf_counter()
    for xb, yb in batches[warm:]:
        train_step(xb, yb)
    elapsed = time.perf_counter() - start
    if (strategy.cluster_resolver.task_id or 0) == 0:
        print(json.dumps({"workers": strategy.num_replicas_in_sync,
                          "examples_per_second": global_batch * (steps - warm) / elapsed}))


def worker_fit(steps, global_batch):
    """Keras `fit` of the same MLP under the strategy: examples/s of the second epoch (the first traces)."""
    import tensorflux as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(global_batch * steps, 256)).astype(np.float32)
    y = rng.normal(size=(global_batch * steps, 1)).astype(np.float32)
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((256,)), tf.keras.layers.Dense(512, activation="relu"),
                                     tf.keras.layers.Dense(1)])
        model.compile(tf.keras.optimizers.SGD(0.01), "mse")

    class EpochTimer(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.elapsed = time.perf_counter() - self.start

    timer = EpochTimer()
    model.fit(x, y, batch_size=global_batch, epochs=2, shuffle=False, verbose=0, callbacks=[timer])
    if (strategy.cluster_resolver.task_id or 0) == 0:
        print(json.dumps({"workers": strategy.num_replicas_in_sync, "examples_per_second": len(x) / timer.elapsed}))


TF_WORKER = r"""
import json, os, sys, time
import numpy as np
import tensorflow as tf
steps, global_batch = int(sys.argv[1]), int(sys.argv[2])
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rng = np.random.default_rng(0)
x = rng.normal(size=(global_batch * steps, 256)).astype(np.float32)
y = rng.normal(size=(global_batch * steps, 1)).astype(np.float32)
with strategy.scope():
    w1 = tf.Variable(tf.random.normal([256, 512], stddev=0.05, seed=1))
    w2 = tf.Variable(tf.random.normal([512, 1], stddev=0.05, seed=2))
variables = [w1, w2]
def step_fn(xb, yb):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(xb, w1))
        per_example = tf.reduce_sum(tf.square(tf.matmul(h, w2) - yb), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
    grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, variables))
    for v, g in zip(variables, grads):
        v.assign_sub(0.01 * g)
    return loss
@tf.function
def train_step(it):
    xb, yb = next(it)
    return strategy.reduce("SUM", strategy.run(step_fn, args=(xb, yb)), axis=None)
options = tf.data.Options()
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch).with_options(options)
it = iter(strategy.experimental_distribute_dataset(dataset))
train_step(it)
start = time.perf_counter()
for _ in range(steps - 1):
    train_step(it)
elapsed = time.perf_counter() - start
if json.loads(os.environ["TF_CONFIG"])["task"]["index"] == 0:
    print(json.dumps({"examples_per_second": global_batch * (steps - 1) / elapsed}))
"""


def _tensorflow_rate(python, n, steps, batch):
    import socket
    ports = []
    for _ in range(n):
        with socket.socket() as s:
            s.bind(("localhost", 0))
            ports.append(s.getsockname()[1])
    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    processes = []
    for i in range(n):
        env = dict(os.environ, TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}}),
                   TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="", **_threads_per_worker(n))
        processes.append(subprocess.Popen([python, "-c", TF_WORKER, str(steps), str(batch)], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True))
    outputs = [p.communicate(timeout=900)[0] for p in processes]
    for text in outputs:
        for line in text.splitlines():
            if line.startswith("{"):
                return json.loads(line)["examples_per_second"]
    return None


def local_replicas(epochs, steps, batch):
    """Examples/s of Keras fit with no strategy and MirroredStrategy over 1 and 2 logical CPUs, interleaved."""
    import contextlib
    import tensorflux as tf
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch * steps, 784)).astype(np.float32)
    y = rng.integers(0, 10, size=batch * steps)

    def build(strategy):
        with strategy.scope() if strategy is not None else contextlib.nullcontext():
            model = tf.keras.Sequential([tf.keras.Input((784,)), tf.keras.layers.Dense(512, activation="relu"),
                                         tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(10)])
            model.compile(tf.keras.optimizers.SGD(0.01),
                          tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        model.fit(x[:batch * 3], y[:batch * 3], batch_size=batch, epochs=2, verbose=0, shuffle=False)   # traced
        return model

    def pinned(way):      # the traced steps always run `way` (the step otherwise times both and keeps the faster)
        model = build(tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"]))
        model.make_train_function()._one_step._chooser.choose(way)
        return model

    two = "MirroredStrategy, 2 logical CPUs"
    models = {"no strategy": build(None), "MirroredStrategy, 1 logical CPU": build(tf.distribute.MirroredStrategy(["cpu:0"])),
              two: build(tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"])),
              two + ": per-replica functions in replica threads": pinned("at once"),
              two + ": whole step (its ReplicaCall: in turn or at once)": pinned("whole")}
    wall = {name: [] for name in models}
    cpu = {name: [] for name in models}
    for _ in range(epochs):
        for name, model in models.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
            wall[name].append(len(x) / (time.perf_counter() - start))
            cpu[name].append(len(x) / (time.process_time() - start_cpu))
    base = float(np.median(wall["no strategy"]))
    print(f"## Keras fit on local replicas (MLP 784-512-512-10, batch {batch}, {steps} steps per epoch, "
          f"{epochs} epochs each, interleaved, one process; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)\n")
    print("| | examples/s (median) | best | vs no strategy | examples per CPU-second (median) |\n|--|--:|--:|--:|--:|")
    for name in models:
        median = float(np.median(wall[name]))
        print(f"| {name} | {median:,.0f} | {max(wall[name]):,.0f} | {median / base:.2f}× | {np.median(cpu[name]):,.0f} |")
    chooser = models[two].make_train_function()._one_step._chooser
    print(f"\n{two}: the step chose \"{chooser._chosen}\" (median step times, ms: " + ", ".join(
        f"{way} {1e3 * float(np.median(times)):.1f}" for way, times in chooser._times.items() if times) + ")")


_LOOP_MODELS = {
    # name: (layers after the input, input shape, batch); see local_loop
    "MLP 784-512-512-10": (lambda L: [L.Dense(512, activation="relu"), L.Dense(512, activation="relu"), L.Dense(10)],
                           (784,), 256),
    "narrow MLP 64-(128 x 6)-10": (lambda L: [L.Dense(128, activation="tanh") for _ in range(6)] + [L.Dense(10)],
                                   (64,), 512),
    "convnet 28x28x1, Conv 3x3x16 + pool + Conv 3x3x32 + pool + Dense 10": (
        lambda L: [L.Conv2D(16, 3, activation="relu"), L.MaxPooling2D(), L.Conv2D(32, 3, activation="relu"),
                   L.MaxPooling2D(), L.Flatten(), L.Dense(10)], (28, 28, 1), 128),
}


def local_loop(epochs, steps, names):
    """A custom training loop as in TensorFlow's distributed-training guide (`strategy.run(train_step)` inside a
    tf.function, Keras model and optimizer) with no strategy and MirroredStrategy over one and two logical CPUs,
    the two-replica step adaptive (its ReplicaCall times "in turn" and "at once" and keeps the faster), pinned to
    each way, and traced the earlier way (every replica's ops in one graph, run in order); epochs interleaved."""
    import contextlib
    import tensorflux as tf
    from tensorflux._src.distribute.replica_functions import REPLICA_CALL
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpus[0], [tf.config.LogicalDeviceConfiguration()] * 2)
    for name in names:
        layers, shape, batch = _LOOP_MODELS[name]
        rng = np.random.default_rng(0)
        x = rng.normal(size=(batch * steps,) + shape).astype(np.float32)
        y = rng.integers(0, 10, size=batch * steps)

        def build(strategy, way=None):
            with strategy.scope() if strategy is not None else contextlib.nullcontext():
                tf.keras.utils.set_random_seed(1)
                model = tf.keras.Sequential([tf.keras.Input(shape)] + layers(tf.keras.layers))
                optimizer = tf.keras.optimizers.SGD(0.01)
            loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
            run = (strategy.run if way != "one graph" else strategy._run_in_one_graph) if strategy else None

            def replica_step(xb, yb):
                with tf.GradientTape() as tape:
                    loss = tf.nn.compute_average_loss(loss_fn(yb, model(xb, training=True)), global_batch_size=batch)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            @tf.function
            def step(xb, yb):
                if strategy is None:
                    return replica_step(xb, yb)
                return strategy.reduce("SUM", run(replica_step, args=(xb, yb)), axis=None)

            data = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch)
            batches = list(strategy.experimental_distribute_dataset(data) if strategy else data)
            for xb, yb in batches[:2]:
                step(xb, yb)
            if way in ("in turn", "at once"):
                graph = step.get_concrete_function(*batches[0]).graph
                for op in graph.get_operations():
                    if op.type == REPLICA_CALL.name:
                        op.attrs["chooser"].choose(way)
            return step, batches, model

        two = "MirroredStrategy, 2 logical CPUs"
        configs = {"no strategy": build(None), "MirroredStrategy, 1 logical CPU": build(
            tf.distribute.MirroredStrategy(["cpu:0"])), two + " (adaptive)": build(tf.distribute.MirroredStrategy(
                ["cpu:0", "cpu:1"]))}
        for way in ("at once", "in turn", "one graph"):
            configs[f"{two}: {way}"] = build(tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"]), way)
        wall = {key: [] for key in configs}
        cpu = {key: [] for key in configs}
        for _ in range(epochs):
            for key, (step, batches, _) in configs.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                for xb, yb in batches:
                    step(xb, yb)
                wall[key].append(len(x) / (time.perf_counter() - start))
                cpu[key].append(len(x) / (time.process_time() - start_cpu))
        weights = [m.get_weights() for _, _, m in configs.values()]
        same = all(all(np.array_equal(a, b) for a, b in zip(weights[2], w)) for w in weights[3:])
        base = float(np.median(wall["no strategy"]))
        print(f"\n## Custom loop, {name} (batch {batch}, {steps} steps per epoch, {epochs} epochs each, interleaved, "
              f"one process; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)\n")
        print("| | examples/s (median) | best | vs no strategy | examples per CPU-second (median) |\n"
              "|--|--:|--:|--:|--:|")
        for key in configs:
            median = float(np.median(wall[key]))
            print(f"| {key} | {median:,.0f} | {max(wall[key]):,.0f} | {median / base:.2f}× | "
                  f"{np.median(cpu[key]):,.0f} |")
        step, batches, _ = configs[two + " (adaptive)"]
        for op in step.get_concrete_function(*batches[0]).graph.get_operations():
            if op.type == REPLICA_CALL.name:
                chooser = op.attrs["chooser"]
                print(f"\nadaptive: chose \"{chooser._chosen}\" (median step times, ms: " + ", ".join(
                    f"{w} {1e3 * float(np.median(t)):.1f}" for w, t in chooser._times.items() if t) + ")")
        print(f"two-replica weights bit-equal across the four ways: {same}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs="*")
    parser.add_argument("--workers", nargs="*", type=int, default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--tf-python", help="an interpreter with tensorflow, to run the same loop on TensorFlow")
    parser.add_argument("--local", action="store_true", help="Keras fit on local replicas (logical CPUs), no MPI")
    parser.add_argument("--epochs", type=int, default=7, help="--local: epochs of each configuration")
    parser.add_argument("--local-loop", nargs="*", choices=sorted(_LOOP_MODELS), default=None,
                        help="a custom loop (strategy.run in a tf.function) on local replicas; models to run (all: none given)")
    args = parser.parse_args()
    if args.local:
        return local_replicas(args.epochs, args.steps, args.batch)
    if args.local_loop is not None:
        return local_loop(args.epochs, args.steps, args.local_loop or list(_LOOP_MODELS))
    if args.worker is not None:
        kind = args.worker[0]
        if kind == "allreduce":
            return worker_allreduce()
        run = worker_fit if kind == "fit" else worker_train
        return run(int(args.worker[1]), int(args.worker[2]))
    print("## all-reduce on loopback, 2 workers (one fused call over 4 float32 tensors)\n")
    print("| message | time | bandwidth |\n|--:|--:|--:|")
    for row in _launch(2, "allreduce")[0]["allreduce"]:
        kib = row["bytes"] / 1024
        print(f"| {kib:,.0f} KiB | {row['seconds'] * 1e6:,.0f} µs | {row['bytes'] / row['seconds'] / 1e9:.2f} GB/s |")
    print(f"\n## data-parallel training (MLP 256-512-1, global batch {args.batch}, {args.steps} steps)\n")
    print("Custom loop on both sides (TensorFlow's Keras 3 `fit` fails under its MultiWorkerMirroredStrategy);"
          " tensorflux's Keras `fit` of the same model in its own column.\n")
    print("| workers | tensorflux loop examples/s | scaling | tensorflux `fit` examples/s | scaling "
          "| TensorFlow loop examples/s | scaling | loop ratio |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|")
    base = fit_base = tf_base = None
    for n in args.workers:
        rate = _launch(n, "train", str(args.steps), str(args.batch))[0]["examples_per_second"]
        fit_rate = _launch(n, "fit", str(args.steps), str(args.batch))[0]["examples_per_second"]
        base, fit_base = base or rate, fit_base or fit_rate
        tf_rate = _tensorflow_rate(args.tf_python, n, args.steps, args.batch) if args.tf_python else None
        tf_base = tf_base or tf_rate
        tf_cells = (f"{tf_rate:,.0f} | {tf_rate / tf_base:.2f}× | {rate / tf_rate:.2f}×" if tf_rate else "– | – | –")
        print(f"| {n} | {rate:,.0f} | {rate / base:.2f}× | {fit_rate:,.0f} | {fit_rate / fit_base:.2f}× | {tf_cells} |")


if __name__ == "__main__":
    main()
