"""String hashing and fingerprints with TensorFlow's exact functions, so that hash buckets (feature
hashing, `keras.layers.Hashing`) and fingerprints agree bit for bit with TensorFlow:

- `tf.strings.to_hash_bucket_fast` and `tf.fingerprint`: FarmHash's 64-bit fingerprint (Fingerprint64);
- `tf.strings.to_hash_bucket_strong`: SipHash-2-4 keyed by the two 64-bit `key` halves;
- `tf.strings.to_hash_bucket` (deprecated in TensorFlow): its 64-bit Murmur-style hash with TensorFlow's
  seed 0xDECAFCAFFE.

The hashes are the published algorithms written out on Python integers (masked to 64 bits); a string is
hashed once per call, so the per-byte cost only matters for long strings.
"""
import struct

import numpy as np

from ..framework import errors
from ..framework.context import executing_eagerly
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .convert import convert_to_tensor
from .registry import OpDef, apply

_M64 = (1 << 64) - 1
_K0, _K1, _K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _fetch64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _fetch32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, shift):
    return ((v >> shift) | (v << (64 - shift))) & _M64 if shift else v


def _shift_mix(v):
    return v ^ (v >> 47)


def _len16(u, v, mul):
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _len0to16(s):
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _M64
        b = _fetch64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M64
        d = ((_rot(a, 25) + b) * mul) & _M64
        return _len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _len16((n + (_fetch32(s, 0) << 3)) & _M64, _fetch32(s, n - 4), mul)
    if n:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _len17to32(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    return _len16((_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64,
                  (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)


def _len33to64(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _M64
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M64
    d = (_fetch64(s, n - 16) * _K2) & _M64
    y = (_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64
    z = _len16(y, (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_fetch64(s, 16) * mul) & _M64
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M64
    h = ((z + _fetch64(s, n - 24)) * mul) & _M64
    return _len16((_rot((e + f) & _M64, 43) + _rot(g, 30) + h) & _M64,
                  (e + _rot((f + a) & _M64, 18) + g) & _M64, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _fetch64(s, i), _fetch64(s, i + 8), _fetch64(s, i + 16), _fetch64(s, i + 24)
    a = (a + w) & _M64
    b = _rot((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rot(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s):
    """FarmHash Fingerprint64 of bytes `s`."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M64
    z = (_shift_mix((y * _K2 + 113) & _M64) * _K2) & _M64
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * _K1) & _M64
        y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * _K1) & _M64
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _M64
        z = (_rot((z + w[0]) & _M64, 33) * _K1) & _M64
        v = _weak32(s, i, (v[1] * _K1) & _M64, (x + w[0]) & _M64)
        w = _weak32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _M64, w[1])
    v = ((v[0] + w[0]) & _M64, v[1])
    w = ((w[0] + v[0]) & _M64, w[1])
    x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M64, 37) * mul) & _M64
    y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M64, 42) * mul) & _M64
    x ^= (w[1] * 9) & _M64
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _M64
    z = (_rot((z + w[0]) & _M64, 33) * mul) & _M64
    v = _weak32(s, i, (v[1] * mul) & _M64, (x + w[0]) & _M64)
    w = _weak32(s, i + 32, (z + w[1]) & _M64, (y + _fetch64(s, i + 16)) & _M64)
    z, x = x, z
    return _len16((_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _M64,
                  (_len16(v[1], w[1], mul) + x) & _M64, mul)


def murmur64(s, seed=0xDECAFCAFFE):
    """TensorFlow's legacy 64-bit string hash (MurmurHash64A's mixing) with its default seed."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(s)
    h = (seed ^ (n * m)) & _M64
    whole = n - n % 8
    for i in range(0, whole, 8):
        k = (_fetch64(s, i) * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h = ((h ^ k) * m) & _M64
    tail = s[whole:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    return h ^ (h >> r)


def siphash24(s, k0, k1):
    """SipHash-2-4 of bytes `s` with the 128-bit key (k0, k1)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, count):
        for _ in range(count):
            v0 = (v0 + v1) & _M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(s)
    whole = n - n % 8
    for i in range(0, whole, 8):
        m = _fetch64(s, i)
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    m = ((n & 0xFF) << 56) | int.from_bytes(s[whole:], "little")
    v3 ^= m
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
    v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _rotl(v, shift):
    return ((v << shift) | (v >> (64 - shift))) & _M64


# -- ops ---------------------------------------------------------------------------------------------

def _strings(value):
    """A tensor as it is (the op checks that it holds strings); other values converted to strings."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=_dt.string)


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode()


def _bucket_kernel(hash_fn):
    def kernel(strings, num_buckets, **key):
        out = np.empty(strings.shape, np.int64)
        flat = out.reshape(-1)
        for i, value in enumerate(strings.reshape(-1)):
            flat[i] = hash_fn(_as_bytes(value), **key) % num_buckets
        return out
    return kernel


def _bucket_infer(inputs, attrs):
    return [(_dt.int64, inputs[0].shape)]


HASH_BUCKET_FAST = OpDef("StringToHashBucketFast", _bucket_infer, _bucket_kernel(fingerprint64), allowed=(_dt.string,),
                         input_names=("input",))
HASH_BUCKET = OpDef("StringToHashBucket", _bucket_infer, _bucket_kernel(murmur64), allowed=(_dt.string,),
                    input_names=("string_tensor",))
HASH_BUCKET_STRONG = OpDef("StringToHashBucketStrong", _bucket_infer,
                           _bucket_kernel(lambda s, k0, k1: siphash24(s, k0, k1)), allowed=(_dt.string,),
                           input_names=("input",))


def _num_buckets(num_buckets):
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, float, np.integer, np.floating)):
        raise TypeError(f"Expected int for argument 'num_buckets' not {num_buckets!r}.")
    num_buckets = int(num_buckets)      # a float is truncated, as TensorFlow's attr conversion does
    if num_buckets < 1:   # the attr's minimum: checked when the op is built (eagerly: when it runs)
        message = f"Value for attr 'num_buckets' of {int(num_buckets)} must be at least minimum 1"
        if executing_eagerly():
            raise errors.InvalidArgumentError(None, None, message)
        raise ValueError(message)
    return int(num_buckets)


def to_hash_bucket_fast(input, num_buckets, name=None):
    """`tf.strings.to_hash_bucket_fast`: FarmHash Fingerprint64(s) mod `num_buckets`, as int64."""
    return apply(HASH_BUCKET_FAST, (_strings(input),),
                 {"num_buckets": _num_buckets(num_buckets)}, name or "StringToHashBucketFast")


def to_hash_bucket(input, num_buckets, name=None):
    """`tf.strings.to_hash_bucket` (TensorFlow's legacy hash): hash64(s) mod `num_buckets`."""
    return apply(HASH_BUCKET, (_strings(input),),
                 {"num_buckets": _num_buckets(num_buckets)}, name or "StringToHashBucket")


def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """`tf.strings.to_hash_bucket_strong`: SipHash-2-4 keyed by `key` ([k0, k1]) mod `num_buckets`."""
    key = list(key)
    if len(key) != 2:
        raise errors.InvalidArgumentError(None, None, "Key must have 2 elements")
    k0, k1 = (int(k) & _M64 for k in key)
    return apply(HASH_BUCKET_STRONG, (_strings(input),),
                 {"num_buckets": _num_buckets(num_buckets), "k0": k0, "k1": k1}, name or "StringToHashBucketStrong")


def _fingerprint_kernel(data, method):
    if data.ndim < 1:
        raise errors.InvalidArgumentError(None, None, "`data` should have at least one dimension: []")
    rows = data.shape[0]
    out = np.zeros((rows, 8), np.uint8)
    if rows == 0:
        return out
    if data.dtype == object:
        flat = data.reshape(rows, -1)
        for r in range(rows):
            prints = [fingerprint64(_as_bytes(v)) for v in flat[r]]
            value = prints[0] if len(prints) == 1 else fingerprint64(b"".join(struct.pack("<Q", p) for p in prints))
            out[r] = np.frombuffer(struct.pack("<Q", value), np.uint8)
    else:
        raw = np.ascontiguousarray(data).reshape(rows, -1).view(np.uint8)
        for r in range(rows):
            out[r] = np.frombuffer(struct.pack("<Q", fingerprint64(raw[r].tobytes())), np.uint8)
    return out


def _fingerprint_infer(inputs, attrs):
    shape = inputs[0].shape
    if shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for the data input of Fingerprint")
    return [(_dt.uint8, TensorShape([shape.dims[0] if shape.rank else None, 8]))]


FINGERPRINT = OpDef("Fingerprint", _fingerprint_infer, _fingerprint_kernel, input_names=("data", "method"))


def fingerprint(data, method="farmhash64", name=None):
    """`tf.fingerprint`: a uint8 `[batch, 8]` fingerprint of each row of `data` (FarmHash64 of the row's
    bytes, little-endian; a row of strings fingerprints its strings' fingerprints)."""
    method = method.decode() if isinstance(method, bytes) else method
    if method != "farmhash64":
        raise errors.InvalidArgumentError(None, None, f"Unsupported fingerprint method: {method}")
    return apply(FINGERPRINT, (convert_to_tensor(data),), {"method": method}, name or "Fingerprint")


API = {"strings": ["to_hash_bucket_fast", "to_hash_bucket", "to_hash_bucket_strong"], "": ["fingerprint"]}
