"""`keras.ops` core and math: control flow (`cond`, `while_loop`, `fori_loop`, `scan`, `associative_scan`,
`map`, `switch`, `vectorized_map`), `custom_gradient`, special functions, top-k, segment reductions,
Fourier transforms (`fft`, `rfft`, `stft`, `istft` on (real, imaginary) pairs, as Keras passes complex
values), `extract_sequences`, einops-style `rearrange`, and `jvp`.

The loops run as TensorFlow's graph control flow when traced, as Python when eager; `scan` and
`associative_scan` unroll over the (static) leading axis.
"""
import re

import numpy as np

import tensorflux as tf

from .ops_base import FLOATX, axis_arg, convert_to_tensor, floating, operation


def cond(pred, true_fn, false_fn):
    return tf.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):  # noqa: A002
    """Runs `body` while `cond` holds; `loop_vars` a tuple/list (a single value is returned as one)."""
    is_sequence = isinstance(loop_vars, (tuple, list))
    loop_vars = tuple(tf.nest.map_structure(convert_to_tensor, tuple(loop_vars) if is_sequence else (loop_vars,)))

    def _body(*args):
        outputs = body(*args)
        return tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)

    outputs = tf.while_loop(cond, _body, loop_vars, maximum_iterations=maximum_iterations)
    outputs = tuple(outputs)
    return outputs if is_sequence else outputs[0]


def fori_loop(lower, upper, body_fun, init_val):
    """`init_val` updated by `body_fun(i, value)` for i in [lower, upper)."""
    _, value = tf.while_loop(lambda i, value: i < upper, lambda i, value: (i + 1, body_fun(i, value)),
                             (convert_to_tensor(lower), tf.nest.map_structure(convert_to_tensor, init_val)))
    return value


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Threads a carry through `f(carry, x) -> (carry, y)` over the leading axis of `xs` (or `length`
    steps with x None); returns the final carry and the stacked ys."""
    if xs is None:
        steps = [None] * int(length)
    else:
        flat = tf.nest.flatten(xs)
        n = convert_to_tensor(flat[0]).shape[0]
        steps = [tf.nest.pack_sequence_as(xs, [convert_to_tensor(v)[i] for v in flat]) for i in range(n)]
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    carry, ys = init, [None] * len(steps)
    for i in order:
        carry, ys[i] = f(carry, steps[i])
    if not ys or ys[0] is None:
        return carry, None
    stacked = tf.nest.map_structure(lambda *parts: tf.stack(parts), *ys)
    return carry, stacked


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of `elems` along `axis` with the associative `f`."""
    flat = [convert_to_tensor(v) for v in tf.nest.flatten(elems)]
    n = flat[0].shape[axis]
    parts = [tf.unstack(v, axis=axis) for v in flat]
    order = list(range(n - 1, -1, -1)) if reverse else list(range(n))
    results, carry = [None] * n, None
    for i in order:
        current = tf.nest.pack_sequence_as(elems, [p[i] for p in parts])
        carry = current if carry is None else f(carry, current)
        results[i] = carry
    flat_results = [tf.nest.flatten(r) for r in results]
    stacked = [tf.stack([r[j] for r in flat_results], axis=axis) for j in range(len(flat))]
    return tf.nest.pack_sequence_as(elems, stacked)


def map(f, xs):  # noqa: A001  (Keras' name)
    """`f` applied to each slice of `xs` along its leading axis, the results stacked."""
    return tf.map_fn(f, xs)


def switch(index, branches, *operands):
    """Runs `branches[index](*operands)` (index clamped into range, as Keras)."""
    index = tf.clip_by_value(tf.cast(convert_to_tensor(index), tf.int32), 0, len(branches) - 1)
    return tf.switch_case(index, [lambda b=b: b(*operands) for b in branches])


def vectorized_map(function, elements):
    return tf.vectorized_map(function, elements)


def custom_gradient(f):
    return tf.custom_gradient(f)


def _float_math(name, fn):
    def math_op(x):
        return fn(floating(x))
    math_op.__name__ = math_op.__qualname__ = name
    math_op.__doc__ = f"`keras.ops.{name}`: element-wise (integers as float32)."
    return operation(math_op)


