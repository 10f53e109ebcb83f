"""Variable ops: the resource a variable lives in, and the stateful ops that read and update it.

A variable's state is a `VariableResource`: a small holder whose `.value` is the variable's current NumPy
value (stored like an EagerTensor's `_value`: an ndarray or NumPy scalar of the variable's dtype). The
variable's *handle* is a `ResourceHandle`, an EagerTensor of dtype `tf.resource` and shape () whose
`_value` is that holder, so kernels receive the holder like any other input array.

Invariant: an earlier read keeps its value. Assignments REPLACE `.value` with a new array, because
tensors returned by earlier reads share the old one. The exceptions are the lowered kernels' top-level
updates (runtime/lowering.py's `write_in_place`, with the same proof) and the compiled update loop of
ResourceApplyGradientDescent and AssignSubVariableOp ("writing through the buffer" below): it writes into
the array when a reference count taken inside the loop, which holds the GIL from the count to the last
store, proves that nothing but the variable holds it; no read can start meanwhile, so reads still see
whole values.

Threads: a read is one attribute load, so it always sees a whole value (old or new, never a mix) and takes
no lock. Every update holds the resource's own lock from reading the old value to storing the new one,
so concurrent `assign_add`s (eager or from traced code, which calls these same kernels) never lose an
update and an `assign` is never overwritten by an update that started before it. The lock is per
variable, so updates to different variables never wait for each other.

    ReadVariableOp(handle)              -> the current value
    AssignVariableOp(handle, value)     -> no outputs; value becomes the new state
    AssignAddVariableOp / AssignSubVariableOp(handle, delta)
    ResourceApplyGradientDescent(handle, alpha, delta)   -> no outputs; value - alpha * delta
"""
import sys
import threading

import numpy as np

from ..framework import errors
from ..framework.tensor import EagerTensor, _CPU
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from . import jit
from .registry import OpDef, apply, dtype_error_name

__all__ = ["VariableResource", "ResourceHandle", "READ_VARIABLE", "ASSIGN_VARIABLE", "ASSIGN_ADD_VARIABLE",
           "ASSIGN_SUB_VARIABLE", "VAR_IS_INITIALIZED", "APPLY_GRADIENT_DESCENT", "resource_apply_gradient_descent",
           "IN_PLACE_LOOPS", "SUB_LOOPS"]


class VariableResource:
    """The mutable state of one variable (see the module invariant)."""

    __slots__ = ("value", "dtype", "shape", "name", "id", "lock", "probe")

    def __init__(self, value, dtype, shape, name, id):  # noqa: A002 - the handle id
        self.value = value      # ndarray | np.generic; written into only as the module docstring says
        self.dtype = dtype      # NumPy dtype every assigned value must have
        self.shape = shape      # declared shape: a tuple with None for free dims, or None (any shape)
        self.name = name
        self.id = id
        self.lock = threading.Lock()  # held by every update (see the module docstring)
        self.probe = None       # the in-place update's yardstick (see "writing through the buffer")

    def __copy__(self):
        # A lock and a probe of its own: a probe two resources shared would count one reference more, and
        # the in-place proof would then miss one reference to the array.
        return VariableResource(self.value, self.dtype, self.shape, self.name, self.id)

    def __deepcopy__(self, memo):
        import copy
        return VariableResource(copy.deepcopy(self.value, memo), self.dtype, self.shape, self.name, self.id)

    def __repr__(self):
        return (f'<ResourceHandle(name="{self.name}/{self.id}", device="{_CPU}", container="Anonymous", '
                f'type="tensorflow::Var")>')


_SCALAR = TensorShape(())


