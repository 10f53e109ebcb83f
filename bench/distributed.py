"""Multi-worker benchmarks on this machine (loopback MPI): all-reduce bandwidth against message size, and
data-parallel training throughput with 1, 2 and 4 workers.

    python bench/distributed.py            # launches the workers itself with mpiexec
    python bench/distributed.py --workers 1 2

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


def _launch(n, *args):
    command = ([_mpiexec(), "-n", str(n)] if n > 1 else []) + [sys.executable, HERE, "--worker", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
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
    train_step(*batches[0])
    start = time.perf_counter()
    for xb, yb in batches:
        train_step(xb, yb)
    elapsed = time.perf_counter() - start
    if (strategy.cluster_resolver.task_id or 0) == 0:
        print(json.dumps({"workers": strategy.num_replicas_in_sync, "examples_per_second": len(x) / elapsed}))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs="*")
    parser.add_argument("--workers", nargs="*", type=int, default=[1, 2, 4])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    if args.worker is not None:
        kind = args.worker[0]
        return worker_allreduce() if kind == "allreduce" else worker_train(int(args.worker[1]), int(args.worker[2]))
    print("## all-reduce on loopback, 2 workers (one fused call over 4 float32 tensors)\n")
    print("| message | time | bandwidth |\n|--:|--:|--:|")
    for row in _launch(2, "allreduce")[0]["allreduce"]:
        kib = row["bytes"] / 1024
        print(f"| {kib:,.0f} KiB | {row['seconds'] * 1e6:,.0f} µs | {row['bytes'] / row['seconds'] / 1e9:.2f} GB/s |")
    print(f"\n## data-parallel training (MLP 256-512-1, global batch {args.batch}, {args.steps} steps)\n")
    print("| workers | examples/s | scaling efficiency |\n|--:|--:|--:|")
    base = None
    for n in args.workers:
        rate = _launch(n, "train", str(args.steps), str(args.batch))[0]["examples_per_second"]
        base = base or rate
        print(f"| {n} | {rate:,.0f} | {rate / base / 1:.2f}× of 1 worker |")


if __name__ == "__main__":
    main()
