"""tf.RaggedTensor, tf.ragged and the ragged tf.strings ops: each test runs a script of calls and compares what
it prints with what the very same script printed under TensorFlow 2.21 (recorded below as literals)."""
import contextlib
import io

import tensorflux as tf


def _printed(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn()
    return out.getvalue()


EXPECTED_RAGGED_OPS_AND_DISPATCH = (
    '<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>\n'
    '<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>\n'
    "(4, None) <dtype: 'int32'> 1 tf.Tensor([ 0  4  6  9 10], shape=(5,), dtype=int64) tf.Tensor([0 1 2 3 4 5 6 7 8 9], shape=(10,), dtype=int32) (<tf.Tensor: shape=(5,), dtype=int64, numpy=array([ 0,  4,  6,  9, 10])>,)\n"
    'tf.Tensor([4 2 3 1], shape=(4,), dtype=int64) tf.Tensor([4 4], shape=(2,), dtype=int64) [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]] tf.Tensor(\n'
    '[[0 1 2 3]\n'
    ' [4 5 0 0]\n'
    ' [6 7 8 0]\n'
    ' [9 0 0 0]], shape=(4, 4), dtype=int32) tf.Tensor(\n'
    '[[ 0  1  2]\n'
    ' [ 4  5 -1]\n'
    ' [ 6  7  8]\n'
    ' [ 9 -1 -1]\n'
    ' [-1 -1 -1]], shape=(5, 3), dtype=int32)\n'
    'tf.Tensor([4 5], shape=(2,), dtype=int32) <tf.RaggedTensor [[4, 5], [6, 7, 8]]>  tf.Tensor([9], shape=(1,), dtype=int32)\n'
    'RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64) RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)\n'
    '<tf.RaggedTensor [[1, 2, 3, 4], [5, 6], [7, 8, 9], [10]]> <tf.RaggedTensor [[0, 1, 4, 9], [16, 25], [36, 49, 64], [81]]> <tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]> tf.Tensor([ 6  9 21  9], shape=(4,), dtype=int32) tf.Tensor(45, shape=(), dtype=int32) tf.Tensor([9 7 8 3], shape=(4,), dtype=int32) tf.Tensor([1.5 4.5 7.  9. ], shape=(4,), dtype=float64)\n'
    '<tf.RaggedTensor [[[1, 2], [3]], [[4]]]>\n'
    '<tf.RaggedTensor [[[1, 2],\n'
    '  [3, 4]], [[5, 6]]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5], []]>\n'
    '<tf.RaggedTensor [[1, 2], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [3]]>\n'
    '<tf.RaggedTensor [[1], [3, 0, 0]]>\n'
    '<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9], [0, 1, 2, 3], [4, 5], [6, 7, 8],\n'
    ' [9]]> <tf.RaggedTensor [[0, 1, 2, 3, 0, 1, 2, 3], [4, 5, 4, 5], [6, 7, 8, 6, 7, 8], [9, 9]]> <tf.RaggedTensor [[[0, 1, 2, 3], [4, 5]],\n'
    ' [[6, 7, 8], [9]]]>\n'
    '<tf.RaggedTensor [[3, 4], []]> <tf.RaggedTensor [[0, 1, 2]]>\n'
    '<tf.RaggedTensor [[1, 3], [6]]>\n'
    "<tf.RaggedTensor [[b'b'], [], [b'c', b'd'], [b'a', b'e'], []]>\n"
    '<tf.RaggedTensor [[1, 1, 1, 1], [1, 1], [1, 1, 1], [1]]>\n'
    'tf.Tensor([0 0 2 2 2], shape=(5,), dtype=int64) tf.Tensor([0 2 2 5], shape=(4,), dtype=int64)\n'
    ' <tf.RaggedTensor [[[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]],\n'
    ' [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]]>\n'
    'tf.Tensor([0 0 0 0 1 1 2 2 2 3], shape=(10,), dtype=int64) tf.Tensor(4, shape=(), dtype=int64) tf.Tensor([0 4 6 9], shape=(4,), dtype=int64) tf.Tensor([ 4  6  9 10], shape=(4,), dtype=int64) <tf.RaggedTensor [[0, 2, 4, 6], [8, 10], [12, 14, 16], [18]]>\n'
    "<tf.RaggedTensor [[b'a', b'bc'], [b'd']]>\n"
    '<tf.RaggedTensor [[1.5, 2.0], []]>\n'
    '[array([0, 1, 2, 3], dtype=int32) array([4, 5], dtype=int32)\n'
    ' array([6, 7, 8], dtype=int32) array([9], dtype=int32)]\n'
)


def _script_ragged_ops_and_dispatch():
    rt = tf.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
    print(rt); print(repr(rt)); print(rt.shape, rt.dtype, rt.ragged_rank, rt.row_splits, rt.flat_values, rt.nested_row_splits)
    print(rt.row_lengths(), rt.bounding_shape(), rt.to_list(), rt.to_tensor(), rt.to_tensor(default_value=-1, shape=[5, 3]))
    print(rt[1], rt[1:3], rt[:, 0] if False else '', rt[-1])
    print(rt._type_spec, tf.RaggedTensorSpec([4,None], tf.int32, 1))
    print(rt + 1, rt * rt, tf.math.abs(-rt), tf.reduce_sum(rt, axis=1), tf.reduce_sum(rt), tf.reduce_max(rt, axis=0), tf.reduce_mean(rt, axis=1))
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]))
    print(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1))
    print(tf.RaggedTensor.from_row_splits([1,2,3,4,5], [0,2,2,5]))
    print(tf.RaggedTensor.from_row_lengths([1,2,3,4,5], [2,0,3]))
    print(tf.RaggedTensor.from_value_rowids([1,2,3,4,5], [0,0,2,2,2], nrows=4))
    print(tf.RaggedTensor.from_row_starts([1,2,3,4,5], [0,2]))
    print(tf.RaggedTensor.from_row_limits([1,2,3,4,5], [2,5]))
    print(tf.RaggedTensor.from_tensor([[1,2,0],[3,0,0]], padding=0))
    print(tf.RaggedTensor.from_tensor([[1,2,0],[3,0,0]], lengths=[1,3]))
    print(tf.concat([rt, rt], axis=0), tf.concat([rt, rt], axis=1), tf.stack([rt[:2], rt[2:]], axis=0))
    print(tf.ragged.range([3, 5], [5, 5]), tf.ragged.range(3))
    print(tf.ragged.boolean_mask([[1,2,3],[4,5,6]], [[True,False,True],[False,False,True]]))
    print(tf.ragged.stack_dynamic_partitions(['a','b','c','d','e'], [3,0,2,2,3], 5))
    print(tf.ragged.map_flat_values(tf.ones_like, rt))
    print(tf.ragged.row_splits_to_segment_ids([0,2,2,5]), tf.ragged.segment_ids_to_row_splits([0,0,2,2,2]))
    print(tf.ragged.stack([[1,2],[3]]) if False else '', tf.ragged.stack([rt, rt]))
    print(rt.value_rowids(), rt.nrows(), rt.row_starts(), rt.row_limits(), rt.with_flat_values(rt.flat_values * 2))
    print(tf.ragged.constant([["a","bc"],["d"]]))
    print(tf.ragged.constant([[1.5, 2], []]))
    print(rt.numpy())


