"""The op registry: `OpDef` (an op defined once) and `apply()`, the single entry point for running ops.

Every public op (`tf.add`, `tf.matmul`, …) converts its inputs to tensors and calls `apply(OPDEF, inputs,
attrs)`. `apply` looks at one global flag: eagerly it runs the NumPy kernel at once (and records on an
active GradientTape); while a graph is being built it adds an Operation to that graph, whose static
dtypes/shapes come from the op's `infer`.

    ADD = OpDef("AddV2", infer=infer_broadcast, kernel=np.add, same_dtype=True, allowed=NUMBER)
    apply(ADD, (x, y))    # -> EagerTensor, or SymbolicTensor inside a tf.function trace

Kernels take NumPy arrays (plus attrs as keyword arguments) and return an array, or a tuple of arrays
for multi-output ops; they never see Tensors. `infer(inputs, attrs)` sees objects with `.dtype` (DType)
and `.shape` (TensorShape) and returns `[(dtype, shape), ...]`.
"""
import os
import warnings

import numpy as np

from ..framework import errors
from ..framework.context import state as _state
from ..framework.tensor import EagerTensor, Tensor, VariantTensor, _as_stored
from ..types import dtypes as _dt
from ..types.shape import TensorShape

__all__ = ["OpDef", "apply", "constant_value", "dtype_error_name", "FLOAT", "INT", "NUMBER", "REAL",
           "INTEGER_OR_BOOL", "ALL_TYPES", "register_tape_hook", "OPS"]

class OpTable(dict):
    """Op type name -> OpDef, for the executor, codegen, graph import and gradient lookup.

    Some rooms are loaded on first use (namespaces.py, `lazy_index.py`); the op types they define are known
    before their modules are imported. Looking one up (`OPS[type]`, `OPS.get`, `in`) imports its module
    first, so a GraphDef or SavedModel naming `DecodeJpeg` finds its op whether or not the image codecs were
    used yet. Iterating lists only the loaded ops; `all_types()` lists every op type."""

    __slots__ = ("_lazy", "_load")

    def __init__(self):
        super().__init__()
        self._lazy, self._load = {}, None

    def set_lazy(self, op_types, load):
        """`op_types`: {op type: module name}; `load(module name)` imports it (registering its ops)."""
        self._lazy, self._load = dict(op_types), load

    def __missing__(self, name):
        module = self._lazy.get(name)
        if module is None:
            raise KeyError(name)
        self._load(module)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name):
        return dict.__contains__(self, name) or name in self._lazy

    def all_types(self):
        return set(self) | set(self._lazy)


OPS = OpTable()

# Dtype families used by `allowed=` (TensorFlow's type constraints).
FLOAT = (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64)
COMPLEX = (_dt.complex64, _dt.complex128)
INT = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)
REAL = FLOAT + INT
NUMBER = REAL + COMPLEX
INTEGER_OR_BOOL = INT + (_dt.bool,)
ALL_TYPES = NUMBER + (_dt.bool, _dt.string)

# TensorFlow's names for dtypes inside kernel error messages ("float", not "float32").
_ERROR_NAMES = {_dt.float32: "float", _dt.float64: "double", _dt.float16: "half"}


def dtype_error_name(dtype):
    return _ERROR_NAMES.get(dtype, dtype.name)


