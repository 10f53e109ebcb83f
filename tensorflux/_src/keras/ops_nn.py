"""`keras.ops` (and `keras.ops.nn`): activations, normalizations, losses, pooling, convolutions, attention,
CTC, and PyTorch-style `fold`/`unfold`, with Keras 3's formulas and defaults (channels_last data,
probabilities clipped to [1e-7, 1 - 1e-7] in the cross-entropies, epsilon 1e-7 in `normalize`).
"""
import numpy as np

import tensorflux as tf

from .ops_base import FLOATX, axis_arg, convert_to_tensor, floating, operation

_EPSILON = 1e-7


def _activation(name, fn, doc):
    def activation(x, *args, **kwargs):
        return fn(floating(x), *args, **kwargs)
    activation.__name__ = activation.__qualname__ = name
    activation.__doc__ = doc
    return operation(activation)


def _c(value, x):
    return tf.cast(value, x.dtype)


celu = _activation("celu", lambda x, alpha=1.0: tf.nn.relu(x) + _c(alpha, x) * tf.math.expm1(tf.minimum(x, 0.0) / _c(alpha, x)),
                   "`keras.ops.celu`: max(x, 0) + alpha · expm1(min(x, 0) / alpha).")
elu = _activation("elu", lambda x, alpha=1.0: tf.where(x > 0, x, _c(alpha, x) * tf.math.expm1(tf.minimum(x, 0.0))),
                  "`keras.ops.elu`: x above 0, alpha · (exp(x) - 1) below.")
selu = _activation("selu", tf.nn.selu, "`keras.ops.selu`: the scaled exponential linear unit.")
relu6 = _activation("relu6", tf.nn.relu6, "`keras.ops.relu6`: min(max(x, 0), 6).")
softsign = _activation("softsign", tf.nn.softsign, "`keras.ops.softsign`: x / (1 + |x|).")
leaky_relu = _activation("leaky_relu", lambda x, negative_slope=0.2: tf.nn.leaky_relu(x, alpha=negative_slope),
                         "`keras.ops.leaky_relu`: x above 0, negative_slope · x below.")
hard_sigmoid = _activation("hard_sigmoid", lambda x: tf.nn.relu6(x + 3.0) / 6.0,
                           "`keras.ops.hard_sigmoid`: relu6(x + 3) / 6.")
hard_silu = _activation("hard_silu", lambda x: x * tf.nn.relu6(x + 3.0) / 6.0,
                        "`keras.ops.hard_silu`: x · relu6(x + 3) / 6.")
hard_swish = hard_silu
hard_tanh = _activation("hard_tanh", lambda x: tf.clip_by_value(x, _c(-1, x), _c(1, x)),
                        "`keras.ops.hard_tanh`: x clipped to [-1, 1].")
hard_shrink = _activation("hard_shrink", lambda x, threshold=0.5: tf.where(tf.abs(x) > threshold, x, tf.zeros_like(x)),
                          "`keras.ops.hard_shrink`: x where |x| > threshold, else 0.")
soft_shrink = _activation("soft_shrink", lambda x, threshold=0.5: tf.where(
    x > threshold, x - _c(threshold, x), tf.where(x < -threshold, x + _c(threshold, x), tf.zeros_like(x))),
    "`keras.ops.soft_shrink`: x moved towards 0 by threshold, 0 within it.")
tanh_shrink = _activation("tanh_shrink", lambda x: x - tf.tanh(x), "`keras.ops.tanh_shrink`: x - tanh(x).")
log_sigmoid = _activation("log_sigmoid", lambda x: -tf.nn.softplus(-x), "`keras.ops.log_sigmoid`: log(sigmoid(x)).")
sparse_plus = _activation("sparse_plus", lambda x: tf.where(x <= -1.0, tf.zeros_like(x), tf.where(
    x >= 1.0, x, tf.square(x + 1.0) / 4.0)), "`keras.ops.sparse_plus`: 0 below -1, x above 1, (x + 1)² / 4 between.")
sparse_sigmoid = _activation("sparse_sigmoid", lambda x: tf.where(x <= -1.0, tf.zeros_like(x), tf.where(
    x >= 1.0, tf.ones_like(x), 0.5 * (x + 1.0))), "`keras.ops.sparse_sigmoid`: 0 below -1, 1 above 1, linear between.")
