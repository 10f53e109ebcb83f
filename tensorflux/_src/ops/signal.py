"""`tf.signal`: discrete Fourier transforms, framing, windows and short-time Fourier transforms.

The transforms are TensorFlow's kernels, each an OpDef over the innermost 1, 2 or 3 dimensions:
FFT/IFFT (complex to complex), RFFT (real to the non-negative half of the spectrum, the input cropped or
zero-padded to `fft_length`) and IRFFT (that half spectrum back to `fft_length` real samples, the
Hermitian symmetry assumed). Their gradients follow TensorFlow's convention for complex values, where the
gradient of a real loss L with respect to z is dL/dRe(z) + i dL/dIm(z):

    FFT:   ifft(g) * N           IFFT:  fft(g) / N           (N: the number of transformed points)
    RFFT:  N * Re(ifft(g padded with zeros to the full spectrum)), fitted back to the input's length
    IRFFT: rfft(g) * w / N, w = 1 for the bins that appear once in the full spectrum (0 and n/2), 2 for
           the others, which appear twice (as a bin and its conjugate mirror)

Everything else is composed from existing ops, as in TensorFlow, and so gets its gradients from them:
`frame` is a gather of overlapping windows, `overlap_and_add` an unsorted segment sum of every sample
into its output position, `stft` frames, windows and rfft's, `inverse_stft` undoes it.
"""
import numpy as np

from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .array import join as _join
from .array import padding as _padding
from .array import reorder as _reorder
from .shapes import shape_ops as _shape_ops
from .shapes import shaping as _shaping
from .shapes import creators as _creators
from .array import gather as _gather
from .array import where as _where
from .array import manip as _manip
from .math import arith as _math
from .math import logic as _logic
from .math import reduce as _reduce
from .shapes.common import attr_type_error, bad, fmt_shape, static_int, value_dims
from .convert import constant, convert_to_tensor
from .registry import COMPLEX, OpDef, apply

_REAL_OF = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}
_COMPLEX_OF = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}


# ---------------------------------------------------------------------------------------------------
# Shape helpers: a list of ints when static, else int32 tensors
# ---------------------------------------------------------------------------------------------------

def _inner_dims(t, rank):
    """The innermost `rank` dims of `t`: a list of ints when known statically, else an int32 tensor."""
    dims = t.shape._dims
    if dims is not None and None not in dims[-rank:]:
        return list(dims[-rank:])
    return _shape_ops.shape(t)[-rank:]


def _lengths(fft_length):
    """A static fft_length as a list of ints, else the tensor itself."""
    known = value_dims(fft_length)
    return fft_length if known is None else list(known)


def _count(dims):
    """The number of points of a transform over `dims` (an int, or an int32 scalar tensor)."""
    return int(np.prod(dims, dtype=np.int64)) if isinstance(dims, list) else _reduce.reduce_prod(dims)


def _scale(size, dtype):
    """A transform's point count as a factor for values of `dtype`."""
    return size if isinstance(size, int) else _math.cast(size, dtype)


def _as_tensor(dims):
    return constant(np.array(dims, dtype=np.int32)) if isinstance(dims, list) else dims


def _fit_inner(t, lengths, rank):
    """`t` with its innermost `rank` dims cropped, or zero-padded at the end, to `lengths`."""
    current = _inner_dims(t, rank)
    if isinstance(current, list) and isinstance(lengths, list):
        if current == lengths:
            return t
        padding = [[0, max(0, n - c)] for c, n in zip(current, lengths)]
        if any(after for _, after in padding):
            t = _padding.pad(t, [[0, 0]] * (t.shape.rank - rank) + padding)
        if any(c > n for c, n in zip(current, lengths)):
            t = t[(Ellipsis,) + tuple(slice(0, n) for n in lengths)]
        return t
    lengths = _as_tensor(lengths)
    extra = _math.maximum(_math.subtract(lengths, _as_tensor(current)), 0)
    outer = _creators.zeros(_join.stack([_shape_ops.rank(t) - rank, 2]), dtype=_dt.int32)
    inner = _join.stack([_creators.zeros_like(extra), extra], axis=1)
    t = _padding.pad(t, _join.concat([outer, inner], 0))
    return t[(Ellipsis,) + tuple(slice(0, lengths[i]) for i in range(rank))]


