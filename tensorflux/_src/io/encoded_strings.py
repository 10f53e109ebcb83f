"""Encoded bytes inside string tensors: `tf.io.encode_base64`/`decode_base64` (EncodeBase64/DecodeBase64:
web-safe base64, '-' and '_' for '+' and '/', padding optional), `tf.io.decode_compressed`
(DecodeCompressed: ZLIB or GZIP streams, or raw bytes), `tf.io.is_jpeg` (the JPEG magic number), and
`tf.io.match_filenames_once` (a non-trainable variable holding the matching file names).
"""
import base64
import binascii
import zlib

import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..ops.convert import convert_to_tensor
from ..ops.registry import OpDef, apply
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from ..state.variables import Variable
from .tensor_io import matching_files


def _strings(value):
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dt.string)


def _as_bytes(element):
    return element if isinstance(element, bytes) else str(element).encode()


def _map_strings(fn, data):
    return np.array([fn(_as_bytes(v)) for v in data.reshape(-1)], dtype=object).reshape(data.shape)


def _encode_base64_kernel(data, pad=False):
    def encode(raw):
        text = base64.urlsafe_b64encode(raw)
        return text if pad else text.rstrip(b"=")
    return _map_strings(encode, data)


def _decode_base64_kernel(data):
    def decode(text):
        body = text.rstrip(b"=")
        if len(body) % 4 == 1:
            raise errors.InvalidArgumentError(None, None, "Base64 string length cannot be 1 modulo 4.")
        try:
            return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            raise errors.InvalidArgumentError(None, None, f"Invalid character found in base64: {text!r}") from None
    return _map_strings(decode, data)


def _decode_compressed_kernel(data, compression_type=""):
    if compression_type == "":
        return data.copy()
    wbits = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}.get(compression_type)
    if wbits is None:
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {compression_type}")

    def inflate(raw):
        try:
            return zlib.decompress(raw, wbits)
        except zlib.error as e:  # "Error -3 while decompressing data: incorrect header check"
            code, _, reason = str(e).partition(" while decompressing data: ")
            raise errors.DataLossError(None, None, f"inflate() failed with error {code.replace('Error ', '')}: "
                                                   f"{reason or e}") from None
    return _map_strings(inflate, data)


def _is_jpeg_kernel(contents):
    return np.array(_as_bytes(contents.item())[:3] == b"\xff\xd8\xff")


def _same_shape(inputs, attrs):
    return [(_dt.string, inputs[0].shape)]


ENCODE_BASE64 = OpDef("EncodeBase64", _same_shape, _encode_base64_kernel, allowed=(_dt.string,),
                      input_names=("input",))
DECODE_BASE64 = OpDef("DecodeBase64", _same_shape, _decode_base64_kernel, allowed=(_dt.string,),
                      input_names=("input",))
DECODE_COMPRESSED = OpDef("DecodeCompressed", _same_shape, _decode_compressed_kernel, allowed=(_dt.string,),
                          input_names=("bytes",))
IS_JPEG = OpDef("IsJpeg", lambda i, a: [(_dt.bool, TensorShape([]))], _is_jpeg_kernel, allowed=(_dt.string,),
                input_names=("contents",))


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.io.encode_base64`: web-safe base64 of each string ('=' padding only with `pad`)."""
    return apply(ENCODE_BASE64, (_strings(input),), {"pad": bool(pad)}, name or "EncodeBase64")


def decode_base64(input, name=None):  # noqa: A002
    """`tf.io.decode_base64`: the bytes of each web-safe base64 string (padded or not)."""
    return apply(DECODE_BASE64, (_strings(input),), None, name or "DecodeBase64")


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.io.decode_compressed`: each string inflated from ZLIB or GZIP ("" leaves it as it is)."""
    return apply(DECODE_COMPRESSED, (_strings(bytes),), {"compression_type": compression_type},
                 name or "DecodeCompressed")


def is_jpeg(contents, name=None):
    """`tf.io.is_jpeg`: whether the scalar string starts with JPEG's magic number FF D8 FF."""
    return apply(IS_JPEG, (_strings(contents),), None, name or "is_jpeg")


def match_filenames_once(pattern, name=None):
    """`tf.io.match_filenames_once`: a non-trainable variable initialised with `matching_files(pattern)`."""
    return Variable(matching_files(pattern), trainable=False, name=name or "matching_filenames",
                    validate_shape=False)


API = {"io": ["encode_base64", "decode_base64", "decode_compressed", "is_jpeg", "match_filenames_once"]}
