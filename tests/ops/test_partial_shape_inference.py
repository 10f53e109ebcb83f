"""Static shapes through shape tensors known in part, as TensorFlow 2.21's shape refiner infers them
(fixtures/tf221_partial_shapes.json, recorded with the same function traced by TensorFlow): Reshape, Fill,
Slice, Conv2DBackpropInput and Conv3DBackpropInputV2 read the dims that `tf.shape(x)`, its slices and
unstacked scalars, `tf.stack`, `tf.concat`, casts and + - * // of known dims give, e.g.
`tf.reshape(x, tf.stack([tf.shape(x)[0], 4, 8]))` on x [None, 8, 32] is [None, 8, 4, 8], not all None."""
import json
import pathlib

import numpy as np

import tensorflux as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
RECORDED = json.loads((FIXTURES / "tf221_partial_shapes.json").read_text())
RECORDED_MORE = json.loads((FIXTURES / "tf221_partial_shapes_more.json").read_text())


def _shapes():
    got = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 32]), tf.TensorSpec([], tf.int32)])
    def f(x, t):
        s = tf.shape(x)
        d = tf.unstack(s)
        r = {"unstack_stack": tf.reshape(x, tf.stack(d[:-1] + [4, 8])),
             "index_stack": tf.reshape(x, tf.stack([s[0], s[1], 4, 8])),
             "shape_itself": tf.reshape(x, tf.shape(x)),
             "concat_slice": tf.reshape(x, tf.concat([s[:2], [4, 8]], 0)),
             "zeros_stack": tf.zeros(tf.stack([s[0], 3])),
             "cast_mul": tf.reshape(x, tf.cast(tf.stack([s[0], s[1] * 32]), tf.int64)),
             "neg_index": tf.reshape(x, tf.stack([s[-3], -1])),
             "unknown_scalar": tf.reshape(x, tf.stack([t, 8, 32])),
             "fill_stack": tf.fill(tf.stack([2, s[2]]), 1.0),
             "slice_dynamic_begin": tf.slice(x, tf.stack([0, t, 0]), [-1, 4, -1]),
             "slice_partial_size": tf.slice(x, [0, 1, 0], tf.stack([-1, t, 5]))}
        y = tf.ones([2, 3, 3, 3, 5])
        r["conv3d_transpose"] = tf.nn.conv3d_transpose(tf.ones([3, 2, 2, 2, 5]), tf.ones([2, 3, 3, 4, 5]),
                                                       tf.stack([tf.shape(y)[0] + 0 * t, 4, 5, 6, 4]),
                                                       [1, 2, 2, 2, 1], "SAME")
        r["conv2d_transpose"] = tf.nn.conv2d_transpose(tf.ones([3, 2, 2, 5]), tf.ones([3, 3, 4, 5]),
                                                       tf.stack([t, 4, 4, 4]), 2, "SAME")
        got.update({k: v.shape.as_list() for k, v in r.items()})
        return r["index_stack"]
    return f, got


def test_static_shapes_are_tensorflows():
    f, got = _shapes()
    f.get_concrete_function()
    assert got == RECORDED


def test_values_are_unchanged():
    f, _ = _shapes()
    x = np.arange(2 * 8 * 32, dtype=np.float32).reshape(2, 8, 32)
    np.testing.assert_array_equal(f(x, np.int32(1)).numpy(), x.reshape(2, 8, 4, 8))


def test_shape_inputs_of_other_ops_as_tensorflow():
    """BroadcastTo, Tile, random ops, ScatterNd, Range, OneHot, resize and eye with shape inputs known in part
    (a `tf.pad` whose paddings are known in part is not covered: its output keeps unknown dims)."""
    got = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 8, 4]), tf.TensorSpec([None, 8, 4]),
                                  tf.TensorSpec([], tf.int32)])
    def f(x, y, t):
        s = tf.shape(x)
        r = {"broadcast_to": tf.broadcast_to(tf.ones([1, 1, 4]), tf.shape(y)),
             "broadcast_to_stack": tf.broadcast_to(tf.ones([4]), tf.stack([s[0], 3, 4])),
             "tile_stack": tf.tile(x, tf.stack([t, 2, 1])),
             "random_uniform": tf.random.uniform(tf.shape(x)),
             "random_normal_stack": tf.random.normal(tf.stack([s[0], 5])),
             "ones_shape": tf.ones(tf.shape(x)),
             "zeros_concat": tf.zeros(tf.concat([s[:1], [7]], 0)),
             "resize_size": tf.image.resize(tf.ones([2, 8, 8, 3]), tf.stack([s[1], 6])),
             "scatter_nd": tf.scatter_nd([[0]], [[1.0, 2.0, 3.0, 4.0]], tf.stack([s[1], 4])),
             "range_shape": tf.range(s[1]),
             "expand_dims_dyn": tf.reshape(x, tf.stack([-1, s[1] * s[2]])),
             "one_hot_depth": tf.one_hot(tf.zeros([3], tf.int32), s[1]),
             "eye_dyn": tf.eye(s[1]),
             "truncated_normal": tf.random.truncated_normal(tf.stack([s[1], 2])),
             "stateless_uniform": tf.random.stateless_uniform(tf.shape(x), [1, 2]),
             "reshape_prod": tf.reshape(x, [-1, tf.reduce_prod(s[1:])])}
        got.update({k: v.shape.as_list() for k, v in r.items()})
        return x
    f.get_concrete_function()
    assert got == RECORDED_MORE


# tf.pad restores the dims whose paddings it knows (TensorFlow 2.21 traced the same functions on
# x: [None, 8] float32, n: int32 scalar): a list holding a tensor, element by element; a Pack of
# constants; nothing through other ops or through tf.shape.
_PAD_CASES = {
    "list_unknown_row": (lambda x, n: tf.pad(x, [[0, 0], [n, 1]]), [None, None]),
    "stack_of_constants": (lambda x, n: tf.pad(x, tf.stack([[0, 0], [1, 1]])), [None, 10]),
    "list_known_row": (lambda x, n: tf.pad(x, [[n, n], [2, 1]]), [None, 11]),
    "reshaped_stack": (lambda x, n: tf.pad(x, tf.reshape(tf.stack([0, 0, n, 1]), [2, 2])), [None, None]),
    "shape_element": (lambda x, n: tf.pad(x, [[0, 0], [tf.shape(x)[0], 1]]), [None, None]),
    "scaled_constant": (lambda x, n: tf.pad(x, tf.constant([[1, 1], [2, 2]]) * n), [None, None]),
}


def test_pad_with_paddings_known_in_part_as_tensorflow():
    specs = (tf.TensorSpec([None, 8], tf.float32), tf.TensorSpec([], tf.int32))
    for name, (fn, expected) in _PAD_CASES.items():
        out = tf.function(fn).get_concrete_function(*specs).structured_outputs
        assert out.shape.as_list() == expected, name
    f = tf.function(_PAD_CASES["list_known_row"][0])
    y = f(tf.ones([2, 8]), tf.constant(1))
    assert y.shape == (4, 11) and float(tf.reduce_sum(y)) == 16.0
