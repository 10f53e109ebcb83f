"""`tf.io.extract_jpeg_shape` (ExtractJpegShape): [height, width, channels] read from a JPEG's frame
header (its SOF segment) without decoding the image. The bytes are untrusted: every segment length is
checked against the data before it is followed.
"""
import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape

# Start-of-frame markers (baseline, extended, progressive, lossless, arithmetic variants); not C4/C8/CC.
_SOF = frozenset((0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF))


def _invalid(size):
    return errors.InvalidArgumentError(None, None, f"Invalid JPEG data, size {size}")


def jpeg_shape(data):
    """(height, width, channels) of JPEG bytes; InvalidArgumentError when no frame header is found."""
    n = len(data)
    if n < 4 or data[0] != 0xFF or data[1] != 0xD8:
        raise _invalid(n)
    i = 2
    while i + 4 <= n:
        if data[i] != 0xFF:
            raise _invalid(n)
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01,) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        length = (data[i + 2] << 8) | data[i + 3]
        if length < 2 or i + 2 + length > n:
            raise _invalid(n)
        if marker in _SOF:
            if length < 8:
                raise _invalid(n)
            height = (data[i + 5] << 8) | data[i + 6]
            width = (data[i + 7] << 8) | data[i + 8]
            return height, width, data[i + 9]
        if marker == 0xDA:  # start of scan before any frame header
            break
        i += 2 + length
    raise _invalid(n)


def _extract_kernel(contents, output_type=_dt.int32):
    value = contents.item() if contents.ndim == 0 else None
    if value is None:
        raise errors.InvalidArgumentError(None, None, f"contents must be scalar, got shape {list(contents.shape)}")
    data = value if isinstance(value, bytes) else str(value).encode()
    return np.array(jpeg_shape(data), dtype=_dt.as_dtype(output_type)._np)


EXTRACT_JPEG_SHAPE = OpDef("ExtractJpegShape", lambda i, a: [(_dt.as_dtype(a["output_type"]), TensorShape([3]))],
                           _extract_kernel, allowed=(_dt.string,), input_names=("contents",))


def extract_jpeg_shape(contents, output_type=_dt.int32, name=None):
    """`tf.io.extract_jpeg_shape`: [height, width, channels] of a JPEG image (int32 or int64)."""
    output_type = _dt.as_dtype(output_type)
    if output_type not in (_dt.int32, _dt.int64):
        raise TypeError(f"Value for attr 'output_type' of {output_type.name} is not in the list of allowed values: "
                        "int32, int64")
    contents = contents if isinstance(contents, Tensor) else convert_to_tensor(contents, dtype=_dt.string)
    return apply(EXTRACT_JPEG_SHAPE, (contents,), {"output_type": output_type}, name or "ExtractJpegShape")


API = {"io": ["extract_jpeg_shape"]}
