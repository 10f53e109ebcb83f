"""Atrous (dilated) 2-D convolutions of `tf.nn`: `atrous_conv2d` and `atrous_conv2d_transpose` are conv2d /
conv2d_transpose with the same dilation `rate` in height and width (TensorFlow builds them from
space_to_batch; the values are the same), and the math functions TensorFlow also exports under `tf.nn`
(`sigmoid`, `tanh`: the same objects as `tf.math`'s).
"""
from ..math import arith as _math
from .conv import conv2d, conv2d_transpose

sigmoid = _math.sigmoid
tanh = _math.tanh


def _rate(rate):
    if int(rate) < 1:
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate=[{rate} {rate}]")
    return int(rate)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """`tf.nn.atrous_conv2d`: conv2d of NHWC `value` with `filters` sampled every `rate` pixels."""
    rate = _rate(rate)
    return conv2d(value, filters, strides=[1, 1, 1, 1], padding=padding, dilations=[1, rate, rate, 1], name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """`tf.nn.atrous_conv2d_transpose`: the transpose (gradient) of atrous_conv2d, to `output_shape`."""
    rate = _rate(rate)
    return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1], padding=padding,
                            dilations=[1, rate, rate, 1], name=name)


API = {"nn": ["sigmoid", "tanh", "atrous_conv2d", "atrous_conv2d_transpose"]}
