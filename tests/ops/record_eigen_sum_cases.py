"""Records TensorFlow 2.21's float32 sums, means, softmax and log_softmax for tests/ops/test_eigen_sum.py.

    ~/venv-tf/bin/python tests/ops/record_eigen_sum_cases.py     # writes fixtures/eigen_sum.npz

Inputs are seeded random draws (normal, scaled, some made non-negative, a few with special values) over
random shapes and reduction axes, plus long vectors around the sizes where Eigen splits a sum (8192 per
run, two threads from 108,388 values). Small inputs are stored; long ones are regenerated from their seed
(their first values are stored to check the generator).
"""
import json
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "eigen_sum.npz")


def main():
    rng = np.random.default_rng(20261126)
    arrays, meta = {}, []
    while len(meta) < 140:
        nd = int(rng.integers(1, 5))
        shape = tuple(int(v) for v in rng.choice([1, 2, 3, 5, 7, 8, 9, 16, 17, 20, 33, 40, 64, 100], size=nd))
        if np.prod(shape) > 3000:
            continue
        axes = sorted(int(a) for a in rng.choice(nd, size=int(rng.integers(0, nd + 1)), replace=False))
        x = (rng.standard_normal(shape) * rng.choice([1.0, 10.0, 1000.0])).astype(np.float32)
        if rng.random() < 0.3:
            x = np.abs(x)
        i = len(meta)
        arrays[f"x{i}"] = x
        arrays[f"sum{i}"] = tf.reduce_sum(x, axis=axes).numpy()
        arrays[f"mean{i}"] = tf.reduce_mean(x, axis=axes).numpy()
        meta.append({"kind": "reduce", "axes": axes})
    special = np.array([0.0, -0.0, np.inf, 1e30, -1e30, 3.0, np.nan, 1e-40] * 5, np.float32)
    for x in (np.full(40, -0.0, np.float32), special, special[:6], np.float32([3e38] * 16)):
        i = len(meta)
        arrays[f"x{i}"] = x
        arrays[f"sum{i}"] = tf.reduce_sum(x).numpy()
        arrays[f"mean{i}"] = tf.reduce_mean(x).numpy()
        meta.append({"kind": "reduce", "axes": [0]})
    for n in (8191, 8192, 8193, 20001, 100000, 108387, 108388, 262147, 1000003):
        seed = 1000 + n
        x = (np.random.default_rng(seed).standard_normal(n) * 100).astype(np.float32)
        i = len(meta)
        arrays[f"head{i}"] = x[:4]
        arrays[f"sum{i}"] = tf.reduce_sum(x).numpy()
        arrays[f"mean{i}"] = tf.reduce_mean(x).numpy()
        meta.append({"kind": "long", "n": n, "seed": seed})
    for _ in range(60):
        shape = (int(rng.integers(1, 20)), int(rng.choice([1, 2, 3, 5, 7, 8, 9, 10, 16, 17, 31, 33, 100])))
        x = (rng.standard_normal(shape) * rng.choice([0.5, 3.0, 20.0])).astype(np.float32)
        i = len(meta)
        arrays[f"x{i}"] = x
        arrays[f"softmax{i}"] = tf.nn.softmax(x).numpy()
        arrays[f"log_softmax{i}"] = tf.nn.log_softmax(x).numpy()
        meta.append({"kind": "softmax"})
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {len(meta)} cases to {OUT}")


if __name__ == "__main__":
    main()
