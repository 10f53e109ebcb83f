"""The rest of `tf.signal` that runs on a CPU: discrete cosine transforms (types I-IV, `dct`/`idct`), the
modified DCT (`mdct`/`inverse_mdct`), the windows made for them (Vorbis, Kaiser, Kaiser-Bessel-derived)
and `mfccs_from_log_mel_spectrograms`.

Every transform is composed of existing ops (real FFTs of a padded or mirrored signal, twiddle factors,
framing, overlap-add) in TensorFlow's formulation, so it runs eagerly and traced, has gradients through
those ops, and rounds as TensorFlow does. (`tf.signal.fftnd` and its kin have no CPU kernel in
TensorFlow 2.21, so they are not here.)

    coefficients = tf.signal.dct(x, type=2, norm="ortho")     # over the last axis
"""
import numpy as np

from ..types import dtypes as _dt
from .array import join as _join
from .array import padding as _padding
from .array import reorder as _reorder
from .convert import convert_to_tensor
from .math import arith as _math
from .math import complex as _complex
from .math import reduce as _reduce
from .math import special as _special
from .nn import activations as _activations
from .shapes import creators as _creators
from . import signal as _signal


def _float_input(x, name):
    x = convert_to_tensor(x, name=name)
    if x.dtype not in (_dt.float32, _dt.float64):
        raise ValueError(f"Input must be float32 or float64, got {x.dtype.name}")
    return x


def _fit_length(x, n):
    """`x` cut or zero-padded to `n` samples along the last axis (TensorFlow's `n` argument)."""
    length = x.shape[-1]
    if n is None:
        return x
    if n < 1:
        raise ValueError(f"n should be a positive integer or None, got {n}")
    if length is not None and n < length:
        return x[..., :n]
    if length is not None and n > length:
        paddings = [[0, 0]] * (x.shape.rank - 1) + [[0, n - length]]
        return _padding.pad(x, paddings)
    return x


def _check(type, axis, norm, x):
    if type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got {type}.")
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")
    if type == 1 and x.shape[-1] is not None and x.shape[-1] < 2:
        raise ValueError(f"Type-I DCT requires the dimension to be greater than one, got {x.shape[-1]}")


def _twiddle(n, sign, dtype):
    """2 * exp(sign * i * pi * k / (2n)) for k < n, in the complex dtype matching `dtype`."""
    k = np.arange(n, dtype=np.float64)
    values = 2.0 * np.exp(sign * 1j * np.pi * k / (2.0 * n))
    return convert_to_tensor(values.astype(np.complex64 if dtype == _dt.float32 else np.complex128))


def _real(x):
    return _complex.real(x)


def _dct(x, type, n, norm):
    x = _fit_length(x, n)
    length = x.shape[-1]
    if length is None:
        raise ValueError("dct needs a statically known length of the last axis")
    dtype = x.dtype
    if type == 1:
        mirrored = _join.concat([x, _reorder.reverse(x[..., 1:-1], [-1])], axis=-1)
        return _real(_signal.rfft(mirrored))
    if type == 2:
        spectrum = _signal.rfft(x, fft_length=[2 * length])[..., :length]
        out = _real(_math.multiply(spectrum, _twiddle(length, -1.0, dtype)))
        if norm == "ortho":
            first = 0.5 * np.sqrt(1.0 / length)
            weights = np.full(length, first * np.sqrt(2.0))
            weights[0] = first
            out = _math.multiply(out, convert_to_tensor(weights.astype(dtype.as_numpy_dtype)))
        return out
    if type == 3:
        if norm == "ortho":
            first = np.sqrt(length)
            weights = np.full(length, first * np.sqrt(0.5))
            weights[0] = first
            x = _math.multiply(x, convert_to_tensor(weights.astype(dtype.as_numpy_dtype)))
        else:
            x = _math.multiply(x, convert_to_tensor(np.asarray(length, dtype.as_numpy_dtype)))
        spectrum = _math.multiply(_twiddle(length, 1.0, dtype), _complex.complex(x, _creators.zeros_like(x)))
        return _real(_signal.irfft(spectrum, fft_length=[2 * length]))[..., :length]
    # Type IV: the odd outputs of a type II transform of the signal zero-padded to twice its length.
    out = _dct(x, 2, 2 * length, None)[..., 1::2]
    if norm == "ortho":
        out = _math.multiply(out, convert_to_tensor(np.asarray(np.sqrt(0.5) / np.sqrt(length),
                                                               dtype.as_numpy_dtype)))
    return out


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TensorFlow's argument names
    """`tf.signal.dct`: the type I-IV discrete cosine transform of the last axis (`norm="ortho"` for the
    orthonormal scaling; `n` cuts or zero-pads the signal first)."""
    x = _float_input(input, "input")
    _check(type, axis, norm, x)
    return _dct(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """`tf.signal.idct`: the inverse of `dct` of the same type -- without `norm`, scaled by 2n (as
    TensorFlow: `idct(dct(x)) == x * 2 * n`, for type I `2 * (n - 1)`)."""
    x = _float_input(input, "input")
    _check(type, axis, norm, x)
    return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


# -- windows -------------------------------------------------------------------------------------------

def _window_length(window_length):
    length = int(convert_to_tensor(window_length).numpy()) if not isinstance(window_length, int) else window_length
    if length < 0:
        raise ValueError(f"window_length must be non-negative, got {length}")
    return length


def vorbis_window(window_length, dtype=_dt.float32, name=None):
    """`tf.signal.vorbis_window`: sin(pi/2 sin^2(pi (n + 1/2) / N)), the power-complementary window of
    Vorbis' MDCT."""
    dtype = _dt.as_dtype(dtype)
    length = _window_length(window_length)
    arg = _math.cast(_creators.range(length), dtype)
    inner = _math.sin(_math.multiply(convert_to_tensor(np.asarray(np.pi / length, dtype.as_numpy_dtype)),
                                     _math.add(arg, convert_to_tensor(np.asarray(0.5, dtype.as_numpy_dtype)))))
    return _math.sin(_math.multiply(convert_to_tensor(np.asarray(np.pi / 2, dtype.as_numpy_dtype)),
                                    _math.square(inner)))


def kaiser_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
    """`tf.signal.kaiser_window`: I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta), through the scaled
    Bessel function so that large `beta` does not overflow."""
    dtype = _dt.as_dtype(dtype)
    length = _window_length(window_length)
    if length == 1:
        return _creators.ones([1], dtype)
    half = np.float32((np.float32(length) - np.float32(1.0)) / np.float32(2.0))
    arg = _math.cast(_creators.range(-half, half + np.float32(0.1), dtype=_dt.float32), dtype)
    beta = _math.cast(convert_to_tensor(beta, dtype_hint=dtype), dtype)
    one = convert_to_tensor(np.asarray(1.0, dtype.as_numpy_dtype))
    half_t = convert_to_tensor(np.asarray(half, dtype.as_numpy_dtype))
    num = _math.multiply(beta, _math.sqrt(_activations.relu(_math.subtract(one, _math.square(
        _math.divide(arg, half_t))))))
    return _math.multiply(_math.exp(_math.subtract(num, beta)),
                          _math.divide(_special.bessel_i0e(num), _special.bessel_i0e(beta)))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dt.float32, name=None):
    """`tf.signal.kaiser_bessel_derived_window`: the square roots of the normalised running sums of a
    Kaiser window, mirrored (a power-complementary MDCT window)."""
    dtype = _dt.as_dtype(dtype)
    half = _window_length(window_length) // 2
    kaiser = kaiser_window(half + 1, beta, dtype)
    sums = _reduce.cumsum(kaiser)
    half_window = _math.sqrt(_math.divide(sums[:-1], sums[-1]))
    return _join.concat([half_window, _reorder.reverse(half_window, [0])], axis=0)


