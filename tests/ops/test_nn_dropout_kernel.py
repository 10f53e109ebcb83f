"""The Dropout kernel's float32/float64 form (multiply, then zeros where dropped) gives the bits of the
select it replaced -- `np.where(keep, x * scale, 0)` with the Python-float scale, and the mask
`np.where(keep, scale, 0.0)` cast to x's dtype -- for special values, awkward rates and a noise_shape."""
import numpy as np
import pytest

from tensorflux._src.ops import registry
from tensorflux._src.ops.random.seeds import _stream
from tensorflux._src.ops.random.sampling import _uniform_unit


def _reference(x, rate, noise):
    keep = noise >= rate
    scale = 1.0 / (1.0 - rate) if rate < 1 else 0.0
    out = np.where(keep, x * scale, 0).astype(x.dtype, copy=False)
    return out, np.broadcast_to(np.where(keep, scale, 0.0).astype(x.dtype), x.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rate", [0.1, 0.3, 0.5, 0.77])
@pytest.mark.parametrize("noise_shape", [None, (1, 40)])
def test_same_bits_as_the_select(dtype, rate, noise_shape):
    x = np.random.RandomState(0).randn(30, 40).astype(dtype)
    flat = x.reshape(-1)
    flat[::13], flat[1::17], flat[2::19], flat[3::23] = np.inf, -np.inf, np.nan, -0.0
    stream, s1, s2 = _stream("Dropout", 7)
    # The kernel draws from the stream's generator: replay the same draw for the reference.
    state = stream.generator.bit_generator.state
    out, mask = registry.OPS["Dropout"].kernel(x, dtype(rate), noise_shape, s1, s2, stream)
    stream.generator.bit_generator.state = state
    dims = x.shape if noise_shape is None else noise_shape
    want_out, want_mask = _reference(x, float(dtype(rate)), _uniform_unit(stream.generator, dims, np.dtype(dtype)))
    for got, want in ((out, want_out), (mask, want_mask)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