squareplus = _activation("squareplus", lambda x, b=4: (x + tf.sqrt(tf.square(x) + _c(b, x))) / 2.0,
                         "`keras.ops.squareplus`: (x + sqrt(x² + b)) / 2.")


@operation
def glu(x, axis=-1):
    """The gated linear unit: the first half of `axis` times the sigmoid of the second."""
    x = floating(x)
    a, b = tf.split(x, 2, axis=axis)
    return a * tf.sigmoid(b)


@operation
def sparsemax(x, axis=-1):
    """The Euclidean projection of `x` onto the probability simplex along `axis` (sparse probabilities)."""
    x = floating(x)
    ordered = tf.sort(x, axis=axis, direction="DESCENDING")
    cumulative = tf.cumsum(ordered, axis=axis)
    n = tf.shape(x)[axis]
    shape = [1] * x.shape.rank
    shape[axis] = -1
    k = tf.reshape(tf.range(1, n + 1, dtype=x.dtype), shape)
    support = tf.cast(1.0 + k * ordered > cumulative, x.dtype)
    count = tf.reduce_sum(support, axis=axis, keepdims=True)
    tau = (tf.reduce_sum(ordered * support, axis=axis, keepdims=True) - 1.0) / count
    return tf.nn.relu(x - tau)


@operation
def threshold(x, threshold, default_value):
    x = floating(x)
    return tf.where(x > threshold, x, _c(default_value, x))


@operation
def polar(abs_, angle):
    abs_, angle = floating(abs_), floating(angle)
    return tf.complex(abs_ * tf.cos(angle), abs_ * tf.sin(angle))


@operation
def moments(x, axes, keepdims=False, synchronized=False):
    x = floating(x)
    mean = tf.reduce_mean(x, axis=axis_arg(axes), keepdims=True)
    variance = tf.reduce_mean(tf.square(x - mean), axis=axis_arg(axes), keepdims=keepdims)
    return (mean if keepdims else tf.squeeze(mean, axes)), variance


def _along(v, x, axis):
    v = tf.cast(convert_to_tensor(v), x.dtype)
    if v.shape.rank != 1:
        return v
    shape = [1] * x.shape.rank
    shape[axis] = -1
    return tf.reshape(v, shape)


@operation
def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    x = floating(x)
    result = (x - _along(mean, x, axis)) * tf.math.rsqrt(_along(variance, x, axis) + _c(epsilon, x))
    if scale is not None:
        result = result * _along(scale, x, axis)
    if offset is not None:
        result = result + _along(offset, x, axis)
    return result


@operation
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    x = floating(x)
    epsilon = _EPSILON if epsilon is None else epsilon
    mean, variance = moments(x, [axis], keepdims=True)
    result = (x - mean) * tf.math.rsqrt(variance + _c(epsilon, x))
    if gamma is not None:
        result = result * tf.cast(convert_to_tensor(gamma), x.dtype)
    if beta is not None:
        result = result + tf.cast(convert_to_tensor(beta), x.dtype)
    return result


@operation
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    x = floating(x)
    epsilon = _EPSILON if epsilon is None else epsilon
    result = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=axis, keepdims=True) + _c(epsilon, x))
    return result if scale is None else result * tf.cast(convert_to_tensor(scale), x.dtype)


@operation
def normalize(x, axis=-1, order=2, epsilon=None):
    """`x` divided by its `order`-norm along `axis` (at least epsilon)."""
    x = floating(x)
    epsilon = _EPSILON if epsilon is None else epsilon
    if order == 2:
        norm = tf.sqrt(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True))
    elif order == 1:
        norm = tf.reduce_sum(tf.abs(x), axis=axis, keepdims=True)
    else:
        norm = tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), _c(order, x)), axis=axis, keepdims=True), _c(1.0 / order, x))
    return x / tf.maximum(norm, _c(epsilon, x))


@operation
def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """1 at each class an example lists (a batch of index lists -> [batch, num_classes])."""
    num_classes = kwargs.pop("num_tokens", num_classes)
    inputs = tf.cast(convert_to_tensor(inputs), tf.int32)
    hot = tf.one_hot(inputs, num_classes, axis=axis, dtype=tf.as_dtype(dtype or "float32"))
    reduce_axis = -2 if axis == -1 else axis
    return tf.reduce_max(hot, axis=reduce_axis) if inputs.shape.rank > 1 else tf.reduce_max(hot, axis=0)


