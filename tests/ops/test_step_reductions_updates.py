"""The variable update kernels of a training step (`AssignAdd/AssignSubVariableOp`): the new value is a
fresh array with `old -/+ delta`'s bits (earlier reads keep the old array untouched), and mismatched
deltas raise TensorFlow's errors with its messages."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework import errors
from tensorflux._src.ops import state


def _bits(a):
    return np.asarray(a).reshape(-1).view(np.uint32)


SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3e-39, 3.4e38, -3.4e38], np.float32)


@pytest.mark.parametrize("shape", [(), (1,), (10,), (128,), (128, 10), (784, 128), (3, 4, 5)])
@pytest.mark.parametrize("op, ufunc", [(state.ASSIGN_SUB_VARIABLE, np.subtract), (state.ASSIGN_ADD_VARIABLE, np.add)])
def test_update_is_a_fresh_array_with_the_ufuncs_bits(shape, op, ufunc):
    rng = np.random.default_rng(len(shape))
    n = int(np.prod(shape))
    old = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    delta = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    if n >= 10:
        old[rng.integers(0, n, n // 5 + 1)] = rng.choice(SPECIALS, n // 5 + 1)
        delta[rng.integers(0, n, n // 5 + 1)] = rng.choice(SPECIALS, n // 5 + 1)
    old, delta = old.reshape(shape), delta.reshape(shape)
    if shape == ():
        old = np.float32(old)
    kept = np.array(old, copy=True)
    resource = state.VariableResource(old, old.dtype, shape, "v", 1)
    with np.errstate(all="ignore"):
        assert op.kernel(resource, delta) == ()
        want = ufunc(kept, delta)
    assert resource.value is not old
    assert np.array_equal(_bits(resource.value), _bits(want))
    assert np.array_equal(_bits(old), _bits(kept))      # an earlier read still sees the old value


def test_mismatched_deltas_raise_tensorflows_errors():
    resource = state.VariableResource(np.zeros((2, 3), np.float32), np.dtype(np.float32), (2, 3), "v", 1)
    with pytest.raises(errors.InvalidArgumentError, match=r"Trying to assign variable with wrong dtype\. "
                                                          r"Expected float got double"):
        state.ASSIGN_SUB_VARIABLE.kernel(resource, np.zeros((2, 3), np.float64))
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot update variable with shape \[2,3\] using a "
                                                          r"Tensor with shape \[3,2\], shapes must be equal\."):
        state.ASSIGN_ADD_VARIABLE.kernel(resource, np.zeros((3, 2), np.float32))


def test_uninitialised_resource_reports_the_shape_mismatch():
    resource = state.VariableResource(None, np.dtype(np.float32), None, "v", 1)
    with pytest.raises(errors.InvalidArgumentError, match=r"Cannot update variable with shape \[\] using a Tensor "
                                                          r"with shape \[2\]"):
        state.ASSIGN_SUB_VARIABLE.kernel(resource, np.zeros(2, np.float32))


def test_traced_and_eager_updates_agree():
    rng = np.random.default_rng(5)
    start = rng.standard_normal((784, 128)).astype(np.float32)
    grad = rng.standard_normal((784, 128)).astype(np.float32)
    eager, traced = tf.Variable(start), tf.Variable(start)
    step = tf.function(lambda v, g: v.assign_sub(0.01 * g))
    for _ in range(3):
        eager.assign_sub(0.01 * tf.constant(grad))
        step(traced, tf.constant(grad))
    want = start
    for _ in range(3):
        want = want - np.float32(0.01) * grad
    assert np.array_equal(_bits(eager.numpy()), _bits(want))
    assert np.array_equal(_bits(traced.numpy()), _bits(want))
