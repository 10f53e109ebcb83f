"""tf.random: TensorFlow's seeding rules, distributions, shapes, dtypes and errors."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.ops.random import seeds, stateful, stateless

S = tf.TensorSpec


@pytest.fixture(autouse=True)
def _reset_global_seed():
    yield
    tf.random.set_seed(None)


# -- seeding -----------------------------------------------------------------------------------------
def test_global_seed_makes_a_program_repeatable_and_calls_differ():
    tf.random.set_seed(5)
    a, b = tf.random.uniform([4]).numpy(), tf.random.uniform([4]).numpy()
    tf.random.set_seed(5)
    a2, b2 = tf.random.uniform([4]).numpy(), tf.random.uniform([4]).numpy()
    assert a.tolist() == a2.tolist() and b.tolist() == b2.tolist()
    assert a.tolist() != b.tolist()
    tf.random.set_seed(6)
    assert tf.random.uniform([4]).numpy().tolist() != a.tolist()


def test_op_seed_continues_one_stream_until_set_seed_resets_it():
    tf.random.set_seed(5)
    c, d = tf.random.uniform([4], seed=1).numpy(), tf.random.uniform([4], seed=1).numpy()
    assert c.tolist() != d.tolist()
    tf.random.set_seed(5)
    assert tf.random.uniform([4], seed=1).numpy().tolist() == c.tolist()
    assert tf.random.uniform([4], seed=1).numpy().tolist() == d.tolist()
    # Interleaving an unseeded op does not disturb the seeded stream.
    tf.random.set_seed(5)
    tf.random.uniform([4])
    assert tf.random.uniform([4], seed=1).numpy().tolist() == c.tolist()


def test_op_seed_without_global_seed_is_deterministic():
    tf.random.set_seed(None)
    first = tf.random.normal([3], seed=7).numpy()
    tf.random.set_seed(None)
    assert tf.random.normal([3], seed=7).numpy().tolist() == first.tolist()
    assert seeds.get_seed(7) == (seeds.DEFAULT_GRAPH_SEED, 7)


def test_no_seeds_is_nondeterministic():
    tf.random.set_seed(None)
    assert seeds.get_seed(None) == (None, None)
    draws = {tuple(tf.random.uniform([4]).numpy().tolist()) for _ in range(3)}
    assert len(draws) == 3


def test_get_seed_rules():
    tf.random.set_seed(3)
    assert seeds.get_seed(9) == (3, 9)
    first, second = seeds.get_seed(None), seeds.get_seed(None)
    assert first[0] == second[0] == 3 and first[1] != second[1]
    tf.random.set_seed(3)
    assert seeds.get_seed(None) == first
    assert seeds.get_seed(1.5) == (3, 1)


def test_stream_is_an_attr_and_random_ops_are_stateful():
    tf.random.set_seed(1)
    stream, seed, seed2 = seeds._stream("RandomUniform", 4, np.dtype(np.float32))
    assert (seed, seed2) == (1, 4) and repr(stream) == "RandomStream(seed=1, seed2=4)"
    # The kernel advances the stream it is given: two runs of one node differ, like a traced function.
    shape = np.array([3], np.int32)
    attrs = {"dtype": np.dtype(np.float32), "seed": 1, "seed2": 4, "stream": seeds.RandomStream(1, 4)}
    first = stateful.RANDOM_UNIFORM.kernel(shape, **attrs)
    second = stateful.RANDOM_UNIFORM.kernel(shape, **attrs)
    assert first.tolist() != second.tolist()
    fresh = stateful.RANDOM_UNIFORM.kernel(shape, **dict(attrs, stream=seeds.RandomStream(1, 4)))
    assert fresh.tolist() == first.tolist()
    for op in (stateful.RANDOM_UNIFORM, stateful.RANDOM_UNIFORM_INT, stateful.RANDOM_STANDARD_NORMAL, stateful.TRUNCATED_NORMAL,
               stateful.RANDOM_SHUFFLE, stateful.MULTINOMIAL):
        assert op.stateful
    assert not stateless.STATELESS_UNIFORM.stateful


# -- distributions -----------------------------------------------------------------------------------
def test_uniform_float_distribution_range_and_dtypes():
    tf.random.set_seed(0)
    x = tf.random.uniform([10000], minval=2.0, maxval=5.0).numpy()
    assert x.dtype == np.float32 and x.min() >= 2.0 and x.max() < 5.0
    assert abs(x.mean() - 3.5) < 0.05 and abs(x.std() - 3 / np.sqrt(12)) < 0.03
    for dtype in (tf.float16, tf.bfloat16, tf.float64):
        y = tf.random.uniform([2000], dtype=dtype)
        assert y.dtype is dtype
        values = y.numpy().astype(np.float64)
        assert values.min() >= 0 and values.max() < 1


def test_uniform_int_and_tensor_bounds():
    tf.random.set_seed(0)
    x = tf.random.uniform([10000], 0, 5, dtype=tf.int32).numpy()
    assert x.dtype == np.int32 and set(np.unique(x).tolist()) == {0, 1, 2, 3, 4}
    assert abs(x.mean() - 2.0) < 0.06
    assert tf.random.uniform([3], -3, -1, dtype=tf.int64).dtype is tf.int64
    y = tf.random.uniform([2, 1000], minval=tf.constant([[0.0], [10.0]]), maxval=tf.constant([[1.0], [11.0]]))
    assert y.numpy()[0].max() < 1 and y.numpy()[1].min() >= 10


def test_normal_and_truncated_normal_distributions():
    tf.random.set_seed(0)
    x = tf.random.normal([10000], mean=3.0, stddev=2.0).numpy()
    assert x.dtype == np.float32 and abs(x.mean() - 3.0) < 0.08 and abs(x.std() - 2.0) < 0.08
    t = tf.random.truncated_normal([10000], mean=-1.0, stddev=0.5, dtype=tf.float64).numpy()
    assert t.dtype == np.float64 and np.all(np.abs(t + 1.0) <= 1.0)
    # A standard normal truncated at ±2 has std ≈ 0.8796.
    assert abs(t.mean() + 1.0) < 0.03 and abs(t.std() / 0.5 - 0.8796) < 0.03
    m = tf.random.normal([2, 2000], mean=[[0.0], [100.0]]).numpy()
    assert abs(m[1].mean() - 100.0) < 0.2
    assert tf.random.normal([3], dtype=tf.float16).dtype is tf.float16


def test_shuffle_permutes_first_dimension():
    tf.random.set_seed(2)
    x = np.arange(40).reshape(20, 2)
    out = tf.random.shuffle(x).numpy()
    assert sorted(out.tolist()) == x.tolist() and out.tolist() != x.tolist()
    assert (out[:, 1] - out[:, 0] == 1).all()
    assert tf.random.shuffle(1).numpy() == 1
    assert sorted(tf.random.shuffle(["a", "b", "c"]).numpy().tolist()) == [b"a", b"b", b"c"]


def test_categorical_frequencies_and_edge_cases():
    tf.random.set_seed(0)
    probs = np.array([0.1, 0.6, 0.3])
    samples = tf.random.categorical(np.log([probs, probs[::-1]]), 10000)
    assert samples.dtype is tf.int64 and samples.shape == [2, 10000]
    counts = np.bincount(samples.numpy()[0], minlength=3) / 10000
    np.testing.assert_allclose(counts, probs, atol=0.02)
    np.testing.assert_allclose(np.bincount(samples.numpy()[1], minlength=3) / 10000, probs[::-1], atol=0.02)
    edge = tf.random.categorical([[-np.inf, 0.0], [-np.inf, -np.inf]], 5, dtype=tf.int32)
    assert edge.dtype is tf.int32 and edge.numpy().tolist() == [[1] * 5, [2] * 5]
    assert tf.random.categorical([[0.0, 1.0]], 0).shape == [1, 0]


# -- stateless ---------------------------------------------------------------------------------------
def test_stateless_ops_depend_only_on_the_seed():
    a = tf.random.stateless_uniform([5], seed=[1, 2]).numpy()
    assert tf.random.stateless_uniform([5], seed=[1, 2]).numpy().tolist() == a.tolist()
    assert tf.random.stateless_uniform([5], seed=[1, 3]).numpy().tolist() != a.tolist()
    n = tf.random.stateless_normal([10000], seed=tf.constant([4, 5], tf.int64), mean=1.0, stddev=2.0).numpy()
    assert abs(n.mean() - 1.0) < 0.08 and abs(n.std() - 2.0) < 0.08
    ints = tf.random.stateless_uniform([1000], [1, 2], minval=3, maxval=6, dtype=tf.int32).numpy()
    assert set(np.unique(ints).tolist()) == {3, 4, 5}
    full = tf.random.stateless_uniform([4], [1, 2], minval=None, maxval=None, dtype=tf.int32)
    assert full.dtype is tf.int32


def test_stateless_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[3\]"):
        tf.random.stateless_uniform([2], [1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'Tseed' of float32"):
        tf.random.stateless_normal([2], [1.0, 2.0])
    with pytest.raises(ValueError, match="argument `minval` and `maxval` must be both None or not None"):
        tf.random.stateless_uniform([2], [1, 2], dtype=tf.int32)


# -- shapes, dtypes, errors --------------------------------------------------------------------------
def test_shapes_from_lists_tensors_and_scalars():
    assert tf.random.uniform([]).shape == []
    assert tf.random.uniform(tf.constant([2, 1])).shape == [2, 1]
    assert tf.random.normal(tf.TensorShape([3, 2])).shape == [3, 2]
    assert tf.random.uniform(tf.constant([2], tf.int64)).shape == [2]


def test_errors():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype tf.int32"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value <dtype: 'uint8'>. Accepted dtypes are "
                                         r"\(tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64\)"):
        tf.random.uniform([2], 0, 5, dtype=tf.uint8)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Need minval < maxval, got 5 >= 5 \[Op:RandomUniformInt\]"):
        tf.random.uniform([2], 5, 5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"minval must be 0-D, got shape \[2\]"):
        tf.random.uniform([2], tf.constant([0, 1]), 5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0 \[Op:RandomUniform\]"):
        tf.random.uniform([-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of float is not in the list"):
        tf.random.uniform([2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape must be a vector of \{int32,int64\}, got shape "
                                                             r"\[1,1\]"):
        tf.random.uniform([[2]])
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        tf.random.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.random.uniform([2], 0.0, 5.0, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.random.normal([2], mean=[0.0, 100.0, 1.0])
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value <dtype: 'float32'>. Accepted dtypes are "
                                         r"\(tf.int32, tf.int64\)"):
        tf.random.categorical([[0.0, 1.0]], 3, dtype=tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"logits should be a matrix, got shape \[2\]"):
        tf.random.categorical([0.0, 1.0], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_samples should be non-negative, got -1"):
        tf.random.categorical([[0.0, 1.0]], -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes should be positive, got 0"):
        tf.random.categorical(tf.zeros([1, 0]), 2)


def test_infer_with_unknown_shapes():
    attrs = {"dtype": np.dtype(np.float32), "seed": 0, "seed2": 0, "stream": None}
    assert stateful.RANDOM_UNIFORM.infer([S([3], tf.int32)], attrs) == [(tf.float32, tf.TensorShape([None] * 3))]
    assert stateful.RANDOM_UNIFORM.infer([S([None], tf.int32)], attrs)[0][1].rank is None
    assert stateful.RANDOM_STANDARD_NORMAL.infer([np.array([2, 5], np.int32)], dict(attrs, dtype=np.dtype(np.float64))) \
        == [(tf.float64, tf.TensorShape([2, 5]))]
    assert stateful.RANDOM_UNIFORM_INT.infer([S([2], tf.int32), S([], tf.int64), S([], tf.int64)], attrs)[0][0] is tf.int64
    assert stateful.RANDOM_SHUFFLE.infer([S([None, 3], tf.string)], {}) == [(tf.string, tf.TensorShape([None, 3]))]
    multinomial = stateful.MULTINOMIAL.infer([S([None, 5]), S([], tf.int32)], {"output_dtype": np.dtype(np.int64)})
    assert multinomial == [(tf.int64, tf.TensorShape([None, None]))]
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        stateful.MULTINOMIAL.infer([S([5]), S([], tf.int32)], {"output_dtype": np.dtype(np.int64)})


def test_traced_function_advances_its_streams_and_retracing_after_set_seed_repeats():
    def draw():
        return tf.random.uniform([3]), tf.random.normal([3], seed=4), tf.nn.dropout(tf.ones([8]), 0.5)

    tf.random.set_seed(5)
    f = tf.function(draw)
    first, second = f(), f()
    for a, b in zip(first, second):
        assert a.numpy().tolist() != b.numpy().tolist()
    tf.random.set_seed(5)
    g = tf.function(draw)
    for a, b in zip(first, g()):
        assert a.numpy().tolist() == b.numpy().tolist()


def test_traced_random_shapes_and_same_op_seed_nodes_match():
    def two_seeded(n):
        return tf.random.uniform([2], seed=9), tf.random.uniform([2], seed=9), tf.random.shuffle(n)

    tf.random.set_seed(1)
    a, b, shuffled = tf.function(two_seeded)(tf.constant([1, 2, 3]))
    # In a graph two nodes with the same seeds start identical streams, as in TensorFlow.
    assert a.numpy().tolist() == b.numpy().tolist()
    assert sorted(shuffled.numpy().tolist()) == [1, 2, 3]


# -- TensorFlow's own numbers (recorded from TensorFlow 2.21 on CPU, as float32 bit patterns) -----------
def _bits(t):
    return t.numpy().view(np.uint32).tolist()


def test_seeded_ops_give_tensorflows_numbers_with_its_scaling():
    tf.random.set_seed(5)
    assert _bits(tf.random.uniform([4], seed=1)) == [1053190352, 1061134510, 1057781978, 1064938410]
    assert _bits(tf.random.normal([3], seed=7)) == [3210698218, 3211500307, 1070056034]
    tf.random.set_seed(1)
    # Derived op seeds: the first three draws of the global seed's sequence, scaled as TensorFlow scales.
    assert _bits(tf.random.uniform([3], minval=2, maxval=5)) == [1075819651, 1083607758, 1081681316]
    assert _bits(tf.random.normal([3], mean=2, stddev=3)) == [1078813844, 3215051980, 1072153978]
    assert _bits(tf.random.uniform([3], minval=0, maxval=5)) == [1082437428, 1078653941, 1076147836]


def test_traced_ops_count_op_seeds_per_graph_from_zero_and_advance_per_call():
    tf.random.set_seed(1)
    f = tf.function(lambda: (tf.random.uniform([2]), tf.random.uniform([2]), tf.random.uniform([2], seed=3)))
    assert [_bits(x) for x in f()] == [[1062210784, 1033956288], [1029931584, 1016671616],
                                       [1061641854, 1062017868]]
    assert [_bits(x) for x in f()] == [[1062818892, 1036607104], [1058261962, 1050131844],
                                       [1048044944, 1062267220]]


def test_stateless_ops_give_tensorflows_numbers():
    assert _bits(tf.random.stateless_uniform([3], [1, 2], minval=2., maxval=5.)) == [1083246497, 1076158314,
                                                                                     1084203822]
    assert _bits(tf.random.stateless_truncated_normal([3], [1, 2])) == [1057704653, 1045715841, 1033283812]
    with pytest.raises(tf.errors.InvalidArgumentError, match="counter must be a vector"):
        tf.random.stateless_uniform([3], [1, 2], alg="threefry")


def test_get_seed_reduces_seeds_and_avoids_zero_pair():
    tf.random.set_seed(2 ** 31 - 1)
    assert seeds.get_seed(0) == (0, 2 ** 31 - 1)
    assert seeds.get_seed(2 ** 31 + 4) == (0, 5)
