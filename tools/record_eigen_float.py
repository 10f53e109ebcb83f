"""Records TensorFlow 2.21's float32 exp, log, tanh and sigmoid of a fixed set of inputs into
tests/ops/fixtures/eigen_float.npz, for tests/ops/test_eigen_float.py. Run it with TensorFlow's
interpreter from the repository root:

    ~/venv-tf/bin/python tools/record_eigen_float.py

The inputs cover every branch of Eigen's approximations: tiny, subnormal, huge, infinite and NaN values,
the clamping points, dense runs around them, and a length that is not a multiple of 8 (Eigen's scalar
tail).
"""
import numpy as np
import tensorflow as tf

OUT = "tests/ops/fixtures/eigen_float.npz"


def inputs():
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, 1e-40, -1e-40, 1e-30, 3e-4, 4e-4, 5e-4, 0.5, 1.0, 7.9, 7.90738964, 8.0, 9.0, 15.6, 16.6,
               16.7, 20.0, 87.0, 88.72, 88.8, 89.0, -87.0, -95.0, -103.9, -104.0, -104.1, -200.0,
               np.inf, -np.inf, np.nan, 3.4e38, -3.4e38]
    parts = [np.array(special), rng.normal(0, 3, 2000), rng.uniform(-100, 100, 1000),
             rng.uniform(-1e-3, 1e-3, 300), np.linspace(-20, 20, 801)]
    return np.concatenate(parts).astype(np.float32)      # 4134 values: 4134 % 8 == 6


def main():
    x = inputs()
    positive = np.abs(x) + np.float32(1e-3)
    np.savez_compressed(OUT, x=x, exp=tf.math.exp(x).numpy(), tanh=tf.math.tanh(x).numpy(),
                        sigmoid=tf.math.sigmoid(x).numpy(), log_input=positive, log=tf.math.log(positive).numpy(),
                        log_special=tf.math.log(np.abs(x[:33])).numpy())
    print(f"wrote {len(x)} values per function to {OUT}")


if __name__ == "__main__":
    main()