class OpDef:
    """One op: its TensorFlow type name, static inference, NumPy kernel and gradient.

    name: TensorFlow op type (`"AddV2"`); infer: `(inputs, attrs) -> [(DType, TensorShape)]`;
    kernel: `(*arrays, **attrs) -> array | tuple`; grad: `(op, *output_grads) -> [input_grad | None]`;
    stateful: never pruned or reordered; allowed: dtypes accepted for input 0 (TensorFlow's `T`);
    same_dtype: every input must have input 0's dtype; input_names: for error messages and for naming
    the constants converted for the op (`<op>/<input name>`); list_input: the name of an input that is
    TensorFlow's list argument (`values` of ConcatV2): it spans the inputs not named by the others, and
    its converted constants are named `<op>/<name>_<index in the list>`.
    """

    __slots__ = ("name", "infer", "kernel", "grad", "stateful", "allowed", "same_dtype", "input_names",
                 "list_input", "multi", "allowed_np", "none_grads", "inplace", "fresh_output", "__weakref__")

    def __init__(self, name, infer, kernel, grad=None, stateful=False, allowed=None, same_dtype=False,
                 input_names=("x", "y", "z"), multi=False, list_input=None):
        self.name = name
        self.infer = infer
        self.kernel = kernel
        self.grad = grad
        self.stateful = stateful
        self.allowed = tuple(allowed) if allowed is not None else None
        self.allowed_np = frozenset(d._np for d in allowed) if allowed is not None else None
        self.same_dtype = same_dtype
        self.input_names = input_names
        self.list_input = list_input
        self.multi = multi
        self.none_grads = False  # True: grad receives None for outputs no gradient reached
        # A NumPy ufunc computing this op that may write into a dead input buffer (`out=`) in generated
        # code; set only where `ufunc(*arrays, out=a)` equals the kernel exactly.
        self.inplace = None
        # True where the kernel always returns an array of its own (never an input, a view of one or a
        # cached value): generated code may then let a later ufunc op write into it once it is dead.
        self.fresh_output = False
        if dict.__contains__(OPS, name) and OPS[name] is not self:
            raise ValueError(f"Op {name!r} is defined twice")
        OPS[name] = self

    def __repr__(self):
        return f"<OpDef {self.name}>"


# Autodiff installs its recorder here (the registry sits below autodiff and must not import it).
_tape_hook = [None]


def register_tape_hook(fn):
    _tape_hook[0] = fn


_CHECK_KERNELS = os.environ.get("TENSORFLUX_CHECK_KERNELS") == "1"

# TensorFlow computes inf/nan silently where NumPy warns ("divide by zero encountered in log"). Kernels
# run from tensorflux's own frames (this module, op modules, generated code), so one filter scoped to
# those modules silences them without a per-call `np.errstate` and without touching the user's NumPy.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tensorflux(\.|$)")


def apply(op, inputs, attrs=None, name=None):
    """Runs `op` on `inputs` (a tuple of Tensors) eagerly, or adds it to the graph being built.

    `name` is the graph node name (the user's, or the op's TensorFlow default such as "Add"); eager
    execution ignores it, as TensorFlow does.
    """
    graph = _state.graph
    if graph is not None:
        # this frame and its caller (an op function) are tensorflux's: the user's line is further out
        out = graph.create_op(op, inputs, attrs or {}, name, skip=2)
        if _state.tape_active and _tape_hook[0] is not None:
            outs = (out if isinstance(out, tuple) else ()) if op.multi else (out,)
            if outs:  # graph tapes record the Operation itself (its inputs are the graph's tensors)
                _tape_hook[0](op, outs[0].op.inputs, attrs or {}, out)
        return out
    try:
        arrays = [t._value for t in inputs]
    except AttributeError:
        arrays = _eager_arrays(op, inputs)
    if op.allowed_np is not None or op.same_dtype:
        _check_dtypes(op, arrays, name)
    try:
        result = op.kernel(*arrays, **attrs) if attrs else op.kernel(*arrays)
    except Exception as e:  # NumPy failures must surface as TensorFlow errors naming the op
        raise _kernel_error(op, e, arrays, attrs, name) from None
    if op.multi:   # a tuple output is a variant value (a While's history, TensorArray items)
        out = tuple(VariantTensor(r) if type(r) is tuple else EagerTensor(_as_stored(r)) for r in result)
    elif isinstance(result, (np.ndarray, np.generic)):
        out = EagerTensor(result)
    elif type(result) is tuple:  # variant values (TensorArray item lists) are tuples
        out = VariantTensor(result)
    else:
        out = EagerTensor(_as_stored(result))
    if _CHECK_KERNELS:
        _check_kernel_against_infer(op, inputs, attrs or {}, out)
    if _state.tape_active and _tape_hook[0] is not None:
        _tape_hook[0](op, inputs, attrs or {}, out)
    return out