@operation
def psnr(x1, x2, max_val):
    x1, x2 = floating(x1), floating(x2)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20.0 * tf.math.log(_c(max_val, x1)) / np.log(10.0) - 10.0 * tf.math.log(mse) / np.log(10.0)


# -- losses ---------------------------------------------------------------------------------------------------
@operation
def binary_crossentropy(target, output, from_logits=False):
    target, output = floating(target), floating(output)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = tf.clip_by_value(output, _c(_EPSILON, output), _c(1.0 - _EPSILON, output))
    return -(target * tf.math.log(output) + (1.0 - target) * tf.math.log(1.0 - output))


@operation
def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target, output = floating(target), floating(output)
    if from_logits:
        return -tf.reduce_sum(target * tf.nn.log_softmax(output, axis=axis), axis=axis)
    output = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    output = tf.clip_by_value(output, _c(_EPSILON, output), _c(1.0 - _EPSILON, output))
    return -tf.reduce_sum(target * tf.math.log(output), axis=axis)


@operation
def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target = tf.cast(convert_to_tensor(target), tf.int32)
    output = floating(output)
    depth = output.shape[axis]
    return categorical_crossentropy(tf.one_hot(target, depth, axis=axis, dtype=output.dtype), output,
                                    from_logits=from_logits, axis=axis)


# -- pooling and convolution (channels_last; channels_first is transposed in and out) -------------------------------
def _tuple(value, n):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


def _channels_last(x, data_format):
    if data_format == "channels_first":
        rank = x.shape.rank
        return tf.transpose(x, [0] + list(range(2, rank)) + [1])
    return x


def _restore(x, data_format):
    if data_format == "channels_first":
        rank = x.shape.rank
        return tf.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))
    return x


def _pool(name, tf_pool):
    def pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
        x = _channels_last(floating(inputs), data_format)
        n = x.shape.rank - 2
        window = _tuple(pool_size, n)
        strides = window if strides is None else _tuple(strides, n)
        return _restore(tf_pool(x, window, strides, padding.upper()), data_format)
    pool.__name__ = pool.__qualname__ = name
    pool.__doc__ = f"`keras.ops.{name}` over the spatial axes (channels_last unless data_format says otherwise)."
    return operation(pool)


max_pool = _pool("max_pool", tf.nn.max_pool)
average_pool = _pool("average_pool", tf.nn.avg_pool)


def _adaptive(name, reduce):
    def adaptive(inputs, output_size, data_format=None):
        x = _channels_last(floating(inputs), data_format)
        spatial = x.shape.as_list()[1:-1]
        output_size = _tuple(output_size, len(spatial))
        for axis, (size, out) in enumerate(zip(spatial, output_size), start=1):
            pieces = []
            for i in range(out):
                start, end = (i * size) // out, -((-(i + 1) * size) // out)
                pieces.append(reduce(tf.gather(x, list(range(start, end)), axis=axis), axis=axis, keepdims=True))
            x = tf.concat(pieces, axis=axis)
        return _restore(x, data_format)
    adaptive.__name__ = adaptive.__qualname__ = name
    adaptive.__doc__ = f"`keras.ops.{name}`: pools into `output_size` bins per spatial axis (PyTorch's bins)."
    return operation(adaptive)


adaptive_average_pool = _adaptive("adaptive_average_pool", tf.reduce_mean)
adaptive_max_pool = _adaptive("adaptive_max_pool", tf.reduce_max)


@operation
def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _channels_last(floating(inputs), data_format)
    kernel = tf.cast(convert_to_tensor(kernel), x.dtype)
    n = x.shape.rank - 2
    return _restore(tf.nn.convolution(x, kernel, strides=list(_tuple(strides, n)), padding=padding.upper(),
                                      dilations=list(_tuple(dilation_rate, n))), data_format)


