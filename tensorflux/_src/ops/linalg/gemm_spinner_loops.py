"""The loops of `gemm_spinner` for numba (`build`): the helper's polling loop, the caller's hand-over and
its wait. Nothing here imports numba until `build` runs: `import tensorflux` imports this module.

The C functions they call (OpenBLAS's cblas_sgemm64_/dgemm64_, libc's sched_yield) are reached through
addresses held in the control array, not through ctypes objects baked into the code: the machine code then
holds no process-specific address, so numba keeps it in its disk cache and a later process loads it in
milliseconds instead of compiling for seconds.
"""
__all__ = ["build", "SGEMM", "DGEMM", "YIELD", "POSTED", "DONE", "SPINNING", "CONTROL_SIZE"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# The control array: sequence numbers, the helper's state, the C functions' addresses, two jobs.
POSTED, DONE, SPINNING, SGEMM, DGEMM, YIELD = 0, 1, 2, 3, 4, 5
_HELPER_JOB, _CALLER_JOB = 8, 20
_JOB_FIELDS = 12     # double?, trans a, trans b, m, n, k, a, lda, b, ldb, c, ldc
CONTROL_SIZE = _CALLER_JOB + _JOB_FIELDS
# The C calls (numba intrinsics), made by `build`: cblas_?gemm and sched_yield at an address.
_call_sgemm = _call_dgemm = _call_yield = None


def _gemm(ctl, at):
    if ctl[at] == 0:
        _call_sgemm(ctl[SGEMM], ctl[at + 1], ctl[at + 2], ctl[at + 3], ctl[at + 4], ctl[at + 5], ctl[at + 6],
                    ctl[at + 7], ctl[at + 8], ctl[at + 9], ctl[at + 10], ctl[at + 11])
    else:
        _call_dgemm(ctl[DGEMM], ctl[at + 1], ctl[at + 2], ctl[at + 3], ctl[at + 4], ctl[at + 5], ctl[at + 6],
                    ctl[at + 7], ctl[at + 8], ctl[at + 9], ctl[at + 10], ctl[at + 11])


def _layout(rows, cols, s0, s1, size):
    # NumPy matmul's choice for a 2-D operand: (CBLAS transpose flag, leading dimension), or (0, 0) where
    # NumPy would copy it first.
    if s1 == size and s0 % size == 0 and s0 // size >= cols:
        return _NO_TRANS, s0 // size
    if s0 == size and s1 % size == 0 and s1 // size >= rows:
        return _TRANS, s1 // size
    return 0, 0


def _post(ctl, at, double, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
    ctl[at] = double
    ctl[at + 1] = ta
    ctl[at + 2] = tb
    ctl[at + 3] = m
    ctl[at + 4] = n
    ctl[at + 5] = k
    ctl[at + 6] = a
    ctl[at + 7] = lda
    ctl[at + 8] = b
    ctl[at + 9] = ldb
    ctl[at + 10] = c
    ctl[at + 11] = ldc


def serve(ctl, polls):
    """The helper: runs each posted job, polls `polls` times after the last, and says whether a job was
    posted as it stopped (the caller saw it still polling: it must not go to sleep)."""
    ctl[SPINNING] = 1
    idle = 0
    while idle < polls:
        posted = ctl[POSTED]
        if posted != ctl[DONE]:
            _gemm(ctl, _HELPER_JOB)
            ctl[DONE] = posted
            idle = 0
        else:
            _call_yield(ctl[YIELD])
            idle += 1
    ctl[SPINNING] = 0
    return ctl[POSTED] != ctl[DONE]


def split(ctl, posted, a, b, out, cut, polls):
    """The caller: out[:cut] = a[:cut] @ b here, out[cut:] = a[cut:] @ b on the helper. 1: done; 0: the
    helper is not polling and has not taken its block (wake it, then `wait`); -1: an operand NumPy would
    copy, or a matrix against its own transpose (NumPy runs syrk): nothing was done."""
    m, k = a.shape
    n = b.shape[1]
    size = a.itemsize
    ta, lda = _layout(m, k, a.strides[0], a.strides[1], size)
    tb, ldb = _layout(k, n, b.strides[0], b.strides[1], size)
    a_at, b_at, c_at = a.ctypes.data, b.ctypes.data, out.ctypes.data
    if lda == 0 or ldb == 0 or a_at == b_at:
        return -1
    double = 1 if size == 8 else 0
    _post(ctl, _HELPER_JOB, double, ta, tb, m - cut, n, k, a_at + cut * a.strides[0], lda, b_at, ldb,
          c_at + cut * n * size, n)
    _post(ctl, _CALLER_JOB, double, ta, tb, cut, n, k, a_at, lda, b_at, ldb, c_at, n)
    ctl[POSTED] = posted
    _gemm(ctl, _CALLER_JOB)
    for _ in range(polls):
        if ctl[DONE] == posted:
            return 1
        if ctl[SPINNING] == 0:
            return 0
        _call_yield(ctl[YIELD])
    return 1 if ctl[DONE] == posted else 0


def wait(ctl, posted, polls):
    """The caller, after waking the helper: True once the helper's block is done (False after `polls`)."""
    for _ in range(polls):
        if ctl[DONE] == posted:
            return True
        _call_yield(ctl[YIELD])
    return ctl[DONE] == posted


def build(numba):
    """(serve, split, wait) compiled, for every layout of the operands ('A' arrays) of both float dtypes;
    numba's disk cache keeps them for later processes."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    def _gemm_intrinsic(llvm_real):
        @intrinsic
        def call(typingctx, address, ta, tb, m, n, k, a, lda, b, ldb, c, ldc):
            # cblas_?gemm(RowMajor, ta, tb, m, n, k, 1, a, lda, b, ldb, 0, c, ldc) at `address` (ILP64: the
            # sizes are 64-bit, the three enums 32-bit; pointers passed as 64-bit integers).
            sig = types.void(*([types.int64] * 12))

            def codegen(context, builder, signature, args):
                i32, i64 = ir.IntType(32), ir.IntType(64)
                fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, llvm_real, i64, i64, i64, i64,
                                                       llvm_real, i64, i64])
                fn = builder.inttoptr(args[0], fnty.as_pointer())
                ta_, tb_ = builder.trunc(args[1], i32), builder.trunc(args[2], i32)
                builder.call(fn, [ir.Constant(i32, _ROW_MAJOR), ta_, tb_, args[3], args[4], args[5],
                                  ir.Constant(llvm_real, 1.0), args[6], args[7], args[8], args[9],
                                  ir.Constant(llvm_real, 0.0), args[10], args[11]])
                return context.get_dummy_value()
            return sig, codegen
        return call

    _call_sgemm = _gemm_intrinsic(ir.FloatType())
    _call_dgemm = _gemm_intrinsic(ir.DoubleType())

    @intrinsic
    def _call_yield(typingctx, address):
        # int sched_yield(void) at `address`. An opaque call: the next read of the control array is a load.
        sig = types.int32(types.int64)

        def codegen(context, builder, signature, args):
            fnty = ir.FunctionType(ir.IntType(32), [])
            return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), [])
        return sig, codegen

    functions = globals()
    # The helpers the loops call are looked up as globals when numba compiles them.
    functions.update(_call_sgemm=_call_sgemm, _call_dgemm=_call_dgemm, _call_yield=_call_yield)
    for name in ("_gemm", "_layout", "_post"):
        functions[name] = numba.njit(nogil=True, cache=True)(_PLAIN[name])
    control = types.Array(types.int64, 1, "C")
    split_types = [(control, types.int64, types.Array(t, 2, "A"), types.Array(t, 2, "A"), types.Array(t, 2, "C"),
                    types.int64, types.int64) for t in (types.float32, types.float64)]
    return (numba.njit([(control, types.int64)], nogil=True, cache=True)(serve),
            numba.njit(split_types, nogil=True, cache=True)(split),
            numba.njit([(control, types.int64, types.int64)], nogil=True, cache=True)(wait))


_PLAIN = {"_gemm": _gemm, "_layout": _layout, "_post": _post}