def test_ragged_ops_and_dispatch():
    assert _printed(_script_ragged_ops_and_dispatch) == EXPECTED_RAGGED_OPS_AND_DISPATCH


EXPECTED_RAGGED_TENSOR_CORE = (
    '<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>\n'
    '<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>\n'
    "(4, None) <dtype: 'int32'> 1 tf.Tensor([ 0  4  6  9 10], shape=(5,), dtype=int64) tf.Tensor([0 1 2 3 4 5 6 7 8 9], shape=(10,), dtype=int32) (<tf.Tensor: shape=(5,), dtype=int64, numpy=array([ 0,  4,  6,  9, 10])>,)\n"
    'tf.Tensor([4 2 3 1], shape=(4,), dtype=int64) tf.Tensor([4 4], shape=(2,), dtype=int64) [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]] tf.Tensor(\n'
    '[[0 1 2 3]\n'
    ' [4 5 0 0]\n'
    ' [6 7 8 0]\n'
    ' [9 0 0 0]], shape=(4, 4), dtype=int32) tf.Tensor(\n'
    '[[ 0  1  2]\n'
    ' [ 4  5 -1]\n'
    ' [ 6  7  8]\n'
    ' [ 9 -1 -1]\n'
    ' [-1 -1 -1]], shape=(5, 3), dtype=int32)\n'
    'tf.Tensor([4 5], shape=(2,), dtype=int32) <tf.RaggedTensor [[4, 5], [6, 7, 8]]> tf.Tensor([9], shape=(1,), dtype=int32) <tf.RaggedTensor [[4, 5], [6, 7], [9]]> <tf.RaggedTensor [[3],\n'
    ' [5],\n'
    ' [8],\n'
    ' [9]]>\n'
    'RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64) RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)\n'
    '<tf.RaggedTensor [[[1, 2], [3]], [[4]]]>\n'
    '<tf.RaggedTensor [[[1, 2],\n'
    '  [3, 4]], [[5, 6]]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [], [3, 4, 5], []]>\n'
    '<tf.RaggedTensor [[1, 2], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [3, 4, 5]]>\n'
    '<tf.RaggedTensor [[1, 2], [3]]>\n'
    '<tf.RaggedTensor [[1], [3, 0, 0]]>\n'
    '<tf.RaggedTensor [[3, 4], []]> <tf.RaggedTensor [[0, 1, 2]]>\n'
    '<tf.RaggedTensor [[1, 3], [6]]>\n'
    "<tf.RaggedTensor [[b'b'], [], [b'c', b'd'], [b'a', b'e'], []]>\n"
    '<tf.RaggedTensor [[1, 1, 1, 1], [1, 1], [1, 1, 1], [1]]>\n'
    'tf.Tensor([0 0 2 2 2], shape=(5,), dtype=int64) tf.Tensor([0 2 2 5], shape=(4,), dtype=int64)\n'
    '<tf.RaggedTensor [[[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]],\n'
    ' [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]]>\n'
    '<tf.RaggedTensor [[1, 2], [3]]>\n'
    'tf.Tensor([0 0 0 0 1 1 2 2 2 3], shape=(10,), dtype=int64) tf.Tensor(4, shape=(), dtype=int64) tf.Tensor([0 4 6 9], shape=(4,), dtype=int64) tf.Tensor([ 4  6  9 10], shape=(4,), dtype=int64) <tf.RaggedTensor [[0, 2, 4, 6], [8, 10], [12, 14, 16], [18]]>\n'
    "<tf.RaggedTensor [[b'a', b'bc'], [b'd']]>\n"
    '<tf.RaggedTensor [[1.5, 2.0], []]>\n'
    '<tf.RaggedTensor [[], []]>\n'
    '[array([0, 1, 2, 3], dtype=int32) array([4, 5], dtype=int32)\n'
    ' array([6, 7, 8], dtype=int32) array([9], dtype=int32)]\n'
    'tf.Tensor(\n'
    '[[[1 2]\n'
    '  [3 0]]\n'
    '\n'
    ' [[4 0]\n'
    '  [0 0]]], shape=(2, 2, 2), dtype=int32)\n'
    '[[[1, 2], [3]], [[4]]] tf.Tensor([2 2 2], shape=(3,), dtype=int64)\n'
    '<tf.RaggedTensor [[1, 2], [3]]> tf.Tensor([3], shape=(1,), dtype=int32)\n'
    'tf.RaggedTensor(values=Tensor("r:0", shape=(None,), dtype=int32), row_splits=Tensor("r_1:0", shape=(5,), dtype=int64))\n'
    '(<tf.RaggedTensor [[0, 2, 4, 6], [8, 10], [12, 14, 16], [18]]>, <tf.Tensor: shape=(4, 4), dtype=int32, numpy=\n'
    'array([[0, 1, 2, 3],\n'
    '       [4, 5, 0, 0],\n'
    '       [6, 7, 8, 0],\n'
    '       [9, 0, 0, 0]], dtype=int32)>)\n'
    '((RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64),), {})\n'
    'tf.Tensor([1. 2. 3.], shape=(3,), dtype=float32)\n'
    'RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)\n'
    'tf.Tensor([0 1 2 3], shape=(4,), dtype=int32)\n'
    'tf.Tensor([4 5], shape=(2,), dtype=int32)\n'
    'tf.Tensor([6 7 8], shape=(3,), dtype=int32)\n'
    'tf.Tensor([9], shape=(1,), dtype=int32)\n'
    'RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)\n'
)


