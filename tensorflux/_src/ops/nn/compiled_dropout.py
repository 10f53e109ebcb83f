"""Dropout's draw, keep test, output and mask as compiled loops (numba, the optional `jit` extra).

The NumPy form in basic.py reads the generator's state (a dict NumPy builds on every read) to learn
whether a 32-bit half word is pending, draws 64-bit words with `random_raw`, compares them with the keep
threshold, then makes the output and the mask in five more NumPy calls: about 35-58 us for the [60, 128]
float32 batch of a Dense layer, much of it per-call overhead. Here the draw runs PCG64 itself on the
bit generator's own state, found through NumPy's public ctypes interface (`state_address`: its
`pcg64_state`, {pcg64_random_t *; int has_uint32; uint32_t uinteger}, the first holding the 128-bit state
and increment): the same 128-bit steps and XSL-RR outputs, the pending half word read and left as the
NumPy form reads and leaves it, so the same words, the same keep test, the same output and mask bits and
the same generator state afterwards (tests/ops/test_dropout_compiled.py compares them call after call).
The layout is checked against the public `state` property, and the loops against the NumPy form on
trial draws, when they are built; a NumPy where either differs keeps the NumPy form.

float32 values take NumPy's float draw as words (u >> 8 >= ceil(rate·2^24), see
`random.sampling._float32_unit_at_least`); float64 values take its double, (w >> 11)·2^-53, one 64-bit
word each, leaving the pending half alone. A kept value is x·scale, a dropped one +0.0 whatever x was
(NaN, -0.0, inf), as the NumPy form's bitwise AND gives. Built in the background once the op is hot
(`jit.HotOnSmall`). Measured in one process, interleaved, CPU time: the [60, 128] float32 kernel
34 -> 13 us, of which the 3840 PCG64 steps ~8 (NumPy's `random_raw` takes ~16 for the same words: its
loop calls the generator through a pointer; here the steps run as two interleaved chains, see
`pcg64_fill`).
"""
import math

import numpy as np

from .. import jit
from ..random.sampling import _float32_unit_at_least

__all__ = ["kernels", "generator_state"]

# pcg64_state: a pointer, then int has_uint32, then uint32_t uinteger (checked by `_layout_holds`).
HAS_UINT32_OFFSET = 8
UINTEGER_OFFSET = 12
# PCG64's 128-bit LCG multiplier (NumPy's PCG_DEFAULT_MULTIPLIER_128); each output is the XSL-RR of the
# state after the step.
PCG64_MULTIPLIER = (2549297995355413924 << 64) | 4865540595714422341


def _words32(state, n):
    """The generator's next n 32-bit words as NumPy's float32 draw takes them: a pending high half first,
    then the low and high halves of new 64-bit words; an unused high half is left pending."""
    pending = 1 if _load_u32(state + HAS_UINT32_OFFSET) != 0 else 0
    drawn = (n - pending + 1) // 2
    buffer = np.empty(drawn + 1, np.uint64)     # a first word for the pending half, then the drawn ones
    halves = buffer.view(np.uint32)
    _pcg64_fill(_load_u64(state), buffer[1:], drawn)
    start = 2
    if pending:
        start = 1
        halves[1] = _load_u32(state + UINTEGER_OFFSET)
        _store_u32(state + HAS_UINT32_OFFSET, np.uint32(0))
    if (n - pending) % 2 == 1:
        _store_u32(state + UINTEGER_OFFSET, halves[start + n])
        _store_u32(state + HAS_UINT32_OFFSET, np.uint32(1))
    return halves[start:start + n]


def _dropout_f32(x, out, mask, state, threshold, scale):
    """out[i] = x[i]·scale or +0.0, mask[i] = scale or +0.0, kept where the i-th 32-bit word of the
    generator (`_words32`) is >= threshold."""
    n = x.size
    if n == 0:
        return
    words = _words32(state, n)
    zero = np.float32(0.0)
    # The selects run in a loop of their own: interleaved with the draw's serial 128-bit steps they
    # measured twice as slow (and as branches, slower still: the keep test is random).
    for i in range(n):
        kept = np.int64(words[i]) >= threshold
        out[i] = x[i] * scale if kept else zero
        mask[i] = scale if kept else zero


def _keep_f32(keep, state, threshold):
    """keep[i] = the i-th 32-bit word (`_words32`) >= threshold (a noise_shape's draw)."""
    n = keep.size
    if n == 0:
        return
    words = _words32(state, n)
    for i in range(n):
        keep[i] = np.int64(words[i]) >= threshold