def _check_rank(shape, rank, op_name):
    if shape.rank is not None and shape.rank < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.rank} for '{{{{node {op_name}}}}}' "
                         f"with input shapes: {fmt_shape(shape.as_list())}.")


# ---------------------------------------------------------------------------------------------------
# FFT, IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D: complex to complex over the innermost dims
# ---------------------------------------------------------------------------------------------------

def _c2c_kernel(rank, inverse):
    transform = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(x):
        if x.ndim < rank:
            raise bad(f"Input must have rank of at least {rank} but got: {fmt_shape(x.shape)}")
        if x.size == 0:
            return np.zeros_like(x)
        return transform(x, axes=tuple(range(-rank, 0))).astype(x.dtype, copy=False)
    return kernel


def _c2c_infer(rank, op_name):
    def infer(inputs, attrs):
        x = inputs[0]
        _check_rank(x.shape, rank, op_name)
        return [(x.dtype, x.shape)]
    return infer


def _c2c_grad(rank, inverse):
    def grad(op, g):
        size = _scale(_count(_inner_dims(op.inputs[0], rank)), g.dtype)
        back = _C2C[(rank, not inverse)]
        transformed = apply(back, (g,), None, back.name)
        return [_math.realdiv(transformed, size) if inverse else _math.multiply(transformed, size)]
    return grad


def _c2c_opdef(rank, inverse):
    name = ("IFFT" if inverse else "FFT") + ("" if rank == 1 else f"{rank}D")
    return OpDef(name, _c2c_infer(rank, name), _c2c_kernel(rank, inverse), grad=_c2c_grad(rank, inverse),
                 allowed=COMPLEX, input_names=("input",))


_C2C = {(rank, inverse): _c2c_opdef(rank, inverse) for rank in (1, 2, 3) for inverse in (False, True)}


def _c2c_function(rank, inverse):
    opdef = _C2C[(rank, inverse)]

    def transform(input, name=None):  # noqa: A002 - TensorFlow's argument name
        input = input if isinstance(input, Tensor) else convert_to_tensor(input)
        if input.dtype not in COMPLEX:
            raise attr_type_error("Tcomplex", input.dtype, opdef.name, COMPLEX, "input")
        return apply(opdef, (input,), None, name or opdef.name)
    kind = "inverse " if inverse else ""
    transform.__doc__ = f"`tf.signal.{opdef.name.lower()}`: the {kind}discrete Fourier transform over the " \
                        f"innermost {rank} dimension(s) of a complex tensor."
    transform.__name__ = opdef.name.lower()
    return transform


fft, ifft = _c2c_function(1, False), _c2c_function(1, True)
fft2d, ifft2d = _c2c_function(2, False), _c2c_function(2, True)
fft3d, ifft3d = _c2c_function(3, False), _c2c_function(3, True)


# ---------------------------------------------------------------------------------------------------
# RFFT, IRFFT and their 2D/3D forms: real <-> half spectrum, with an fft_length input
# ---------------------------------------------------------------------------------------------------

def _check_fft_length(fft_length, rank):
    if fft_length.shape != (rank,):
        raise bad(f"fft_length must have shape [{rank}]")
    if (fft_length < 0).any():
        raise bad(f"fft_length must be non-negative, got {fft_length.tolist()}")
    return tuple(int(n) for n in fft_length)


def _half_spectrum(n):
    """Bins of the half spectrum of n real samples; TensorFlow gives none (not one) for an empty signal."""
    if n is None:
        return None
    return n // 2 + 1 if n else 0