def _script_ragged_tensor_core():
    rt = tf.ragged.constant([[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]])
    print(rt); print(repr(rt)); print(rt.shape, rt.dtype, rt.ragged_rank, rt.row_splits, rt.flat_values, rt.nested_row_splits)
    print(rt.row_lengths(), rt.bounding_shape(), rt.to_list(), rt.to_tensor(), rt.to_tensor(default_value=-1, shape=[5, 3]))
    print(rt[1], rt[1:3], rt[-1], rt[1:, :2], rt[:, -1:])
    print(rt._type_spec, tf.RaggedTensorSpec([4,None], tf.int32, 1))
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]))
    print(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1))
    print(tf.RaggedTensor.from_row_splits([1,2,3,4,5], [0,2,2,5]))
    print(tf.RaggedTensor.from_row_lengths([1,2,3,4,5], [2,0,3]))
    print(tf.RaggedTensor.from_value_rowids([1,2,3,4,5], [0,0,2,2,2], nrows=4))
    print(tf.RaggedTensor.from_row_starts([1,2,3,4,5], [0,2]))
    print(tf.RaggedTensor.from_row_limits([1,2,3,4,5], [2,5]))
    print(tf.RaggedTensor.from_tensor([[1,2,0],[3,0,0]], padding=0))
    print(tf.RaggedTensor.from_tensor([[1,2,0],[3,0,0]], lengths=[1,3]))
    print(tf.ragged.range([3, 5], [5, 5]), tf.ragged.range(3))
    print(tf.ragged.boolean_mask([[1,2,3],[4,5,6]], [[True,False,True],[False,False,True]]))
    print(tf.ragged.stack_dynamic_partitions(['a','b','c','d','e'], [3,0,2,2,3], 5))
    print(tf.ragged.map_flat_values(tf.ones_like, rt))
    print(tf.ragged.row_splits_to_segment_ids([0,2,2,5]), tf.ragged.segment_ids_to_row_splits([0,0,2,2,2]))
    print(tf.ragged.stack([rt, rt]))
    print(tf.ragged.stack([[1,2],[3]]))
    print(rt.value_rowids(), rt.nrows(), rt.row_starts(), rt.row_limits(), rt.with_flat_values(rt.flat_values * 2))
    print(tf.ragged.constant([["a","bc"],["d"]]))
    print(tf.ragged.constant([[1.5, 2], []]))
    print(tf.ragged.constant([[], []]))
    print(rt.numpy())
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_tensor())
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]]).to_list(), tf.ragged.constant([[[1, 2], [3]], [[4]]]).bounding_shape())
    print(tf.ragged.constant([[[1, 2], [3]], [[4]]])[0], tf.ragged.constant([[[1, 2], [3]], [[4]]])[0, 1])
    @tf.function
    def f(r):
        print(r)
        return r * 2, r.to_tensor()
    print(f(rt))
    print(f.get_concrete_function(rt).structured_input_signature)
    x = tf.constant([1., 2., 3.])
    with tf.GradientTape() as t:
        t.watch(x)
        r = tf.RaggedTensor.from_row_splits(x, [0, 2, 3])
        y = tf.reduce_sum(r.to_tensor() * [[1., 2.], [3., 4.]])
    print(tf.convert_to_tensor(t.gradient(y, x)))
    ds = tf.data.Dataset.from_tensor_slices(rt)
    print(ds.element_spec)
    for e in ds: print(e)
    print(tf.data.Dataset.from_tensors(rt).element_spec)


