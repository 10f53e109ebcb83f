"""How Keras 3's TensorFlow backend adds two tensors (`keras.ops.add`, and the bias of Dense and the
convolutions): a BiasAdd when the second operand is a bias of the first one's channel dimension, else an
AddV2.

The choice matters beyond the graph's op types: the gradient of BiasAdd is BiasAddGrad, whose order of
additions differs from the Sum that AddV2's broadcast gradient takes, so the training bits follow it.
"""
import tensorflux as tf


def bias_format(x, bias):
    """"NHWC" or "NCHW" when Keras adds `bias` to `x` as a BiasAdd, else None: `bias` has exactly one
    dimension above 1 (static), `x` has rank 2 or more, and that dimension is `x`'s last (NHWC) or second
    (NCHW)."""
    x_dims = x.shape.as_list() if x.shape.rank is not None else None
    if x_dims is None or len(x_dims) < 2 or bias.shape.rank is None:
        return None
    kept = [d for d in bias.shape.as_list() if d is None or d > 1]
    if len(kept) != 1 or kept[0] is None or kept[0] not in (x_dims[1], x_dims[-1]):
        return None
    return "NHWC" if x_dims[-1] == kept[0] else "NCHW"


def add(x, bias):
    """`x + bias` as Keras 3's TensorFlow backend computes it (see the module docstring)."""
    data_format = bias_format(x, bias)
    if data_format is None:
        return tf.add(x, bias)
    if bias.shape.rank > 1:
        bias = tf.squeeze(bias)
    return tf.nn.bias_add(x, bias, data_format=data_format)