erf = _float_math("erf", tf.math.erf)
erfc = _float_math("erfc", tf.math.erfc)
erfinv = _float_math("erfinv", tf.math.erfinv)
rsqrt = _float_math("rsqrt", tf.math.rsqrt)


@operation
def logsumexp(x, axis=None, keepdims=False):
    return tf.reduce_logsumexp(floating(x), axis=axis_arg(axis), keepdims=keepdims)


@operation
def logdet(x):
    return tf.linalg.logdet(floating(x))


@operation
def top_k(x, k, sorted=True):  # noqa: A002
    values, indices = tf.math.top_k(convert_to_tensor(x), k, sorted=sorted)
    return values, tf.cast(indices, tf.int32)


@operation
def in_top_k(targets, predictions, k):
    return tf.math.in_top_k(tf.cast(convert_to_tensor(targets), tf.int32), convert_to_tensor(predictions), k)


def _segment(name, reduce):
    def segment(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        if num_segments is None:
            num_segments = tf.reduce_max(segment_ids) + 1
        return reduce(data, segment_ids, num_segments)
    segment.__name__ = segment.__qualname__ = name
    segment.__doc__ = f"`keras.ops.{name}`: the {name.split('_')[1]} of the rows of `data` in each segment."
    return operation(segment)


segment_sum = _segment("segment_sum", tf.math.unsorted_segment_sum)
segment_max = _segment("segment_max", tf.math.unsorted_segment_max)
segment_min = _segment("segment_min", tf.math.unsorted_segment_min)
segment_prod = _segment("segment_prod", tf.math.unsorted_segment_prod)


# -- Fourier transforms on (real, imaginary) pairs ----------------------------------------------------------------
def _complex(x):
    real, imag = x
    real, imag = floating(real), floating(imag)
    dtype = tf.complex128 if real.dtype == tf.float64 else tf.complex64
    return tf.complex(tf.cast(real, dtype.real_dtype), tf.cast(imag, dtype.real_dtype))


def _pair(z):
    return tf.math.real(z), tf.math.imag(z)


@operation
def fft(x):
    return _pair(tf.signal.fft(_complex(x)))


@operation
def fft2(x):
    return _pair(tf.signal.fft2d(_complex(x)))


@operation
def ifft2(x):
    return _pair(tf.signal.ifft2d(_complex(x)))


@operation
def rfft(x, fft_length=None):
    x = floating(x)
    length = [fft_length] if fft_length is not None else None
    return _pair(tf.signal.rfft(x, length))


@operation
def irfft(x, fft_length=None):
    length = [fft_length] if fft_length is not None else None
    return tf.signal.irfft(_complex(x), length)


def _window(window, sequence_length, fft_length, dtype):
    """The analysis window of `sequence_length` samples, centred in `fft_length` (periodic Hann/Hamming as
    scipy.signal.get_window gives them, a given tensor, or none)."""
    if window is None:
        values = tf.ones([sequence_length], dtype)
    elif isinstance(window, str):
        n = tf.range(sequence_length, dtype=dtype)
        phase = tf.cos(2.0 * np.pi * n / sequence_length)
        if window == "hann":
            values = 0.5 - 0.5 * phase
        elif window == "hamming":
            values = 0.54 - 0.46 * phase
        else:
            raise ValueError(f"If a string is passed to `window`, it must be one of 'hann', 'hamming'. "
                             f"Received: window={window}")
    else:
        values = tf.cast(convert_to_tensor(window), dtype)
    left = (fft_length - sequence_length) // 2
    return tf.pad(values, [[left, fft_length - sequence_length - left]])


@operation
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform along the last axis: (real, imaginary) of shape
    [..., frames, fft_length // 2 + 1]."""
    x = floating(x)
    if center:
        pad = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = tf.pad(x, pad, mode="REFLECT")
    frames = tf.signal.frame(x, fft_length, sequence_stride)
    frames = frames * _window(window, sequence_length, fft_length, x.dtype)
    return _pair(tf.signal.rfft(frames, [fft_length]))


@operation
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """The inverse of `stft`: overlap-added frames divided by the summed squared window."""
    frames = tf.signal.irfft(_complex(x), [fft_length])
    win = _window(window, sequence_length, fft_length, frames.dtype)
    signal = tf.signal.overlap_and_add(frames * win, sequence_stride)
    n_frames = frames.shape[-2]
    norm = tf.signal.overlap_and_add(tf.tile(tf.expand_dims(win * win, 0), [n_frames, 1]), sequence_stride)
    signal = signal / tf.where(norm > 1e-10, norm, tf.ones_like(norm))
    start = fft_length // 2 if center else 0
    end = signal.shape[-1] - (fft_length // 2 if center else 0)
    signal = signal[..., start:end]
    if length is not None:
        current = signal.shape[-1]
        if current >= length:
            signal = signal[..., :length]
        else:
            signal = tf.pad(signal, [[0, 0]] * (signal.shape.rank - 1) + [[0, length - current]])
    return signal


@operation
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of `sequence_length` samples every `sequence_stride` along the last axis."""
    return tf.signal.frame(convert_to_tensor(x), sequence_length, sequence_stride)


# -- rearrange (einops' notation) --------------------------------------------------------------------------------
_TOKEN = re.compile(r"\(|\)|[A-Za-z_][A-Za-z0-9_]*|1")


def _groups(side):
    groups, current = [], None
    for token in _TOKEN.findall(side):
        if token == "(":
            current = []
        elif token == ")":
            groups.append(current)
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    return groups


@operation
def rearrange(tensor, pattern, **axes_lengths):
    """Reorders, splits and merges axes as einops' pattern says ("b (h w) c -> b h w c", h=2)."""
    tensor = convert_to_tensor(tensor)
    if "->" not in pattern:
        raise ValueError(f"Pattern must contain '->'. Received: pattern={pattern}")
    left, right = (_groups(side) for side in pattern.split("->"))
    if len(left) != tensor.shape.rank:
        raise ValueError(f"Pattern {pattern!r} has {len(left)} input axes, the tensor has rank {tensor.shape.rank}")
    sizes = dict(axes_lengths)
    for group, dim in zip(left, tensor.shape.as_list()):
        unknown = [a for a in group if a not in sizes and a != "1"]
        known = int(np.prod([sizes[a] for a in group if a in sizes])) if group else 1
        if len(unknown) > 1:
            raise ValueError(f"Could not infer the sizes of {unknown} in {pattern!r}")
        if unknown:
            sizes[unknown[0]] = dim // known
    sizes["1"] = 1
    elementary = [a for group in left for a in group]
    split = tf.reshape(tensor, [sizes[a] for a in elementary])
    order = [a for group in right for a in group if a != "1"]
    permuted = tf.transpose(split, [elementary.index(a) for a in order])
    return tf.reshape(permuted, [int(np.prod([sizes[a] for a in group])) for group in right])


def jvp(fun, primals, tangents, has_aux=False):
    """(fun(*primals), the Jacobian of `fun` at `primals` times `tangents`) — by differentiating the
    vector-Jacobian product J^T u with respect to u (a dummy cotangent)."""
    primals = [convert_to_tensor(p) for p in primals]
    tangents = [convert_to_tensor(t) for t in tangents]
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            for p in primals:
                inner.watch(p)
            result = fun(*primals)
            outputs, aux = (result if has_aux else (result, None))
        flat_outputs = tf.nest.flatten(outputs)
        dummies = [tf.zeros_like(o) for o in flat_outputs]
        for d in dummies:
            outer.watch(d)
        vjps = inner.gradient(flat_outputs, primals, output_gradients=dummies)
        pairing = tf.add_n([tf.reduce_sum(v * t) for v, t in zip(vjps, tangents) if v is not None])
    tangent_out = outer.gradient(pairing, dummies)
    tangent_out = [tf.zeros_like(o) if t is None else t for o, t in zip(flat_outputs, tangent_out)]
    tangent_out = tf.nest.pack_sequence_as(outputs, tangent_out)
    return (outputs, tangent_out, aux) if has_aux else (outputs, tangent_out)


API = {"keras.ops": ["cond", "while_loop", "fori_loop", "scan", "associative_scan", "map", "switch",
                     "vectorized_map", "custom_gradient", "erf", "erfc", "erfinv", "rsqrt", "logsumexp", "logdet",
                     "top_k", "in_top_k", "segment_sum", "segment_max", "segment_min", "segment_prod", "fft", "fft2",
                     "ifft2", "rfft", "irfft", "stft", "istft", "extract_sequences", "rearrange", "jvp"],
       "keras.ops.linalg": ["jvp"]}
