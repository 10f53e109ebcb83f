"""From dequantised DCT coefficients to pixels, with libjpeg's integer arithmetic so that the result is
bit-identical to TensorFlow's `decode_jpeg` defaults (`dct_method=''`, `fancy_upscaling=True`):

- the accurate integer inverse DCT (the Loeffler-Ligtenberg-Moschytz factorisation with 13-bit
  fixed-point constants, two extra bits kept between the column and row passes);
- "fancy" upsampling of subsampled chroma: a triangular filter (3/4 of the nearer sample, 1/4 of the
  farther) with libjpeg's alternating rounding biases, edge samples repeated;
- YCbCr -> RGB with 16-bit fixed-point tables, rounded as libjpeg rounds them.

All of it is vectorised over every block or row of the image.
"""
import numpy as np

_CONST_BITS, _PASS1_BITS = 13, 2


def _fix(x, bits=_CONST_BITS):
    return int(x * (1 << bits) + 0.5)


_F0298, _F0390, _F0541, _F0765 = _fix(0.298631336), _fix(0.390180644), _fix(0.541196100), _fix(0.765366865)
_F0899, _F1175, _F1501, _F1847 = _fix(0.899976223), _fix(1.175875602), _fix(1.501321110), _fix(1.847759065)
_F1961, _F2053, _F2562, _F3072 = _fix(1.961570560), _fix(2.053119869), _fix(2.562915447), _fix(3.072711026)


def _descale(x, n):
    return (x + (1 << (n - 1))) >> n


def _idct_1d(s0, s1, s2, s3, s4, s5, s6, s7):
    """One 8-point pass over arrays (the eight inputs of every column or row at once): the eight
    outputs, still scaled by 2**CONST_BITS."""
    z1 = (s2 + s6) * _F0541
    tmp2 = z1 - s6 * _F1847
    tmp3 = z1 + s2 * _F0765
    tmp0 = (s0 + s4) << _CONST_BITS
    tmp1 = (s0 - s4) << _CONST_BITS
    tmp10, tmp13 = tmp0 + tmp3, tmp0 - tmp3
    tmp11, tmp12 = tmp1 + tmp2, tmp1 - tmp2
    t0, t1, t2, t3 = s7, s5, s3, s1
    z1, z2, z3, z4 = t0 + t3, t1 + t2, t0 + t2, t1 + t3
    z5 = (z3 + z4) * _F1175
    t0, t1, t2, t3 = t0 * _F0298, t1 * _F2053, t2 * _F3072, t3 * _F1501
    z1, z2 = z1 * -_F0899, z2 * -_F2562
    z3, z4 = z3 * -_F1961 + z5, z4 * -_F0390 + z5
    t0 += z1 + z3
    t1 += z2 + z4
    t2 += z2 + z3
    t3 += z1 + z4
    return (tmp10 + t3, tmp11 + t2, tmp12 + t1, tmp13 + t0, tmp13 - t0, tmp12 - t1, tmp11 - t2, tmp10 - t3)


def idct_islow(coefs):
    """`[rows, cols, 64]` dequantised coefficients (natural order) -> `[rows*8, cols*8]` uint8 samples."""
    rows, cols = coefs.shape[:2]
    blocks = coefs.reshape(-1, 8, 8).astype(np.int64)
    # Pass 1: columns (the first index of each row-major block is the row).
    columns = _idct_1d(*(blocks[:, i, :] for i in range(8)))
    work = np.stack([_descale(c, _CONST_BITS - _PASS1_BITS) for c in columns], axis=1)
    # Pass 2: rows, then level shift by 128 and clamp to the sample range.
    outs = _idct_1d(*(work[:, :, i] for i in range(8)))
    shift = _CONST_BITS + _PASS1_BITS + 3
    samples = np.stack([_descale(o, shift) for o in outs], axis=2) + 128
    samples = np.clip(samples, 0, 255).astype(np.uint8)
    return samples.reshape(rows, cols, 8, 8).transpose(0, 2, 1, 3).reshape(rows * 8, cols * 8)


# The fast integer inverse DCT (Arai-Agui-Nakajima): the dequantisation multipliers carry the AAN
# scale factors (14-bit, less two bits kept for the passes); products keep 8 fraction bits and are
# truncated, as libjpeg does without its accurate-rounding option.
_AAN = np.array([1.0] + [np.cos(k * np.pi / 16) * np.sqrt(2) for k in range(1, 8)])
AAN_SCALES = np.floor(np.outer(_AAN, _AAN).ravel() * (1 << 14) + 0.5).astype(np.int64)
_A1414, _A1847, _A1082, _A2613 = _fix(1.414213562, 8), _fix(1.847759065, 8), _fix(1.082392200, 8), _fix(2.613125930, 8)


