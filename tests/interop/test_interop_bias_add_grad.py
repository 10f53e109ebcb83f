"""BiasAddGrad (ops/nn/bias_add_grad.py) against TensorFlow 2.21's tf.raw_ops.BiasAddGrad run in the same
session on the same machine (the same thread count on both sides): channels-last gradients of random
shapes around the kernel's switches (one row, few and many channels, one block or two), float32,
float64, float16 and complex64, every bit equal. Skipped without TENSORFLOW_PYTHON."""
import os
import tempfile

import numpy as np

from tensorflux._src.ops.nn import bias_add_grad as bag
from _tensorflow_side import run_tensorflow

_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
data = np.load(sys.argv[1])
out = {}
for name in data.files:
    got = tf.raw_ops.BiasAddGrad(out_backprop=data[name]).numpy()
    out[name] = got.view(np.uint8).tolist()
print(json.dumps(out))
"""


def _arrays(seed=int.from_bytes(os.urandom(4), "little")):
    rng = np.random.default_rng(seed)
    arrays = {}
    shapes = [(128, 26, 26, 32), (128, 11, 11, 64), (1, 9), (2, 3), (5000, 32), (1000, 32), (3700, 17)]
    for _ in range(40):
        rows = int(rng.choice([1, 2, 7, 64, 500, 1900, 2000, 3000, 4000, 9000, 30000]))
        channels = int(rng.choice([1, 3, 7, 8, 16, 17, 31, 32, 33, 63, 64, 65, 100, 300]))
        shapes.append((rows, channels) if rng.random() < 0.5 else (rows, 1, channels))
    for i, shape in enumerate(shapes):
        dtype = rng.choice(["float32", "float32", "float64", "float16", "complex64"])
        if int(np.prod(shape)) > 400000:
            dtype = "float32"
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3, shape)
        if dtype == "complex64":
            x = x + 1j * rng.standard_normal(shape)
        if dtype == "float16":
            x = x / 100
        arrays[f"x{i}_{dtype}"] = x.astype(dtype)
    return seed, arrays


def test_bias_add_grad_matches_tensorflow_bit_for_bit():
    seed, arrays = _arrays()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.npz")
        np.savez(path, **arrays)
        want = run_tensorflow(_SCRIPT, path, timeout=600)
    bad = []
    for name, x in arrays.items():
        for attempt in range(4):     # cold, then once the compiled loop is built
            got = bag._bias_add_grad_kernel(x, "NHWC")
            if got.view(np.uint8).tolist() != want[name]:
                bad.append((name, x.shape, attempt))
    assert not bad, f"seed {seed}: {bad[:10]}"