def test_ragged_tensor_core():
    assert _printed(_script_ragged_tensor_core) == EXPECTED_RAGGED_TENSOR_CORE


EXPECTED_RAGGED_STRINGS = (
    "tf.Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)\n"
    "<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>\n"
    "<tf.RaggedTensor [[b'a', b'b'], [b'c'], []]>\n"
    "<tf.RaggedTensor [[b'a', b'', b'b'], [b'', b'c', b''], [b'']]>\n"
    "<tf.RaggedTensor [[b'a', b'b,c'], [b'd']]>\n"
    "<tf.RaggedTensor [[[b'a', b'b'], [b'c']], [[b'd', b'e', b'f']]]>\n"
    "<tf.RaggedTensor [[[b'a', b'b']],\n"
    " [[b'c', b'd', b'e']]]>\n"
    'tf.Tensor([  1.  10. 100.], shape=(3,), dtype=float32)\n'
    "tf.Tensor([b'D' b'u' b'c' b'k'], shape=(4,), dtype=string)\n"
    "<tf.RaggedTensor [[b'a', b'b'], [b'c']]>\n"
    "tf.Tensor([b'\\xe3\\x82\\xa2' b'\\xe3\\x83\\x92' b'\\xe3\\x83\\xab' b' ' b'\\xf0\\x9f\\xa6\\x86'], shape=(5,), dtype=string)\n"
    'tf.Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)\n'
    "<tf.RaggedTensor [[b'h', b'\\xc3\\xa9', b'l', b'l', b'o'], [b'a', b'b']]>\n"
    '<tf.RaggedTensor [[104, 233, 108, 108, 111], [97, 98]]>\n'
    "tf.Tensor(b'h\\xc3\\xa9l', shape=(), dtype=string)\n"
    "tf.Tensor([b'h\\xc3\\xa9' b'l'], shape=(2,), dtype=string)\n"
    '(<tf.RaggedTensor [[104, 233, 108, 108, 111], [97, 98]]>, <tf.RaggedTensor [[0, 1, 3, 4, 5], [0, 1]]>)\n'
    "(<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'h', b'\\xc3\\xa9'], dtype=object)>, <tf.Tensor: shape=(2,), dtype=int64, numpy=array([0, 1])>)\n"
    "tf.Tensor([b'a b' b'b c' b'c d'], shape=(3,), dtype=string)\n"
    "<tf.RaggedTensor [[b'a-b', b'b-c'], []]>\n"
    "tf.Tensor([b'a' b'b' b'c' b'a b' b'b c'], shape=(5,), dtype=string)\n"
    "tf.Tensor([b'< a b' b'a b >'], shape=(2,), dtype=string)\n"
    "tf.Tensor([b'a-b' b'c-d'], shape=(2,), dtype=string)\n"
    "tf.Tensor(b'ab', shape=(), dtype=string)\n"
    "tf.Tensor([b'ab' b'c'], shape=(2,), dtype=string)\n"
    "tf.Tensor([b'b' b'a:c' b''], shape=(3,), dtype=string)\n"
    "tf.Tensor([b'\\x00h\\x00\\xe9\\x00l\\x00l\\x00o'], shape=(1,), dtype=string)\n"
    '<tf.RaggedTensor [[2, 1], [3]]>\n'
    "<tf.RaggedTensor [[b'A', b'B'], [b'C']]>\n"
    '<tf.RaggedTensor [[97, 65533, 98]]>\n'
    '<tf.RaggedTensor [[97, 98]]>\n'
    "<tf.RaggedTensor [[b'a', b'\\xef\\xbf\\xbd', b'b']]>\n"
    '\n'
)