@operation
def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                   dilation_rate=1):
    """The transposed convolution (kernel [..., out_channels, in_channels]); output sizes as Keras computes
    them: (in - 1) · stride + kernel for "valid", in · stride for "same", plus `output_padding`."""
    x = _channels_last(floating(inputs), data_format)
    kernel = tf.cast(convert_to_tensor(kernel), x.dtype)
    n = x.shape.rank - 2
    strides, dilations = _tuple(strides, n), _tuple(dilation_rate, n)
    extra = _tuple(output_padding, n) if output_padding is not None else (None,) * n
    sizes = []
    for size, k, s, d, p in zip(x.shape.as_list()[1:-1], kernel.shape.as_list()[:n], strides, dilations, extra):
        k = (k - 1) * d + 1
        if p is None:
            sizes.append(size * s if padding.lower() == "same" else (size - 1) * s + max(k - s, 0) + s)
        else:
            pad = k // 2 if padding.lower() == "same" else 0
            sizes.append((size - 1) * s + k - 2 * pad + p)
    output_shape = [tf.shape(x)[0]] + sizes + [kernel.shape[-2]]
    return _restore(tf.nn.conv_transpose(x, kernel, tf.stack(output_shape), list(strides), padding.upper(),
                                         dilations=list(dilations)), data_format)


@operation
def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x = _channels_last(floating(inputs), data_format)
    kernel = tf.cast(convert_to_tensor(kernel), x.dtype)
    one_d = x.shape.rank == 3
    if one_d:
        x, kernel = tf.expand_dims(x, 1), tf.expand_dims(kernel, 0)
        strides, dilation_rate = (1, _tuple(strides, 1)[0]), (1, _tuple(dilation_rate, 1)[0])
    s, d = _tuple(strides, 2), _tuple(dilation_rate, 2)
    result = tf.nn.depthwise_conv2d(x, kernel, [1, s[0], s[1], 1], padding.upper(), dilations=list(d))
    return _restore(tf.squeeze(result, 1) if one_d else result, data_format)


@operation
def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", data_format)


@operation
def depth_to_space(x, block_size, data_format="channels_last"):
    x = _channels_last(convert_to_tensor(x), data_format)
    return _restore(tf.nn.depth_to_space(x, block_size), data_format)


@operation
def space_to_depth(x, block_size, data_format="channels_last"):
    x = _channels_last(convert_to_tensor(x), data_format)
    return _restore(tf.nn.space_to_depth(x, block_size), data_format)


@operation
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                          flash_attention=None, attn_logits_soft_cap=None):
    """softmax(Q·Kᵀ · scale + bias, masked) · V on [batch, length, heads, head_dim] inputs."""
    query, key, value = floating(query), floating(key), floating(value)
    scale = 1.0 / np.sqrt(query.shape[-1]) if scale is None else scale
    logits = tf.einsum("btnh,bsnh->bnts", query, key) * _c(scale, query)
    if attn_logits_soft_cap is not None:
        cap = _c(attn_logits_soft_cap, logits)
        logits = cap * tf.tanh(logits / cap)
    if bias is not None:
        logits = logits + tf.cast(convert_to_tensor(bias), logits.dtype)
    keep = None
    if mask is not None:
        keep = tf.cast(convert_to_tensor(mask), tf.bool)
    if is_causal:
        t, s = logits.shape[-2], logits.shape[-1]
        causal = tf.cast(tf.linalg.band_part(tf.ones([t, s]), -1, 0), tf.bool)
        keep = causal if keep is None else keep & causal
    if keep is not None:
        logits = tf.where(keep, logits, tf.constant(np.finfo(np.float32).min / 2, logits.dtype))
    weights = tf.nn.softmax(logits, axis=-1)
    return tf.einsum("bnts,bsnh->btnh", weights, value)


