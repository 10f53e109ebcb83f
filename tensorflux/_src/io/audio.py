"""`tf.audio`: 16-bit PCM WAV files in string tensors (DecodeWav/EncodeWav).

TensorFlow reads only what its own encoder writes, and so does this module: a RIFF/WAVE file whose `fmt `
chunk (16 or 18 bytes) declares PCM (format 1), 16 bits per sample and a consistent block size and byte rate,
followed by chunks up to a `data` chunk (others are skipped by their stated size, without RIFF's pad byte,
as TensorFlow does). Samples become float32 in [-1, 1) (value / 32768); encoding scales by 32768, rounds
half away from zero and clamps to int16. The error texts are TensorFlow 2.21's.
"""
import collections
import struct

import numpy as np

from ..framework import errors
from ..ops.convert import convert_to_tensor
from ..framework.context import state as _state
from ..framework.tensor import Tensor
from ..ops.registry import OpDef, apply, dtype_error_name
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["decode_wav", "encode_wav"]

_SCALE = 32768.0


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


class _Reader:
    """Reads little-endian fields from the file's bytes, failing as TensorFlow's reader does."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, size):
        if size < 0 or self.at + size > len(self.data):
            raise _bad("Data too short when trying to read string")
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def expect(self, tag):
        found = self.take(4)
        if found != tag:
            raise _bad(f"Header mismatch: Expected {tag.decode()} but found {found.decode('latin-1')}")

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]


def _parse(data):
    """(samples as int16 [frames, channels], sample rate) of a WAV file."""
    reader = _Reader(data)
    reader.expect(b"RIFF")
    reader.u32()                                    # the RIFF size: TensorFlow does not check it
    reader.expect(b"WAVE")
    chunk = reader.take(4)
    if chunk != b"fmt ":
        raise _bad(f"Unexpected field {chunk.decode('latin-1')}")
    fmt_size = reader.u32()
    if fmt_size not in (16, 18):
        raise _bad(f"Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}")
    audio_format = reader.u16()
    if audio_format != 1:
        raise _bad(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = reader.u16()
    if channels < 1:
        raise _bad(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    rate = reader.u32()
    byte_rate = reader.u32()
    block = reader.u16()
    bits = reader.u16()
    if fmt_size == 18:
        reader.take(2)                              # cbSize of the extended format chunk
    if bits != 16:
        raise _bad(f"Can only read 16-bit WAV files, but received {bits}")
    bytes_per_sample = bits // 8
    if block != channels * bytes_per_sample:
        raise _bad(f"Bad bytes per sample in WAV header: Expected {channels * bytes_per_sample} but got {block}")
    if byte_rate != rate * block:
        raise _bad(f"Bad bytes per second in WAV header: Expected {rate * block} but got {byte_rate} "
                   f"(sample_rate={rate}, bytes_per_sample={bytes_per_sample})")
    while reader.at < len(data):
        chunk, size = reader.take(4), reader.u32()
        if chunk == b"data":
            if size % block:
                raise _bad("Data too short when trying to read string")
            samples = np.frombuffer(reader.take(size), dtype="<i2")
            return samples.reshape(-1, channels), rate
        if reader.at + size > len(data):            # an unknown chunk running past the end ends the search
            break
        reader.take(size)
    raise _bad("No data chunk found in WAV")


def _decode_wav_kernel(contents, desired_channels=-1, desired_samples=-1):
    if contents.ndim:
        raise _bad(f"contents must be scalar, got shape [{','.join(str(d) for d in contents.shape)}]")
    data = contents.item()
    samples, rate = _parse(data if isinstance(data, bytes) else str(data).encode())
    frames, channels = samples.shape
    out_channels = channels if desired_channels < 0 else desired_channels
    out_frames = frames if desired_samples < 0 else desired_samples
    audio = np.zeros((out_frames, out_channels), np.float32)
    kept = min(frames, out_frames)
    if out_channels and kept:
        # More channels than the file has repeat its last one, as TensorFlow does.
        source = np.minimum(np.arange(out_channels), channels - 1)
        audio[:kept] = samples[:kept, source].astype(np.float32) / np.float32(_SCALE)
    return audio, np.array(rate, np.int32)


def _check_rank(op_text, inputs, index, rank):
    """TensorFlow's shape-function error for an input of the wrong rank (at trace time in a graph)."""
    found = inputs[index].shape.rank
    if found in (None, rank):
        return
    names = ", ".join(getattr(getattr(t, "op", None), "name", "x") for t in inputs)
    shapes = ", ".join("[" + ",".join("?" if d is None else str(d) for d in t.shape.as_list()) + "]"
                       if t.shape.rank is not None else "?" for t in inputs)
    raise ValueError(f"Shape must be rank {rank} but is rank {found} for '{op_text}({names})' with input shapes: "
                     f"{shapes}.")