def _script_ragged_strings():
    print(tf.strings.split(tf.constant("Gray wolf"), sep=" "))
    print(tf.strings.split(tf.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])))
    print(tf.strings.split(tf.constant(["a  b", " c ", ""])))
    print(tf.strings.split(tf.constant(["a  b", " c ", ""]), sep=" "))
    print(tf.strings.split(tf.constant(["a,b,c", "d"]), sep=",", maxsplit=1))
    print(tf.strings.split(tf.ragged.constant([["a b", "c"], ["d e f"]])))
    print(tf.strings.split(tf.constant([["a b"], ["c d e"]])))
    print(tf.strings.to_number(tf.strings.split(tf.constant("1 10 100"), " ")))
    print(tf.strings.bytes_split(tf.constant("Duck")))
    print(tf.strings.bytes_split(tf.constant(["ab", "c"])))
    duck = tf.constant("アヒル 🦆")
    print(tf.strings.unicode_split(duck, "UTF-8"))
    print(tf.strings.unicode_decode(duck, "UTF-8"))
    print(tf.strings.unicode_split(tf.constant(["héllo", "ab"]), "UTF-8"))
    print(tf.strings.unicode_decode(tf.constant(["héllo", "ab"]), "UTF-8"))
    print(tf.strings.unicode_encode([104, 233, 108], "UTF-8"))
    print(tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [108]]), "UTF-8"))
    print(tf.strings.unicode_decode_with_offsets(tf.constant(["héllo", "ab"]), "UTF-8"))
    print(tf.strings.unicode_split_with_offsets(tf.constant("hé"), "UTF-8"))
    print(tf.strings.ngrams(tf.constant(["a", "b", "c", "d"]), 2))
    print(tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]), 2, separator="-"))
    print(tf.strings.ngrams(tf.constant(["a", "b", "c"]), (1, 2)))
    print(tf.strings.ngrams(tf.constant(["a", "b"]), 3, pad_values=("<", ">"), padding_width=1))
    print(tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator="-"))
    print(tf.strings.reduce_join(tf.constant(["a", "b"])))
    print(tf.strings.reduce_join(tf.ragged.constant([["a", "b"], ["c"]]), axis=1))
    print(tf.strings.unsorted_segment_join(["a", "b", "c"], [1, 0, 1], 3, separator=":"))
    print(tf.strings.unicode_transcode(["héllo"], "UTF-8", "UTF-16-BE"))
    print(tf.strings.length(tf.ragged.constant([["ab", "c"], ["def"]])))
    print(tf.strings.upper(tf.strings.split(tf.constant(["a b", "c"]))))
    print(tf.strings.unicode_decode(tf.constant(["a\xff"]) if False else tf.constant([b"a\xffb"]), "UTF-8"))
    print(tf.strings.unicode_decode(tf.constant([b"a\xffb"]), "UTF-8", errors="ignore"))
    print(tf.strings.unicode_split(tf.constant([b"a\xffb"]), "UTF-8"))
    print(tf.strings.unicode_decode(tf.constant("ab"), "UTF-16-BE") if False else '')


