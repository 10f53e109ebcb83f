"""TensorFlow's Philox random numbers, bit for bit, in vectorised NumPy.

This module is the engine the random ops call; it knows nothing about Tensors, graphs or seeds' Python
rules. Everything is described in terms of a Philox *position*: a 64-bit key and a 128-bit counter.

Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3") maps a counter of four
uint32 words and a key of two uint32 words to four uint32 words by ten rounds of multiply-and-xor with
the key bumped by Weyl constants between rounds. TensorFlow's conventions, established by experiment
against TensorFlow 2.21 on CPU:

* Word order. A 64-bit key `k` is the words `[k & 0xffffffff, k >> 32]`; a 128-bit counter `c` is
  four words, least significant first. A Generator state `[s0, s1, s2]` (int64) is counter
  `s0 + s1 * 2**64` and key `s2`. `PhiloxRandom(seed, seed2)` of the seeded stateful kernels is key
  `seed`, counter `seed2 * 2**64`.
* Skipping. Skipping `n` blocks adds `n` to the 128-bit counter. Every random op, stateful or
  Generator-based, reserves 256 blocks per output element: after drawing `n` values the counter is
  `n * 256` further on.
* Filling an output. Output elements come in groups, one Philox block per group (4 uint32 words): 4
  elements per group for 32-bit and 16-bit results, 2 for 64-bit results; group `g` is the block at
  counter `c + g`. Hence the output is the flattened stream of blocks `c, c+1, ...` read as words,
  each element taking one word (two for 64-bit results, low word first).
* Truncated normal draws a variable number of words per element, so each group (4 elements, 2 for
  float64) starts at its own reserved place, counter `c + g * 256` (`c + g * 128` for float64), and
  reads consecutive words from there (crossing into following blocks as needed).

Conversions from words:
* uniform float32: the low 23 bits become the mantissa of a float in [1, 2), minus 1 (so [0, 1) on a
  2**-23 grid); float16: low 10 bits, bfloat16: low 7 bits, likewise; float64: 52 bits, the low 20
  bits of the first word above all 32 bits of the second.
* uniform integers in [minval, maxval): `minval + word % (maxval - minval)` with wrap-around
  arithmetic: TensorFlow takes the modulus, biased when the range is not a power of two.
* full-range integers: the word (32-bit) or `low | high << 32` (64-bit), reinterpreted.
* normal: Box-Muller on pairs of uniforms `u1, u2` (u1 clamped below at 1e-7):
  `r = sqrt(-2 log u1)`, angle `2 pi u2`, outputs `r sin`, `r cos` in that order. For float32,
  float16 and bfloat16 TensorFlow computes in float32 with glibc's logf and sincosf and rounds the
  result to the output type; those two are not correctly rounded, so they are re-evaluated here as
  glibc evaluates them (see `_logf`, `_sincosf`). float64 uses four words per pair (two doubles) and
  libm's float64 log/sin/cos (ops/libm.py: NumPy's loops, except on CPUs with AVX-512).
* truncated normal: Box-Muller pairs, keeping each value with |x| < 2 in order until the group is
  full.

Stateless ops derive a position from a seed pair `[s0, s1]`: the counter `s0 | s1 << 64` (each
seed cast to uint64, sign-extended) with key 0x02461e293ec8f720 gives one Philox block `m`; the
position is key `m0 | m1 << 32`, counter `(m2 | m3 << 32) << 64`. TensorFlow does this for
`alg='auto_select'` (StatelessRandomGetKeyCounter) and, with the same result, for `alg='philox'`.
"""
import numpy as np
import ml_dtypes

from . import libm as _libm

__all__ = ["PHILOX", "PhiloxPosition", "philox_4x32_10", "philox_words", "words_to_values",
           "draw", "generator_from_seed", "generator_state", "generator_draw", "generator_split",
           "stateless_position", "stateless", "SeededStream", "DISTRIBUTIONS", "DTYPES"]

# Philox4x32 round multipliers and Weyl key increments (Salmon et al. 2011, table 2).
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)
_ROUNDS = 10
_SHIFT32 = np.uint64(32)

