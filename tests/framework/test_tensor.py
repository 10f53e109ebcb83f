"""EagerTensor: value access, Python protocols, their errors, and str/repr/format identical to TensorFlow's.

Expected values and texts were read from TensorFlow 2.21.
"""
import copy
import pickle

import numpy as np
import pytest

import tensorflux as tf

C = tf.constant


def test_numpy_returns_scalars_for_rank_0_and_copies_for_arrays():
    assert type(C(3).numpy()) is np.int32 and type(C(3.0).numpy()) is np.float32
    assert type(C(True).numpy()) is np.bool_ and C("ab").numpy() == b"ab" and type(C("ab").numpy()) is bytes
    assert type(C(5, tf.bfloat16).numpy()).__name__ == "bfloat16"
    arr = C([1, 2]).numpy()
    assert arr.dtype == np.int32 and arr.tolist() == [1, 2]
    t = C([1, 2])
    a = t.numpy()
    a[0] = 9
    assert t.numpy()[0] == 1
    strings = C(["ab", "c"]).numpy()
    assert strings.dtype == object and strings.tolist() == [b"ab", b"c"]


def test_shape_dtype_ndim_device():
    t = C([[1, 2]])
    assert t.shape == tf.TensorShape([1, 2]) and t.get_shape() == [1, 2] and t.dtype is tf.int32
    assert t.ndim == 2 and C(1).ndim == 0 and C(1).shape == tf.TensorShape([])
    assert t.device == "/job:localhost/replica:0/task:0/device:CPU:0" and t.backing_device == t.device
    assert t.cpu() is t or np.array_equal(t.cpu().numpy(), t.numpy())
    assert not hasattr(C(1), "rank")


def test_array_protocol():
    a = np.asarray(C([1, 2]))
    assert a.dtype == np.int32 and a.tolist() == [1, 2] and not a.flags.writeable
    assert not np.asarray(C(1)).flags.writeable
    assert np.asarray(C([1, 2]), dtype=np.float64).dtype == np.float64
    assert np.array(C([1, 2]), dtype="float32").tolist() == [1.0, 2.0]
    assert np.asarray(C(2.5)).shape == () and np.asarray(C("a")).item() == b"a"
    assert np.asarray(C(["a", "bb"])).tolist() == [b"a", b"bb"]


def test_len_and_its_error():
    assert len(C([[1, 2]])) == 1 and len(C([])) == 0
    with pytest.raises(TypeError, match="^Scalar tensor has no `len\\(\\)`$"):
        len(C(1))


def test_iteration_and_its_error():
    rows = list(C([[1, 2], [3, 4]]))
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4]] and rows[0].dtype is tf.int32
    assert [s.numpy() for s in C(["a", "b"])] == [b"a", b"b"]
    with pytest.raises(TypeError, match="^Cannot iterate over a scalar tensor\\.$"):
        iter(C(1))


@pytest.mark.parametrize("value,expected", [
    (C(1), True), (C(0), False), (C([1]), True), (C([]), False), (C([[]]), False), (C(0.0), False),
    (C("a"), True), (C(""), False), (C([[True]]), True), (C([], tf.string), False),
])
def test_bool(value, expected):
    assert bool(value) is expected


def test_bool_of_many_elements_is_an_error():
    with pytest.raises(ValueError, match="The truth value of an array with more than one element is ambiguous"):
        bool(C([1, 2]))


def test_int_float_complex():
    assert int(C(3)) == 3 and int(C(3.7)) == 3 and int(C(True)) == 1 and int(C("3")) == 3
    assert float(C(3)) == 3.0 and complex(C(3.0)) == 3 + 0j
    for value in (C([3]), C([3, 4])):
        with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted to Python scalars"):
            int(value)
    with pytest.raises(TypeError, match="only 0-dimensional arrays can be converted to Python scalars"):
        float(C([3.5]))
    with pytest.raises(ValueError, match="could not convert string to float: b'a'"):
        float(C("a"))


def test_index():
    assert [1, 2, 3][C(1)] == 2 and [1, 2, 3][C(1, tf.int64)] == 2 and [1, 2, 3][C(1, tf.uint8)] == 2
    assert range(C(3)) == range(3)
    with pytest.raises(AttributeError, match="'numpy.float32' object has no attribute '__index__'"):
        [1, 2, 3][C(1.0)]
    with pytest.raises(AttributeError, match="'numpy.bool' object has no attribute '__index__'"):
        [1, 2, 3][C(True)]
    with pytest.raises(TypeError, match="only integer scalar arrays can be converted to a scalar index"):
        [1, 2, 3][C([1])]