@operation
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC loss per batch entry of `output` logits [batch, time, classes] against padded `target`."""
    output = floating(output)
    return tf.nn.ctc_loss(labels=tf.cast(convert_to_tensor(target), tf.int32), logits=output,
                          label_length=tf.cast(convert_to_tensor(target_length), tf.int32),
                          logit_length=tf.cast(convert_to_tensor(output_length), tf.int32),
                          logits_time_major=False, blank_index=mask_index)


@operation
def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1, merge_repeated=True,
               mask_index=0):
    """Greedy CTC decoding: the best class per step, repeats merged, `mask_index` (blank) dropped; returns
    decoded labels [1, batch, max_length] padded with -1 and scores [batch, 1] (minus the summed best logits)."""
    if strategy != "greedy":
        raise ValueError(f"tensorflux's keras.ops.ctc_decode decodes with strategy='greedy' only. "
                         f"Received: strategy={strategy}")
    inputs = floating(inputs)
    lengths = np.asarray(convert_to_tensor(sequence_lengths)).astype(np.int64)
    logits = inputs.numpy()
    best = logits.argmax(-1)
    paths, scores = [], []
    for b in range(logits.shape[0]):
        steps = best[b, :lengths[b]]
        scores.append(-logits[b, np.arange(lengths[b]), steps].sum())
        if merge_repeated:
            steps = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
        paths.append([int(s) for s in steps if s != mask_index])
    width = max([len(p) for p in paths] + [0])
    decoded = np.full((1, len(paths), width), -1, np.int32)
    for b, p in enumerate(paths):
        decoded[0, b, :len(p)] = p
    return tf.constant(decoded), tf.constant(np.asarray(scores, np.float32).reshape(-1, 1))


def _patch_grid(size, kernel, dilation, padding, stride):
    out = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    return out, np.arange(kernel)[:, None] * dilation + np.arange(out)[None, :] * stride


@operation
def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of [N, C, H, W] as columns: [N, C · kh · kw, L] (PyTorch's unfold)."""
    x = convert_to_tensor(x)
    kh, kw = _tuple(kernel_size, 2)
    dh, dw = _tuple(dilation, 2)
    ph, pw = _tuple(padding, 2)
    sh, sw = _tuple(stride, 2)
    x = tf.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    n, c, h, w = x.shape.as_list()
    oh, rows = _patch_grid(h - 2 * ph, kh, dh, ph, sh)
    ow, cols = _patch_grid(w - 2 * pw, kw, dw, pw, sw)
    patches = tf.gather(tf.gather(x, rows.reshape(-1), axis=2), cols.reshape(-1), axis=3)
    patches = tf.reshape(patches, [-1, c, kh, oh, kw, ow])
    patches = tf.transpose(patches, [0, 1, 2, 4, 3, 5])
    return tf.reshape(patches, [-1, c * kh * kw, oh * ow])


@operation
def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Columns [N, C · kh · kw, L] summed back into [N, C, H, W] (PyTorch's fold, the adjoint of unfold)."""
    x = convert_to_tensor(x)
    height, width = _tuple(output_size, 2)
    kh, kw = _tuple(kernel_size, 2)
    dh, dw = _tuple(dilation, 2)
    ph, pw = _tuple(padding, 2)
    sh, sw = _tuple(stride, 2)
    oh, rows = _patch_grid(height, kh, dh, ph, sh)
    ow, cols = _patch_grid(width, kw, dw, pw, sw)
    c = x.shape[1] // (kh * kw)
    blocks = tf.reshape(x, [-1, c, kh, kw, oh, ow])
    r = np.broadcast_to(rows[:, None, :, None], (kh, kw, oh, ow)).reshape(-1)
    q = np.broadcast_to(cols[None, :, None, :], (kh, kw, oh, ow)).reshape(-1)
    flat_index = tf.constant((r * (width + 2 * pw) + q).astype(np.int32))
    values = tf.transpose(tf.reshape(blocks, [-1, c, kh * kw * oh * ow]), [2, 0, 1])
    summed = tf.math.unsorted_segment_sum(values, flat_index, (height + 2 * ph) * (width + 2 * pw))
    image = tf.reshape(tf.transpose(summed, [1, 2, 0]), [-1, c, height + 2 * ph, width + 2 * pw])
    return image[:, :, ph:ph + height, pw:pw + width]


API_NN = ["celu", "elu", "selu", "relu6", "softsign", "leaky_relu", "hard_sigmoid", "hard_silu", "hard_swish",
          "hard_tanh", "hard_shrink", "soft_shrink", "tanh_shrink", "log_sigmoid", "sparse_plus", "sparse_sigmoid",
          "squareplus", "glu", "sparsemax", "threshold", "polar", "moments", "batch_normalization",
          "layer_normalization", "rms_normalization", "normalize", "multi_hot", "psnr", "binary_crossentropy",
          "categorical_crossentropy", "sparse_categorical_crossentropy", "max_pool", "average_pool",
          "adaptive_average_pool", "adaptive_max_pool", "conv", "conv_transpose", "depthwise_conv", "separable_conv",
          "depth_to_space", "space_to_depth", "dot_product_attention", "ctc_loss", "ctc_decode", "unfold", "fold"]
API = {"keras.ops": API_NN}
