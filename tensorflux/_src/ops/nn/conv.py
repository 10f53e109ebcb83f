"""Convolution (`tf.nn.conv2d`, `conv1d`, `conv2d_transpose`) and its gradient ops (Conv2DBackpropInput,
Conv2DBackpropFilter).

conv2d is im2col + one matmul: `as_strided` gives a view of every receptive field as
[N, OH, OW, KH, KW, C] without copying; reshaping it to [N·OH·OW, KH·KW·C] is the single copy, and one
BLAS matmul with the filter reshaped to [KH·KW·C, O] does the arithmetic. Large 3×3 stride-1
convolutions (and their input gradients) go through Winograd's F(2×2, 3×3) instead (`winograd.py`,
when numba is installed): 2.25× fewer flops and no im2col copy. NCHW, which TensorFlow only runs on
GPUs, is accepted here by transposing to NHWC around the kernel. Window geometry: windows.py;
depthwise and separable convolutions: depthwise.py; pooling: pooling.py.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..shapes.shape_ops import shape
from ..shapes.shaping import expand_dims, squeeze
from ..convert import convert_to_tensor
from . import compiled_col2im, winograd
from ..linalg import exact_matmul as _exact
from ..linalg import blas_threads
from ..linalg.blas_threads import gemm, gemm_tn
from ..registry import OpDef, apply
from .windows import (_NARROW, _check_padding_attr, _dims_text, _explicit_pairs, _from_channels_last,
    _node_text, _normalize_list, _normalize_padding, _shape_input, _spatial_axes, _to_channels_last,
    _typed_kernel, _typed_sized, _window)


# -- conv2d ------------------------------------------------------------------------------------------
def _conv_geometry(in_spatial, filter_spatial, attrs):
    """[(out, before, after)] for the two spatial dims, and the per-dim (stride, dilation, eff)."""
    data_format = attrs["data_format"]
    axes = _spatial_axes(4, data_format)
    strides, dilations = attrs["strides"], attrs["dilations"]
    pairs = _explicit_pairs(attrs["explicit_paddings"], 4)
    geometry = []
    for i, axis in enumerate(axes):
        geometry.append(_window(in_spatial[i], filter_spatial[i], strides[axis], dilations[axis],
                                attrs["padding"], pairs[axis]))
    return geometry


def _check_conv_attrs(attrs, exc):
    """Raises `exc(message)` for static attr problems (TensorFlow checks these in the kernel)."""
    data_format = attrs["data_format"]
    axes = _spatial_axes(4, data_format)
    others = [i for i in range(4) if i not in axes]
    strides, dilations = attrs["strides"], attrs["dilations"]
    if any(strides[i] != 1 for i in others):
        raise errors.UnimplementedError(
            None, "Conv2D", "Current implementation does not yet support strides in the batch and depth dimensions.")
    if any(strides[i] <= 0 for i in axes):
        raise exc("Row and column strides should be larger than 0.")
    if any(dilations[i] != 1 for i in others):
        raise errors.UnimplementedError(
            None, "Conv2D",
            "Current implementation does not yet support dilations in the batch and depth dimensions.")
    if any(dilations[i] <= 0 for i in axes):
        raise exc("Dilated rates should be larger than 0.")
    if attrs["padding"] == "EXPLICIT":
        pairs = _explicit_pairs(attrs["explicit_paddings"], 4)
        if any(v < 0 for p in pairs for v in p):
            raise exc("All elements of explicit_paddings must be nonnegative")
        if any(pairs[i] != (0, 0) for i in others):
            raise exc("Nonzero explicit padding in the batch or depth dimensions is not supported")


def _kernel_error(message):
    return errors.InvalidArgumentError(None, None, message)


def _strided_windows(x, out_sizes, kernel_sizes, strides, dilations):
    """A [N, *out, *k, C] view of the receptive fields of NHWC-like `x` (no copy)."""
    sn, *spatial, sc = x.strides
    shape = (x.shape[0],) + tuple(out_sizes) + tuple(kernel_sizes) + (x.shape[-1],)
    step = tuple(s * st for s, st in zip(spatial, strides))
    tap = tuple(s * d for s, d in zip(spatial, dilations))
    return as_strided(x, shape, (sn,) + step + tap + (sc,), writeable=False)


# Patches are copied (im2col) and multiplied a block of images at a time, in the worker threads: the
# copy runs in parallel and each block's patches are still in cache when its GEMM reads them (the whole
# [N·OH·OW, KH·KW·C] copy of a convnet's second layer is 18 MB). The blocks depend on the shapes only,
# so the bits do not depend on how the threads ran.
_PATCH_BLOCK_BYTES = 1 << 20
# Never fewer blocks than this for a product worth sharing out: a constant, not a multiple of the thread
# count, because the blocks decide the bits (a filter gradient adds its blocks' partial products; OpenBLAS
# rounds a block's last rows -- those past a multiple of its kernel's tile height -- differently from
# the same rows inside a bigger block). It was 2 per worker thread, so OMP_NUM_THREADS or the core count
# changed a filter gradient's last bits; 4 is that value on two cores, so their bits are unchanged.
_MIN_BLOCKS = 4


def _image_blocks(n, patch_bytes_per_image, macs):
    """[(first, end)] image ranges: one when the product is small (below gemm's threshold: not worth a
    thread hand-over), else blocks of about _PATCH_BLOCK_BYTES of patches, at least _MIN_BLOCKS."""
    if macs < blas_threads.PARALLEL_MIN_FLOPS or n < 2:
        return [(0, n)]
    count = max(patch_bytes_per_image * n // _PATCH_BLOCK_BYTES, _MIN_BLOCKS)
    step = -(-n // min(n, count))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


# One or two input channels (a grayscale first layer): the patch copy's contiguous runs would be C values
# long, an element-wise copy loop. Copied tap-major instead -- [KH·KW·C, N·OH·OW], each (tap, channel) row
# a strided copy whose runs are whole output rows -- and the GEMMs read the copy transposed (BLAS takes
# the transpose as a flag). Measured in one process, interleaved, on the loaded machine, for the keras-io
# MNIST convnet's first layer ([128, 28, 28, 1], 3×3 -> 32): the copy alone 2.8 -> 0.3 ms; forward 7.5 ->
# 4.4 ms and filter gradient 7.4 -> 4.9 ms of CPU (medians). With 3 channels (RGB) neither form won.
_TAP_MAJOR_MAX_CHANNEL_BYTES = 8
_OUTPUT_BLOCK_BYTES = 1 << 20


def _tap_major(x, out_sizes, kernel_sizes, strides, dilations):
    """[KH·KW·C, N·OH·OW] patches of the (padded) NHWC array `x`, or None when `x` has too many channels
    for the tap-major copy to be the faster one."""
    n, _, _, c = x.shape
    if c * x.itemsize > _TAP_MAJOR_MAX_CHANNEL_BYTES:
        return None
    sn, sh, sw, sc = x.strides
    (oh, ow), (kh, kw) = out_sizes, kernel_sizes
    view = as_strided(x, (kh, kw, c, n, oh, ow),
                      (sh * dilations[0], sw * dilations[1], sc, sn, sh * strides[0], sw * strides[1]), writeable=False)
    return np.ascontiguousarray(view).reshape(kh * kw * c, n * oh * ow)


def _pixel_blocks(pixels, row_bytes):
    """[(first, end)] output-pixel ranges: one when the output is small, else blocks of about
    _OUTPUT_BLOCK_BYTES (at least _MIN_BLOCKS); by shape only, so the bits never depend on the machine."""
    if pixels * row_bytes < 2 * _OUTPUT_BLOCK_BYTES:
        return [(0, pixels)]
    count = max(pixels * row_bytes // _OUTPUT_BLOCK_BYTES, _MIN_BLOCKS)
    step = -(-pixels // count)
    return [(lo, min(pixels, lo + step)) for lo in range(0, pixels, step)]


def _tap_major_times(cols_t, w2d):
    """[N·OH·OW, O] = cols_tᵀ @ w2d, by blocks of output pixels in the worker threads."""
    pixels = cols_t.shape[1]
    out = np.empty((pixels, w2d.shape[1]), np.result_type(cols_t, w2d))
    blocks = _pixel_blocks(pixels, out.shape[1] * out.itemsize)

    def run_block(i):
        lo, hi = blocks[i]
        np.matmul(cols_t[:, lo:hi].T, w2d, out=out[lo:hi])
    blas_threads.run_blocks(run_block, len(blocks))
    return out


def _tap_major_transposed_times(cols_t, g2d):
    """[KH·KW·C, O] = cols_t @ g2d [N·OH·OW, O] (a filter gradient): partial products over blocks of
    output pixels, summed in block order."""
    blocks = _pixel_blocks(cols_t.shape[1], g2d.shape[1] * g2d.itemsize)
    partial = [None] * len(blocks)

    def run_block(i):
        lo, hi = blocks[i]
        partial[i] = cols_t[:, lo:hi] @ g2d[lo:hi]
    blas_threads.run_blocks(run_block, len(blocks))
    total = partial[0]
    for p in partial[1:]:
        total += p
    return total


def _patches_times(windows, w2d):
    """[N·OH·OW, O] = im2col(windows [N, OH, OW, KH, KW, C]) @ w2d [KH·KW·C, O]."""
    n, pixels, k = windows.shape[0], windows.shape[1] * windows.shape[2], w2d.shape[0]
    if w2d.shape[1] <= _exact.CONV_MAX_CHANNELS and _exact.covers_conv(windows.reshape(n * pixels, k), w2d):
        return _exact.conv_product(windows.reshape(n * pixels, k), w2d)     # small float32: TensorFlow's order
    blocks = _image_blocks(n, pixels * k * windows.itemsize, n * pixels * k * w2d.shape[1])
    if len(blocks) == 1:
        return gemm(windows.reshape(n * pixels, k), w2d)
    out = np.empty((n, pixels, w2d.shape[1]), np.result_type(windows, w2d))

    def run_block(i):
        lo, hi = blocks[i]
        np.matmul(windows[lo:hi].reshape((hi - lo) * pixels, k), w2d, out=out[lo:hi].reshape((hi - lo) * pixels, -1))
    blas_threads.run_blocks(run_block, len(blocks))
    return out.reshape(n * pixels, -1)


def _patches_transposed_times(windows, g):
    """[KH·KW·C, O] = im2col(windows)ᵀ @ g [N, OH·OW, O] (a filter gradient): partial products per
    block of images, summed in block order."""
    n, pixels, k = windows.shape[0], windows.shape[1] * windows.shape[2], int(np.prod(windows.shape[3:]))
    blocks = _image_blocks(n, pixels * k * windows.itemsize, n * pixels * k * g.shape[2])
    if len(blocks) == 1:
        return gemm_tn(windows.reshape(n * pixels, k), g.reshape(n * pixels, -1))
    partial = [None] * len(blocks)

    def run_block(i):
        lo, hi = blocks[i]
        partial[i] = windows[lo:hi].reshape((hi - lo) * pixels, k).T @ g[lo:hi].reshape((hi - lo) * pixels, -1)
    blas_threads.run_blocks(run_block, len(blocks))
    total = partial[0]
    for p in partial[1:]:
        total += p
    return total


def _conv2d_kernel(x, w, strides, padding, explicit_paddings, data_format, dilations):
    if x.ndim < 4:
        raise _kernel_error(f"convolution input must be 4-dimensional: {_dims_text(x.shape)}")
    if w.ndim != 4:
        raise _kernel_error(f"convolution filter must be 4-dimensional: {_dims_text(w.shape)}")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    _check_conv_attrs(attrs, _kernel_error)
    out_dtype = x.dtype
    batch_shape = x.shape[:-3]
    x = x.reshape((-1,) + x.shape[-3:])
    x = _to_channels_last(x, data_format)
    n, h, wd, c = x.shape
    kh, kw, cin, cout = w.shape
    if cin == 0 or c % cin:
        raise _kernel_error(f"input depth must be evenly divisible by filter depth: {c} vs {cin}")
    groups = c // cin
    if cout % groups:
        raise _kernel_error(f"output depth must be evenly divisible by number of groups: {cout} vs {groups}")
    geometry = _conv_geometry((h, wd), (kh, kw), attrs)
    axes = _spatial_axes(4, data_format)
    for (out, _, _), size, k, axis in zip(geometry, (h, wd), (kh, kw), axes):
        if out < 0:
            eff = (k - 1) * dilations[axis] + 1
            raise _kernel_error(f"Computed output size would be negative: {(size - eff) // strides[axis] + 1} "
                                f"[input_size: {size}, effective_filter_size: {eff}, stride: {strides[axis]}]")
    if x.dtype in _NARROW:
        x, w = x.astype(np.float32), w.astype(np.float32)
    (oh, _, _), (ow, _, _) = geometry
    if _winograd_fits(x, w, groups, strides, dilations, axes, n * oh * ow):
        out = winograd.conv2d_3x3(np.ascontiguousarray(x), np.ascontiguousarray(w),
                                  [(b, a) for _, b, a in geometry])
        out = _from_channels_last(out, data_format)
        return out.reshape(batch_shape + out.shape[1:]).astype(out_dtype, copy=False)
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    if any(p != (0, 0) for p in pads):
        x = np.pad(x, pads)
    x = np.ascontiguousarray(x)
    steps, rates = [strides[a] for a in axes], [dilations[a] for a in axes]
    cols_t = _tap_major(x, (oh, ow), (kh, kw), steps, rates) if groups == 1 else None
    windows = _strided_windows(x, (oh, ow), (kh, kw), steps, rates)
    rows = n * oh * ow
    if cols_t is not None:
        out = _tap_major_times(cols_t, np.ascontiguousarray(w.reshape(kh * kw * c, cout)))
    elif groups == 1:
        out = _patches_times(windows, w.reshape(kh * kw * c, cout))
    else:
        cols = windows.reshape(rows, kh * kw, groups, cin)
        per_group = w.reshape(kh * kw, cin, groups, cout // groups)
        out = np.einsum("mkgc,kcgo->mgo", cols, per_group, optimize=True).reshape(rows, cout)
    out = out.reshape((n, oh, ow, cout))
    out = _from_channels_last(out, data_format)
    return out.reshape(batch_shape + out.shape[1:]).astype(out_dtype, copy=False)


def _winograd_fits(x, w, groups, strides, dilations, axes, pixels):
    """Winograd for big 3×3 stride-1 convolutions of finite values: its transforms subtract
    neighbouring inputs, so an inf would turn into inf - inf = NaN where a direct sum gives ±inf."""
    return (groups == 1 and w.shape[:2] == (3, 3) and all(strides[a] == 1 and dilations[a] == 1 for a in axes)
            and x.dtype == w.dtype and winograd.preferred(pixels, w.shape[2], w.shape[3], x.dtype)
            and np.isfinite(w).all() and np.isfinite(x).all())


def _infer_conv2d(inputs, attrs):
    x, w = inputs
    _check_conv_attrs(attrs, ValueError)
    data_format = attrs["data_format"]
    wdims = w.shape._dims
    if wdims is not None and len(wdims) != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(wdims)} {_node_text('Conv2D', x.shape, w.shape)}")
    cout = wdims[3] if wdims is not None else None
    xdims = x.shape._dims
    if xdims is None:
        return [(x.dtype, TensorShape([None, None, None, cout] if data_format == "NHWC"
                                      else [None, cout, None, None]))]
    if len(xdims) < 4:
        raise ValueError(f"Shape must be rank 4 but is rank {len(xdims)} {_node_text('Conv2D', x.shape, w.shape)}")
    axes = tuple(a + len(xdims) - 4 for a in _spatial_axes(4, data_format))
    channel = len(xdims) - 1 if data_format == "NHWC" else len(xdims) - 3
    c = xdims[channel]
    if wdims is not None:
        cin = wdims[2]
        if c is not None and cin is not None and (cin == 0 or c % cin):
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter ({cin}) "
                             f"{_node_text('Conv2D', x.shape, w.shape)}")
    ksizes = wdims[:2] if wdims is not None else (None, None)
    out = list(xdims)
    for i, axis in enumerate(axes):
        if ksizes[i] is None:
            out[axis] = None
            continue
        size = xdims[axis]
        o, before, after = _window(size, ksizes[i], attrs["strides"][axis - len(xdims) + 4],
                                   attrs["dilations"][axis - len(xdims) + 4], attrs["padding"],
                                   _explicit_pairs(attrs["explicit_paddings"], 4)[axis - len(xdims) + 4])
        if o is not None and o < 0:
            eff = (ksizes[i] - 1) * attrs["dilations"][axis - len(xdims) + 4] + 1
            raise ValueError(f"Negative dimension size caused by subtracting {eff} from {size + before + after} "
                             f"{_node_text('Conv2D', x.shape, w.shape)}")
        out[axis] = o
    out[channel] = cout
    return [(x.dtype, TensorShape(out))]


# -- conv2d gradients: Conv2DBackpropInput / Conv2DBackpropFilter -----------------------------------
def _conv_backprop_setup(x_dims, w_dims, dy, attrs):
    """Geometry shared by both backprop kernels: NHWC batch-flattened sizes, the gradient as [N, OH, OW, O]."""
    data_format = attrs["data_format"]
    flat = (int(np.prod(x_dims[:-3], dtype=np.int64)),) + tuple(x_dims[-3:])
    n, h, wd, c = (flat[0], flat[2], flat[3], flat[1]) if data_format.startswith("NC") else flat
    kh, kw, cin, cout = w_dims
    geometry = _conv_geometry((h, wd), (kh, kw), attrs)
    dy = _to_channels_last(dy.reshape((-1,) + dy.shape[-3:]), data_format)
    if dy.dtype in _NARROW:
        dy = dy.astype(np.float32)
    return (n, h, wd, c), geometry, dy, c // cin if cin else 1


def _conv2d_backprop_input_kernel(input_sizes, w, dy, strides, padding, explicit_paddings, data_format, dilations):
    """Each output gradient spreads over its receptive field: one matmul to per-tap columns, then one
    strided add per kernel tap into the padded input (the transpose of the forward im2col)."""
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    x_dims = tuple(int(d) for d in np.reshape(input_sizes, -1))
    if len(x_dims) < 4 or w.ndim != 4 or dy.ndim != len(x_dims):
        raise _kernel_error(f"Conv2DCustomBackpropInput: input_sizes, filter and out_backprop must be 4-dimensional: "
                            f"{_dims_text(x_dims)}, {_dims_text(w.shape)}, {_dims_text(dy.shape)}")
    (n, h, wd, c), geometry, g, groups = _conv_backprop_setup(x_dims, w.shape, dy, attrs)
    kh, kw, cin, cout = w.shape
    _check_backprop_dims("Conv2DCustomBackpropInput", (h, wd), (kh, kw), c, cin, cout, geometry, g.shape, attrs)
    work = w.astype(np.float32) if w.dtype in _NARROW else w
    (oh, top, bottom), (ow, left, right) = geometry
    axes = _spatial_axes(4, data_format)
    if (max(top, bottom, left, right) <= 2 and g.dtype == work.dtype
            and _winograd_fits(g, np.swapaxes(work, 2, 3), groups, strides, dilations, axes, n * h * wd)):
        # Stride 1: dx is the VALID correlation of dy, padded by 2 - (forward padding), with the filter
        # turned 180° and its in/out channels swapped.
        flipped = np.ascontiguousarray(work[::-1, ::-1].transpose(0, 1, 3, 2))
        dx = winograd.conv2d_3x3(np.ascontiguousarray(g), flipped, [(2 - top, 2 - bottom), (2 - left, 2 - right)])
        return _from_channels_last(dx, data_format).reshape(x_dims).astype(w.dtype, copy=False)
    (sh, sw), (dh, dw) = [strides[a] for a in axes], [dilations[a] for a in axes]
    loop = compiled_col2im.col2im_kernel(g.dtype) if groups == 1 and g.dtype == work.dtype else None
    if loop is not None:
        dx = _columns_to_image(loop, g, work.reshape(kh * kw * c, cout).T, (h, wd, c), (kh, kw), (sh, sw), (dh, dw),
                               (top, left))
        return _from_channels_last(dx, data_format).reshape(x_dims).astype(w.dtype, copy=False)
    full = (dh * (kh - 1) - top, dh * (kh - 1) - bottom, dw * (kw - 1) - left, dw * (kw - 1) - right)
    if groups == 1 and sh == sw == 1 and min(full) >= 0 and g.dtype == work.dtype:
        # Stride 1: dx is the VALID correlation of dy padded to the "full" size with the filter turned
        # 180° and its in/out channels swapped -- a forward im2col product (copied and multiplied by
        # blocks of images, in parallel) instead of per-tap scattered adds.
        padded_dy = np.pad(g, [(0, 0), full[:2], full[2:], (0, 0)])
        flipped = np.ascontiguousarray(work[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(kh * kw * cout, c)
        windows = _strided_windows(padded_dy, (h, wd), (kh, kw), (1, 1), (dh, dw))
        dx = _patches_times(windows, flipped).reshape(n, h, wd, c)
        return _from_channels_last(dx, data_format).reshape(x_dims).astype(w.dtype, copy=False)
    rows = n * oh * ow
    if groups == 1:
        cols = gemm(g.reshape(rows, cout), work.reshape(kh * kw * c, cout).T)
    else:
        cols = np.einsum("mgo,kcgo->mkgc", g.reshape(rows, groups, cout // groups),
                         work.reshape(kh * kw, cin, groups, cout // groups), optimize=True)
    cols = cols.reshape(n, oh, ow, kh, kw, c)
    padded = np.zeros((n, h + top + bottom, wd + left + right, c), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            padded[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, :, i, j]
    dx = _from_channels_last(padded[:, top:top + h, left:left + wd], data_format)
    return dx.reshape(x_dims).astype(w.dtype, copy=False)


def _columns_to_image(loop, g, w_t, image, ksizes, steps, rates, offsets):
    """dx [N, H, W, C] from the output gradient g [N, OH, OW, O]: per block of images, the columns
    g @ w_t ([O, KH·KW·C]) and the compiled col2im pass adding them into place (in the worker threads)."""
    n, oh, ow, cout = g.shape
    k = w_t.shape[1]
    g = np.ascontiguousarray(g)
    w_t = np.ascontiguousarray(w_t)
    dx = np.empty((n,) + tuple(image), np.result_type(g, w_t))
    blocks = _image_blocks(n, oh * ow * k * dx.itemsize, n * oh * ow * k * cout)

    def run_block(i):
        lo, hi = blocks[i]
        cols = np.matmul(g[lo:hi].reshape((hi - lo) * oh * ow, cout), w_t).reshape(hi - lo, oh, ow, k)
        part = dx[lo:hi]
        part.fill(0)
        loop(cols, ksizes[0], ksizes[1], steps[0], steps[1], rates[0], rates[1], offsets[0], offsets[1], part)
    if len(blocks) == 1:
        run_block(0)
    else:
        blas_threads.run_blocks(run_block, len(blocks))
    return dx


def _check_backprop_dims(label, spatial, ksizes, c, cin, cout, geometry, dy_shape, attrs):
    """TensorFlow's checks that an out_backprop [N, OH, OW, O] fits the input and filter it claims."""
    if cin == 0 or c % cin:
        raise _kernel_error(f"{label}: input depth must be evenly divisible by filter depth: {c} vs {cin}")
    if dy_shape[-1] != cout:
        raise _kernel_error(f"{label}: filter and out_backprop must have the same out_depth: {cout} vs "
                            f"{dy_shape[-1]}")
    axes = _spatial_axes(4, attrs["data_format"])
    for i, ((out, _, _), size, k, axis) in enumerate(zip(geometry, spatial, ksizes, axes)):
        if out != dy_shape[1 + i]:
            raise _kernel_error(f"{label}: Size of out_backprop doesn't match computed: actual = {dy_shape[1 + i]}, "
                                f"computed = {out} spatial_dim: {axis} input: {size} filter: {k} output: "
                                f"{dy_shape[1 + i]} stride: {attrs['strides'][axis]} dilation: "
                                f"{attrs['dilations'][axis]}")