def _dropout_f64(x, out, mask, state, rate, scale):
    """As `_dropout_f32` for float64: kept where NumPy's double from the next 64-bit word, (w >> 11)·2^-53,
    is >= rate (a draw that leaves the pending half alone)."""
    n = x.size
    words = np.empty(n, np.uint64)
    _pcg64_fill(_load_u64(state), words, n)
    unit = 1.0 / 9007199254740992.0
    for i in range(n):
        kept = np.float64(words[i] >> np.uint64(11)) * unit >= rate
        out[i] = x[i] * scale if kept else 0.0
        mask[i] = scale if kept else 0.0


def _keep_f64(keep, state, rate):
    """keep[i] = NumPy's double from the i-th next 64-bit word, (w >> 11)·2^-53, >= rate."""
    words = np.empty(keep.size, np.uint64)
    _pcg64_fill(_load_u64(state), words, words.size)
    unit = 1.0 / 9007199254740992.0
    for i in range(keep.size):
        keep[i] = np.float64(words[i] >> np.uint64(11)) * unit >= rate


def _intrinsics(numba):
    """PCG64's step and output on the generator's own 128-bit state at an address, and 32/64-bit loads and
    stores at an address, which numba has no scalar form of."""
    from llvmlite import ir
    from numba.core import cgutils
    types = numba.core.types
    intrinsic = numba.core.extending.intrinsic
    i32, i64, i128 = ir.IntType(32), ir.IntType(64), ir.IntType(128)

    def xsl_rr(builder, state):
        """PCG64's output of a state: the 128 bits' halves XORed, rotated right by the top 6 bits."""
        folded = builder.xor(builder.trunc(builder.lshr(state, i128(64)), i64), builder.trunc(state, i64))
        turn = builder.trunc(builder.lshr(state, i128(122)), i64)
        back = builder.and_(builder.sub(i64(64), turn), i64(63))
        return builder.or_(builder.lshr(folded, turn), builder.shl(folded, back))

    @intrinsic
    def pcg64_fill(typingctx, rng, words, count):
        """words[:count] = the next `count` outputs of the PCG64 whose pcg64_random_t is at `rng`, and
        the generator advanced by `count` steps. Each step s -> M·s + c depends on the last, so the loop
        runs two chains, the even and the odd steps, each stepping by two (s -> M²·s + (M + 1)·c): the
        same states modulo 2^128, twice the steps per multiply latency."""
        def codegen(context, builder, signature, args):
            address, array, count = args
            out = context.make_array(signature.args[1])(context, builder, array).data
            pointer = builder.inttoptr(address, i128.as_pointer())
            start = builder.load(pointer, align=8)
            increment = builder.load(builder.gep(pointer, [i32(1)]), align=8)
            multiplier, squared = i128(PCG64_MULTIPLIER), i128(PCG64_MULTIPLIER ** 2 % (1 << 128))
            double_increment = builder.mul(builder.add(multiplier, i128(1)), increment)
            even, odd, last = (cgutils.alloca_once(builder, i128) for _ in range(3))
            first = builder.add(builder.mul(start, multiplier), increment)
            builder.store(first, even)
            builder.store(builder.add(builder.mul(first, multiplier), increment), odd)
            builder.store(start, last)
            with cgutils.for_range(builder, builder.lshr(count, i64(1))) as loop:
                at = builder.shl(loop.index, i64(1))
                a, b = builder.load(even), builder.load(odd)
                builder.store(xsl_rr(builder, a), builder.gep(out, [at]))
                builder.store(xsl_rr(builder, b), builder.gep(out, [builder.add(at, i64(1))]))
                builder.store(b, last)
                builder.store(builder.add(builder.mul(a, squared), double_increment), even)
                builder.store(builder.add(builder.mul(b, squared), double_increment), odd)
            a = builder.load(even)
            left_one = builder.icmp_unsigned("!=", builder.and_(count, i64(1)), i64(0))
            with builder.if_then(left_one):
                builder.store(xsl_rr(builder, a), builder.gep(out, [builder.sub(count, i64(1))]))
            builder.store(builder.select(left_one, a, builder.load(last)), pointer, align=8)
            return context.get_dummy_value()
        return types.none(types.int64, words, types.int64), codegen

    def load(width, numba_type):
        @intrinsic
        def load_at(typingctx, address):
            def codegen(context, builder, signature, args):
                return builder.load(builder.inttoptr(args[0], ir.IntType(width).as_pointer()))
            return numba_type(types.int64), codegen
        return load_at

    @intrinsic
    def store_u32(typingctx, address, value):
        def codegen(context, builder, signature, args):
            builder.store(args[1], builder.inttoptr(args[0], i32.as_pointer()))
            return context.get_dummy_value()
        return types.none(types.int64, types.uint32), codegen
    return {"_pcg64_fill": pcg64_fill, "_load_u32": load(32, types.uint32), "_load_u64": load(64, types.int64),
            "_store_u32": store_u32}


