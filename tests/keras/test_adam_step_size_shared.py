"""Adam computes its bias-corrected step size once per dtype and step: the updates keep their bits."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.keras.optimizers import optimizer as opt_mod


def _run(shared, cls, traced, steps=4):
    rng = np.random.default_rng(0)
    shapes = [(20, 4), (4,), (3, 3), (7,)]
    dtypes = [tf.float32, tf.float32, tf.float64, tf.float32]
    variables = [tf.Variable(rng.standard_normal(s), dtype=d) for s, d in zip(shapes, dtypes)]
    grads = [[tf.constant(rng.standard_normal(s), dtype=d) for s, d in zip(shapes, dtypes)] for _ in range(steps)]
    optimizer = cls(learning_rate=0.01)
    ids = tf.constant([1, 5, 5, 19], tf.int32)
    slices = [tf.IndexedSlices(tf.constant(rng.standard_normal((4, 4)), tf.float32), ids, tf.constant([20, 4]))
              for _ in range(steps)]

    def apply(gs, sl):
        optimizer.apply_gradients([(sl, variables[0])] + list(zip(gs[1:], variables[1:])))
    step = tf.function(apply) if traced else apply
    original = opt_mod.Adam._update_all
    try:
        if not shared:
            opt_mod.Adam._update_all = opt_mod.Optimizer._update_all   # per-variable step sizes, as before
        for gs, sl in zip(grads, slices):
            step(gs, sl)
    finally:
        opt_mod.Adam._update_all = original
    return [v.numpy() for v in variables]


@pytest.mark.parametrize("cls", [tf.keras.optimizers.Adam, tf.keras.optimizers.AdamW])
@pytest.mark.parametrize("traced", [False, True])
def test_shared_step_size_gives_the_per_variable_bits(cls, traced):
    for a, b in zip(_run(True, cls, traced), _run(False, cls, traced)):
        assert a.dtype == b.dtype
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_step_size_cache_lives_for_one_step_only():
    v = tf.Variable([1.0, 2.0])
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.1)
    optimizer.apply_gradients([(tf.constant([0.5, -0.5]), v)])
    assert optimizer._step_sizes is None      # (later steps' bits are compared in the test above)
