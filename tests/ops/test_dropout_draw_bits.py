"""The Dropout kernel (one draw, then five NumPy calls into reused buffers) keeps the bits of the select it
stands for -- `np.where(noise >= rate, x * scale, 0)` and the mask `np.where(noise >= rate, scale, 0)` --
over shapes from 0-d to a Dense batch, rates at the edges (0, just below 1, 1, negative, NaN: possible
through a rate tensor), noise shapes with unknown entries, and every float dtype; its gradient agrees with
finite differences."""
import numpy as np
import pytest

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in multiply:RuntimeWarning")

import tensorflux as tf
from tensorflux._src.ops import registry
from tensorflux._src.ops.random.seeds import RandomStream
from tensorflux._src.ops.random.sampling import _uniform_unit
from tensorflux._src.types import dtypes as _dt

_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _select(x, rate, noise):
    keep = noise >= rate
    scale = 1.0 / (1.0 - rate) if rate < 1 else 0.0
    wide = x.astype(np.float32) if x.dtype.itemsize < 4 else x
    out = np.where(keep, wide * scale, 0).astype(x.dtype, copy=False)
    return out, np.broadcast_to(np.where(keep, scale, 0.0).astype(x.dtype), x.shape)


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    bits = _BITS[got.dtype.itemsize]
    assert np.array_equal(np.ascontiguousarray(got).view(bits), np.ascontiguousarray(want).view(bits))


def _values(rs, shape, dtype):
    x = np.asarray(rs.standard_normal(shape), np.float64)
    flat = x.reshape(-1)
    if flat.size > 8:
        flat[::7], flat[1::11], flat[2::13], flat[3::17] = np.inf, -np.inf, np.nan, -0.0
    return x.astype(dtype)