def ifast_multipliers(quant):
    """Quantisation table (natural order) -> the fast IDCT's dequantisation multipliers."""
    return (quant * AAN_SCALES + (1 << 11)) >> 12


def _mulhi(x, constant):
    """SSE2's `psllw x, 2` then `pmulhw` by `constant << 6`: (x * constant) >> 8 with x's shift wrapping at
    16 bits, as libjpeg-turbo's fast IDCT computes it."""
    return ((x << 2).astype(np.int32) * (constant << 6) >> 16).astype(np.int16)


def _ifast_1d(s0, s1, s2, s3, s4, s5, s6, s7):
    """One pass of libjpeg-turbo's SSE2 fast IDCT on int16 lanes: every add, subtract and shift wraps at
    16 bits as paddw/psubw/psllw do (it only shows on corrupt data, whose huge coefficients overflow)."""
    tmp10, tmp11 = s0 + s4, s0 - s4
    tmp13 = s2 + s6
    tmp12 = _mulhi(s2 - s6, _A1414) - tmp13
    tmp0, tmp3 = tmp10 + tmp13, tmp10 - tmp13
    tmp1, tmp2 = tmp11 + tmp12, tmp11 - tmp12
    z13, z10 = s5 + s3, s5 - s3
    z11, z12 = s1 + s7, s1 - s7
    tmp7 = z11 + z13
    tmp11 = _mulhi(z11 - z13, _A1414)
    z5 = _mulhi(z10 + z12, _A1847)      # (z10 << 2) + (z12 << 2) wraps as (z10 + z12) << 2 does
    tmp10 = _mulhi(z12, _A1082) - z5
    tmp12 = _mulhi(z10, 256 - _A2613) - z10 + z5     # -2.613 as -1.613 - 1, as the SIMD code avoids overflow
    tmp6 = tmp12 - tmp7
    tmp5 = tmp11 - tmp6
    tmp4 = tmp10 + tmp5
    return (tmp0 + tmp7, tmp1 + tmp6, tmp2 + tmp5, tmp3 - tmp4, tmp3 + tmp4, tmp2 - tmp5, tmp1 - tmp6, tmp0 - tmp7)


def idct_ifast(coefs):
    """Like `idct_islow`, with the fast method (coefficients already multiplied by `ifast_multipliers`):
    int16 arithmetic throughout (the products' low 16 bits, as pmullw keeps them), the result shifted,
    saturated to a signed byte and re-centred."""
    rows, cols = coefs.shape[:2]
    blocks = coefs.reshape(-1, 8, 8).astype(np.int16)
    with np.errstate(over="ignore"):
        work = np.stack(_ifast_1d(*(blocks[:, i, :] for i in range(8))), axis=1)
        outs = _ifast_1d(*(work[:, :, i] for i in range(8)))
    samples = np.stack([o >> (_PASS1_BITS + 3) for o in outs], axis=2).astype(np.int32)
    samples = (np.clip(samples, -128, 127) + 128).astype(np.uint8)
    return samples.reshape(rows, cols, 8, 8).transpose(0, 2, 1, 3).reshape(rows * 8, cols * 8)


def _fancy_h2(plane):
    """Horizontal 2x: each input sample gives (3*this + left + 1) >> 2 and (3*this + right + 2) >> 2;
    the outermost outputs copy the edge samples."""
    p = plane.astype(np.int32)
    left = np.concatenate([p[:, :1], p[:, :-1]], axis=1)
    right = np.concatenate([p[:, 1:], p[:, -1:]], axis=1)
    out = np.empty((p.shape[0], p.shape[1] * 2), np.int32)
    out[:, 0::2] = (3 * p + left + 1) >> 2
    out[:, 1::2] = (3 * p + right + 2) >> 2
    out[:, 0] = p[:, 0]
    out[:, -1] = p[:, -1]
    return out


def _fancy_v2(plane):
    """Vertical 2x alone: (3*this + above + 1) >> 2 above, (3*this + below + 2) >> 2 below."""
    p = plane.astype(np.int32)
    above = np.concatenate([p[:1], p[:-1]], axis=0)
    below = np.concatenate([p[1:], p[-1:]], axis=0)
    out = np.empty((p.shape[0] * 2, p.shape[1]), np.int32)
    out[0::2] = (3 * p + above + 1) >> 2
    out[1::2] = (3 * p + below + 2) >> 2
    return out


