"""1 / x for float32 as Eigen's packet code computes it, which TensorFlow's softmax multiplies by.

TensorFlow's CPU softmax scales each row by the reciprocal of its sum, and Eigen (built with its default
fast math) computes a packet of 8 reciprocals with the processor's approximate reciprocal instruction
(RCPPS, about 12 bits) refined by one Newton step, x + x * (1 - a * x), each operation rounded to float32
(the TensorFlow wheel has no FMA); a lone value -- the last `n % 8` of a vector -- is divided exactly.
The refined value differs from the correctly rounded 1/x in the last bit for a few per cent of inputs,
which shows in a softmax's printed digits.

RCPPS is not specified exactly (AMD and Intel processors give different approximations), so it is not
emulated: with numba (`[jit]`) the instruction itself runs, through LLVM's x86 intrinsic, and the result
equals TensorFlow's on the same machine (checked against TensorFlow 2.21 on this one). Without numba, or
on a processor without the instruction, every reciprocal is the exact quotient -- the last bit of some
softmax rows then differs from TensorFlow's.
"""
import numpy as np

from .. import jit

__all__ = ["reciprocal"]

_F = np.float32
_PACKET = 8


def _build(numba):
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    @intrinsic
    def rcp4(typingctx, a0, a1, a2, a3):
        sig = types.UniTuple(types.float32, 4)(types.float32, types.float32, types.float32, types.float32)

        def codegen(context, builder, signature, args):
            vector = ir.VectorType(ir.FloatType(), 4)
            value = ir.Constant(vector, ir.Undefined)
            for i, a in enumerate(args):
                value = builder.insert_element(value, a, ir.Constant(ir.IntType(32), i))
            fn = builder.module.declare_intrinsic("llvm.x86.sse.rcp.ps", fnty=ir.FunctionType(vector, [vector]))
            result = builder.call(fn, [value])
            lanes = [builder.extract_element(result, ir.Constant(ir.IntType(32), i)) for i in range(4)]
            return context.make_tuple(builder, signature.return_type, lanes)
        return sig, codegen

    one = _F(1.0)

    @numba.njit(nogil=True, error_model="numpy")
    def newton_loop(a, out, stop):
        for i in range(0, stop, 4):
            r = rcp4(a[i], a[i + 1], a[i + 2], a[i + 3])
            for k in range(4):
                x = r[k]
                e = _F(one - _F(a[i + k] * x))
                # 0 and infinity make e NaN: the approximation (inf, 0) is the answer, as in Eigen
                out[i + k] = _F(_F(x * e) + x) if e == e else x

    f32 = numba.float32[::1]
    newton_loop.compile((f32, f32, numba.int64))
    return newton_loop


def reciprocal(a):
    """1 / a (float32, 1-D) as Eigen's packet and scalar paths compute it (see the module docstring)."""
    a = np.ascontiguousarray(a, _F)
    with np.errstate(divide="ignore"):
        out = np.divide(_F(1.0), a, dtype=_F)
    head = a.size - a.size % _PACKET
    if head:
        loop = jit.build_now("eigen_reciprocal", _build)
        if loop is not None:
            loop(a, out, head)
    return out