def test_unhashable_and_ref():
    t = C(1)
    with pytest.raises(TypeError, match="^Tensor is unhashable\\. Instead, use tensor\\.ref\\(\\) as the key\\.$"):
        hash(t)
    with pytest.raises(TypeError, match="Tensor is unhashable"):
        {t: 1}
    assert t.ref() == t.ref() and hash(t.ref()) == hash(t.ref()) and t.ref().deref() is t
    assert t.ref() != C(1).ref() and {t.ref(): 5}[t.ref()] == 5 and t.experimental_ref().deref() is t
    assert repr(t.ref()).startswith("<Reference wrapping <tf.Tensor")


def test_graph_attributes_are_errors_in_eager_mode():
    t = C(1)
    for attr in ("name", "op", "graph", "value_index"):
        with pytest.raises(AttributeError, match=f"^Tensor.{attr} is undefined when eager execution is enabled\\.$"):
            getattr(t, attr)
    with pytest.raises(NotImplementedError, match="^Tensor.consumers is undefined when eager execution"):
        t.consumers()


def test_set_shape():
    t = C([1, 2])
    t.set_shape([2])
    t.set_shape([None])
    t.set_shape(None)
    with pytest.raises(ValueError, match=r"^Tensor's shape \(2,\) is not compatible with supplied shape \(3,\)\.$"):
        t.set_shape([3])
    with pytest.raises(ValueError, match=r"supplied shape \(2, 1\)\.$"):
        t.set_shape([2, 1])


def test_identity_helpers():
    assert tf.is_tensor(C(1)) and not tf.is_tensor(1) and not tf.is_tensor(np.array(1))
    assert isinstance(C(1), tf.Tensor) and type(C(1)).__name__ == "EagerTensor"
    t = C([1])
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(C([1, 2]))).numpy().tolist() == [1, 2]