def test_ragged_strings():
    assert _printed(_script_ragged_strings) == EXPECTED_RAGGED_STRINGS


EXPECTED_CROSSES_HASHED_AND_MASK = (
    'SparseTensor(indices=tf.Tensor(\n'
    '[[0 0]\n'
    ' [1 0]], shape=(2, 2), dtype=int64), values=tf.Tensor([485 357], shape=(2,), dtype=int64), dense_shape=tf.Tensor([2 1], shape=(2,), dtype=int64))\n'
    'SparseTensor(indices=tf.Tensor(\n'
    '[[0 0]\n'
    ' [0 1]\n'
    ' [1 0]\n'
    ' [1 1]], shape=(4, 2), dtype=int64), values=tf.Tensor(\n'
    '[2928842892298887678 4007690892585939727   85918459618309357\n'
    ' 8605241000858273832], shape=(4,), dtype=int64), dense_shape=tf.Tensor([2 2], shape=(2,), dtype=int64))\n'
    'SparseTensor(indices=tf.Tensor(\n'
    '[[0 0]\n'
    ' [1 0]], shape=(2, 2), dtype=int64), values=tf.Tensor([3 7], shape=(2,), dtype=int64), dense_shape=tf.Tensor([2 1], shape=(2,), dtype=int64))\n'
    '<tf.RaggedTensor [[16, 22], [4]]>\n'
    "<tf.RaggedTensor [[b'a_X_c', b'x_X_c'], [b'b_X_d']]>\n"
    'IndexedSlices(indices=tf.Tensor([0], shape=(1,), dtype=int32), values=tf.Tensor([[1. 2.]], shape=(1, 2), dtype=float32))\n'
)


