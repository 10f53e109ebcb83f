"""conv2d and its gradients give the same bits whatever the machine's thread count (or OMP_NUM_THREADS):
the blocks their products are cut into (ops/nn/conv.py: `_image_blocks`, `_pixel_blocks`) decide the bits
-- a filter gradient adds its blocks' partial products, and OpenBLAS rounds the rows past a block's last
full tile differently -- so they never depend on `blas_threads.worker_count()`. The bits are those of the
two-core machine before the block count was made a constant (4 = 2 per thread on 2 cores): the cases
below fall on that minimum."""
import numpy as np
import pytest

from tensorflux._src.ops import jit
from tensorflux._src.ops.linalg import blas_threads
from tensorflux._src.ops.nn import compiled_col2im, conv

ATTRS = dict(strides=[1, 1, 1, 1], explicit_paddings=[], data_format="NHWC", dilations=[1, 1, 1, 1])

# (input, filter, padding): im2col blocks of images (3 MB of patches) and the tap-major form of a
# grayscale first layer (2.8 MB of output rows); both above gemm's threshold for sharing out.
CASES = [((24, 12, 12, 24), (3, 3, 24, 64), "SAME"), ((32, 28, 28, 1), (3, 3, 1, 32), "VALID"),
         ((20, 15, 13, 16), (3, 3, 16, 96), "VALID")]


def _run_all(x, w, dy, padding):
    attrs = dict(ATTRS, padding=padding)
    return (conv._conv2d_kernel(x, w, **attrs),
            conv._conv2d_backprop_filter_kernel(x, np.array(w.shape), dy, **attrs),
            conv._conv2d_backprop_input_kernel(np.array(x.shape), w, dy, **attrs))


@pytest.mark.parametrize("x_shape,w_shape,padding", CASES)
def test_same_bits_for_every_thread_count(monkeypatch, x_shape, w_shape, padding):
    rng = np.random.default_rng(sum(x_shape))
    x = rng.standard_normal(x_shape, dtype=np.float32)
    w = rng.standard_normal(w_shape, dtype=np.float32)
    y = conv._conv2d_kernel(x, w, **dict(ATTRS, padding=padding))
    dy = rng.standard_normal(y.shape, dtype=np.float32)
    if jit.numba_or_none() is not None:       # the compiled col2im from the first call on
        monkeypatch.setattr(compiled_col2im, "HOT_CALLS", 1)
    results = {}
    for workers in (2, 1, 3, 8):
        monkeypatch.setattr(blas_threads, "worker_count", lambda workers=workers: workers)
        results[workers] = _run_all(x, w, dy, padding)
    for workers in (1, 3, 8):
        for name, got, want in zip(("Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput"), results[workers],
                                   results[2]):
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (name, workers)


def test_the_cases_are_cut_into_the_minimum_of_blocks():
    # what makes the test above able to fail: the byte count alone would give fewer than _MIN_BLOCKS
    assert conv._image_blocks(24, 144 * 216 * 4, 24 * 144 * 216 * 64) == [(0, 6), (6, 12), (12, 18), (18, 24)]
    assert len(conv._pixel_blocks(32 * 26 * 26, 32 * 4)) == conv._MIN_BLOCKS == 4