def _fancy_h2v2(plane):
    """2x both ways: vertical sums 3*this + neighbour row (rows repeated at the edges), then horizontal
    weights 3:1 of those sums with biases 8 and 7 and a shift by 4; the outermost columns weigh 4:0."""
    p = plane.astype(np.int32)
    above = np.concatenate([p[:1], p[:-1]], axis=0)
    below = np.concatenate([p[1:], p[-1:]], axis=0)
    out = np.empty((p.shape[0] * 2, p.shape[1] * 2), np.int32)
    for offset, neighbour in ((0, above), (1, below)):
        sums = 3 * p + neighbour
        last = np.concatenate([sums[:, :1], sums[:, :-1]], axis=1)
        nxt = np.concatenate([sums[:, 1:], sums[:, -1:]], axis=1)
        rows = out[offset::2]
        rows[:, 0::2] = (3 * sums + last + 8) >> 4
        rows[:, 1::2] = (3 * sums + nxt + 7) >> 4
        rows[:, 0] = (4 * sums[:, 0] + 8) >> 4
        rows[:, -1] = (4 * sums[:, -1] + 7) >> 4
    return out


def _upsample(plane, fx, fy, width, height, fancy=True):
    """A component plane brought to the full image size by libjpeg's choice of method for its ratio
    (without `fancy`, sample replication, which is what libjpeg's merged upsampler amounts to)."""
    if fx == 1 and fy == 1:
        full = plane.astype(np.int32)
    elif not fancy:
        full = np.repeat(np.repeat(plane.astype(np.int32), fy, axis=0), fx, axis=1)
    elif fx == 2 and fy == 1 and plane.shape[1] > 2:
        full = _fancy_h2(plane)
    elif fx == 2 and fy == 2 and plane.shape[1] > 2:
        full = _fancy_h2v2(plane)
    elif fx == 1 and fy == 2:
        full = _fancy_v2(plane)
    else:       # other integral ratios (and narrow images): sample replication
        full = np.repeat(np.repeat(plane.astype(np.int32), fy, axis=0), fx, axis=1)
    if full.shape[0] < height or full.shape[1] < width:
        full = np.pad(full, ((0, max(0, height - full.shape[0])), (0, max(0, width - full.shape[1]))),
                      mode="edge")
    return full[:height, :width]


_SCALE = 16
_HALF = 1 << (_SCALE - 1)
_X = np.arange(256, dtype=np.int64) - 128
_CR_R = (_fix(1.40200, _SCALE) * _X + _HALF) >> _SCALE
_CB_B = (_fix(1.77200, _SCALE) * _X + _HALF) >> _SCALE
_CR_G = -_fix(0.71414, _SCALE) * _X
_CB_G = -_fix(0.34414, _SCALE) * _X + _HALF


def _ycc_to_rgb(y, cb, cr):
    y = y.astype(np.int64)
    r = y + _CR_R[cr]
    g = y + ((_CB_G[cb] + _CR_G[cr]) >> _SCALE)
    b = y + _CB_B[cb]
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255).astype(np.uint8)


def _rgb_to_gray(r, g, b):
    """libjpeg's RGB -> luma for an RGB file decoded to one channel (16-bit fixed point, rounded)."""
    r, g, b = (c.astype(np.int64) for c in (r, g, b))
    return ((_fix(0.29900, _SCALE) * r + _fix(0.58700, _SCALE) * g + _fix(0.11400, _SCALE) * b + _HALF)
            >> _SCALE).astype(np.uint8)


