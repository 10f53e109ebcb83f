"""The op types the lowering (runtime/lowering.py) has a form for, and the NumPy names numba compiles them to.

Kept apart from the emitter so that what lowers, and with which numerical promise, reads as one table:
exact ops give the NumPy kernels' bits, libm ops the C library's (see lowering.py's docstring).
"""
from ..ops import libm as _libm

_DTYPES = {"float32": "np.float32", "float64": "np.float64", "int8": "np.int8", "int16": "np.int16",
           "int32": "np.int32", "int64": "np.int64", "uint8": "np.uint8", "uint16": "np.uint16",
           "uint32": "np.uint32", "uint64": "np.uint64", "bool": "np.bool_"}
_FLOATS = ("float32", "float64")

# TensorFlow op type -> NumPy function numba implements with NumPy's results (IEEE-exact).
_EXACT_UNARY = {"Neg": "np.negative", "Abs": "np.abs", "Square": "np.square", "Sqrt": "np.sqrt",
                "Floor": "np.floor", "Ceil": "np.ceil", "Rint": "np.rint", "Sign": "np.sign",
                "LogicalNot": "np.logical_not", "IsNan": "np.isnan", "IsFinite": "np.isfinite",
                "IsInf": "np.isinf", "Identity": ""}
# Correct to libm's accuracy: bit-equal to NumPy in float64, within a few ulp in float32 (see above).
_LIBM_UNARY = {"Exp": "np.exp", "Expm1": "np.expm1", "Log": "np.log", "Log1p": "np.log1p", "Sin": "np.sin",
               "Cos": "np.cos", "Tan": "np.tan", "Tanh": "np.tanh", "Sinh": "np.sinh", "Cosh": "np.cosh",
               "Asin": "np.arcsin", "Acos": "np.arccos", "Atan": "np.arctan"}


def numpy_float64_is_libm(op_type):
    """Whether NumPy's float64 loop for `op_type` (a _LIBM_UNARY op) gives the C library's bits here, as
    the kernel's call does (ops/libm.py: not on CPUs with AVX-512)."""
    return _libm.numpy_is_libm(_LIBM_UNARY[op_type][len("np."):])


_OPERATORS = {"AddV2": "+", "Sub": "-", "Mul": "*", "RealDiv": "/", "Less": "<", "LessEqual": "<=",
              "Greater": ">", "GreaterEqual": ">=", "Equal": "==", "NotEqual": "!=", "LogicalAnd": "and",
              "LogicalOr": "or"}
_COMPARISONS = ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual")
_ELEMENTWISE = frozenset(set(_OPERATORS) | set(_EXACT_UNARY) | set(_LIBM_UNARY) | {
    "Maximum", "Minimum", "Relu", "FloorMod", "FloorDiv", "Select", "SelectV2", "Cast"})
# For arrays of different shapes: NumPy functions numba broadcasts (exact ones only).
_ARRAY_FUNCTIONS = {"AddV2": "np.add", "Sub": "np.subtract", "Mul": "np.multiply", "RealDiv": "np.true_divide",
                    "Less": "np.less",
                    "LessEqual": "np.less_equal", "Greater": "np.greater", "GreaterEqual": "np.greater_equal",
                    "Equal": "np.equal", "NotEqual": "np.not_equal"}
_FLOAT_ONLY = {"RealDiv", "Sqrt", "Floor", "Ceil", "Rint", "IsNan", "IsFinite", "IsInf", "Relu", "Sigmoid"}
_FULL_REDUCTIONS = ("Sum", "Mean", "Max", "Min", "Prod", "All", "Any")
_STATELESS_CONTROL = ("If", "StatelessIf", "While", "StatelessWhile")
_VARIABLE_OPS = ("ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                 "ResourceApplyGradientDescent")
# Every op type the emitter has a form for (some only for some dtypes, shapes or attrs): any other type
# raises Unsupported whatever its context (runtime/regions.py cuts regions at those without trying).
LOWERED_TYPES = frozenset(set(_ELEMENTWISE) | set(_FULL_REDUCTIONS) | set(_STATELESS_CONTROL) |
                          set(_VARIABLE_OPS) | {"Const", "Placeholder"})

# Ops XLA has no kernel for either: `jit_compile=True` refuses them as TensorFlow does.
NOT_XLA_COMPILABLE = frozenset(("PyFunc", "EagerPyFunc", "NumpyFunction", "AsString", "StringFormat",
                                "PrintV2", "Print", "StringJoin", "RegexReplace", "DecodeJpeg", "EncodePng",
                                "ReadFile", "WriteFile"))