def _r2c_kernel(rank):
    def kernel(x, fft_length):
        if x.ndim < rank:
            raise bad(f"Input must have rank of at least {rank} but got: {fmt_shape(x.shape)}")
        lengths = _check_fft_length(fft_length, rank)
        dtype = np.complex64 if x.dtype == np.float32 else np.complex128
        out_shape = x.shape[:-rank] + lengths[:-1] + (_half_spectrum(lengths[-1]),)
        if x.size == 0 or 0 in lengths:
            return np.zeros(out_shape, dtype)
        return np.fft.rfftn(x, s=lengths, axes=tuple(range(-rank, 0))).astype(dtype, copy=False)
    return kernel


def _c2r_kernel(rank):
    def kernel(x, fft_length):
        if x.ndim < rank:
            raise bad(f"Input must have rank of at least {rank} but got: {fmt_shape(x.shape)}")
        lengths = _check_fft_length(fft_length, rank)
        dtype = np.float32 if x.dtype == np.complex64 else np.float64
        if x.size == 0 or 0 in lengths:
            return np.zeros(x.shape[:-rank] + lengths, dtype)
        # NumPy crops or zero-pads the spectrum to lengths[:-1] + [lengths[-1] // 2 + 1] bins, as TF does.
        return np.fft.irfftn(x, s=lengths, axes=tuple(range(-rank, 0))).astype(dtype, copy=False)
    return kernel


def _real_fft_infer(rank, inverse, op_name):
    def infer(inputs, attrs):
        x, fft_length = inputs
        _check_rank(x.shape, rank, op_name)
        if fft_length.shape.rank is not None and fft_length.shape.as_list() not in ([rank], [None]):
            raise ValueError(f"Shape must be [{rank}] for fft_length of '{{{{node {op_name}}}}}', but is "
                             f"{fmt_shape(fft_length.shape.as_list() or [])}.")
        dtype = _REAL_OF[x.dtype] if inverse else _COMPLEX_OF[x.dtype]
        if x.shape.rank is None:
            return [(dtype, TensorShape(None))]
        lengths = value_dims(fft_length)
        if lengths is None:
            inner = [None] * rank
        else:
            inner = list(lengths) if inverse else list(lengths[:-1]) + [_half_spectrum(lengths[-1])]
        return [(dtype, TensorShape(x.shape.as_list()[:-rank] + inner))]
    return infer