class ResourceHandle(EagerTensor):
    """An eager tensor of dtype `tf.resource` whose value is a `VariableResource`.

    `_variable_ref` weakly points back at the owning tf.Variable, so traced functions that capture the
    handle can list their variables without keeping them alive.
    """

    __slots__ = ("_variable_ref",)

    def __init__(self, value, variable_ref=None):
        self._value = value
        self._variable_ref = variable_ref

    @property
    def _variable(self):
        return self._variable_ref() if self._variable_ref is not None else None

    @property
    def _capture_name(self):
        return self._value.name.replace("/", "_").replace(":", "_") + "_resource" if self._value.name else None

    @property
    def dtype(self):
        return _dt.resource

    @property
    def shape(self):
        return _SCALAR

    @property
    def ndim(self):
        return 0

    def _shape_tuple(self):
        return ()

    def numpy(self):
        raise errors.InvalidArgumentError(None, None, "Cannot convert a Tensor of dtype resource to a NumPy "
                                                      "array.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __bool__(self):
        raise TypeError("A resource handle has no truth value.")

    def __reduce__(self):
        raise TypeError("Resource handles cannot be pickled.")

    def __repr__(self):
        return f"<tf.Tensor: shape=(), dtype=resource, value={self._value!r}>"

    __str__ = __repr__


# -- inference ---------------------------------------------------------------------------------------

def _infer_read(inputs, attrs):
    shape = attrs["shape"]
    return [(_dt.FROM_NUMPY[attrs["dtype"]], TensorShape(shape))]


def _no_outputs(inputs, attrs):
    return []


def _infer_is_initialized(inputs, attrs):
    return [(_dt.bool, _SCALAR)]


# -- kernels -----------------------------------------------------------------------------------------

def _read_kernel(resource, dtype, shape):
    return resource.value


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _check_dtype(resource, value):
    if value.dtype != resource.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Trying to assign variable with wrong dtype. Expected "
                        f"{dtype_error_name(_dt.FROM_NUMPY[resource.dtype])} got "
                        f"{dtype_error_name(_dt.FROM_NUMPY[value.dtype])}")


def _assign_kernel(resource, value):
    _check_dtype(resource, value)
    declared = resource.shape
    if declared is not None and not TensorShape(declared).is_compatible_with(TensorShape(value.shape)):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to assign to variable with tensor with wrong shape. Expected "
                        f"{_dims('?' if d is None else d for d in declared)} got {_dims(value.shape)}")
    with resource.lock:  # so an update already under way cannot overwrite this value with its own
        resource.value = value  # the tensor's array is immutable, so the state may share it
    return ()


def _update_kernel(ufunc, loops=None):
    # Every training step runs one of these per variable: the checks are inlined attribute compares, the
    # error paths called only on a mismatch. `loops`: compiled loops that write through the variable's
    # buffer when nothing else holds it ("writing through the buffer" below), by dtype and rank.
    def kernel(resource, delta):
        if delta.dtype != resource.dtype:
            _check_dtype(resource, delta)
        with resource.lock:  # read-modify-write: no other update may store between the read and the store
            old = resource.value
            try:
                shape = old.shape
            except AttributeError:  # an uninitialised variable's None: reported as before
                shape = np.shape(old)
            if shape != delta.shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot update variable with shape {_dims(np.shape(old))} using a Tensor "
                                f"with shape {_dims(delta.shape)}, shapes must be equal.")
            if loops is not None and type(old) is np.ndarray:
                loop = loops.get((old.dtype, old.ndim))
                if loop is not None and loop.ready:
                    probe = resource.probe
                    if probe is None:
                        probe = resource.probe = np.empty(0, np.int8)
                    # as in _apply_kernel: `old` and `probe` held alike, the proof in the loop
                    if _count(old) == _count(probe) and delta.flags.c_contiguous and _writable(old) and \
                            loop.run(old, loop.one, delta, probe):    # old - 1 * delta: old - delta's bits
                        return ()
                elif loop is not None:
                    loop.hot.count()
            resource.value = ufunc(old, delta)  # a new array: earlier reads keep the old one
        return ()
    return kernel


def _is_initialized_kernel(resource):
    return np.bool_(resource.value is not None)


def _read_grad(op, grad):
    """A read passes its gradient to the handle: a variable's gradient is the sum over its reads.

    Assignments have no outputs, so nothing flows through them (TensorFlow gives them no gradient).
    """
    return [grad]


READ_VARIABLE = OpDef("ReadVariableOp", _infer_read, _read_kernel, grad=_read_grad, stateful=True,
                      input_names=("resource",))
ASSIGN_VARIABLE = OpDef("AssignVariableOp", _no_outputs, _assign_kernel, stateful=True, multi=True,
                        input_names=("resource", "value"))
