"""`tf.timestamp()`: the wall-clock time in seconds since the Unix epoch, as a float64 scalar, read when the
op runs (each call of a tf.function reads it anew: the op is stateful, so it is never folded or cached).
It sits with the math ops for want of a room of its own (TensorFlow keeps it with its logging ops)."""
import time

import numpy as np

from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..registry import OpDef, apply

__all__ = ["timestamp"]


def _timestamp_infer(inputs, attrs):
    return [(_dt.float64, TensorShape([]))]


def _timestamp_kernel():
    return np.float64(time.time())


TIMESTAMP = OpDef("Timestamp", _timestamp_infer, _timestamp_kernel, stateful=True, input_names=())


def timestamp(name=None):
    """`tf.timestamp`: seconds since the epoch (float64), with sub-microsecond resolution where the host has it."""
    return apply(TIMESTAMP, (), None, name or "Timestamp")


API = {"": __all__}