REPRS = [
    (C(3), "<tf.Tensor: shape=(), dtype=int32, numpy=3>", "tf.Tensor(3, shape=(), dtype=int32)"),
    (C(3.0), "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>", "tf.Tensor(3.0, shape=(), dtype=float32)"),
    (C(8.1), "<tf.Tensor: shape=(), dtype=float32, numpy=8.100000381469727>",
     "tf.Tensor(8.1, shape=(), dtype=float32)"),
    (C(1e-8), "<tf.Tensor: shape=(), dtype=float32, numpy=9.99999993922529e-09>",
     "tf.Tensor(1e-08, shape=(), dtype=float32)"),
    (C(1e8), "<tf.Tensor: shape=(), dtype=float32, numpy=100000000.0>",
     "tf.Tensor(1e+08, shape=(), dtype=float32)"),
    (C(123456789.0), "<tf.Tensor: shape=(), dtype=float32, numpy=123456792.0>",
     "tf.Tensor(1.2345679e+08, shape=(), dtype=float32)"),
    (C(1 / 3), "<tf.Tensor: shape=(), dtype=float32, numpy=0.3333333432674408>",
     "tf.Tensor(0.33333334, shape=(), dtype=float32)"),
    (C(1 / 3, tf.float64), "<tf.Tensor: shape=(), dtype=float64, numpy=0.3333333333333333>",
     "tf.Tensor(0.3333333333333333, shape=(), dtype=float64)"),
    (C(0.1, tf.float16), "<tf.Tensor: shape=(), dtype=float16, numpy=0.0999755859375>",
     "tf.Tensor(0.1, shape=(), dtype=float16)"),
    (C(0.1, tf.bfloat16), "<tf.Tensor: shape=(), dtype=bfloat16, numpy=0.10009765625>",
     "tf.Tensor(0.100098, shape=(), dtype=bfloat16)"),
    (C(float("nan")), "<tf.Tensor: shape=(), dtype=float32, numpy=nan>", "tf.Tensor(nan, shape=(), dtype=float32)"),
    (C(float("inf")), "<tf.Tensor: shape=(), dtype=float32, numpy=inf>", "tf.Tensor(inf, shape=(), dtype=float32)"),
    (C(-float("inf")), "<tf.Tensor: shape=(), dtype=float32, numpy=-inf>",
     "tf.Tensor(-inf, shape=(), dtype=float32)"),
    (C(True), "<tf.Tensor: shape=(), dtype=bool, numpy=True>", "tf.Tensor(True, shape=(), dtype=bool)"),
    (C("aa"), "<tf.Tensor: shape=(), dtype=string, numpy=b'aa'>", "tf.Tensor(b'aa', shape=(), dtype=string)"),
    (C("a'b"), "<tf.Tensor: shape=(), dtype=string, numpy=b\"a'b\">",
     "tf.Tensor(b\"a'b\", shape=(), dtype=string)"),
    (C(1 + 2j), "<tf.Tensor: shape=(), dtype=complex128, numpy=(1+2j)>",
     "tf.Tensor((1+2j), shape=(), dtype=complex128)"),
    (C(0.1 + 0.2j, tf.complex64),
     "<tf.Tensor: shape=(), dtype=complex64, numpy=(0.10000000149011612+0.20000000298023224j)>",
     "tf.Tensor((0.1+0.2j), shape=(), dtype=complex64)"),
    (C(7, tf.uint8), "<tf.Tensor: shape=(), dtype=uint8, numpy=7>", "tf.Tensor(7, shape=(), dtype=uint8)"),
    (C([1, 2, 3]), "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([1, 2, 3], dtype=int32)>",
     "tf.Tensor([1 2 3], shape=(3,), dtype=int32)"),
    (C([8.1, 1e-8]), "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([8.1e+00, 1.0e-08], dtype=float32)>",
     "tf.Tensor([8.1e+00 1.0e-08], shape=(2,), dtype=float32)"),
    (C([float("nan"), float("inf"), 1.0]),
     "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([nan, inf,  1.], dtype=float32)>",
     "tf.Tensor([nan inf  1.], shape=(3,), dtype=float32)"),
    (C([True, False]), "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([ True, False])>",
     "tf.Tensor([ True False], shape=(2,), dtype=bool)"),
    (C(["aa", "b"]), "<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'aa', b'b'], dtype=object)>",
     "tf.Tensor([b'aa' b'b'], shape=(2,), dtype=string)"),
    (C([[1, 2], [3, 4]]), "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], "
                          "dtype=int32)>", "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"),
    (C([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
     "<tf.Tensor: shape=(2, 2, 2), dtype=int32, numpy=\narray([[[1, 2],\n        [3, 4]],\n\n       "
     "[[5, 6],\n        [7, 8]]], dtype=int32)>",
     "tf.Tensor(\n[[[1 2]\n  [3 4]]\n\n [[5 6]\n  [7 8]]], shape=(2, 2, 2), dtype=int32)"),
    (C([]), "<tf.Tensor: shape=(0,), dtype=float32, numpy=array([], dtype=float32)>",
     "tf.Tensor([], shape=(0,), dtype=float32)"),
    (C([[]]), "<tf.Tensor: shape=(1, 0), dtype=float32, numpy=array([], shape=(1, 0), dtype=float32)>",
     "tf.Tensor([], shape=(1, 0), dtype=float32)"),
    (C([], tf.string), "<tf.Tensor: shape=(0,), dtype=string, numpy=array([], dtype=object)>",
     "tf.Tensor([], shape=(0,), dtype=string)"),
    (C([1, 2], tf.bfloat16), "<tf.Tensor: shape=(2,), dtype=bfloat16, numpy=array([1, 2], dtype=bfloat16)>",
     "tf.Tensor([1 2], shape=(2,), dtype=bfloat16)"),
    (C(np.arange(2000)),
     "<tf.Tensor: shape=(2000,), dtype=int64, numpy=array([   0,    1,    2, ..., 1997, 1998, 1999], "
     "shape=(2000,))>", "tf.Tensor([   0    1    2 ... 1997 1998 1999], shape=(2000,), dtype=int64)"),
    (C(np.arange(6, dtype=np.float32).reshape(2, 3) / 3),
     "<tf.Tensor: shape=(2, 3), dtype=float32, numpy=\narray([[0.        , 0.33333334, 0.6666667 ],\n"
     "       [1.        , 1.3333334 , 1.6666666 ]], dtype=float32)>",
     "tf.Tensor(\n[[0.         0.33333334 0.6666667 ]\n [1.         1.3333334  1.6666666 ]], shape=(2, 3), "
     "dtype=float32)"),
]


@pytest.mark.parametrize("tensor,rep,text", REPRS)
def test_repr_and_str(tensor, rep, text):
    assert repr(tensor) == rep
    assert str(tensor) == text


def test_large_tensors_are_summarised():
    text = str(C(np.arange(40000).reshape(200, 200)))
    assert text.startswith("tf.Tensor(\n[[    0     1     2 ...   197   198   199]")
    assert "...\n" in text and text.endswith("shape=(200, 200), dtype=int64)")
    assert "..." not in str(C(np.arange(1000))) and "..." in str(C(np.arange(1001)))
    assert "..." in repr(C(["a" * 5] * 2000))


@pytest.mark.parametrize("tensor,spec,expected", [
    (C(3.5), ".2f", "3.50"), (C(3), "05d", "00003"), (C(3), "", "3"), (C(7), "", "7"),
    (C(8.1), "", "8.100000381469727"), (C(8.1), ".3f", "8.100"), (C(True), "", "True"),
    (C("ab"), "", "b'ab'"), (C(0.1, tf.bfloat16), "", "0.10009765625"), (C([1, 2]), "", "[1 2]"),
    (C([1.5, 2]), "", "[1.5 2. ]"),
])
def test_format(tensor, spec, expected):
    assert format(tensor, spec) == expected


def test_format_spec_on_arrays_is_an_error():
    with pytest.raises(TypeError, match="unsupported format string passed to numpy.ndarray.__format__"):
        format(C([1, 2]), ">5")