ASSIGN_ADD_VARIABLE = OpDef("AssignAddVariableOp", _no_outputs, _update_kernel(np.add), stateful=True,
                            multi=True, input_names=("resource", "value"))
# AssignSub runs ResourceApplyGradientDescent's loops with alpha 1 (a product by 1 is exact, NaN payloads
# and signed zeros included, so `old - 1 * delta` has `old - delta`'s bits). AssignAdd keeps the NumPy form:
# which of two NaNs NumPy's addition returns depends on its loop (the operands are swapped for some
# lengths), which a compiled loop would not follow; a subtraction has one order.
IN_PLACE_LOOPS = {}
SUB_LOOPS = IN_PLACE_LOOPS     # the same loops (see above)
ASSIGN_SUB_VARIABLE = OpDef("AssignSubVariableOp", _no_outputs, _update_kernel(np.subtract, IN_PLACE_LOOPS),
                            stateful=True, multi=True, input_names=("resource", "value"))
VAR_IS_INITIALIZED = OpDef("VarIsInitializedOp", _infer_is_initialized, _is_initialized_kernel,
                           stateful=True, input_names=("resource",))


# -- ResourceApplyGradientDescent: var -= alpha * delta ----------------------------------------------
# TensorFlow's plain SGD update. Programs rarely call it themselves (TensorFlow 2's optimizers, and this
# project's, write `v.assign_sub(lr * g)`); runtime/passes/update_fusion.py makes one from such a Mul and
# AssignSubVariableOp when a traced function is compiled, marked `_assign_sub=True`: it then behaves as
# the two ops did (their errors; the Mul's operand order `_delta_first`), only faster. The value is always
# NumPy's `old - alpha * delta`, the product rounded to the dtype first (no fused multiply-add).

_APPLY_TYPES = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64, _dt.complex64, _dt.complex128)
_APPLY_NP = frozenset(d._np for d in _APPLY_TYPES)
_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))   # those the compiled loop takes
_LOOP_RANKS = (1, 2, 3, 4)


def _type_attr(dtype):
    """TensorFlow's enum name of a DType, as its shape-function errors print the `T` attr."""
    return "DT_" + {"float16": "HALF", "float32": "FLOAT", "float64": "DOUBLE"}.get(dtype.name, dtype.name.upper())


def _infer_apply(inputs, attrs):
    var, alpha, delta = inputs
    if alpha.dtype is not delta.dtype:
        raise TypeError(f"Input 'delta' of 'ResourceApplyGradientDescent' Op has type {delta.dtype.name} that "
                        f"does not match type {alpha.dtype.name} of argument 'alpha'.")
    if alpha.shape.rank not in (None, 0):
        locking = str(bool(attrs.get("use_locking", False))).lower()
        raise ValueError(f"Shape must be rank 0 but is rank {alpha.shape.rank} for '{{{{node "
                         f"ResourceApplyGradientDescent}}}} = ResourceApplyGradientDescent[T="
                         f"{_type_attr(alpha.dtype)}, use_locking={locking}]' with input shapes: [], "
                         f"{_dims(_known(alpha.shape))}, {_dims(_known(delta.shape))}.")
    return []


def _known(shape):
    return ["?"] if shape.rank is None else ["?" if d is None else d for d in shape.as_list()]


def _apply_kernel(resource, alpha, delta, use_locking=False, _delta_first=False, _assign_sub=False):
    """`use_locking` is accepted and changes nothing: every update holds the variable's lock."""
    dtype = resource.dtype
    if delta.dtype != dtype or getattr(alpha, "dtype", None) != dtype or dtype not in _LOOP_DTYPES:
        return _apply_checked(resource, alpha, delta, _delta_first, _assign_sub)
    with resource.lock:
        old = resource.value
        if type(old) is np.ndarray and old.shape == delta.shape and alpha.ndim == 0:
            loop = IN_PLACE_LOOPS.get((dtype, old.ndim))
            if loop is not None and loop.ready:
                probe = resource.probe
                if probe is None:
                    probe = resource.probe = np.empty(0, np.int8)
                # `old` and `probe` are each held by one slot of the resource and one local here, and passed
                # alike. The counts compared first in Python only spare a shared array the compiled call;
                # the proof is the loop's own. A NaN alpha goes to the NumPy form, whose operand order picks
                # the NaN a product of two NaNs gets; any other alpha gives the same bits in either order.
                if _count(old) == _count(probe) and alpha == alpha and delta.flags.c_contiguous and \
                        _writable(old) and loop.run(old, alpha, delta, probe):
                    return ()      # written in place: nothing else held the array
            elif loop is not None:
                loop.hot.count()
            product = np.multiply(delta, alpha) if _delta_first else np.multiply(alpha, delta)
            resource.value = np.subtract(old, product)   # a new array: earlier reads keep the old one
            return ()
    return _apply_checked(resource, alpha, delta, _delta_first, _assign_sub)


