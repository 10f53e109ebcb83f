"""ONNX handlers for convolutions, pooling and bias addition.

TensorFlow's default layout is channels-last (NHWC, NWC); ONNX's Conv and pools are channels-first. A
channels-last op becomes Transpose → op → Transpose back. The channels-first value is remembered beside
the channels-last one (`GraphBuilder.channels_first_of`, per graph: an If branch's values are not
visible outside it), so a chain conv → bias → pool → conv transposes once at each end rather than
around every op; transposes left unread are pruned when the graph is done.
Kernels that are known at export time (variables, constants) are re-laid out once, as new initializers.
"""
import numpy as np

from .builder import handles, unsupported


def _channels_last(fmt):
    return not str(fmt or "NHWC").upper().startswith("NC")


def _to_first(rank):
    return [0, rank - 1] + list(range(1, rank - 1))


def _to_last(rank):
    return [0] + list(range(2, rank)) + [1]


def channels_first(b, name, rank, hint):
    """`name` (channels-last) in channels-first layout, reusing one made before where this graph sees it."""
    known = b.channels_first_of(name)
    if known is None:
        known = b.op("Transpose", [name], f"{hint}/to_channels_first", perm=_to_first(rank))
        b.remember_channels_first(name, known)
    return known


def channels_last(b, name, rank, hint):
    """`name` (channels-first) back in channels-last layout, remembering the pair."""
    out = b.op("Transpose", [name], hint, perm=_to_last(rank))
    b.remember_channels_first(out, name)
    return out


def _spatial(values, fmt, rank):
    """The spatial entries of a per-dimension attr (strides, ksize, dilations) in TensorFlow's layout."""
    values = [int(v) for v in values]
    if len(values) == rank:
        return values[1:-1] if _channels_last(fmt) else values[2:]
    return values


def _pads(op, rank, fmt):
    """Explicit padding as ONNX pads (begins then ends of the spatial dims)."""
    flat = [int(p) for p in op.attrs.get("explicit_paddings", ())]
    pairs = [flat[2 * i:2 * i + 2] for i in range(rank)]
    spatial = pairs[1:-1] if _channels_last(fmt) else pairs[2:]
    return [p[0] for p in spatial] + [p[1] for p in spatial]


def _padding_attrs(op, rank, fmt, kernel, strides, dilations=None):
    """ONNX's padding attrs for TensorFlow's SAME/VALID/EXPLICIT padding of `op` (spatial `kernel` sizes)."""
    padding = op.attrs.get("padding", "VALID")
    padding = padding.decode() if isinstance(padding, bytes) else str(padding)
    if padding == "VALID":
        return {"auto_pad": "VALID"}
    if padding == "EXPLICIT":
        return {"pads": _pads(op, rank, fmt)}
    if padding != "SAME":
        raise unsupported(op, f"padding {padding!r}")
    dilations = dilations or [1] * len(kernel)
    shape = op.inputs[0].shape
    sizes = None
    if shape.rank == rank:
        dims = shape.as_list()
        sizes = dims[1:-1] if _channels_last(fmt) else dims[2:]
    if sizes is None or None in sizes:
        if any(d != 1 for d in dilations):   # onnxruntime's auto_pad does not take dilations
            raise unsupported(op, "SAME padding with dilation needs the spatial sizes")
        return {"auto_pad": "SAME_UPPER"}      # TensorFlow puts the odd padding row at the end
    begins, ends = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return {"pads": begins + ends}


def _kernel(b, op, name, layout, hint):
    """The filter re-laid out by `layout` (a function of a NumPy array or of an ONNX name)."""
    known = b.value(name)
    if known is not None:
        return b.const(layout(known, None), hint)
    return layout(None, name)


def _conv_like(b, op, x, w, rank, onnx_type, extra, hint, kernel=None):
    """`onnx_type` (Conv, ConvTranspose) over `x` with filter `w`; `kernel`: the spatial filter sizes,
    for TensorFlow's SAME padding (ConvTranspose passes its pads in `extra`)."""
    fmt = op.attrs.get("data_format", "NHWC")
    attrs = dict(extra)
    attrs["strides"] = _spatial(op.attrs.get("strides", [1] * rank), fmt, rank)
    attrs["dilations"] = _spatial(op.attrs.get("dilations", [1] * rank), fmt, rank)
    if kernel is not None:
        attrs.update(_padding_attrs(op, rank, fmt, kernel, attrs["strides"], attrs["dilations"]))
    if _channels_last(fmt):
        y = b.op(onnx_type, [channels_first(b, x, rank, hint), w], f"{hint}/channels_first", **attrs)
        return channels_last(b, y, rank, hint)
    return b.op(onnx_type, [x, w], hint, **attrs)