def _script_crosses_hashed_and_mask():
    print(tf.sparse.cross_hashed([tf.SparseTensor([[0,0],[1,0]],['a','b'],[2,1]), tf.constant([[1],[2]], tf.int64)], num_buckets=1000))
    print(tf.sparse.cross_hashed([tf.constant([['a','x'],['b','y']]), tf.constant([[1],[2]], tf.int64)]))
    print(tf.sparse.cross_hashed([tf.constant([['a'],['b']])], num_buckets=10, hash_key=7))
    print(tf.ragged.cross_hashed([tf.ragged.constant([['a','x'],['b']]), tf.constant([['c'],['d']])], num_buckets=50))
    print(tf.ragged.cross([tf.ragged.constant([['a','x'],['b']]), tf.constant([['c'],['d']])]))
    print(tf.sparse.mask(tf.IndexedSlices(tf.constant([[1.,2],[3,4]]), tf.constant([0,3])), tf.constant([3])))


def test_crosses_hashed_and_mask():
    assert _printed(_script_crosses_hashed_and_mask) == EXPECTED_CROSSES_HASHED_AND_MASK


EXPECTED_EMBEDDING_LOOKUP_SPARSE = (
    'sum tf.Tensor(\n'
    '[[10. 12.]\n'
    ' [ 0.  0.]\n'
    ' [ 1.  2.]], shape=(3, 2), dtype=float32)\n'
    'sum tf.Tensor(\n'
    '[[13.  16. ]\n'
    ' [ 0.   0. ]\n'
    ' [ 0.5  1. ]], shape=(3, 2), dtype=float32)\n'
    'mean tf.Tensor(\n'
    '[[5. 6.]\n'
    ' [0. 0.]\n'
    ' [1. 2.]], shape=(3, 2), dtype=float32)\n'
    'mean tf.Tensor(\n'
    '[[4.3333335 5.3333335]\n'
    ' [0.        0.       ]\n'
    ' [1.        2.       ]], shape=(3, 2), dtype=float32)\n'
    'sqrtn tf.Tensor(\n'
    '[[7.071068 8.485281]\n'
    ' [0.       0.      ]\n'
    ' [1.       2.      ]], shape=(3, 2), dtype=float32)\n'
    'sqrtn tf.Tensor(\n'
    '[[5.8137765 7.1554174]\n'
    ' [0.        0.       ]\n'
    ' [1.        2.       ]], shape=(3, 2), dtype=float32)\n'
    'tf.Tensor(\n'
    '[[4.3333335 5.3333335]\n'
    ' [0.        0.       ]\n'
    ' [1.        2.       ]], shape=(3, 2), dtype=float32)\n'
    'tf.Tensor(\n'
    '[[7. 8.]\n'
    ' [5. 6.]\n'
    ' [7. 8.]], shape=(3, 2), dtype=float32)\n'
    'tf.Tensor(\n'
    '[[5.        6.       ]\n'
    ' [0.8944272 1.7888544]\n'
    ' [0.        0.       ]\n'
    ' [0.4472136 0.8944272]], shape=(4, 2), dtype=float32)\n'
)


def _script_embedding_lookup_sparse():
    params = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 0], tf.int64), [3, 2])
    w = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [2., 1., 0.5], [3, 2])
    for comb in ["sum", "mean", "sqrtn"]:
        print(comb, tf.nn.embedding_lookup_sparse(params, ids, None, combiner=comb))
        print(comb, tf.nn.embedding_lookup_sparse(params, ids, w, combiner=comb))
    print(tf.nn.safe_embedding_lookup_sparse(params, ids, w, combiner="mean"))
    print(tf.nn.safe_embedding_lookup_sparse(params, tf.SparseTensor([[0, 0], [1, 0]], tf.constant([-1, 2], tf.int64), [3, 1]), None, default_id=3))
    with tf.GradientTape() as t:
        t.watch(params)
        y = tf.reduce_sum(tf.nn.embedding_lookup_sparse(params, ids, w, combiner="sqrtn") * [[1., 2.], [3., 4.], [5., 6.]])
    print(tf.convert_to_tensor(t.gradient(y, params)))


def test_embedding_lookup_sparse():
    assert _printed(_script_embedding_lookup_sparse) == EXPECTED_EMBEDDING_LOOKUP_SPARSE