def _cmyk_to_rgb(full, ycck, adobe):
    """TensorFlow's RGB of a four-component image: libjpeg gives CMYK (from YCCK: C, M, Y = 255 - R, G, B of
    the YCC part), which TensorFlow takes as inverted (Adobe's convention) when the file has an Adobe marker:
    R = K * C / 255; without one as plain: R = (255 - K) * (255 - C) / 255 (integer division)."""
    if ycck:
        rgb = _ycc_to_rgb(full[0], full[1], full[2]).astype(np.int64)
        c, m, y = (255 - rgb[..., i] for i in range(3))
    else:
        c, m, y = (full[i].astype(np.int64) for i in range(3))
    k = full[3].astype(np.int64)
    if adobe:
        out = [k * v // 255 for v in (c, m, y)]
    else:
        out = [(255 - k) * (255 - v) // 255 for v in (c, m, y)]
    return np.stack(out, axis=-1).astype(np.uint8)


def to_pixels(frame, planes, ycc, channels, fancy=True, adobe=False, ratio=1, sizes=None):
    """Pixels from the component planes; at a `ratio` above 1 the planes hold `sizes` samples per block and
    the image is ceil(width / ratio) x ceil(height / ratio)."""
    width, height = -(-frame.width // ratio), -(-frame.height // ratio)
    comps = frame.components
    sizes = sizes or [8] * len(comps)
    smallest = min(sizes)
    factors = [((frame.hmax * smallest) // (c.h * size), (frame.vmax * smallest) // (c.v * size))
               for c, size in zip(comps, sizes)]
    if len(comps) == 4:
        full = [_upsample(p, fx, fy, width, height, fancy) for p, (fx, fy) in zip(planes, factors)]
        return _cmyk_to_rgb(full, ycc, adobe)
    if len(comps) == 1 or (channels == 1 and ycc):
        gray = _upsample(planes[0], factors[0][0], factors[0][1], width, height)
        gray = gray.astype(np.uint8)
        if channels == 3:
            return np.repeat(gray[:, :, None], 3, axis=2)
        return gray[:, :, None]
    full = [_upsample(p, fx, fy, width, height, fancy) for p, (fx, fy) in zip(planes, factors)]
    if ycc:
        rgb = _ycc_to_rgb(full[0], full[1], full[2])
    else:
        rgb = np.stack(full, axis=-1).astype(np.uint8)
    if channels == 1:
        return _rgb_to_gray(rgb[..., 0], rgb[..., 1], rgb[..., 2])[:, :, None]
    return rgb


# -- scaled decoding (`decode_jpeg(ratio=2|4|8)`) -------------------------------------------------------------
# libjpeg's reduced inverse DCTs give 4x4, 2x2 or 1x1 samples per block straight from the coefficients (only
# the low frequencies they need), with the accurate method's fixed-point constants whatever `dct_method` is.
_R0211, _R0509, _R0601, _R0720 = _fix(0.211164243), _fix(0.509795579), _fix(0.601344887), _fix(0.720959822)
_R0850, _R1061, _R1272, _R1451 = _fix(0.850430095), _fix(1.061594337), _fix(1.272758580), _fix(1.451774981)
_R2172, _R3624 = _fix(2.172734803), _fix(3.624509785)


def _reduced4(s0, s1, s2, s3, s5, s6, s7, extra_shift):
    """One 4-point pass (inputs 0-3 and 5-7 of 8; input 4 is not used): four outputs, descaled."""
    tmp0 = s0 << (_CONST_BITS + 1)
    tmp2 = s2 * _F1847 - s6 * _F0765
    tmp10, tmp12 = tmp0 + tmp2, tmp0 - tmp2
    odd0 = -s7 * _R0211 + s5 * _R1451 - s3 * _R2172 + s1 * _R1061
    odd2 = -s7 * _R0509 - s5 * _R0601 + s3 * _F0899 + s1 * _F2562
    return (_descale(tmp10 + odd2, extra_shift), _descale(tmp12 + odd0, extra_shift),
            _descale(tmp12 - odd0, extra_shift), _descale(tmp10 - odd2, extra_shift))


def _reduced2(s0, s1, s3, s5, s7, extra_shift):
    tmp10 = s0 << (_CONST_BITS + 2)
    odd = -s7 * _R0720 + s5 * _R0850 - s3 * _R1272 + s1 * _R3624
    return _descale(tmp10 + odd, extra_shift), _descale(tmp10 - odd, extra_shift)


def idct_scaled(coefs, size):
    """`[rows, cols, 64]` dequantised coefficients -> `[rows*size, cols*size]` uint8 samples, `size` 4, 2 or 1."""
    rows, cols = coefs.shape[:2]
    blocks = coefs.reshape(-1, 8, 8).astype(np.int64)
    if size == 1:
        samples = _descale(blocks[:, 0, 0], 3)[:, None, None]
    elif size == 2:
        first = _reduced2(*(blocks[:, i, :] for i in (0, 1, 3, 5, 7)), _CONST_BITS - _PASS1_BITS + 2)
        work = np.stack(first, axis=1)                                      # [blocks, 2 rows, 8 columns]
        samples = np.stack(_reduced2(*(work[:, :, i] for i in (0, 1, 3, 5, 7)),
                                     _CONST_BITS + _PASS1_BITS + 3 + 2), axis=2)
    else:
        first = _reduced4(*(blocks[:, i, :] for i in (0, 1, 2, 3, 5, 6, 7)), _CONST_BITS - _PASS1_BITS + 1)
        work = np.stack(first, axis=1)                                      # [blocks, 4 rows, 8 columns]
        samples = np.stack(_reduced4(*(work[:, :, i] for i in (0, 1, 2, 3, 5, 6, 7)),
                                     _CONST_BITS + _PASS1_BITS + 3 + 1), axis=2)
    samples = np.clip(samples + 128, 0, 255).astype(np.uint8)
    return samples.reshape(rows, cols, size, size).transpose(0, 2, 1, 3).reshape(rows * size, cols * size)


def scaled_sizes(frame, ratio):
    """Each component's samples per block at `ratio`: libjpeg scales chroma up by its IDCT (rather than by
    upsampling) while the sampling factors allow it."""
    smallest = 8 // ratio
    sizes = []
    for comp in frame.components:
        size = smallest
        while size < 8 and (frame.hmax * smallest) % (comp.h * size * 2) == 0 and \
                (frame.vmax * smallest) % (comp.v * size * 2) == 0:
            size *= 2
        sizes.append(size)
    return sizes
