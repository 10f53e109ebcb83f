"""Calls of `keras.ops` shared by the recorder (Keras 3.15 on TensorFlow 2.21) and the test (tensorflux):
`cases(ops, tf)` maps a case name to a function making the result; `describe` (from tnp_cases) turns it
into JSON. Recorded with `~/venv-tf/bin/python tests/keras/record_keras_ops_cases.py`."""
import numpy as np


def cases(ops, tf):
    i32 = tf.constant([[1, -2, 3], [4, 5, -6]], tf.int32)
    f32 = tf.constant([[0.5, -1.5, 2.25], [3.0, -0.25, 1.0]], tf.float32)
    vec = tf.constant([3.0, 1.0, 2.0, 5.0])
    pos = tf.constant([0.25, 0.5, 0.75])
    nan = tf.constant([1.0, float("nan"), 3.0, -2.0])
    m = tf.constant([[2.0, 1.0], [1.0, 3.0]])
    c = {}
    # promotion (Keras' lattice)
    c["add_i32_pyfloat"] = lambda: ops.add(tf.constant([1]), 1.5)
    c["add_i8_pyfloat"] = lambda: ops.add(tf.constant([1], tf.int8), 1.5)
    c["add_i8_u8"] = lambda: ops.add(tf.constant([1], tf.int8), tf.constant([1], tf.uint8))
    c["add_f32_f64"] = lambda: ops.add(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    c["add_f32_np64"] = lambda: ops.add(tf.constant([1.0]), np.array([1.0]))
    c["add_i32_f16"] = lambda: ops.add(tf.constant([1]), tf.constant([1.0], tf.float16))
    c["add_bool_int"] = lambda: ops.add(tf.constant([True]), 1)
    c["add_lists"] = lambda: ops.add([1, 2], [3, 4])
    c["divide_i64"] = lambda: ops.divide(tf.constant([1], tf.int64), tf.constant([2], tf.int64))
    # element-wise unary
    unary_float = ("sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh", "arcsinh", "exp", "expm1", "exp2",
                   "cbrt", "deg2rad", "rad2deg", "floor", "ceil", "trunc", "sign", "abs", "absolute", "negative",
                   "square", "reciprocal", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "real",
                   "imag", "conj", "conjugate", "signbit", "sinc", "erf", "erfc", "fabs", "angle", "round",
                   "sigmoid", "relu", "relu6", "elu", "selu", "softplus", "softsign", "silu", "gelu", "celu", "glu",
                   "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "hard_shrink", "soft_shrink",
                   "tanh_shrink", "log_sigmoid", "leaky_relu", "sparse_plus", "sparse_sigmoid", "squareplus",
                   "log_softmax", "softmax", "sparsemax", "nan_to_num", "copy", "ravel", "flip", "fliplr",
                   "flipud", "rot90", "transpose", "triu", "tril", "diagonal", "trace", "sort", "argsort",
                   "cumsum", "cumprod", "nonzero", "count_nonzero", "ptp", "median", "nanmax", "nanmin", "nansum",
                   "nanmean", "nanprod", "nanstd", "nanvar", "nancumsum", "nancumprod", "nanargmax", "nanargmin",
                   "nanmedian", "logsumexp", "rsqrt", "bitwise_invert", "bitwise_not", "logical_not",
                   "unique", "var", "std", "mean", "sum", "prod", "amax", "amin", "argmax", "argmin", "all", "any",
                   "size", "ndim", "view_as_real", "i0")
    for name in unary_float:
        if name in ("erfinv",):
            continue
        src = f32
        if name in ("glu",):
            src = tf.constant([[0.5, -1.5, 2.25, 3.0]])
        if name in ("bitwise_invert", "bitwise_not"):
            src = i32
        if name == "view_as_real":
            src = tf.constant([1 + 2j, 3 - 1j], tf.complex64)
        c[f"{name}_f32"] = (lambda n, s: lambda: getattr(ops, n)(s))(name, src)
    for name in ("sin", "exp", "sqrt", "log", "log2", "log10", "log1p", "floor", "square", "abs", "sign", "mean",
                 "sum", "prod", "cumsum", "var", "median", "sigmoid", "relu", "softmax", "erf", "trace", "round",
                 "isnan", "reciprocal", "exp2", "arctan", "signbit", "count_nonzero", "argmax", "amax"):
        c[f"{name}_i32"] = (lambda n: lambda: getattr(ops, n)(tf.abs(i32) if n.startswith(("log", "sqrt")) else i32))(name)
    for name in ("arcsin", "arccos", "arctanh", "sqrt", "log", "log2", "log10", "log1p", "erfinv", "rsqrt",
                 "arccosh"):
        c[f"{name}_pos"] = (lambda n: lambda: getattr(ops, n)(pos + 1.0 if n == "arccosh" else pos))(name)
    c["sum_i8"] = lambda: ops.sum(tf.constant([1, 2], tf.int8))
    c["sum_u8"] = lambda: ops.sum(tf.constant([1, 2], tf.uint8))
    c["sum_bool"] = lambda: ops.sum(tf.constant([True, True]))
    c["nan_ops"] = lambda: [ops.nansum(nan), ops.nanmean(nan), ops.nanmax(nan), ops.nanmin(nan), ops.nanprod(nan),
                            ops.nanstd(nan), ops.nanvar(nan), ops.nanargmax(nan), ops.nanargmin(nan),
                            ops.nancumsum(nan), ops.nancumprod(nan), ops.nanmedian(nan)]
    c["nan_to_num"] = lambda: ops.nan_to_num(tf.constant([np.nan, np.inf, -np.inf, 1.0]), nan=0.5, posinf=9.0)
    # element-wise binary
    a, b = tf.constant([7, -7, 8, 0]), tf.constant([2, 2, -3, 5])
    x, y = tf.constant([1.5, -2.0, 0.0, 3.0]), tf.constant([0.5, 2.0, -1.0, 4.0])
    binary = ("add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "mod", "floor_divide",
              "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
              "logical_xor", "power", "fmod", "arctan2", "hypot", "logaddexp", "logaddexp2", "heaviside",
              "nextafter", "divide_no_nan", "isclose")
    for name in binary:
        c[f"{name}_floats"] = (lambda n: lambda: getattr(ops, n)(x, y))(name)
    for name in ("add", "subtract", "multiply", "divide", "maximum", "mod", "floor_divide", "power", "gcd", "lcm",
                 "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "bitwise_left_shift",
                 "bitwise_right_shift", "fmod", "logaddexp", "arctan2", "hypot", "heaviside", "ldexp"):
        c[f"{name}_ints"] = (lambda n: lambda: getattr(ops, n)(a, tf.abs(b) if "shift" in n or n == "ldexp" else b))(name)
    c["ldexp_float"] = lambda: ops.ldexp(x, tf.constant([1, 2, 3, -1]))
    c["allclose"] = lambda: ops.allclose(x, x + 1e-9)
    c["polar"] = lambda: ops.polar(tf.constant([1.0, 2.0]), tf.constant([0.0, 1.0]))
    # creation
    c["arange"] = lambda: ops.arange(5)
    c["arange_float"] = lambda: ops.arange(0, 1, 0.25)
    c["linspace"] = lambda: ops.linspace(0, 1, 5)
    c["linspace_no_end"] = lambda: ops.linspace(2.0, 3.0, num=4, endpoint=False)
    c["logspace"] = lambda: ops.logspace(0, 2, 3)
    c["geomspace"] = lambda: ops.geomspace(1, 1000, 4)
    c["array"] = lambda: ops.array([1.0, 2.0])
    c["array_int"] = lambda: ops.array([1, 2])
    c["empty"] = lambda: ops.empty((2,))
    c["empty_like"] = lambda: ops.empty_like(i32)
    c["full_like"] = lambda: ops.full_like(i32, 7)
    c["identity"] = lambda: ops.identity(2)
    c["tri"] = lambda: ops.tri(3, 4, k=1)
    c["diag"] = lambda: ops.diag(tf.constant([1, 2]), k=1)
    c["diag_matrix"] = lambda: ops.diag(i32)
    c["diagflat"] = lambda: ops.diagflat(tf.constant([[1, 2], [3, 4]]))
    c["meshgrid"] = lambda: ops.meshgrid(tf.constant([1, 2, 3]), tf.constant([4, 5]))
    c["vander"] = lambda: ops.vander(tf.constant([1, 2, 3]))
    for name in ("bartlett", "blackman", "hamming", "hanning"):
        c[name] = (lambda n: lambda: getattr(ops, n)(5))(name)
    c["kaiser"] = lambda: ops.kaiser(5, 2.0)
    # reductions and statistics
    c["average"] = lambda: ops.average(f32, axis=1, weights=tf.constant([1.0, 0.0, 1.0]))
    c["quantile"] = lambda: ops.quantile(vec, 0.3)
    c["quantile_methods"] = lambda: [ops.quantile(vec, [0.3, 0.8], method=m_) for m_ in
                                     ("linear", "lower", "higher", "midpoint", "nearest")]
    c["percentile"] = lambda: ops.percentile(f32, 40.0, axis=1)
    c["nanquantile"] = lambda: ops.nanquantile(nan, 0.5)
    c["nanpercentile"] = lambda: ops.nanpercentile(nan, 25.0)
    c["median_axis"] = lambda: ops.median(f32, axis=0, keepdims=True)
    c["corrcoef"] = lambda: ops.corrcoef(tf.constant([[1.0, 2.0, 4.0], [2.0, 1.0, 0.5]]))
    c["correlate"] = lambda: ops.correlate(tf.constant([1.0, 2.0, 3.0]), tf.constant([0.0, 1.0, 0.5]))
    c["correlate_same"] = lambda: ops.correlate(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([1.0, 0.5]), mode="same")
    c["correlate_full"] = lambda: ops.correlate(tf.constant([1.0, 2.0, 3.0]), tf.constant([0.0, 1.0]), mode="full")
    c["histogram"] = lambda: ops.histogram(vec, bins=3)
    c["digitize"] = lambda: ops.digitize(vec, tf.constant([1.5, 2.5, 4.0]))
    c["bincount"] = lambda: ops.bincount(tf.constant([0, 1, 1, 3]))
    c["bincount_weights"] = lambda: ops.bincount(tf.constant([0, 1, 1, 3]), weights=tf.constant([0.5, 1.0, 2.0, 1.0]),
                                                 minlength=5)
    c["searchsorted"] = lambda: ops.searchsorted(tf.constant([1.0, 2.0, 3.0]), tf.constant([2.0, 0.5, 3.5]))
    c["searchsorted_right"] = lambda: ops.searchsorted(tf.constant([1.0, 2.0, 3.0]), tf.constant([2.0]), side="right")
    c["moments"] = lambda: ops.moments(f32, axes=[0])
    c["logsumexp_axis"] = lambda: ops.logsumexp(f32, axis=1)
    c["top_k"] = lambda: ops.top_k(f32, 2)
    c["in_top_k"] = lambda: ops.in_top_k(tf.constant([2, 0]), f32, 1)
    c["argpartition"] = lambda: ops.sort(ops.argpartition(vec, 2)[:2])
    c["unique"] = lambda: ops.unique(tf.constant([3, 1, 3, 2]))
    c["unique_counts"] = lambda: ops.unique(tf.constant([3, 1, 3, 2]), return_counts=True, return_inverse=True)
    c["isin"] = lambda: ops.isin(i32, tf.constant([1, 5, 9]))
    c["trapezoid"] = lambda: ops.trapezoid(vec)
    c["trapezoid_dx"] = lambda: ops.trapezoid(f32, dx=0.5, axis=1)
    # shapes
    c["moveaxis"] = lambda: ops.moveaxis(tf.zeros([2, 3, 4]), 0, -1)
    c["swapaxes"] = lambda: ops.swapaxes(tf.reshape(tf.range(6), [1, 2, 3]), 0, 2)
    c["broadcast_to"] = lambda: ops.broadcast_to(vec, (2, 4))
    c["append"] = lambda: ops.append(i32, tf.constant([[7, 8, 9]]), axis=0)
    c["append_flat"] = lambda: ops.append(i32, tf.constant([7]))
    c["array_split"] = lambda: ops.array_split(tf.range(7), 3)
    c["hsplit"] = lambda: ops.hsplit(tf.reshape(tf.range(8), [2, 4]), 2)
    c["vsplit"] = lambda: ops.vsplit(tf.reshape(tf.range(8), [4, 2]), 2)
    c["dsplit"] = lambda: ops.dsplit(tf.reshape(tf.range(8), [1, 2, 4]), 2)
    c["hstack"] = lambda: ops.hstack([i32, i32])
    c["vstack"] = lambda: ops.vstack([vec, vec])
    c["dstack"] = lambda: ops.dstack([i32, i32])
    c["roll"] = lambda: ops.roll(i32, 1)
    c["roll_axis"] = lambda: ops.roll(i32, -1, axis=1)
    c["pad"] = lambda: ops.pad(tf.constant([[1, 2]]), ((1, 0), (0, 2)))
    c["pad_reflect"] = lambda: ops.pad(tf.constant([[1, 2, 3]]), ((0, 0), (2, 1)), mode="reflect")
    c["pad_value"] = lambda: ops.pad(tf.constant([1.0, 2.0]), ((1, 1),), constant_values=5.0)
    c["take_along_axis"] = lambda: ops.take_along_axis(i32, tf.constant([[2], [0]]), axis=1)
    c["tensordot"] = lambda: ops.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), 1)
    c["inner"] = lambda: ops.inner(m, m)
    c["outer"] = lambda: ops.outer(tf.constant([1, 2]), tf.constant([3, 4, 5]))
    c["vdot"] = lambda: ops.vdot(vec, vec)
    c["kron"] = lambda: ops.kron(tf.constant([[1, 2], [3, 4]]), tf.constant([[0, 1], [1, 0]]))
    c["cross"] = lambda: ops.cross(tf.constant([1.0, 2.0, 3.0]), tf.constant([4.0, 5.0, 6.0]))
    c["rot90_k"] = lambda: ops.rot90(i32, k=3)
    c["select"] = lambda: ops.select([vec < 2, vec > 4], [vec, vec * 10], default=-1.0)
    c["slice"] = lambda: ops.slice(i32, [0, 1], [2, 2])
    c["slice_update"] = lambda: ops.slice_update(tf.zeros([3, 3]), [1, 1], tf.ones([2, 2]))
    c["scatter"] = lambda: ops.scatter(tf.constant([[0], [2]]), tf.constant([1.0, 2.0]), (4,))
    c["scatter_update"] = lambda: ops.scatter_update(tf.zeros([4]), tf.constant([[1], [3]]), tf.constant([5.0, 6.0]))
    c["get_item"] = lambda: ops.get_item(i32, 1)
    c["unravel_index"] = lambda: ops.unravel_index(tf.constant([4, 5]), (2, 3))
    c["view"] = lambda: ops.view(tf.constant([1.0, 2.0]), "int32")
    c["view_as_complex"] = lambda: ops.view_as_complex(tf.constant([[1.0, 2.0], [3.0, -1.0]]))
    c["saturate_cast"] = lambda: ops.saturate_cast(tf.constant([300.0, -5.0, 12.7]), "uint8")
    c["segment_ops"] = lambda: [getattr(ops, f"segment_{k}")(vec, tf.constant([0, 0, 1, 1]), num_segments=2)
                                for k in ("sum", "max", "min", "prod")]
    c["extract_sequences"] = lambda: ops.extract_sequences(tf.range(6.0), 3, 2)
    c["rearrange"] = lambda: ops.rearrange(tf.reshape(tf.range(6), [2, 3]), "a b -> b a")
    # nn
    c["one_hot"] = lambda: ops.one_hot(tf.constant([0, 2]), 3)
    c["multi_hot"] = lambda: ops.multi_hot(tf.constant([[0, 2], [1, 1]]), 3)
    c["normalize"] = lambda: ops.normalize(f32)
    c["normalize_l1"] = lambda: ops.normalize(f32, axis=0, order=1)
    c["binary_crossentropy"] = lambda: ops.binary_crossentropy(tf.constant([0.0, 1.0]), tf.constant([0.2, 0.7]))
    c["binary_crossentropy_logits"] = lambda: ops.binary_crossentropy(tf.constant([0.0, 1.0]), tf.constant([-1.0, 2.0]),
                                                                      from_logits=True)
    c["categorical_crossentropy"] = lambda: ops.categorical_crossentropy(tf.constant([[0.0, 1.0, 0.0]]),
                                                                         tf.constant([[0.2, 0.5, 0.3]]))
    c["sparse_categorical_crossentropy"] = lambda: ops.sparse_categorical_crossentropy(
        tf.constant([1, 0]), tf.constant([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]]), from_logits=True)
    c["threshold"] = lambda: ops.threshold(f32, 1.0, -9.0)
    c["batch_normalization"] = lambda: ops.batch_normalization(f32, tf.constant([0.5, 0.0, 1.0]),
                                                               tf.constant([1.0, 4.0, 0.25]), axis=1,
                                                               offset=tf.constant([0.0, 1.0, 0.0]), epsilon=1e-3)
    c["layer_normalization"] = lambda: ops.layer_normalization(f32)
    c["rms_normalization"] = lambda: ops.rms_normalization(f32)
    c["psnr"] = lambda: ops.psnr(tf.constant([[0.1, 0.5]]), tf.constant([[0.2, 0.4]]), 1.0)
    img = tf.reshape(tf.range(32.0), [1, 4, 4, 2])
    c["max_pool"] = lambda: ops.max_pool(img, 2)
    c["average_pool"] = lambda: ops.average_pool(img, 2, strides=1, padding="same")
    c["adaptive_average_pool"] = lambda: ops.adaptive_average_pool(img, (2, 2))
    c["adaptive_max_pool"] = lambda: ops.adaptive_max_pool(img, (2, 1))
    c["conv"] = lambda: ops.conv(img, tf.ones([2, 2, 2, 3]) * 0.1)
    c["conv_same_stride"] = lambda: ops.conv(img, tf.ones([3, 3, 2, 1]), strides=2, padding="same")
    c["conv1d"] = lambda: ops.conv(tf.reshape(tf.range(12.0), [1, 6, 2]), tf.ones([3, 2, 1]), dilation_rate=2)
    c["conv_transpose"] = lambda: ops.conv_transpose(img, tf.ones([2, 2, 3, 2]), 2)
    c["depthwise_conv"] = lambda: ops.depthwise_conv(img, tf.ones([2, 2, 2, 1]))
    c["separable_conv"] = lambda: ops.separable_conv(img, tf.ones([2, 2, 2, 1]), tf.ones([1, 1, 2, 3]))
    c["depth_to_space"] = lambda: ops.depth_to_space(tf.reshape(tf.range(16.0), [1, 2, 2, 4]), 2)
    c["space_to_depth"] = lambda: ops.space_to_depth(img, 2)
    c["dot_product_attention"] = lambda: ops.dot_product_attention(
        tf.reshape(tf.range(12.0), [1, 3, 1, 4]) / 10, tf.reshape(tf.range(12.0), [1, 3, 1, 4]) / 12,
        tf.reshape(tf.range(12.0), [1, 3, 1, 4]), is_causal=True)
    c["ctc_loss"] = lambda: ops.ctc_loss(tf.constant([[1, 2]]), tf.math.log(tf.constant(
        [[[0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.5, 0.4, 0.1]]])), tf.constant([2]), tf.constant([3]))
    c["unfold"] = lambda: ops.unfold(tf.reshape(tf.range(16.0), [1, 1, 4, 4]), 2, stride=2)
    c["fold"] = lambda: ops.fold(tf.ones([1, 4, 4]), (4, 4), 2, stride=2)
    # linalg
    spd = tf.constant([[4.0, 2.0], [2.0, 3.0]])
    c["cholesky"] = lambda: ops.cholesky(spd)
    c["cholesky_inverse"] = lambda: ops.cholesky_inverse(ops.cholesky(spd))
    c["det"] = lambda: ops.det(spd)
    c["inv"] = lambda: ops.inv(spd)
    c["logdet"] = lambda: ops.logdet(spd)
    c["slogdet"] = lambda: ops.slogdet(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    c["solve"] = lambda: ops.solve(spd, tf.constant([[1.0], [2.0]]))
    c["solve_triangular"] = lambda: ops.solve_triangular(tf.constant([[2.0, 0.0], [1.0, 1.0]]),
                                                         tf.constant([[2.0], [3.0]]), lower=True)
    c["eigh"] = lambda: ops.eigh(spd)[0]
    c["eig_values"] = lambda: ops.sort(ops.real(ops.eig(spd)[0]))
    c["svd_values"] = lambda: ops.svd(spd, compute_uv=False)
    c["qr_r_abs"] = lambda: ops.abs(ops.qr(spd)[1])
    c["lstsq"] = lambda: ops.lstsq(tf.constant([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), tf.constant([1.0, 2.0, 2.0]))
    c["matrix_rank"] = lambda: ops.matrix_rank(tf.constant([[1.0, 2.0], [2.0, 4.0]]))
    c["norm"] = lambda: ops.norm(f32)
    c["norm_axis"] = lambda: ops.norm(f32, ord=1, axis=1)
    c["norm_fro"] = lambda: ops.norm(f32, ord="fro", axis=(0, 1))
    c["norm_inf"] = lambda: ops.norm(vec, ord=np.inf)
    c["pinv"] = lambda: ops.pinv(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    c["lu_factor"] = lambda: ops.lu_factor(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    # signal
    c["fft"] = lambda: ops.fft((tf.constant([1.0, 2.0, 0.0, -1.0]), tf.constant([0.0, 1.0, 0.0, 0.0])))
    c["fft2"] = lambda: ops.fft2((tf.reshape(tf.range(4.0), [2, 2]), tf.zeros([2, 2])))
    c["ifft2"] = lambda: ops.ifft2((tf.reshape(tf.range(4.0), [2, 2]), tf.zeros([2, 2])))
    c["rfft"] = lambda: ops.rfft(tf.constant([1.0, 2.0, 0.0, -1.0]))
    c["irfft"] = lambda: ops.irfft((tf.constant([2.0, 1.0, -2.0]), tf.constant([0.0, -3.0, 0.0])))
    c["stft"] = lambda: ops.stft(tf.range(16.0), 8, 4, 8, window="hann", center=True)
    # image
    im = tf.reshape(tf.range(48.0), [1, 4, 4, 3]) / 48.0
    c["image_resize"] = lambda: ops.image.resize(im, (2, 2))
    c["image_resize_nearest"] = lambda: ops.image.resize(im, (3, 5), interpolation="nearest")
    c["image_rgb_to_grayscale"] = lambda: ops.image.rgb_to_grayscale(im)
    c["image_rgb_to_hsv"] = lambda: ops.image.rgb_to_hsv(im)
    c["image_hsv_roundtrip"] = lambda: ops.image.hsv_to_rgb(ops.image.rgb_to_hsv(im))
    c["image_pad"] = lambda: ops.image.pad_images(im, 1, 0, target_height=6, target_width=5)
    c["image_crop"] = lambda: ops.image.crop_images(im, 1, 1, target_height=2, target_width=2)
    c["image_extract_patches"] = lambda: ops.image.extract_patches(im, 2)
    c["image_affine_identity"] = lambda: ops.image.affine_transform(im, tf.constant([[1.0, 0, 0, 0, 1, 0, 0, 0]]))
    c["image_affine_shift"] = lambda: ops.image.affine_transform(im, tf.constant([[1.0, 0, 1, 0, 1, 0, 0, 0]]),
                                                                 interpolation="nearest")
    c["image_gaussian_blur"] = lambda: ops.image.gaussian_blur(im, (3, 3), (1.0, 1.0))
    c["image_sobel"] = lambda: ops.image.sobel_edges(im) if hasattr(ops.image, "sobel_edges") else None
    c["image_map_coordinates"] = lambda: ops.image.map_coordinates(tf.reshape(tf.range(9.0), [3, 3]),
                                                                   tf.constant([[0.5, 1.0], [1.5, 2.0]]), 1)
    # core
    c["cond"] = lambda: ops.cond(tf.constant(True), lambda: tf.constant(1.0), lambda: tf.constant(2.0))
    c["while_loop"] = lambda: ops.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (0, 0))
    c["fori_loop"] = lambda: ops.fori_loop(0, 4, lambda i, s: s + i, 10)
    c["scan"] = lambda: ops.scan(lambda carry, x: (carry + x, carry * x), 1.0, tf.constant([1.0, 2.0, 3.0]))
    c["associative_scan"] = lambda: ops.associative_scan(lambda a, b: a + b, tf.constant([1.0, 2.0, 3.0, 4.0]))
    c["associative_scan_reverse"] = lambda: ops.associative_scan(lambda a, b: a * b, tf.constant([1.0, 2.0, 3.0]),
                                                                 reverse=True)
    c["map"] = lambda: ops.map(lambda v: v * 2, tf.constant([1, 2, 3]))
    c["switch"] = lambda: ops.switch(1, [lambda v: v + 1, lambda v: v * 10], tf.constant(3.0))
    c["vectorized_map"] = lambda: ops.vectorized_map(lambda v: ops.sum(v), f32)
    c["shape"] = lambda: list(ops.shape(f32))
    c["dtype"] = lambda: [ops.dtype(f32) == "float32"]
    c["cast"] = lambda: ops.cast(f32, "int32")
    c["convert_to_tensor"] = lambda: ops.convert_to_tensor([1.5, 2])
    c["is_tensor"] = lambda: [ops.is_tensor(f32), ops.is_tensor(np.ones(2))]
    c["unstack"] = lambda: ops.unstack(i32, axis=1)
    return c