def generator_state(bitgen):
    """The address of a PCG64's `pcg64_state`, from its public ctypes interface."""
    return bitgen.ctypes.state_address


def _layout_holds(load32, load64):
    """Whether this NumPy's PCG64 state is laid out as the loops read it: `pcg64_state` a pointer to the
    128-bit state and increment (native 128-bit integers, little-endian), then has_uint32 and uinteger."""
    if np.little_endian is False:
        return False
    bitgen = np.random.PCG64(20260)
    address = bitgen.ctypes.state_address
    state = bitgen.state
    for pending, word in ((1, 0xDEADBEEF), (0, 0x01234567), (1, 0x89ABCDEF)):
        state["has_uint32"], state["uinteger"] = pending, word
        bitgen.state = state
        if load32(address + HAS_UINT32_OFFSET) != pending or load32(address + UINTEGER_OFFSET) != word:
            return False
    rng = load64(address)
    mask = (1 << 64) - 1
    words = [load64(rng + 8 * k) & mask for k in range(4)]
    return (words[0] | words[1] << 64) == state["state"]["state"] and (words[2] | words[3] << 64) == state["state"]["inc"]


def _load_probes(namespace, numba):
    def probe32(address):
        return _load_u32(address)

    def probe64(address):
        return _load_u64(address)
    return [numba.njit(type(f)(f.__code__, namespace, f.__name__)) for f in (probe32, probe64)]


def _compile(numba):
    namespace = dict(_dropout_f32.__globals__)
    namespace.update(_intrinsics(numba))
    if not _layout_holds(*_load_probes(namespace, numba)):
        return None
    jitted = {}
    for fn in (_words32, _keep_f32, _keep_f64, _dropout_f32, _dropout_f64):   # callees first
        jitted[fn.__name__] = namespace[fn.__name__] = numba.njit(error_model="numpy", cache=True)(
            type(fn)(fn.__code__, namespace, fn.__name__))
    i64 = numba.int64
    f32, f64 = numba.float32, numba.float64
    return {
        np.dtype(np.float32): (
            jit.entry_point(jitted["_dropout_f32"], (f32[::1], f32[::1], f32[::1], i64, i64, f32)),
            jit.entry_point(jitted["_keep_f32"], (numba.boolean[::1], i64, i64))),
        np.dtype(np.float64): (
            jit.entry_point(jitted["_dropout_f64"], (f64[::1], f64[::1], f64[::1], i64, f64, f64)),
            jit.entry_point(jitted["_keep_f64"], (numba.boolean[::1], i64, f64))),
    }


def _trial_agrees(loops):
    """Whether the loops give the NumPy form's keep test and leave the generator as it does, on float32
    draws of odd and even sizes starting with and without a pending half word, and float64 draws."""
    reference, mine = np.random.PCG64(7), np.random.PCG64(7)
    rs = np.random.RandomState(5)
    fused, keep_loop = loops[np.dtype(np.float32)]
    fused64, keep_loop64 = loops[np.dtype(np.float64)]
    threshold = math.ceil(float(np.float32(0.3)) * 2 ** 24) << 8
    for n in (1, 2, 5, 8, 33, 1000, 3):
        x = rs.standard_normal(n).astype(np.float32)
        want = _float32_unit_at_least(np.random.Generator(reference), (n,), 0.3)
        out, mask = np.empty_like(x), np.empty_like(x)
        fused(x, out, mask, generator_state(mine), threshold, np.float32(2.0))
        keep = np.empty(n, bool)
        keep_loop(keep, generator_state(mine), threshold)
        want_again = _float32_unit_at_least(np.random.Generator(reference), (n,), 0.3)
        wide = x.astype(np.float64)
        out64, mask64 = np.empty_like(wide), np.empty_like(wide)
        fused64(wide, out64, mask64, generator_state(mine), 0.3, 2.0)
        keep64 = np.empty(n, bool)
        keep_loop64(keep64, generator_state(mine), 0.3)
        want64 = np.random.Generator(reference).random(2 * n) >= 0.3
        if (not np.array_equal(mask != 0, want) or not np.array_equal(keep, want_again)
                or not np.array_equal(np.concatenate((mask64 != 0, keep64)), want64)
                or reference.state != mine.state):
            return False
    return True


def _build(numba):
    loops = _compile(numba)
    return loops if loops is not None and _trial_agrees(loops) else None


DROPOUT = jit.HotOnSmall("dropout_draw", _build)


def kernels():
    """{dtype: (fused loop, keep loop)} once built, else None (counting this call towards the build)."""
    loops = DROPOUT.kernel
    if loops is None:
        DROPOUT.count()
    return loops