def _decode_wav_infer(inputs, attrs):
    _check_rank(f"{{{{node DecodeWav}}}} = DecodeWav[desired_channels={attrs['desired_channels']}, "
                f"desired_samples={attrs['desired_samples']}]", inputs, 0, 0)
    frames, channels = attrs.get("desired_samples", -1), attrs.get("desired_channels", -1)
    return [(_dt.float32, TensorShape([frames if frames >= 0 else None, channels if channels >= 0 else None])),
            (_dt.int32, TensorShape([]))]


def _encode_wav_kernel(audio, sample_rate):
    if audio.ndim != 2:
        raise _bad(f"audio must be 2-dimensional[{','.join(str(d) for d in audio.shape)}]")
    if np.ndim(sample_rate):
        raise _bad(f"Input sample_rate should be a scalar tensor, got "
                   f"[{','.join(str(d) for d in np.shape(sample_rate))}] instead.")
    rate = int(sample_rate) & 0xFFFFFFFFFFFFFFFF if int(sample_rate) < 0 else int(sample_rate)
    if not 0 < rate < 2 ** 32:
        raise _bad(f"sample_rate must be in (0, 2^32), got: {rate}")
    frames, channels = audio.shape
    if not 0 < channels < 2 ** 16:
        raise _bad(f"num_channels must be in (0, 2^16), got: {channels}")
    with np.errstate(invalid="ignore"):
        scaled = np.clip(audio.astype(np.float64) * _SCALE, -32768.0, 32767.0)
        # Half away from zero (C's round); NaN becomes 0, as TensorFlow's cast of it does here.
        rounded = np.where(np.isnan(scaled), 0.0, np.trunc(scaled + np.copysign(0.5, scaled)))
    pcm = rounded.astype("<i2").tobytes()
    block = channels * 2
    header = (b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE" + b"fmt " +
              struct.pack("<IHHIIHH", 16, 1, channels, rate, (rate * block) & 0xFFFFFFFF, block, 16) +
              b"data" + struct.pack("<I", len(pcm)))
    return np.array(header + pcm, dtype=object)


DECODE_WAV = OpDef("DecodeWav", _decode_wav_infer, _decode_wav_kernel, input_names=("contents",), multi=True)
def _encode_wav_infer(inputs, attrs):
    _check_rank("{{node EncodeWav}} = EncodeWav[]", inputs, 0, 2)
    _check_rank("{{node EncodeWav}} = EncodeWav[]", inputs, 1, 0)
    return [(_dt.string, TensorShape([]))]


ENCODE_WAV = OpDef("EncodeWav", _encode_wav_infer, _encode_wav_kernel, input_names=("audio", "sample_rate"))
DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def _as_input(value, dtype):
    """A tensor stays as it is (its dtype is checked); other values convert to the op's dtype, as TensorFlow's
    op wrappers convert them."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)


def _check_dtypes(op_name, inputs, names, expected):
    """The ops' fixed input dtypes: TensorFlow's InvalidArgumentError eagerly, its TypeError in a graph."""
    for index, (tensor, name, dtype) in enumerate(zip(inputs, names, expected)):
        if tensor.dtype is dtype:
            continue
        if _state.graph is not None:
            raise TypeError(f"Input '{name}' of '{op_name}' Op has type {tensor.dtype.name} that does not match "
                            f"expected type of {dtype.name}.")
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"cannot compute {op_name} as input #{index}(zero-based) was expected to be a "
            f"{dtype_error_name(dtype)} tensor but is a {dtype_error_name(tensor.dtype)} tensor", op_name,
            kernel=False)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """`tf.audio.decode_wav`: (float32 [samples, channels] in [-1, 1), int32 sample rate) of a 16-bit PCM
    WAV file; `desired_channels`/`desired_samples` (when >= 0) cut or extend the result (extra channels
    repeat the last one, extra samples are zeros)."""
    contents = _as_input(contents, _dt.string)
    _check_dtypes("DecodeWav", (contents,), ("contents",), (_dt.string,))
    return DecodeWav(*apply(DECODE_WAV, (contents,),
                            {"desired_channels": int(desired_channels), "desired_samples": int(desired_samples)},
                            name or "DecodeWav"))


def encode_wav(audio, sample_rate, name=None):
    """`tf.audio.encode_wav`: a 16-bit PCM WAV file (scalar string) of float32 [samples, channels] audio."""
    audio, sample_rate = _as_input(audio, _dt.float32), _as_input(sample_rate, _dt.int32)
    _check_dtypes("EncodeWav", (audio, sample_rate), ("audio", "sample_rate"), (_dt.float32, _dt.int32))
    return apply(ENCODE_WAV, (audio, sample_rate), None, name or "EncodeWav")


API = {"audio": __all__}