# TensorFlow reserves this many Philox blocks per output element, so that any distribution (even one
# drawing a variable number of words per element) stays inside its reservation.
BLOCKS_PER_ELEMENT = 256
# Key used to scramble a stateless seed pair into a position.
_SEED_SCRAMBLE_KEY = 0x02461E293EC8F720
# Box-Muller clamps the first uniform below so log() stays finite.
_BOX_MULLER_EPSILON = 1.0e-7
# Truncated normals keep |x| < 2.
_TRUNCATE_AT = 2.0

PHILOX = 1  # TensorFlow's Algorithm.PHILOX value; auto_select (3) means Philox on CPU.
DISTRIBUTIONS = ("uniform", "uniform_full_int", "normal", "truncated_normal")
DTYPES = {np.dtype(t) for t in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16, np.int32, np.int64,
                                np.uint32, np.uint64)}
_FLOATS = {np.dtype(t) for t in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16)}
_INTS = DTYPES - _FLOATS


class PhiloxPosition:
    """A place in a Philox stream: a 64-bit `key` and a 128-bit `counter` (Python ints, unsigned)."""

    __slots__ = ("key", "counter")

    def __init__(self, key, counter):
        self.key = int(key) & (2 ** 64 - 1)
        self.counter = int(counter) & (2 ** 128 - 1)

    def skip(self, blocks):
        """The position `blocks` Philox blocks further on (the counter wraps at 2**128)."""
        return PhiloxPosition(self.key, self.counter + int(blocks))

    def __eq__(self, other):
        return isinstance(other, PhiloxPosition) and (self.key, self.counter) == (other.key, other.counter)

    def __hash__(self):
        return hash((self.key, self.counter))

    def __repr__(self):
        return f"PhiloxPosition(key={self.key:#x}, counter={self.counter:#x})"


def philox_4x32_10(counter, key):
    """Philox4x32-10 of `counter` (uint32 [N, 4], least significant word first) under `key` (uint32 [2],
    or [N, 2] for a key per row): uint32 [N, 4]."""
    counter = np.asarray(counter)
    key = np.asarray(key)
    if counter.ndim != 2 or counter.shape[1] != 4:
        raise ValueError(f"philox_4x32_10: `counter` must have shape [N, 4], got {counter.shape}")
    if key.shape not in ((2,), (counter.shape[0], 2)):
        raise ValueError(f"philox_4x32_10: `key` must have shape [2] or [{counter.shape[0]}, 2], got {key.shape}")
    words = counter.astype(np.uint64)
    c0, c1, c2, c3 = words[:, 0], words[:, 1], words[:, 2], words[:, 3]
    key = key.astype(np.uint64)
    k0, k1 = key[..., 0], key[..., 1]
    for round_index in range(_ROUNDS):
        # Products of two 32-bit words fit in uint64: split them into high and low halves.
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = ((p1 >> _SHIFT32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> _SHIFT32) ^ c3 ^ k1, p0 & _MASK32)
        if round_index < _ROUNDS - 1:
            k0 = (k0 + np.uint64(_W0)) & _MASK32
            k1 = (k1 + np.uint64(_W1)) & _MASK32
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def _counter_words(counter, offsets):
    """The four uint32 words of `counter + offsets` (uint64 array of block offsets), wrapping at 2**128."""
    low = np.uint64(counter & 0xFFFFFFFFFFFFFFFF)
    high = np.uint64(counter >> 64)
    summed = low + offsets          # uint64 arithmetic wraps; a wrap shows as a sum below the offset
    carry = (summed < offsets).astype(np.uint64)
    high = high + carry
    return np.stack([summed & _MASK32, summed >> _SHIFT32, high & _MASK32, high >> _SHIFT32], axis=1)


def _key_words(key):
    return np.array([key & 0xFFFFFFFF, key >> 32], np.uint64)


def philox_words(position, blocks, stride=1, start=0):
    """The Philox blocks at counters `position.counter + start + i * stride` for i < `blocks`, as uint32
    [blocks, 4]."""
    offsets = np.uint64(start) + np.arange(blocks, dtype=np.uint64) * np.uint64(stride)
    return philox_4x32_10(_counter_words(position.counter, offsets), _key_words(position.key))


# ---------------------------------------------------------------------------------------------------
# Words to values.

