"""zeros/ones/zeros_like/ones_like in graphs: the ops TensorFlow 2.21 records (traced there with the same
functions): a constant for a static shape under 1000 elements, else Fill of `<name>/shape_as_tensor` and
`<name>/Const`; the *_like ops only for a shape known at run time."""
import numpy as np
import pytest

import tensorflux as tf


def _ops(fn, spec):
    cf = tf.function(fn).get_concrete_function(spec)
    return [(op.type, op.name, tuple(op.outputs[0].shape) if op.outputs else None)
            for op in cf.graph.get_operations()], cf


CASES = [
    ("zeros_like_small", lambda x: tf.zeros_like(x), [3],
     [("Placeholder", "x", (3,)), ("Const", "zeros_like", (3,)), ("Identity", "Identity", (3,))]),
    ("zeros_like_unknown", lambda x: tf.zeros_like(x), [None],
     [("Placeholder", "x", (None,)), ("ZerosLike", "zeros_like", (None,)), ("Identity", "Identity", (None,))]),
    ("zeros_like_large", lambda x: tf.zeros_like(x), [2000],
     [("Placeholder", "x", (2000,)), ("Const", "zeros_like/shape_as_tensor", (1,)), ("Const", "zeros_like/Const", ()),
      ("Fill", "zeros_like", (2000,)), ("Identity", "Identity", (2000,))]),
    ("ones_like_large", lambda x: tf.ones_like(x), [2000],
     [("Placeholder", "x", (2000,)), ("Const", "ones_like/shape_as_tensor", (1,)), ("Const", "ones_like/Const", ()),
      ("Fill", "ones_like", (2000,)), ("Identity", "Identity", (2000,))]),
    ("ones_like_partial", lambda x: tf.ones_like(x), [2, None],
     [("Placeholder", "x", (2, None)), ("OnesLike", "ones_like", (2, None)), ("Identity", "Identity", (2, None))]),
    ("zeros_like_dtype_large", lambda x: tf.zeros_like(x, dtype=tf.int32), [2000],
     [("Placeholder", "x", (2000,)), ("Const", "zeros_like/shape_as_tensor", (1,)), ("Const", "zeros_like/Const", ()),
      ("Fill", "zeros_like", (2000,)), ("Identity", "Identity", (2000,))]),
    ("scoped", lambda x: _scoped(x), [3],
     [("Placeholder", "x", (3,)), ("Const", "s/zeros_like", (3,)), ("Const", "s/zeros/shape_as_tensor", (2,)),
      ("Const", "s/zeros/Const", ()), ("Fill", "s/zeros", (10, 100)), ("Const", "s/ones", (999,)),
      ("Identity", "Identity", (3,)), ("Identity", "Identity_1", (10, 100)), ("Identity", "Identity_2", (999,))]),
    ("bools", lambda x: (tf.zeros_like(x > 0), tf.ones_like(x > 0)), [3],
     [("Placeholder", "x", (3,)), ("Const", "Greater/y", ()), ("Greater", "Greater", (3,)), ("Const", "zeros_like", (3,)),
      ("Const", "Greater_1/y", ()), ("Greater", "Greater_1", (3,)), ("Const", "ones_like", (3,)),
      ("Identity", "Identity", (3,)), ("Identity", "Identity_1", (3,))]),
    ("strings", lambda x: tf.zeros_like(tf.strings.as_string(x)), [3],
     [("Placeholder", "x", (3,)), ("AsString", "AsString", (3,)), ("Const", "zeros_like", (3,)),
      ("Identity", "Identity", (3,))]),
]


def _scoped(x):
    with tf.name_scope("s"):
        return tf.zeros_like(x), tf.zeros([10, 100]), tf.ones([999])


@pytest.mark.parametrize("name,fn,shape,expected", CASES, ids=[c[0] for c in CASES])
def test_graph_ops_as_tensorflow_records_them(name, fn, shape, expected):
    ops, _ = _ops(fn, tf.TensorSpec(shape, tf.float32))
    assert ops == expected


def test_values_are_unchanged():
    x = tf.constant(np.arange(2000, dtype=np.float32))
    f = tf.function(lambda x: (tf.zeros_like(x), tf.ones_like(x), tf.zeros_like(x[:3]), tf.ones([40, 40], tf.int64),
                               tf.zeros_like(x, dtype=tf.bool)))
    z, o, small, big, flags = f(x)
    assert z.dtype == tf.float32 and np.array_equal(z.numpy(), np.zeros(2000, np.float32))
    assert np.array_equal(o.numpy(), np.ones(2000, np.float32))
    assert small.shape == (3,) and not small.numpy().any()
    assert big.dtype == tf.int64 and np.array_equal(big.numpy(), np.ones((40, 40), np.int64))
    assert flags.dtype == tf.bool and not flags.numpy().any()


def test_gradient_through_a_folded_zeros_like_is_none_as_before():
    x = tf.constant([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.zeros_like(x) + x * x)
        return tape.gradient(y, x)

    assert np.array_equal(f(x).numpy(), [2.0, 4.0, 6.0])