@handles("Conv2D")
def _conv(b, op, ins):
    rank = 4
    # TensorFlow's filter is [spatial..., in, out]; ONNX's is [out, in, spatial...].
    perm = [rank - 1, rank - 2] + list(range(rank - 2))

    def layout(array, name):
        if array is not None:
            return np.ascontiguousarray(np.transpose(array, perm))
        return b.op("Transpose", [name], f"{op.name}/filter", perm=perm)

    w = _kernel(b, op, ins[1], layout, f"{op.name}/filter")
    kernel = op.inputs[1].shape.as_list()[:rank - 2] if op.inputs[1].shape.rank == rank else None
    if kernel is None or None in kernel:
        raise unsupported(op, "the filter's shape must be known")
    return [_conv_like(b, op, ins[0], w, rank, "Conv", {}, op.name, kernel)]


@handles("DepthwiseConv2dNative")
def _depthwise(b, op, ins):
    shape = op.inputs[1].shape
    if not shape.is_fully_defined():
        raise unsupported(op, "the filter's shape must be known")
    kh, kw, cin, mult = shape.as_list()
    # [kh, kw, in, multiplier] -> [in·multiplier, 1, kh, kw]: output channel c·multiplier + m, as TF orders them.

    def layout(array, name):
        if array is not None:
            return np.ascontiguousarray(np.transpose(array.reshape(kh, kw, cin * mult), (2, 0, 1))
                                        .reshape(cin * mult, 1, kh, kw))
        flat = b.op("Reshape", [name, b.i64([kh, kw, cin * mult], f"{op.name}/flat")], f"{op.name}/flat_filter")
        moved = b.op("Transpose", [flat], f"{op.name}/moved", perm=[2, 0, 1])
        return b.op("Reshape", [moved, b.i64([cin * mult, 1, kh, kw], f"{op.name}/grouped")], f"{op.name}/filter")

    w = _kernel(b, op, ins[1], layout, f"{op.name}/filter")
    return [_conv_like(b, op, ins[0], w, 4, "Conv", {"group": cin}, op.name, [kh, kw])]


@handles("Conv2DBackpropInput")
def _conv_transpose(b, op, ins):
    """conv2d_transpose: ONNX ConvTranspose with the padding and output padding TensorFlow's sizes imply."""
    fmt = op.attrs.get("data_format", "NHWC")
    x_shape, out_shape, w_shape = op.inputs[2].shape, op.outputs[0].shape, op.inputs[1].shape
    if x_shape.rank != 4 or out_shape.rank != 4 or not w_shape.is_fully_defined():
        raise unsupported(op, "the input, output and filter shapes must be known")
    sl = slice(1, 3) if _channels_last(fmt) else slice(2, 4)
    ins_sp, outs_sp = x_shape.as_list()[sl], out_shape.as_list()[sl]
    if None in outs_sp:
        outs_sp = _requested_sizes(b, op, ins[0], sl)
    if None in ins_sp or outs_sp is None or None in outs_sp:
        raise unsupported(op, "the spatial sizes must be known")
    strides = _spatial(op.attrs.get("strides", [1] * 4), fmt, 4)
    dilations = _spatial(op.attrs.get("dilations", [1] * 4), fmt, 4)
    kernel = w_shape.as_list()[:2]
    padding = op.attrs.get("padding", "VALID")
    begins, ends, extra = [], [], []
    for i in range(2):
        k_eff = (kernel[i] - 1) * dilations[i] + 1
        total = strides[i] * (ins_sp[i] - 1) + k_eff - outs_sp[i]
        if padding == "EXPLICIT":
            before = _pads(op, 4, fmt)[i]
        else:
            before = max(total, 0) // 2 if padding == "SAME" else 0
        after = max(total - before, 0)
        begins.append(before)
        ends.append(after)
        extra.append(max(-(total - before), 0))   # rows TensorFlow's output has beyond the last window

    def layout(array, name):   # [kh, kw, out, in] -> [in, out, kh, kw]
        if array is not None:
            return np.ascontiguousarray(np.transpose(array, (3, 2, 0, 1)))
        return b.op("Transpose", [name], f"{op.name}/filter", perm=[3, 2, 0, 1])

    w = _kernel(b, op, ins[1], layout, f"{op.name}/filter")
    attrs = {"pads": begins + ends}
    if any(extra):
        attrs["output_padding"] = extra
    return [_conv_like(b, op, ins[2], w, 4, "ConvTranspose", attrs, op.name)]


def _requested_sizes(b, op, sizes_name, spatial):
    """The output's spatial sizes from `input_sizes`: a constant, or a Pack whose spatial entries are
    (Keras packs the dynamic batch size with constant spatial sizes)."""
    known = b.value(sizes_name)
    if known is not None:
        return [int(v) for v in np.asarray(known)[spatial]]
    producer = op.inputs[0].op
    if producer.type != "Pack" or len(producer.inputs) != 4:
        return None
    values = [producer.graph.constant_value_of(t) for t in producer.inputs[spatial]]
    return None if any(v is None for v in values) else [int(v) for v in values]