def _conv2d_backprop_filter_kernel(x, filter_sizes, dy, strides, padding, explicit_paddings, data_format,
                                   dilations):
    """Σ over output pixels of receptive field ⊗ output gradient: the forward im2col, transposed matmul."""
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
             "data_format": data_format, "dilations": dilations}
    w_dims = tuple(int(d) for d in np.reshape(filter_sizes, -1))
    (n, h, wd, c), geometry, g, groups = _conv_backprop_setup(x.shape, w_dims, dy, attrs)
    kh, kw, cin, cout = w_dims
    work = _to_channels_last(x.reshape((-1,) + x.shape[-3:]), data_format)
    if work.dtype in _NARROW:
        work = work.astype(np.float32)
    pads = [(0, 0)] + [(b, a) for _, b, a in geometry] + [(0, 0)]
    work = np.ascontiguousarray(np.pad(work, pads) if any(p != (0, 0) for p in pads) else work)
    axes = _spatial_axes(4, data_format)
    (oh, _, _), (ow, _, _) = geometry
    steps, rates = [strides[a] for a in axes], [dilations[a] for a in axes]
    cols_t = _tap_major(work, (oh, ow), (kh, kw), steps, rates) if groups == 1 else None
    windows = _strided_windows(work, (oh, ow), (kh, kw), steps, rates)
    rows = n * oh * ow
    if cols_t is not None:
        dw = _tap_major_transposed_times(cols_t, np.ascontiguousarray(g).reshape(rows, cout))
    elif groups == 1:
        dw = _patches_transposed_times(windows, g.reshape(n, oh * ow, cout))
    else:
        dw = np.einsum("mkgc,mgo->kcgo", windows.reshape(rows, kh * kw, groups, cin),
                       g.reshape(rows, groups, cout // groups), optimize=True)
    return dw.reshape(w_dims).astype(x.dtype, copy=False)


def _conv2d_grad(op, grad):
    x, w = op.inputs
    return [apply(CONV2D_BACKPROP_INPUT, (_shape_input(x), w, grad), op.attrs, "Conv2DBackpropInput"),
            apply(CONV2D_BACKPROP_FILTER, (x, _shape_input(w), grad), op.attrs, "Conv2DBackpropFilter")]


def _conv2d_backprop_input_grad(op, grad):
    _, w, dy = op.inputs
    return [None, apply(CONV2D_BACKPROP_FILTER, (grad, _shape_input(w), dy), op.attrs, "Conv2DBackpropFilter"),
            apply(CONV2D, (grad, w), op.attrs, "Conv2D")]


def _conv2d_backprop_filter_grad(op, grad):
    x, _, dy = op.inputs
    return [apply(CONV2D_BACKPROP_INPUT, (_shape_input(x), grad, dy), op.attrs, "Conv2DBackpropInput"), None,
            apply(CONV2D, (x, grad), op.attrs, "Conv2D")]


CONV2D = OpDef("Conv2D", _infer_conv2d, _conv2d_kernel, grad=_conv2d_grad, same_dtype=True,
               allowed=(_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64, _dt.int32),
               input_names=("input", "filter"))
_BACKPROP_INPUT_NAMES = ("input_sizes", "filter", "out_backprop")
_BACKPROP_FILTER_NAMES = ("input", "filter_sizes", "out_backprop")
CONV2D_BACKPROP_INPUT = OpDef(
    "Conv2DBackpropInput", _typed_sized(0, (1, 2), _BACKPROP_INPUT_NAMES, "Conv2DBackpropInput", 4),
    _typed_kernel(_conv2d_backprop_input_kernel, (1, 2), "Conv2DBackpropInput"),
    grad=_conv2d_backprop_input_grad, input_names=_BACKPROP_INPUT_NAMES)
CONV2D_BACKPROP_FILTER = OpDef(
    "Conv2DBackpropFilter", _typed_sized(1, (0, 2), _BACKPROP_FILTER_NAMES, "Conv2DBackpropFilter", 4),
    _typed_kernel(_conv2d_backprop_filter_kernel, (0, 2), "Conv2DBackpropFilter"),
    grad=_conv2d_backprop_filter_grad, input_names=_BACKPROP_FILTER_NAMES)


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """`tf.nn.conv2d`: 2-D convolution of `input` [batch…, H, W, C] with `filters` [KH, KW, C, O]."""
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype) if not isinstance(filters, Tensor) else filters
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise errors.InvalidArgumentError(
            None, "Conv2D", f"Value for attr 'data_format' of \"{data_format}\" is not in the list of allowed "
                            f"values: \"NHWC\", \"NCHW\"")
    strides = _normalize_list(strides, "strides", 4, data_format)
    dilations = _normalize_list(dilations, "dilations", 4, data_format)
    padding, explicit = _normalize_padding(padding, 4, data_format)
    _check_padding_attr(padding, "Conv2D")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit, "data_format": data_format,
             "dilations": dilations}
    return apply(CONV2D, (x, w), attrs, name or "Conv2D")


