"""tf.random.Generator and the global generator: determinism per seed, TensorFlow's state layout and
advance (checked against real TensorFlow), distributions, the state advancing inside tf.function, errors,
and the static inference of the ops behind them (RngReadAndSkip, Stateless*V2)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.random import generator, stateless

S = tf.TensorSpec


def test_from_seed_is_deterministic_and_seeds_differ():
    a, b, c = (tf.random.Generator.from_seed(s) for s in (7, 7, 8))
    for _ in range(2):
        x, y, z = a.normal([3, 2]), b.normal([3, 2]), c.normal([3, 2])
        np.testing.assert_array_equal(x.numpy(), y.numpy())
        assert not np.allclose(x.numpy(), z.numpy())
    assert not np.allclose(a.normal([4]).numpy(), a.normal([4]).numpy())  # the state moved on


def test_state_layout_and_advance_match_tensorflow():
    # Real TensorFlow: from_seed(1234) starts at [1234, 0, 0]; each call skips 256 counter steps per element.
    g = tf.random.Generator.from_seed(1234)
    assert g.algorithm == 1
    state = g.state
    assert state.dtype == tf.int64 and state.shape == (3,)
    np.testing.assert_array_equal(state.numpy(), [1234, 0, 0])
    steps = [(lambda: g.normal([2, 3]), 2770), (lambda: g.uniform([5]), 4050), (lambda: g.truncated_normal([3]), 4818),
             (lambda: g.uniform([2], minval=0, maxval=10, dtype=tf.int32), 5330),
             (lambda: g.uniform_full_int([2], dtype=tf.int64), 5842), (lambda: g.split(2), 6354),
             (lambda: g.make_seeds(3), 7122)]
    for draw, counter in steps:
        draw()
        np.testing.assert_array_equal(g.state.numpy(), [counter, 0, 0])
    old = g.skip(3)
    np.testing.assert_array_equal(old.numpy(), [7122, 0, 0])
    np.testing.assert_array_equal(g.state.numpy(), [7890, 0, 0])


def test_seed_words_threefry_and_key_counter_constructors():
    np.testing.assert_array_equal(tf.random.Generator.from_seed(2 ** 70).state.numpy(), [0, 64, 0])
    np.testing.assert_array_equal(tf.random.Generator.from_seed(-1).state.numpy(), [-1, -1, -1])
    np.testing.assert_array_equal(tf.random.Generator.from_key_counter(5, [1, 2], "philox").state.numpy(), [1, 2, 5])
    t = tf.random.Generator.from_seed(3, alg="threefry")
    assert t.algorithm == 2 and t.state.shape == (2,)
    with pytest.raises(tf.errors.UnimplementedError, match="ThreeFry"):  # as TensorFlow on CPU
        t.normal([2])
    np.testing.assert_array_equal(t.state.numpy(), [3, 0])
    assert tf.random.Generator.from_seed(1, alg=tf.random.Algorithm.PHILOX).algorithm == 1
    assert tf.random.Generator.from_seed(1, alg="auto_select").algorithm == 1
    copy = tf.random.Generator(copy_from=tf.random.Generator.from_state([9, 0, 4], "philox"))
    np.testing.assert_array_equal(copy.state.numpy(), [9, 0, 4])
    assert int(copy.key) == 4


def test_reset_restarts_the_stream():
    g = tf.random.Generator.from_seed(11)
    first = g.uniform([4]).numpy()
    g.uniform([4])
    g.reset_from_seed(11)
    np.testing.assert_array_equal(g.uniform([4]).numpy(), first)
    g.reset([11, 0, 0])
    np.testing.assert_array_equal(g.uniform([4]).numpy(), first)


def test_distributions_dtypes_and_ranges():
    g = tf.random.Generator.from_seed(0)
    normal = g.normal([20000], mean=2.0, stddev=3.0).numpy()
    assert normal.dtype == np.float32 and abs(normal.mean() - 2) < 0.1 and abs(normal.std() - 3) < 0.1
    uniform = g.uniform([20000], minval=-1.0, maxval=3.0, dtype=tf.float64)
    assert uniform.dtype == tf.float64
    u = uniform.numpy()
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.05
    trunc = g.truncated_normal([20000]).numpy()
    assert np.abs(trunc).max() <= 2 and 0.85 < trunc.std() < 0.9
    ints = g.uniform([5000], minval=-3, maxval=4, dtype=tf.int64)
    assert ints.dtype == tf.int64 and set(np.unique(ints.numpy())) == set(range(-3, 4))
    full = g.uniform_full_int([1000])
    assert full.dtype == tf.uint64 and full.numpy().max() > 2 ** 63
    assert g.uniform([3], minval=None, maxval=None, dtype=tf.int32).dtype == tf.int32
    for dtype in (tf.float16, tf.bfloat16):
        half = g.truncated_normal([100], dtype=dtype)
        assert half.dtype == dtype and float(tf.reduce_max(tf.abs(tf.cast(half, tf.float32)))) <= 2
    assert g.normal([0]).shape == (0,)
    assert g.normal(tf.constant([2, 3])).shape == (2, 3)


def test_split_and_make_seeds():
    parent, twin = tf.random.Generator.from_seed(5), tf.random.Generator.from_seed(5)
    kids, twin_kids = parent.split(3), twin.split(3)
    assert len(kids) == 3 and all(isinstance(k, tf.random.Generator) for k in kids)
    draws = [k.normal([4]).numpy() for k in kids]
    np.testing.assert_array_equal(draws[0], twin_kids[0].normal([4]).numpy())
    assert not np.allclose(draws[0], draws[1])
    assert int(kids[0].state[0]) == 1024 and int(kids[0].state[1]) == 0  # counter 0 + 256·4 after one draw
    seeds = parent.make_seeds(4)
    assert seeds.dtype == tf.int64 and seeds.shape == (2, 4)
    np.testing.assert_array_equal(seeds.numpy()[1], 0)
    assert tf.random.stateless_uniform([2], seed=seeds[:, 0]).shape == (2,)


def test_state_advances_on_every_call_of_a_traced_function():
    g = tf.random.Generator.from_seed(42)
    eager_twin = tf.random.Generator.from_seed(42)

    @tf.function
    def draw():
        return g.normal([3]), g.uniform([2], maxval=5.0)

    results = [draw() for _ in range(3)]
    np.testing.assert_array_equal(g.state.numpy(), [42 + 3 * 256 * 5, 0, 0])
    assert not np.allclose(results[0][0].numpy(), results[1][0].numpy())
    for normal, uniform in results:  # traced == eager, call by call
        np.testing.assert_array_equal(normal.numpy(), eager_twin.normal([3]).numpy())
        np.testing.assert_array_equal(uniform.numpy(), eager_twin.uniform([2], maxval=5.0).numpy())
    # State changed outside the function is seen by the next call: it is read, not frozen at trace time.
    g.reset_from_seed(42)
    np.testing.assert_array_equal(draw()[0].numpy(), results[0][0].numpy())
    types = [op.type for op in draw.get_concrete_function().graph.get_operations()]
    assert "RngReadAndSkip" in types and "StatelessRandomNormalV2" in types


def test_dynamic_shapes_in_a_traced_function_and_generator_arguments():
    g = tf.random.Generator.from_seed(1)

    @tf.function
    def draw(gen, n):
        return gen.normal(tf.stack([n, 2]))

    assert draw(g, tf.constant(3)).shape == (3, 2)
    assert draw(g, tf.constant(1)).shape == (1, 2)
    np.testing.assert_array_equal(g.state.numpy(), [1 + 256 * 8, 0, 0])
    twin = tf.random.Generator.from_seed(1)
    twin.normal([3, 2])
    twin.normal([1, 2])
    np.testing.assert_array_equal(draw(twin, tf.constant(4)).numpy(), g.normal([4, 2]).numpy())


def test_global_generator():
    g = tf.random.get_global_generator()
    assert tf.random.get_global_generator() is g
    before = g.state.numpy()
    g.normal([2])
    assert int(g.state[0]) != int(before[0])
    mine = tf.random.Generator.from_seed(3)
    tf.random.set_global_generator(mine)
    try:
        assert tf.random.get_global_generator() is mine
        tf.random.set_seed(1)  # does not replace the global generator, as in TensorFlow
        assert tf.random.get_global_generator() is mine
        with pytest.raises(TypeError, match="Generator"):
            tf.random.set_global_generator(3)
    finally:
        tf.random.set_global_generator(g)
    nondet = tf.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(nondet.state.numpy(), tf.random.Generator.from_non_deterministic_state().state.numpy())
    assert tf.random.experimental.Generator is tf.random.Generator


def test_errors():
    g = tf.random.Generator.from_seed(7)
    with pytest.raises(ValueError, match="Argument `alg` got unsupported value foo"):
        tf.random.Generator.from_seed(1, alg="foo")
    with pytest.raises(ValueError, match="minval and maxval must be both `None` or both non-`None`"):
        g.uniform([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 0.0"):
        g.normal([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 3"):
        g.uniform([2], 5, 3, dtype=tf.int32)
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \[3\] are incompatible"):
        tf.random.Generator.from_state([1, 2], alg="philox")
    with pytest.raises(ValueError, match="Argument `dtype`"):
        g.uniform([2], dtype=tf.string)
    with pytest.raises(tf.errors.InvalidArgumentError, match=">= 0"):
        g.normal(tf.constant([-1, 2]))
    with pytest.raises(ValueError):
        tf.random.Generator()


def test_infer_of_generator_ops():
    assert generator.RNG_READ_AND_SKIP.infer([S([], tf.resource), S([], tf.int32), S([], tf.int64)], {}) == \
        [(tf.int64, tf.TensorShape([3]))]
    attrs = {"dtype": np.dtype(np.float32)}
    key_counter = [S([1], tf.int64), S([2], tf.int64), S([], tf.int32)]
    assert stateless.STATELESS_NORMAL_V2.infer([tf.constant([2, 3])] + key_counter, attrs)[0] == \
        (tf.float32, tf.TensorShape([2, 3]))
    assert stateless.STATELESS_UNIFORM_V2.infer([S([2], tf.int32)] + key_counter, attrs)[0][1] == \
        tf.TensorShape([None, None])
    assert stateless.STATELESS_TRUNCATED_NORMAL_V2.infer([S(None, tf.int32)] + key_counter, attrs)[0][1] == \
        tf.TensorShape(None)
    got = stateless.STATELESS_UNIFORM_INT_V2.infer([S([3], tf.int32)] + key_counter + [S([], tf.int64)] * 2, None)
    assert got == [(tf.int64, tf.TensorShape([None, None, None]))]

    gen = tf.random.Generator.from_seed(0)   # made outside: its state is a tf.Variable, as in TensorFlow

    @tf.function(input_signature=[S([None], tf.int32)])
    def unknown(shape):
        return gen.uniform(shape)

    assert unknown.get_concrete_function().structured_outputs.shape.rank is None


def test_generator_gives_tensorflows_numbers():
    # Recorded from TensorFlow 2.21: Generator.from_seed(11).uniform([4]) as float32 bit patterns.
    g = tf.random.Generator.from_seed(11)
    assert g.uniform([4]).numpy().view(np.uint32).tolist() == [1064031492, 1053014600, 1061535734, 1063929534]
    np.testing.assert_array_equal(g.state.numpy(), [11 + 4 * 256, 0, 0])


def test_concurrent_draws_never_share_a_state():
    import threading
    g = tf.random.Generator.from_seed(3)
    results = []

    def work():
        for _ in range(20):
            results.append(tuple(g.uniform_full_int([2], tf.int64).numpy().tolist()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 80
    np.testing.assert_array_equal(g.state.numpy(), [3 + 80 * 2 * 256, 0, 0])