def _unit_float32(words):
    """[0, 1) float32 from the low 23 bits of each word."""
    return ((words & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)


def _unit_float64(first, second):
    """[0, 1) float64 from 52 bits: the low 20 bits of `first` above the 32 bits of `second`."""
    mantissa = ((first.astype(np.uint64) & np.uint64(0xFFFFF)) << _SHIFT32) | second.astype(np.uint64)
    return (mantissa | np.uint64(0x3FF0000000000000)).view(np.float64) - 1.0


def _unit_half(words):
    bits = ((words & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1)


def _unit_bfloat16(words):
    bits = ((words & np.uint32(0x7F)) | np.uint32(127 << 7)).astype(np.uint16)
    # x - 1 is exact for x in [1, 2) on bfloat16's grid, so float32 arithmetic gives the same bits.
    return (bits.view(ml_dtypes.bfloat16).astype(np.float32) - np.float32(1)).astype(ml_dtypes.bfloat16)


def _round32(values):
    """A float64 result rounded to float32 (for correctly rounded single-precision operations)."""
    return values.astype(np.float32)


# TensorFlow's float32 Box-Muller calls glibc's logf and sincosf, which are accurate to < 1 ulp but not
# correctly rounded (about 1 value in 150 of a normal sample differs from the correctly rounded one). To
# give TensorFlow's bits, the two functions are re-evaluated here the way glibc (since 2.28; the
# algorithms come from Arm's optimized-routines, MIT licensed, (c) 2017-2018 Arm Limited) evaluates
# them: a table-driven log1p polynomial and a quadrant reduction with two short polynomials, both in
# double, rounded once to float. The constants below are that implementation's published coefficients.
_LOGF_TABLE = np.array([float.fromhex(h) for h in (  # (1/c, log c) for 16 subintervals of [0.7, 1.4)
    "0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2", "0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2",
    "0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2", "0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3",
    "0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3", "0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3",
    "0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4", "0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4",
    "0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5", "0x1p+0", "0x0p+0",
    "0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5", "0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4",
    "0x1.b2036576afce6p-1", "0x1.526e57720db08p-3", "0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3",
    "0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2", "0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2")]
                       ).reshape(16, 2)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_POLY = [float.fromhex(h) for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]
_COS_POLY = [float.fromhex(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                                        "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_SIN_POLY = [float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")]
_TWO_OVER_PI_2P24 = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi * 2**24: the quadrant in fixed point
_HALF_PI = float.fromhex("0x1.921FB54442D18p0")


def _logf(x):
    """glibc's logf of positive normal float32 `x`."""
    bits = x.view(np.uint32).astype(np.int64)
    # x = 2**k * z with z in [0.7, 1.4); the subinterval i of z picks 1/c and log c.
    offset = bits - 0x3F330000
    index = (offset >> 19) & 15
    exponent = offset >> 23
    z = (bits - (offset & (0x1FF << 23))).astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * _LOGF_TABLE[index, 0] - 1.0
    y0 = _LOGF_TABLE[index, 1] + exponent * _LN2
    r2 = r * r
    y = _LOGF_POLY[1] * r + _LOGF_POLY[2]
    y = _LOGF_POLY[0] * r2 + y
    return (y * r2 + (y0 + r)).astype(np.float32)


def _top12(values):
    """Exponent bits (and the top mantissa bit) of float32 values: glibc's coarse magnitude test."""
    return (values.view(np.uint32) >> 20) & 0x7FF


def _sincosf(angle):
    """glibc's sincosf of float32 `angle` in [0, 120) (Box-Muller angles are in [0, 2 pi))."""
    x = angle.astype(np.float64)
    top = _top12(angle)
    reduced = top >= _top12(np.array([np.pi / 4], np.float32))[0]
    tiny = top < _top12(np.array([2.0 ** -12], np.float32))[0]
    quadrant = np.where(reduced, ((x * _TWO_OVER_PI_2P24).astype(np.int64) + 0x800000) >> 24, 0)
    x = np.where(reduced, x - quadrant * _HALF_PI, x)
    x2 = x * x
    x = x * np.where((quadrant & 3 == 1) | (quadrant & 3 == 2), -1.0, 1.0)
    cos_sign = np.where(quadrant & 2, -1.0, 1.0)  # quadrants 2 and 3 evaluate -cos
    c = [cos_sign * coefficient for coefficient in _COS_POLY]
    x3, x4 = x2 * x, x2 * x2
    sin_poly = (x + x3 * _SIN_POLY[0]) + (x3 * x2) * (_SIN_POLY[1] + x2 * _SIN_POLY[2])
    cos_poly = ((c[0] + x2 * c[1]) + x4 * c[2]) + (x4 * x2) * (c[3] + x2 * c[4])
    sin_poly, cos_poly = sin_poly.astype(np.float32), cos_poly.astype(np.float32)
    odd = (quadrant & 1) == 1  # odd quadrants swap the two polynomials
    sines = np.where(tiny, angle, np.where(odd, cos_poly, sin_poly))
    cosines = np.where(tiny, np.float32(1), np.where(odd, sin_poly, cos_poly))
    return sines, cosines


def _box_muller_float32(first, second):
    """float32 Box-Muller of word pairs: (r sin, r cos), with TensorFlow's single-precision steps."""
    u1 = np.maximum(_unit_float32(first), np.float32(_BOX_MULLER_EPSILON))
    # The angle is 2*pi in double times the float uniform, rounded once to float.
    angle = _round32((2.0 * np.pi) * _unit_float32(second).astype(np.float64))
    # sqrt is correctly rounded in float, so float64 sqrt rounded to float32 gives the same bits.
    radius = _round32(np.sqrt((np.float32(-2) * _logf(u1)).astype(np.float64)))
    sines, cosines = _sincosf(angle)
    return sines * radius, cosines * radius


def _box_muller_float64(w0, w1, w2, w3):
    u1 = np.maximum(_unit_float64(w0, w1), _BOX_MULLER_EPSILON)
    angle = (2.0 * np.pi) * _unit_float64(w2, w3)
    radius = np.sqrt(-2.0 * _libm.apply("log", u1))
    return _libm.apply("sin", angle) * radius, _libm.apply("cos", angle) * radius


def _interleave(first, second):
    out = np.empty(first.shape[:-1] + (first.shape[-1] * 2,), first.dtype)
    out[..., 0::2] = first
    out[..., 1::2] = second
    return out


def _normal_from_words(words, dtype):
    """Normals from a flat word stream (length a multiple of 4): 1 per word (2 per 4 words for float64)."""
    if dtype == np.float64:
        return _interleave(*_box_muller_float64(words[0::4], words[1::4], words[2::4], words[3::4]))
    return _interleave(*_box_muller_float32(words[0::2], words[1::2])).astype(dtype)


def _int_info(dtype):
    bits = dtype.itemsize * 8
    return bits, np.dtype(f"uint{bits}")


def _uniform_int_from_words(words, dtype, minval, maxval):
    bits, unsigned = _int_info(dtype)
    modulus = 2 ** bits
    if int(minval) >= int(maxval):
        raise ValueError(f"uniform: need minval < maxval, got minval={minval} and maxval={maxval}")
    span = (int(maxval) - int(minval)) % modulus  # the range as an unsigned word, as TensorFlow casts it
    draws = _full_int_from_words(words, unsigned) % unsigned.type(span)
    return (draws + unsigned.type(int(minval) % modulus)).view(dtype)


def _full_int_from_words(words, dtype):
    if dtype.itemsize == 4:
        return words.view(dtype)
    wide = words.astype(np.uint64)
    return (wide[0::2] | (wide[1::2] << _SHIFT32)).view(dtype)


def _words_per_element(dtype):
    return 2 if dtype.itemsize == 8 else 1


def words_to_values(words, dtype, dist, minval=None, maxval=None):
    """The values a flat word stream (as read block after block, length a multiple of 4) gives for
    `dist` in `dtype`, before any truncation to the output size. Not for truncated_normal."""
    dtype = np.dtype(dtype)
    if dist == "uniform":
        if dtype == np.float32:
            return _unit_float32(words)
        if dtype == np.float64:
            return _unit_float64(words[0::2], words[1::2])
        if dtype == np.float16:
            return _unit_half(words)
        if dtype == ml_dtypes.bfloat16:
            return _unit_bfloat16(words)
        return _uniform_int_from_words(words, dtype, minval, maxval)
    if dist == "uniform_full_int":
        return _full_int_from_words(words, dtype)
    if dist == "normal":
        return _normal_from_words(words, dtype)
    raise ValueError(f"words_to_values: unsupported distribution {dist!r}")


def _truncated_normal(position, count, dtype):
    """TensorFlow's truncated normal: groups of 4 values (2 for float64), group g reading words from
    counter + g * (reservation per group), keeping Box-Muller values with |x| < 2 in order."""
    group = 2 if dtype == np.float64 else 4
    groups = -(-count // group)
    stride = group * BLOCKS_PER_ELEMENT // 4
    out = np.empty((groups, group), np.float64 if dtype == np.float64 else np.float32)
    filled = np.zeros(groups, np.int64)
    pending = np.arange(groups)
    blocks_read = 0
    chunk = 2  # blocks per group per pass: enough for a full group with probability ~0.99999
    while pending.size:
        # Words of blocks [blocks_read, blocks_read + chunk) of each pending group's region.
        offsets = (pending.astype(np.uint64) * np.uint64(stride))[:, None] + np.uint64(blocks_read) + \
            np.arange(chunk, dtype=np.uint64)[None, :]
        words = philox_4x32_10(_counter_words(position.counter, offsets.reshape(-1)), _key_words(position.key))
        words = words.reshape(pending.size, chunk * 4)
        if dtype == np.float64:
            pair = _box_muller_float64(words[:, 0::4], words[:, 1::4], words[:, 2::4], words[:, 3::4])
        else:
            pair = _box_muller_float32(words[:, 0::2], words[:, 1::2])
        candidates = _interleave(*pair)
        keep = np.abs(candidates) < _TRUNCATE_AT
        # Rank of each kept candidate among this group's kept values, continuing from what is filled.
        rank = np.cumsum(keep, axis=1) - 1 + filled[pending][:, None]
        take = keep & (rank < group)
        rows, cols = np.nonzero(take)
        out[pending[rows], rank[rows, cols]] = candidates[rows, cols]
        filled[pending] = np.minimum(group, filled[pending] + keep.sum(axis=1))
        pending = pending[filled[pending] < group]
        blocks_read += chunk
    return out.reshape(-1)[:count].astype(dtype)


def _check(dtype, dist, minval, maxval):
    dtype = np.dtype(dtype)
    if dist not in DISTRIBUTIONS:
        raise ValueError(f"unsupported distribution {dist!r}; expected one of {DISTRIBUTIONS}")
    if dtype not in DTYPES:
        raise TypeError(f"unsupported dtype {dtype}; expected one of {sorted(str(t) for t in DTYPES)}")
    if dist in ("normal", "truncated_normal") and dtype not in _FLOATS:
        raise TypeError(f"{dist} needs a floating dtype, got {dtype}")
    if dist == "uniform_full_int" and dtype not in _INTS:
        raise TypeError(f"uniform_full_int needs an integer dtype, got {dtype}")
    if dist == "uniform" and dtype in _INTS and (minval is None or maxval is None):
        raise ValueError(f"uniform of integer dtype {dtype} needs minval and maxval")
    return dtype


def draw(position, shape, dtype, dist, minval=None, maxval=None):
    """The raw values of TensorFlow's Philox kernel for `dist` at `position`: an array of `shape` and
    `dtype`. Float uniforms are in [0, 1) and normals standard (scaling is the caller's float
    arithmetic); integer uniforms take `minval`/`maxval` (Python ints, minval < maxval)."""
    dtype = _check(dtype, dist, minval, maxval)
    shape = tuple(int(d) for d in shape)
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.zeros(shape, dtype)
    if dist == "truncated_normal":
        return _truncated_normal(position, count, dtype).reshape(shape)
    words_needed = count * _words_per_element(dtype)
    if dist == "normal" and dtype != np.float64:
        words_needed += words_needed % 2  # Box-Muller makes values in pairs
    blocks = -(-words_needed // 4)
    words = philox_words(position, blocks).reshape(-1)
    values = words_to_values(words, dtype, dist, minval, maxval)
    return values[:count].reshape(shape)


# ---------------------------------------------------------------------------------------------------
# tf.random.Generator (Philox): state int64 [counter low, counter high, key].

def _uint64(value):
    return int(value) & (2 ** 64 - 1)


def _int64(value):
    value = _uint64(value)
    return value - 2 ** 64 if value >= 2 ** 63 else value


def generator_from_seed(seed):
    """The int64 state [3] of `tf.random.Generator.from_seed(seed, alg='philox')`: a Python int is cut
    into 64-bit words (least significant first, two's complement for negatives), a sequence of ints is
    taken as the words; either is cut to 3 words or padded with zeros on the left."""
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        words = []
        for _ in range(3):
            words.append(_int64(seed))
            seed >>= 64
    else:
        words = [_int64(w) for w in np.asarray(seed).reshape(-1).tolist()][:3]
        words = [0] * (3 - len(words)) + words
    return np.array(words, np.int64)


def _position_of_state(state):
    s0, s1, key = (_uint64(v) for v in np.asarray(state).reshape(-1)[:3].tolist())
    return PhiloxPosition(key, s0 | (s1 << 64))


def generator_state(position):
    """The int64 state [3] holding `position`."""
    counter = position.counter
    return np.array([_int64(counter), _int64(counter >> 64), _int64(position.key)], np.int64)


def generator_draw(state, shape, dtype, dist, minval=None, maxval=None):
    """One draw of a Philox `tf.random.Generator` with int64 state [3]: `(values, new_state)`.

    The draw reads at the state's position; the new state is 256 blocks per element further on (also
    for an empty shape: then it is unchanged)."""
    position = _position_of_state(state)
    values = draw(position, shape, dtype, dist, minval, maxval)
    return values, generator_state(position.skip(BLOCKS_PER_ELEMENT * values.size))


def generator_split(state, count):
    """`Generator.split(count)`: `(states, new_state)` where each new generator's state is
    `[0, 0, key_i]`, the keys being one int64 full-range draw of `count` values from this generator."""
    keys, new_state = generator_draw(state, [count], np.int64, "uniform_full_int")
    states = [np.array([0, 0, key], np.int64) for key in keys.tolist()]
    return states, new_state


# ---------------------------------------------------------------------------------------------------
# Stateless ops.

_ALGORITHMS = {"philox": PHILOX, "auto_select": 3, PHILOX: PHILOX, 3: 3}


def stateless_position(seed):
    """The Philox position TensorFlow derives from a stateless seed pair `[s0, s1]` (ints; negative
    values are sign-extended to 64 bits)."""
    values = np.asarray(seed).reshape(-1).tolist()
    if len(values) != 2:
        raise ValueError(f"stateless seed must have shape [2], got {np.shape(seed)}")
    counter = _uint64(values[0]) | (_uint64(values[1]) << 64)
    mix = philox_words(PhiloxPosition(_SEED_SCRAMBLE_KEY, counter), 1)[0].tolist()
    return PhiloxPosition(mix[0] | (mix[1] << 32), (mix[2] | (mix[3] << 32)) << 64)


def stateless(seed, shape, dtype, dist, alg="auto_select", minval=None, maxval=None):
    """The raw values of TensorFlow's stateless op for `dist` with seed pair `seed`: Philox only
    (`alg` 'philox'/1 or 'auto_select'/3, which is Philox on CPU)."""
    if isinstance(alg, str):
        alg = alg.lower()
    if alg not in _ALGORITHMS:
        raise ValueError(f"stateless: only the Philox algorithm ('philox', 'auto_select') is implemented, "
                         f"got alg={alg!r}")
    return draw(stateless_position(seed), shape, dtype, dist, minval, maxval)


# ---------------------------------------------------------------------------------------------------
# Seeded stateful kernels (tf.random.uniform/normal/... with (seed, seed2)).

class SeededStream:
    """The Philox stream of one seeded stateful random kernel: key `seed`, counter `seed2 << 64`; each
    draw reserves 256 blocks per element. Eager TensorFlow keeps one such stream per cached kernel
    (op type, dtype attrs, seed, seed2) until `tf.random.set_seed` clears the cache."""

    __slots__ = ("position",)

    def __init__(self, seed, seed2):
        self.position = PhiloxPosition(_uint64(seed), _uint64(seed2) << 64)

    def draw(self, shape, dtype, dist, minval=None, maxval=None):
        values = draw(self.position, shape, dtype, dist, minval, maxval)
        self.position = self.position.skip(BLOCKS_PER_ELEMENT * values.size)
        return values

    def __repr__(self):
        return f"SeededStream({self.position!r})"