@handles("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D")
def _pool(b, op, ins):
    fmt = op.attrs.get("data_format", "NHWC")
    ksize = op.attrs["ksize"]
    rank = len(ksize)
    attrs = {"kernel_shape": _spatial(ksize, fmt, rank), "strides": _spatial(op.attrs.get("strides", [1] * rank), fmt, rank)}
    attrs.update(_padding_attrs(op, rank, fmt, attrs["kernel_shape"], attrs["strides"]))
    onnx_type = "MaxPool" if op.type.startswith("Max") else "AveragePool"
    if onnx_type == "AveragePool":
        attrs["count_include_pad"] = 0      # TensorFlow averages over the window's real elements only
    if _channels_last(fmt):
        y = b.op(onnx_type, [channels_first(b, ins[0], rank, op.name)], f"{op.name}/channels_first", **attrs)
        return [channels_last(b, y, rank, op.name)]
    return [b.op(onnx_type, [ins[0]], op.name, **attrs)]


@handles("BiasAdd")
def _bias_add(b, op, ins):
    x, bias = ins
    rank = op.inputs[0].shape.rank
    fmt = op.attrs.get("data_format", "NHWC")
    if _channels_last(fmt):
        twin = b.channels_first_of(x)
        if twin is not None and rank is not None and rank > 2:
            # The input is the transposed output of a channels-first op: add in that layout, stay there.
            column = b.unsqueeze(bias, list(range(1, rank - 1)), f"{op.name}/bias_column")
            y = b.op("Add", [twin, column], f"{op.name}/channels_first")
            return [channels_last(b, y, rank, op.name)]
        return [b.op("Add", [x, bias], op.name)]
    if rank is None:
        raise unsupported(op, "NCHW bias addition needs the input's rank")
    column = b.unsqueeze(bias, list(range(1, rank - 1)), f"{op.name}/bias_column")
    return [b.op("Add", [x, column], op.name)]


# TensorFlow 2's resize samples with half-pixel centres: bilinear at (i + 0.5)·in/out − 0.5, nearest at
# floor((i + 0.5)·in/out). Bicubic uses Keys' cubic with a = −0.5, as ONNX's cubic mode can be told to.
_RESIZE = {
    "ResizeBilinear": {"mode": "linear", "coordinate_transformation_mode": "half_pixel"},
    "ResizeNearestNeighbor": {"mode": "nearest", "coordinate_transformation_mode": "tf_half_pixel_for_nn",
                              "nearest_mode": "floor"},
    "ResizeBicubic": {"mode": "cubic", "coordinate_transformation_mode": "half_pixel", "cubic_coeff_a": -0.5,
                      "exclude_outside": 1},
}


@handles(*_RESIZE)
def _resize(b, op, ins):
    """NHWC images resized to `size` (height, width): ONNX Resize in NCHW with the full output sizes."""
    images = channels_first(b, ins[0], 4, op.name)
    leading = b.op("Slice", [b.op("Shape", [images], f"{op.name}/shape"), b.i64([0], f"{op.name}/zero"),
                             b.i64([2], f"{op.name}/two")], f"{op.name}/batch_channels")
    sizes = b.op("Concat", [leading, b.as_int64(ins[1], f"{op.name}/size")], f"{op.name}/sizes", axis=0)
    y = b.op("Resize", [images, "", "", sizes], f"{op.name}/channels_first", **_RESIZE[op.type])
    out = channels_last(b, y, 4, op.name)
    if op.inputs[0].dtype != op.outputs[0].dtype:    # TensorFlow's bilinear/bicubic give float32
        out = b.cast(out, op.outputs[0].dtype, f"{op.name}/cast")
    return [out]


@handles("FusedLayerNorm")
def _fused_layer_norm(b, op, ins):
    """Keras' LayerNormalization over the axes from `begin_axis` on, in the fused op's order of operations:
    y = x·(r·γ) + (β − μ·(r·γ)), μ = mean(x), r = 1/√(mean((x − μ)²) + ε)."""
    x, gamma, beta = ins
    rank = op.inputs[0].shape.rank
    if rank is None:
        raise unsupported(op, "an input of unknown rank")
    axes = list(range(op.attrs["begin_axis"], rank))
    n = op.name
    mean = b.reduce("Mean", x, axes, True, f"{n}/mean")
    centered = b.op("Sub", [x, mean], f"{n}/centered")
    variance = b.reduce("Mean", b.op("Mul", [centered, centered], f"{n}/squared"), axes, True, f"{n}/variance")
    eps = b.const(np.asarray(op.attrs["epsilon"], dtype=op.inputs[0].dtype.as_numpy_dtype), f"{n}/epsilon")
    r = b.op("Reciprocal", [b.op("Sqrt", [b.op("Add", [variance, eps], f"{n}/var_eps")], f"{n}/std")], f"{n}/inv")
    scale = b.op("Mul", [r, gamma], f"{n}/scale")
    shift = b.op("Sub", [beta, b.op("Mul", [mean, scale], f"{n}/mean_scale")], f"{n}/shift")
    return [b.op("Add", [b.op("Mul", [x, scale], f"{n}/scaled"), shift], n)]
