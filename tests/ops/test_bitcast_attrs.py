"""Bitcast's inference and kernel accept the `type` attr as a NumPy dtype, as a GraphDef import hands it over."""
import numpy as np

import tensorflux as tf
from tensorflux._src.ops.array import reinterpret
from tensorflux._src.types.shape import TensorShape


class _Spec:
    dtype = tf.float32
    shape = TensorShape([3, 2])


def test_numpy_dtype_attr_infers_and_runs():
    assert reinterpret._infer_bitcast([_Spec()], {"type": np.dtype("uint8")}) == [(tf.uint8, TensorShape([3, 2, 4]))]
    out = reinterpret._bitcast_kernel(np.array([1.0], np.float32), np.dtype("int32"))
    assert out.tolist() == [1065353216]   # TensorFlow: tf.bitcast(tf.constant([1.0]), tf.int32)