EXPECTED_RAGGED_FILL_EMPTY_ROWS = (
    'RaggedFillEmptyRows(output_value_rowids=<tf.Tensor: shape=(5,), dtype=int64, numpy=array([0, 0, 1, 2, 3])>, output_values=<tf.Tensor: shape=(5,), dtype=float32, numpy=array([1., 2., 9., 3., 9.], dtype=float32)>, empty_row_indicator=<tf.Tensor: shape=(4,), dtype=bool, numpy=array([False,  True, False,  True])>, reverse_index_map=<tf.Tensor: shape=(3,), dtype=int64, numpy=array([0, 1, 3])>)\n'
    'RaggedFillEmptyRowsGrad(d_values=<tf.Tensor: shape=(3,), dtype=float32, numpy=array([1., 2., 4.], dtype=float32)>, d_default_value=<tf.Tensor: shape=(), dtype=float32, numpy=8.0>)\n'
)


def _script_ragged_fill_empty_rows():
    print(tf.ragged_fill_empty_rows(tf.constant([0, 0, 2], tf.int64), [1., 2., 3.], 4, 9.))
    print(tf.ragged_fill_empty_rows_grad(tf.constant([0, 1, 3], tf.int64), [1., 2., 3., 4., 5.]))


def test_ragged_fill_empty_rows():
    assert _printed(_script_ragged_fill_empty_rows) == EXPECTED_RAGGED_FILL_EMPTY_ROWS


EXPECTED_RAGGED_AND_SPARSE_BATCHING = (
    'RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)\n'
    '<tf.RaggedTensor [[], [0]]>\n'
    '<tf.RaggedTensor [[0, 1], [0, 1, 2]]>\n'
    '<tf.RaggedTensor [[0, 1, 2, 3]]>\n'
    'SparseTensorSpec(TensorShape([None, 5]), tf.int32)\n'
    'SparseTensor(indices=tf.Tensor([[1 0]], shape=(1, 2), dtype=int64), values=tf.Tensor([0], shape=(1,), dtype=int32), dense_shape=tf.Tensor([2 5], shape=(2,), dtype=int64))\n'
    'SparseTensor(indices=tf.Tensor(\n'
    '[[0 0]\n'
    ' [0 1]\n'
    ' [1 0]\n'
    ' [1 1]\n'
    ' [1 2]], shape=(5, 2), dtype=int64), values=tf.Tensor([0 1 0 1 2], shape=(5,), dtype=int32), dense_shape=tf.Tensor([2 5], shape=(2,), dtype=int64))\n'
    'SparseTensor(indices=tf.Tensor(\n'
    '[[0 0]\n'
    ' [0 1]\n'
    ' [0 2]\n'
    ' [0 3]], shape=(4, 2), dtype=int64), values=tf.Tensor([0 1 2 3], shape=(4,), dtype=int32), dense_shape=tf.Tensor([1 5], shape=(2,), dtype=int64))\n'
    '(TensorSpec(shape=(2,), dtype=tf.int32, name=None), RaggedTensorSpec(TensorShape([2, None]), tf.float32, 1, tf.int64))\n'
    'tf.Tensor([0 1], shape=(2,), dtype=int32) <tf.RaggedTensor [[], [1.5]]>\n'
)


def _script_ragged_and_sparse_batching():
    ds = tf.data.Dataset.from_tensor_slices(tf.range(5)).map(lambda x: tf.range(x))
    r = ds.apply(tf.data.experimental.dense_to_ragged_batch(2))
    print(r.element_spec)
    for e in r: print(e)
    s = ds.apply(tf.data.experimental.dense_to_sparse_batch(2, [5]))
    print(s.element_spec)
    for e in s: print(e)
    pairs = tf.data.Dataset.from_tensor_slices(tf.range(3)).map(lambda x: (x, tf.fill([x], 1.5)))
    rb = pairs.ragged_batch(2, drop_remainder=True)
    print(rb.element_spec)
    for a, b in rb: print(a, b)


def test_ragged_and_sparse_batching():
    assert _printed(_script_ragged_and_sparse_batching) == EXPECTED_RAGGED_AND_SPARSE_BATCHING