# -- MDCT and MFCCs ------------------------------------------------------------------------------------

def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """`tf.signal.mdct`: frames of `frame_length` (hop frame_length / 2), windowed, folded into a
    type IV DCT of half their length."""
    signals = _float_input(signals, "signals")
    frame_length = int(frame_length)
    if frame_length % 4:
        raise ValueError(f"The frame length must be a multiple of 4, got {frame_length}")
    framed = _signal.frame(signals, frame_length, frame_length // 2, pad_end=pad_end)
    if window_fn is not None:
        framed = _math.multiply(framed, window_fn(frame_length, dtype=signals.dtype))
    else:
        framed = _math.multiply(framed, convert_to_tensor(np.asarray(1.0 / np.sqrt(2), signals.dtype.as_numpy_dtype)))
    quarters = _join.split(framed, 4, axis=-1)
    first = _math.subtract(_math.negative(_reorder.reverse(quarters[2], [-1])), quarters[3])
    second = _math.subtract(quarters[0], _reorder.reverse(quarters[1], [-1]))
    return dct(_join.concat([first, second], axis=-1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """`tf.signal.inverse_mdct`: the signal back from `mdct` frames (windowed, overlap-added)."""
    mdcts = _float_input(mdcts, "mdcts")
    half = mdcts.shape[-1]
    if half is None:
        raise ValueError("inverse_mdct needs a statically known last dimension")
    if norm is None:
        scale = convert_to_tensor(np.asarray(0.5 / half, mdcts.dtype.as_numpy_dtype))
        result = _math.multiply(scale, dct(mdcts, type=4))
    elif norm == "ortho":
        result = dct(mdcts, type=4, norm="ortho")
    else:
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    halves = _join.split(result, 2, axis=-1)
    frames = _join.concat([halves[1], _math.negative(_reorder.reverse(halves[1], [-1])),
                           _math.negative(_reorder.reverse(halves[0], [-1])), _math.negative(halves[0])], axis=-1)
    if window_fn is not None:
        frames = _math.multiply(frames, window_fn(2 * half, dtype=mdcts.dtype))
    else:
        frames = _math.multiply(frames, convert_to_tensor(np.asarray(1.0 / np.sqrt(2), mdcts.dtype.as_numpy_dtype)))
    return _signal.overlap_and_add(frames, half)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """`tf.signal.mfccs_from_log_mel_spectrograms`: the type II DCT of log-mel spectrograms, scaled by
    1 / sqrt(2 * num_mel_bins) (HTK's MFCC convention)."""
    x = _float_input(log_mel_spectrograms, "log_mel_spectrograms")
    bins = x.shape[-1]
    if bins is None:
        raise ValueError("mfccs_from_log_mel_spectrograms needs a statically known number of mel bins")
    if bins < 1:
        raise ValueError(f"num_mel_bins must be positive. Got: {bins}")
    scale = convert_to_tensor(np.asarray(1.0 / np.sqrt(bins * 2.0), x.dtype.as_numpy_dtype))
    return _math.multiply(dct(x, type=2), scale)


API = {"signal": ["dct", "idct", "mdct", "inverse_mdct", "vorbis_window", "kaiser_window",
                  "kaiser_bessel_derived_window", "mfccs_from_log_mel_spectrograms"]}