_count = sys.getrefcount


def _writable(array):
    flags = array.flags
    return flags.c_contiguous and flags.writeable and flags.owndata


def _apply_checked(resource, alpha, delta, delta_first, assign_sub):
    """The NumPy form with every check: TensorFlow's errors, or the AssignSub's for a fused update."""
    if assign_sub:   # exactly what the Mul and the AssignSubVariableOp did
        _ASSIGN_SUB(resource, np.multiply(delta, alpha) if delta_first else np.multiply(alpha, delta))
        return ()
    if np.ndim(alpha) != 0:
        raise errors.InvalidArgumentError(None, None, f"alpha is not a scalar: {_dims(np.shape(alpha))}")
    if resource.dtype not in _APPLY_NP:
        raise errors.InvalidArgumentError(
            None, None, f"No OpKernel was registered to support Op 'ResourceApplyGradientDescent' used by "
                        f"{{{{node ResourceApplyGradientDescent}}}} with these attrs: "
                        f"[T={_type_attr(_dt.FROM_NUMPY[resource.dtype])}]")
    _check_dtype(resource, delta)
    if getattr(alpha, "dtype", delta.dtype) != delta.dtype:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute ResourceApplyGradientDescent as input #2(zero-based) was expected to be "
                        f"a {dtype_error_name(_dt.FROM_NUMPY[alpha.dtype])} tensor but is a "
                        f"{dtype_error_name(_dt.FROM_NUMPY[delta.dtype])} tensor")
    product = np.multiply(delta, alpha) if delta_first else np.multiply(alpha, delta)
    with resource.lock:
        old = resource.value
        if old is None:
            raise errors.InternalError(None, None, "Invalid variable reference.")
        if np.shape(old) != delta.shape:
            raise errors.InvalidArgumentError(None, None, f"var and delta do not have the same shape"
                                                          f"{_dims(np.shape(old))} {_dims(delta.shape)}")
        resource.value = np.subtract(old, product)
    return ()


_ASSIGN_SUB = ASSIGN_SUB_VARIABLE.kernel
APPLY_GRADIENT_DESCENT = OpDef("ResourceApplyGradientDescent", _infer_apply, _apply_kernel, stateful=True,
                               multi=True, input_names=("var", "alpha", "delta"))


def resource_apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """TensorFlow's `raw_ops.ResourceApplyGradientDescent`: `var` (a resource handle) -= alpha * delta.

    Not in a public namespace (tensorflux has no `tf.raw_ops`); returns None eagerly, the Operation in a
    graph, as TensorFlow's does."""
    from .convert import convert_to_tensor
    alpha = convert_to_tensor(alpha)
    delta = convert_to_tensor(delta, dtype=alpha.dtype)
    out = apply(APPLY_GRADIENT_DESCENT, (var, alpha, delta), {"use_locking": bool(use_locking)},
                name or "ResourceApplyGradientDescent")
    return out if getattr(out, "type", None) == "ResourceApplyGradientDescent" else None


# -- writing through the buffer ----------------------------------------------------------------------
# `v - alpha * delta` may go into v's own array only if no tensor, read, view or other variable holds that
# array, and no other thread can take it meanwhile. Reads take no lock (one attribute load), so a check in
# Python followed by a write would leave a gap: the interpreter may switch threads between two calls, and
# a read in that gap would see its value change. The proof is therefore made inside the compiled loop,
# which holds the GIL from the check to the last store (numba releases it only for `nogil` functions): it
# loads the reference counts of the array object and of the resource's `probe`, a private array no code
# but `_apply_kernel` touches (numba keeps the PyObject an array argument came from), and writes only when
# they are equal. Both are held by one slot of the resource and one local of the caller, and passed the
# same way, so whatever the call itself adds counts for both: equal counts mean nothing else holds the
# array. Any difference, whatever its cause, means no write. A view holds its base, so a view of the array
# raises its count; an array that is itself a view (`owndata` False), read-only or not C-contiguous is
# never written; nor anything on a Python without the GIL. The build checks on a fresh variable that an
# unshared array is written and that one more reference stops the write. A variable that does not qualify
# is updated as before, into a new array.