_SHAPES = [(), (0,), (0, 5), (1,), (7,), (3, 5), (60, 128), (2, 3, 4, 5), (1, 999)]
_RATES = [0.0, 0.2, 0.5, 0.77, 1 - 2 ** -20, 1.0, -0.5, float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_bits_of_the_select_over_shapes_and_rates(dtype):
    np_dtype = _dt.as_dtype(dtype)._np
    draw_dtype = np.dtype(np.float32) if np_dtype.itemsize < 4 else np_dtype
    rs = np.random.RandomState(11)
    kernel = registry.OPS["Dropout"].kernel
    for shape in _SHAPES:
        x = _values(rs, shape, np_dtype)
        for rate in _RATES:
            stream = RandomStream(3, 4)   # (inf · 0 when rate >= 1 is NaN, then dropped: NumPy warns)
            state = stream.generator.bit_generator.state
            out, mask = kernel(x, np_dtype.type(rate), None, 3, 4, stream)
            stream.generator.bit_generator.state = state
            noise = _uniform_unit(stream.generator, shape, draw_dtype)
            want_out, want_mask = _select(x, float(np_dtype.type(rate)), noise)
            _same_bits(out, want_out)
            _same_bits(mask, want_mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("noise_shape", [(1, 40), (30, 1), (None, 1), (1, 1), (30, 40), (40,)])
def test_bits_with_a_noise_shape(dtype, noise_shape):
    x = _values(np.random.RandomState(2), (30, 40), dtype)
    stream = RandomStream(9, 1)
    state = stream.generator.bit_generator.state
    out, mask = registry.OPS["Dropout"].kernel(x, dtype(0.3), noise_shape, 9, 1, stream)
    stream.generator.bit_generator.state = state
    dims = tuple(x.shape[i] if d is None else d for i, d in enumerate(noise_shape))
    want_out, want_mask = _select(x, float(dtype(0.3)), _uniform_unit(stream.generator, dims, np.dtype(dtype)))
    _same_bits(out, want_out)
    _same_bits(mask, want_mask)


def test_a_stream_continues_across_calls():
    # Each call draws the next values of the stream, as the select form's kernel did.
    x = np.ones((60, 128), np.float32)
    stream, replay = RandomStream(21, 22), RandomStream(21, 22)
    for _ in range(5):
        out, _ = registry.OPS["Dropout"].kernel(x, np.float32(0.2), None, 21, 22, stream)
        want, _ = _select(x, float(np.float32(0.2)), replay.generator.random((60, 128), dtype=np.float32))
        _same_bits(out, want)


def test_gradient_matches_finite_differences():
    x0 = np.random.RandomState(4).rand(6, 7)
    x = tf.constant(x0)
    rate = tf.constant(0.3, tf.float64)
    tf.random.set_seed(5)
    with tf.GradientTape() as tape:
        tape.watch([x, rate])
        y = tf.nn.dropout(x, rate, seed=3)
        loss = tf.reduce_sum(y * y)
    gx, grate = tape.gradient(loss, [x, rate])
    mask = y.numpy() / np.where(x0 == 0, 1, x0)           # 0 or 1/(1 - rate) per element, this draw's
    eps = 1e-6
    numeric = ((x0 + eps) * mask) ** 2 - ((x0 - eps) * mask) ** 2
    np.testing.assert_allclose(gx.numpy(), numeric / (2 * eps), rtol=1e-6)
    keep = mask != 0
    f = lambda r: np.sum(np.where(keep, x0 / (1 - r), 0.0) ** 2)   # the same draw, the scale moved
    np.testing.assert_allclose(grate.numpy(), (f(0.3 + eps) - f(0.3 - eps)) / (2 * eps), rtol=1e-5)


def test_eager_and_traced_dropout_agree_on_a_seeded_draw():
    x = tf.constant(np.random.RandomState(8).rand(60, 128).astype(np.float32))

    @tf.function
    def traced(x):
        return tf.nn.dropout(x, 0.2, seed=7)
    tf.random.set_seed(1)
    first_traced = traced(x).numpy()
    tf.random.set_seed(1)
    eager = tf.nn.dropout(x, 0.2, seed=7).numpy()
    # Same op seeds, same stream: the first eager draw equals the first traced draw.
    _same_bits(first_traced, eager)
    assert 0 < np.count_nonzero(eager) < eager.size


def test_keep_test_from_words_equals_the_float_draw_and_leaves_the_stream_where_it_would():
    from tensorflux._src.ops.random.sampling import _float32_unit_at_least
    rs = np.random.RandomState(0)
    edges = [0.0, -0.0, 0.2, 0.5, 0.999, 1 - 2 ** -24, 1 - 2 ** -25, 1.0, -1.0, float("nan"), 2 ** -24, 2 ** -30,
             3 * 2 ** -24]
    for _ in range(200):
        seed = int(rs.randint(1 << 30))
        floats = np.random.Generator(np.random.PCG64(seed))
        words = np.random.Generator(np.random.PCG64(seed))
        for _ in range(6):
            dims = tuple(int(d) for d in rs.randint(0, 9, size=rs.randint(0, 4)))   # odd and even counts
            rate = float(np.float32(rs.rand())) if rs.rand() < 0.3 else edges[rs.randint(len(edges))]
            want = floats.random(dims, dtype=np.float32) >= rate
            got = _float32_unit_at_least(words, dims, rate)
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want), (dims, rate)
            if rs.rand() < 0.3:                       # other draws in between continue the same stream
                n = int(rs.randint(0, 5))
                assert np.array_equal(floats.random(n, dtype=np.float32), words.random(n, dtype=np.float32))
        a, b = floats.bit_generator.state, words.bit_generator.state
        if not a["has_uint32"]:
            a["uinteger"] = b["uinteger"] = 0          # a spare word no draw reads again
        assert a == b


def test_other_bit_generators_take_numpys_draw():
    from tensorflux._src.ops.random.sampling import _float32_unit_at_least
    a, b = np.random.Generator(np.random.Philox(4)), np.random.Generator(np.random.Philox(4))
    assert np.array_equal(_float32_unit_at_least(a, (7, 3), 0.3), b.random((7, 3), dtype=np.float32) >= 0.3)