def _eager_arrays(op, inputs):
    arrays = []
    for t in inputs:
        value = getattr(t, "_value", None)
        if value is None or not isinstance(t, Tensor):
            if isinstance(t, Tensor):  # a symbolic tensor used outside its graph
                raise TypeError(
                    f"{t!r} is out of scope and cannot be used here. Use return values, explicit Python "
                    f"locals or TensorFlow collections to access it.")
            raise TypeError(f"Op {op.name} expects tensors as inputs, got {type(t).__name__}: {t!r}")
        arrays.append(value)
    return arrays


def _check_dtypes(op, arrays, name):
    if not arrays:
        return
    first = arrays[0].dtype
    if op.allowed_np is not None and first not in op.allowed_np:
        dtype = _dt.FROM_NUMPY[first]
        allowed = ", ".join(dtype_error_name(d) for d in op.allowed)
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"Value for attr 'T' of {dtype_error_name(dtype)} is not in the list of allowed values: "
            f"{allowed}\n\t; NodeDef: {{{{node {op.name}}}}}", op.name, kernel=False)
    if op.same_dtype:
        for i in range(1, len(arrays)):
            d = arrays[i].dtype
            if d is not first and d != first:
                raise errors.eager_error(
                    errors.InvalidArgumentError,
                    f"cannot compute {op.name} as input #{i}(zero-based) was expected to be a "
                    f"{dtype_error_name(_dt.FROM_NUMPY[first])} tensor but is a "
                    f"{dtype_error_name(_dt.FROM_NUMPY[d])} tensor", op.name, kernel=False)


def _kernel_error(op, exc, arrays, attrs, name):
    if isinstance(exc, errors.OpError):
        return errors.eager_error(type(exc), exc.message, op.name, name, arrays=arrays, attrs=attrs)
    message = str(exc)
    if "could not be broadcast" in message and len(arrays) >= 2:
        shapes = " vs. ".join("[" + ",".join(str(d) for d in np.shape(a)) + "]" for a in arrays[:2])
        message = f"Incompatible shapes: {shapes}"
    cls = errors.InvalidArgumentError
    if isinstance(exc, (MemoryError,)):
        cls = errors.ResourceExhaustedError
    elif isinstance(exc, NotImplementedError):
        cls = errors.UnimplementedError
    return errors.eager_error(cls, message, op.name, name, arrays=arrays, attrs=attrs)


class _Spec:
    __slots__ = ("dtype", "shape", "_value")

    def __init__(self, t):
        self.dtype = t.dtype
        self.shape = t.shape
        self._value = t._value


def _check_kernel_against_infer(op, inputs, attrs, out):
    """Debug mode (TENSORFLUX_CHECK_KERNELS=1): the kernel must produce what `infer` promises."""
    results = op.infer([_Spec(t) for t in inputs], attrs)
    outs = out if op.multi else (out,)
    if len(results) != len(outs):
        raise AssertionError(f"{op.name}: infer gives {len(results)} outputs, kernel {len(outs)}")
    for (dtype, shape), t in zip(results, outs):
        if dtype is not t.dtype or not TensorShape(shape).is_compatible_with(t.shape):
            raise AssertionError(f"{op.name}: infer says {dtype.name}{shape}, kernel gave "
                                 f"{t.dtype.name}{t.shape}")


def constant_value(tensor):
    """The NumPy value of a tensor when it is known statically (eager, or a graph constant), else None."""
    value = getattr(tensor, "_value", None)
    if value is not None:
        return value
    if isinstance(tensor, (np.ndarray, np.generic, int, float, bool, list, tuple)):
        return np.asarray(tensor)
    op = getattr(tensor, "op", None)
    if op is not None:
        return op.graph.constant_value_of(tensor)
    return None