def _hermitian_weights(n, dtype):
    """How often each of the n // 2 + 1 bins of a real signal's spectrum appears in the full spectrum."""
    if isinstance(n, int):
        weights = np.full(n // 2 + 1, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        return constant(weights.astype(dtype._np))
    bins = _creators.range(n // 2 + 1)
    once = _logic.logical_or(_logic.equal(bins, 0), _logic.equal(bins * 2, n))
    return _math.cast(_where.where(once, 1.0, 2.0), dtype)


def _r2c_grad(rank):
    def grad(op, g):
        x, fft_length = op.inputs
        lengths = _lengths(fft_length)
        spectrum = _fit_inner(g, lengths, rank)  # the mirrored bins beyond n // 2 get no gradient
        signal = apply(_C2C[(rank, True)], (spectrum,), None, _C2C[(rank, True)].name)
        real = _math.multiply(_math.cast(signal, x.dtype), _scale(_count(lengths), x.dtype))
        return [_fit_inner(real, _inner_dims(x, rank), rank), None]
    return grad


def _c2r_grad(rank):
    def grad(op, g):
        x, fft_length = op.inputs
        lengths = _lengths(fft_length)
        spectrum = apply(_R2C[rank], (g, fft_length), None, _R2C[rank].name)
        spectrum = _math.multiply(spectrum, _hermitian_weights(lengths[-1], x.dtype))
        spectrum = _math.realdiv(spectrum, _scale(_count(lengths), x.dtype))
        return [_fit_inner(spectrum, _inner_dims(x, rank), rank), None]
    return grad


def _real_fft_opdef(rank, inverse):
    name = ("IRFFT" if inverse else "RFFT") + ("" if rank == 1 else f"{rank}D")
    kernel = _c2r_kernel(rank) if inverse else _r2c_kernel(rank)
    grad = _c2r_grad(rank) if inverse else _r2c_grad(rank)
    return OpDef(name, _real_fft_infer(rank, inverse, name), kernel, grad=grad,
                 allowed=COMPLEX if inverse else (_dt.float32, _dt.float64), input_names=("input", "fft_length"))


_R2C = {rank: _real_fft_opdef(rank, False) for rank in (1, 2, 3)}
_C2R = {rank: _real_fft_opdef(rank, True) for rank in (1, 2, 3)}


def _fft_length_tensor(fft_length, default):
    if fft_length is None:
        return _as_tensor(default)
    return fft_length if isinstance(fft_length, Tensor) else convert_to_tensor(fft_length, dtype=_dt.int32)


def _default_irfft_length(x, rank):
    """The input's inner dims, the last one (a half spectrum of m bins) read as 2 * (m - 1) samples."""
    dims = _inner_dims(x, rank)
    if isinstance(dims, list):
        return dims[:-1] + [max(0, 2 * (dims[-1] - 1))]
    last = _shaping.reshape(_math.maximum(2 * (dims[-1] - 1), 0), [1])
    return _join.concat([dims[:-1], last], 0)


def _real_fft_function(rank, inverse):
    opdef = _C2R[rank] if inverse else _R2C[rank]
    accepted = COMPLEX if inverse else (_dt.float32, _dt.float64)
    requirement = "IRFFT requires tf.complex64 or tf.complex128" if inverse else \
        "RFFT requires tf.float32 or tf.float64"

    def transform(input_tensor, fft_length=None, name=None):
        x = input_tensor if isinstance(input_tensor, Tensor) else convert_to_tensor(
            input_tensor, dtype_hint=_dt.complex64 if inverse else _dt.float32)
        if x.dtype not in accepted:
            raise ValueError(f"{requirement} inputs, got: {str(x)}")
        if x.shape.rank is not None and x.shape.rank < rank:
            raise ValueError(f"Shape {x.shape} must have rank at least {rank}")
        default = None
        if fft_length is None:
            default = _default_irfft_length(x, rank) if inverse else _inner_dims(x, rank)
        return apply(opdef, (x, _fft_length_tensor(fft_length, default)), None, name or opdef.name)
    transform.__doc__ = (f"`tf.signal.{opdef.name.lower()}`: " +
                         ("the real signal of `fft_length` samples whose half spectrum (innermost "
                          f"{rank} dims) is the input" if inverse else
                          f"the half spectrum of a real signal over its innermost {rank} dims, cropped or "
                          "zero-padded to `fft_length`") + ".")
    transform.__name__ = opdef.name.lower()
    return transform


rfft, irfft = _real_fft_function(1, False), _real_fft_function(1, True)
rfft2d, irfft2d = _real_fft_function(2, False), _real_fft_function(2, True)
rfft3d, irfft3d = _real_fft_function(3, False), _real_fft_function(3, True)


# ---------------------------------------------------------------------------------------------------
# fftshift / ifftshift
# ---------------------------------------------------------------------------------------------------

def _shift(x, axes, inverse, name):
    """`x` rolled along `axes` (default: all) by half of each dim, or back by as much for the inverse."""
    x = convert_to_tensor(x)
    if axes is None:
        axes = list(range(x.shape.rank)) if x.shape.rank is not None else _creators.range(_shape_ops.rank(x))
    if isinstance(axes, Tensor):
        sizes = _gather.gather(_shape_ops.shape(x), axes)
    else:
        flat = [int(a) for a in np.reshape(axes, -1)]
        dims = [x.shape[a] for a in flat] if x.shape.rank is not None else [None]
        sizes = np.array(dims, np.int64) if None not in dims else _gather.gather(_shape_ops.shape(x), flat)
        if np.ndim(axes) == 0:
            axes, sizes = flat[0], sizes[0]
    half = sizes // 2
    shift = -half if inverse else half
    if isinstance(shift, (np.ndarray, np.generic)):
        shift = shift.tolist()
    return _manip.roll(x, shift, axes, name=name)


def fftshift(x, axes=None, name=None):
    """`tf.signal.fftshift`: the zero-frequency bin moved to the middle of `axes` (default: all)."""
    return _shift(x, axes, False, name or "fftshift")


def ifftshift(x, axes=None, name=None):
    """`tf.signal.ifftshift`: the inverse of `fftshift` (they differ for odd lengths)."""
    return _shift(x, axes, True, name or "ifftshift")


# ---------------------------------------------------------------------------------------------------
# frame / overlap_and_add
# ---------------------------------------------------------------------------------------------------

def _window_positions(num_frames, frame_length, frame_step):
    """[num_frames, frame_length] sample positions: row i holds i * frame_step + (0 .. frame_length - 1)."""
    if isinstance(num_frames, int):
        starts = np.arange(num_frames, dtype=np.int32)[:, None] * frame_step
        return constant(starts + np.arange(frame_length, dtype=np.int32))
    starts = _shaping.expand_dims(_creators.range(num_frames) * frame_step, 1)
    return starts + _shaping.expand_dims(_creators.range(frame_length), 0)


def _at_least_zero(count):
    return max(0, count) if isinstance(count, int) else _math.maximum(count, 0)


def _known_rank(t, fn_name):
    if t.shape.rank is None:
        raise ValueError(f"tf.signal.{fn_name} needs a tensor of known rank, got shape {t.shape}")
    return t.shape.rank


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """`tf.signal.frame`: the `frame_length`-long windows of `signal` along `axis`, every `frame_step`
    samples; that axis becomes [num_frames, frame_length]. With `pad_end` the signal is padded with
    `pad_value` so that every sample starts or is inside a frame (ceil(length / frame_step) frames)."""
    signal = convert_to_tensor(signal)
    if signal.shape.rank == 0:
        raise ValueError(f"Shape {signal.shape} must have rank at least 1")
    rank = _known_rank(signal, "frame")
    frame_length = static_int(frame_length, "frame_length")
    frame_step = static_int(frame_step, "frame_step")
    axis = static_int(axis, "axis")
    if not -rank <= axis < rank:
        raise IndexError(f"axis {axis} is out of range for a signal of rank {rank}")
    axis %= rank
    length = signal.shape[axis]
    if length is None:
        length = _shape_ops.shape(signal)[axis]
    # The same arithmetic serves a static length (ints) and one known at run time (int32 tensors).
    if pad_end:
        num_frames = -(-length // frame_step)
        padding = _at_least_zero((num_frames - 1) * frame_step + frame_length - length)
        if not isinstance(padding, int) or padding:
            paddings = [[0, padding if i == axis else 0] for i in range(rank)]
            if isinstance(padding, Tensor):
                paddings = _join.stack([_join.stack(row) for row in paddings])
            signal = _padding.pad(signal, paddings, constant_values=convert_to_tensor(pad_value, signal.dtype))
    else:
        num_frames = _at_least_zero(1 + (length - frame_length) // frame_step)
    positions = _window_positions(num_frames, frame_length, frame_step)
    # TensorFlow's frame slices, so its gradient is dense; gather's would be an IndexedSlices along axis 0,
    # and the reshape (a view) in between densifies it.
    dense = _shaping.reshape(signal, _shape_ops.shape_of(signal))
    dense.set_shape(signal.shape)
    signal = dense
    return _gather.gather(signal, positions, axis=axis, name=name or "frame")


def overlap_and_add(signal, frame_step, name=None):
    """`tf.signal.overlap_and_add`: frames [..., frames, frame_length] summed into one signal, frame i
    starting at sample i * frame_step ((frames - 1) * frame_step + frame_length samples)."""
    signal = convert_to_tensor(signal)
    rank = _known_rank(signal, "overlap_and_add")
    if rank < 2:
        raise ValueError(f"Shape {signal.shape} must have rank at least 2")
    if isinstance(frame_step, Tensor) and not frame_step.dtype.is_integer:
        raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
    if isinstance(frame_step, float):
        raise ValueError(f"frame_step must be an integer. Got {_dt.float32}")
    frame_step = static_int(frame_step, "frame_step")
    num_frames, frame_length = signal.shape[-2], signal.shape[-1]
    if num_frames is None or frame_length is None:
        dims = _shape_ops.shape(signal)
        num_frames = dims[-2] if num_frames is None else num_frames
        frame_length = dims[-1] if frame_length is None else frame_length
    output_length = _at_least_zero((num_frames - 1) * frame_step + frame_length)
    positions = _window_positions(num_frames, frame_length, frame_step)
    # Segment sums reduce leading dims, so the frame dims go first and come back last.
    frames_first = [rank - 2, rank - 1] + list(range(rank - 2))
    if rank > 2:
        signal = _reorder.transpose(signal, frames_first)
    summed = _gather.unsorted_segment_sum(signal, positions, output_length, name=name or "overlap_and_add")
    if rank > 2:
        summed = _reorder.transpose(summed, list(range(1, rank - 1)) + [0])
    return summed


# ---------------------------------------------------------------------------------------------------
# Windows
# ---------------------------------------------------------------------------------------------------

def _raised_cosine_window(window_length, periodic, dtype, a, b, name):
    """a - b cos(2 pi k / n), k < window_length, with n = window_length for a periodic window of even
    length and window_length - 1 otherwise (a window of length 1 is [1])."""
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    if not isinstance(window_length, Tensor):
        window_length = static_int(window_length, "window_length")
        if window_length == 1:
            return _creators.ones([1], dtype=dtype, name=name)
    even = 1 - window_length % 2
    points = window_length + int(bool(periodic)) * even - 1
    # A window of length 1 would divide 0 by 0 here; it is [1] (selected below when only known at run time).
    points = max(points, 1) if isinstance(points, int) else _math.maximum(points, 1)
    denominator = _math.cast(points, dtype)
    count = _math.cast(_creators.range(window_length), dtype)
    window = a - b * _math.cos(2 * np.pi * count / denominator)
    if isinstance(window_length, Tensor):  # a length known only at run time may still be 1
        window = _where.where(_logic.equal(window_length, 1), _creators.ones_like(window), window)
    return _shape_ops.identity(window, name=name)


def hann_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    """`tf.signal.hann_window`: 0.5 - 0.5 cos(2 pi k / n) (see `_raised_cosine_window` for n)."""
    return _raised_cosine_window(window_length, periodic, dtype, 0.5, 0.5, name or "hann_window")


def hamming_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    """`tf.signal.hamming_window`: 0.54 - 0.46 cos(2 pi k / n) (see `_raised_cosine_window` for n)."""
    return _raised_cosine_window(window_length, periodic, dtype, 0.54, 0.46, name or "hamming_window")


# ---------------------------------------------------------------------------------------------------
# Short-time Fourier transforms
# ---------------------------------------------------------------------------------------------------

def _enclosing_power_of_two(n):
    return 1 << max(0, int(n) - 1).bit_length()


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """`tf.signal.stft`: the rfft (of `fft_length`, default the power of two enclosing `frame_length`)
    of each windowed frame of the innermost axis: [..., frames, fft_length // 2 + 1]."""
    signals = convert_to_tensor(signals)
    frame_length = static_int(frame_length, "frame_length")
    fft_length = _enclosing_power_of_two(frame_length) if fft_length is None else static_int(fft_length,
                                                                                             "fft_length")
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end, axis=-1)
    if window_fn is not None:
        framed = framed * window_fn(frame_length, dtype=framed.dtype)
    return rfft(framed, [fft_length], name=name or "stft")


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """`tf.signal.inverse_stft`: each frame's irfft cut (or zero-padded) to `frame_length`, windowed and
    overlap-added. With `inverse_stft_window_fn(frame_step)` as window it inverts `stft`."""
    stfts = convert_to_tensor(stfts)
    frame_length = static_int(frame_length, "frame_length")
    fft_length = _enclosing_power_of_two(frame_length) if fft_length is None else static_int(fft_length,
                                                                                             "fft_length")
    frames = irfft(stfts, [fft_length])
    frames = _fit_inner(frames, [frame_length], 1)
    if window_fn is not None:
        frames = frames * window_fn(frame_length, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step, name=name or "inverse_stft")


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """`tf.signal.inverse_stft_window_fn`: a window function for `inverse_stft` that divides the forward
    window by the sum of the squared forward windows overlapping each sample (perfect reconstruction)."""
    frame_step = static_int(frame_step, "frame_step")

    def inverse_window(frame_length, dtype):
        forward = forward_window_fn(frame_length, dtype=dtype)
        frame_length = static_int(frame_length, "frame_length")
        overlaps = -(-frame_length // frame_step)
        squares = _padding.pad(_math.square(forward), [[0, overlaps * frame_step - frame_length]])
        # Sample j of a frame overlaps samples j + k * frame_step of the frames around it.
        coverage = _reduce.reduce_sum(_shaping.reshape(squares, [overlaps, frame_step]), axis=0, keepdims=True)
        coverage = _shaping.reshape(_padding.tile(coverage, [overlaps, 1]), [-1])[:frame_length]
        return _math.divide(forward, coverage)
    return inverse_window


# ---------------------------------------------------------------------------------------------------
# Mel filterbank
# ---------------------------------------------------------------------------------------------------

def _hertz_to_mel(frequencies):
    """The mel scale, computed in the frequencies' own dtype."""
    real = frequencies.dtype.type
    return real(1127.0) * np.log(real(1.0) + frequencies / real(700.0))


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0, dtype=_dt.float32, name=None):
    """`tf.signal.linear_to_mel_weight_matrix`: [num_spectrogram_bins, num_mel_bins] triangular filters,
    equally spaced on the mel scale (1127 ln(1 + f / 700)) between the edge frequencies; the DC bin gets
    no weight. A magnitude spectrogram times this matrix is a mel spectrogram."""
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    num_mel_bins = static_int(num_mel_bins, "num_mel_bins")
    num_spectrogram_bins = static_int(num_spectrogram_bins, "num_spectrogram_bins")
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz} >= upper_edge_hertz {upper_edge_hertz}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                         f"Got {upper_edge_hertz} for sample_rate: {sample_rate}")
    real = np.dtype(dtype._np)
    linear = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins).astype(real)[1:]
    spectrogram_mel = _hertz_to_mel(linear)[:, None]
    edges = np.array([lower_edge_hertz, upper_edge_hertz], dtype=real)
    lower_mel, upper_mel = _hertz_to_mel(edges)
    band_edges = np.linspace(float(lower_mel), float(upper_mel), num_mel_bins + 2).astype(real)
    lower, center, upper = band_edges[:-2], band_edges[1:-1], band_edges[2:]
    rising = (spectrogram_mel - lower) / (center - lower)
    falling = (upper - spectrogram_mel) / (upper - center)
    weights = np.maximum(real.type(0), np.minimum(rising, falling))
    weights = np.concatenate([np.zeros((1, num_mel_bins), real), weights], axis=0)
    return constant(weights, dtype=dtype, name=name or "linear_to_mel_weight_matrix")


API = {
    "signal": ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d",
               "rfft3d", "irfft3d", "fftshift", "ifftshift", "frame", "overlap_and_add", "hann_window",
               "hamming_window", "stft", "inverse_stft", "inverse_stft_window_fn", "linear_to_mel_weight_matrix"],
}