class _InPlaceLoop:
    """The compiled update `old -= alpha * delta` for one dtype and rank, built in the background once hot
    (jit.HotOnSmall); AssignSub calls it with alpha `one`."""

    __slots__ = ("dtype", "ndim", "one", "hot", "run", "ready")

    def __init__(self, dtype, ndim):
        self.dtype, self.ndim, self.one = dtype, ndim, dtype.type(1)
        self.run, self.ready = None, False
        self.hot = jit.HotOnSmall(f"apply_gradient_descent_{dtype.name}_{ndim}d", self._build)

    def _build(self, numba):
        gil = getattr(sys, "_is_gil_enabled", None)
        if gil is not None and not gil():
            return None   # free-threaded: no count is stable, and the loop would not exclude readers
        run = _compile_loop(numba, self.dtype, self.ndim)
        if not _proves_sharing(run, self.dtype, self.ndim):
            return None
        self.run = run
        self.ready = True      # published last: a caller that sees it sees `run`
        return run


def _proves_sharing(run, dtype, ndim):
    """True when `run`, called as the kernels call it, writes an unshared array and leaves one with a
    single extra reference alone."""
    resource = VariableResource(np.ones((2,) * ndim, dtype), dtype, None, "check", 0)
    resource.probe = np.empty(0, np.int8)
    delta = np.ones((2,) * ndim, dtype)
    alpha = dtype.type(1)
    old, probe = resource.value, resource.probe
    extra = old
    untouched = not run(old, alpha, delta, probe) and bool((old == 1).all())
    del extra
    written = run(old, alpha, delta, probe) and bool((old == 0).all())
    return untouched and written


def _apply_in_place(old, alpha, delta, probe):
    """Compiled only (`_compile_loop`): `old -= alpha * delta` elementwise when `old` has as many
    references as `probe`; whether it wrote. Each product is rounded to the dtype before the subtraction."""
    count = _reference_count(old)
    if count < 1 or count != _reference_count(probe):
        return False
    out = old.reshape(-1)
    d = delta.reshape(-1)
    for i in range(out.size):
        out[i] = out[i] - alpha * d[i]
    return True


def _reference_count(array):
    raise RuntimeError("replaced by a numba intrinsic when the loop is compiled")


def _compile_loop(numba, dtype, ndim):
    from llvmlite import ir
    from numba.extending import intrinsic

    @intrinsic
    def reference_count(typingctx, array):
        def codegen(context, builder, signature, args):
            parent = context.make_array(signature.args[0])(context, builder, args[0]).parent
            word = ir.IntType(64)
            count = builder.alloca(word)
            builder.store(ir.Constant(word, -1), count)    # no PyObject (an array made in compiled code)
            with builder.if_then(builder.icmp_unsigned("!=", parent, ir.Constant(parent.type, None))):
                builder.store(builder.load(builder.bitcast(parent, word.as_pointer())), count)   # ob_refcnt
            return builder.load(count)
        return numba.types.int64(array), codegen

    namespace = dict(_apply_in_place.__globals__, _reference_count=reference_count)
    fn = type(_apply_in_place)(_apply_in_place.__code__, namespace, _apply_in_place.__name__)
    compiled = numba.njit(error_model="numpy", cache=True)(fn)
    scalar = numba.from_dtype(dtype)
    array = numba.types.Array(scalar, ndim, "C")
    probe = numba.types.Array(numba.int8, 1, "C")
    return jit.entry_point(compiled, (array, scalar, array, probe))


IN_PLACE_LOOPS.update({(dtype, ndim): _InPlaceLoop(dtype, ndim) for dtype in _LOOP_DTYPES for ndim in _LOOP_RANKS})

API = {}
