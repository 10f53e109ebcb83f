"""Data-parallel Keras training on MPI workers: run `mpiexec -n 2 python examples/distributed_fit.py`
(needs `pip install -e ".[distributed]"`); run alone, it trains as a job of one worker."""
import numpy as np

import tensorflux as tf

strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id or 0

rng = np.random.default_rng(0)
x = rng.normal(size=(1024, 8)).astype(np.float32)
y = x @ rng.normal(size=(8, 1)).astype(np.float32) + 0.5

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")

history = model.fit(x, y, batch_size=64, epochs=5, verbose=0)   # 64 = the global batch
print(f"worker {rank} of {strategy.num_replicas_in_sync}: loss {history.history['loss'][0]:.4f} -> "
      f"{history.history['loss'][-1]:.4f}, weights checksum {sum(float(w.numpy().sum()) for w in model.weights):.6f}",
      flush=True)