# -- conv1d and conv2d_transpose, built on conv2d and its input gradient --------------------------------
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """`tf.nn.conv1d`: `input` [batch…, W, C] (NWC) with `filters` [K, C, O], as TensorFlow runs it: a
    Conv2D over a height-1 image between ExpandDims and Squeeze, so the gradient is Conv2D's."""
    data_format = data_format or "NWC"
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    channels_first = data_format == "NCW"
    x = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=x.dtype) if not isinstance(filters, Tensor) else filters
    stride = _normalize_list(stride, "stride", 3, data_format)
    dilation = _normalize_list(dilations, "dilations", 3, data_format)
    if channels_first:
        strides, dilations = (1, 1, 1, stride[2]), (1, 1, 1, dilation[2])
    else:
        strides, dilations = (1, 1, stride[1], 1), (1, 1, dilation[1], 1)
    if not isinstance(padding, str):
        pairs = [list(p) for p in padding]
        if len(pairs) != 3:
            raise ValueError(f"When padding is a list, it must be of size 3. Received: padding={padding}")
        padding = pairs[:-1] + [[0, 0]] + pairs[-1:] if channels_first else pairs[:1] + [[0, 0]] + pairs[1:]
    y = conv2d(expand_dims(x, -2 if channels_first else -3), expand_dims(w, 0), strides, padding,
               "NCHW" if channels_first else "NHWC", dilations, name=name or "conv1d")
    return squeeze(y, [-2 if channels_first else -3])


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """`tf.nn.conv2d_transpose`: the gradient of conv2d w.r.t. its input, run forward (Conv2DBackpropInput):
    `input` [N, H, W, O] spread over an output of `output_shape` [N, OH, OW, C] by `filters` [KH, KW, C, O]."""
    y = convert_to_tensor(input)
    w = convert_to_tensor(filters, dtype=y.dtype) if not isinstance(filters, Tensor) else filters
    data_format = data_format or "NHWC"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"`data_format` must be 'NHWC' or 'NCHW'. Received: data_format={data_format}")
    sizes = output_shape if isinstance(output_shape, Tensor) else convert_to_tensor(output_shape, dtype=_dt.int32)
    if sizes.dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"`output_shape` must be int32 or int64, not {sizes.dtype.name}")
    strides = _normalize_list(strides, "strides", 4, data_format)
    dilations = _normalize_list(dilations, "dilations", 4, data_format)
    padding, explicit = _normalize_padding(padding, 4, data_format)
    _check_padding_attr(padding, "Conv2DBackpropInput")
    attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit, "data_format": data_format,
             "dilations": dilations}
    _check_conv_attrs(attrs, ValueError)
    return apply(CONV2D_BACKPROP_INPUT, (sizes, w, y), attrs, name or "conv2d_transpose")


API = {"nn": ["conv2d", "conv1d", "conv2d_transpose"]}
