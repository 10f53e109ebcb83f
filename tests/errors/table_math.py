"""Sweep table, part 1: elementwise math, comparisons, reductions, activations, losses, linear algebra.

Each entry: registry op type, the public call that creates it (written against `tf`, so that it runs
under TensorFlow and tensorflux alike) and its valid arguments (see sweep.py for the slot kinds).
"""
import numpy as np

from sweep import F, Case, P, T

X = F()                                     # float32 [2, 3] in [0.1, 0.9]
X_INT = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
X_BOOL = np.array([[True, False, True], [False, True, False]])
X_COMPLEX = (F() + 1j * F(lo=0.2)).astype(np.complex64)
SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)

_UNARY_FLOAT = {
    "Abs": lambda tf, x: tf.math.abs(x),
    "Acos": lambda tf, x: tf.math.acos(x),
    "Acosh": lambda tf, x: tf.math.acosh(x),
    "Asin": lambda tf, x: tf.math.asin(x),
    "Asinh": lambda tf, x: tf.math.asinh(x),
    "Atan": lambda tf, x: tf.math.atan(x),
    "Atanh": lambda tf, x: tf.math.atanh(x),
    "Ceil": lambda tf, x: tf.math.ceil(x),
    "Cos": lambda tf, x: tf.math.cos(x),
    "Cosh": lambda tf, x: tf.math.cosh(x),
    "Erf": lambda tf, x: tf.math.erf(x),
    "Exp": lambda tf, x: tf.math.exp(x),
    "Expm1": lambda tf, x: tf.math.expm1(x),
    "Floor": lambda tf, x: tf.math.floor(x),
    "IsFinite": lambda tf, x: tf.math.is_finite(x),
    "IsInf": lambda tf, x: tf.math.is_inf(x),
    "IsNan": lambda tf, x: tf.math.is_nan(x),
    "Log": lambda tf, x: tf.math.log(x),
    "Log1p": lambda tf, x: tf.math.log1p(x),
    "Neg": lambda tf, x: tf.math.negative(x),
    "Reciprocal": lambda tf, x: tf.math.reciprocal(x),
    "Rint": lambda tf, x: tf.math.rint(x),
    "Round": lambda tf, x: tf.math.round(x),
    "Rsqrt": lambda tf, x: tf.math.rsqrt(x),
    "Sigmoid": lambda tf, x: tf.math.sigmoid(x),
    "Sign": lambda tf, x: tf.math.sign(x),
    "Sin": lambda tf, x: tf.math.sin(x),
    "Sinh": lambda tf, x: tf.math.sinh(x),
    "Sqrt": lambda tf, x: tf.math.sqrt(x),
    "Square": lambda tf, x: tf.math.square(x),
    "Tan": lambda tf, x: tf.math.tan(x),
    "Tanh": lambda tf, x: tf.math.tanh(x),
    "Softplus": lambda tf, x: tf.math.softplus(x),
    "Softsign": lambda tf, x: tf.nn.softsign(x),
    "Relu": lambda tf, x: tf.nn.relu(x),
    "Relu6": lambda tf, x: tf.nn.relu6(x),
    "Elu": lambda tf, x: tf.nn.elu(x),
    "Selu": lambda tf, x: tf.nn.selu(x),
    "Gelu": lambda tf, x: tf.nn.gelu(x),
    "Silu": lambda tf, x: tf.nn.silu(x),
    "Softmax": lambda tf, x: tf.nn.softmax(x),
    "LogSoftmax": lambda tf, x: tf.nn.log_softmax(x),
    "L2Loss": lambda tf, x: tf.nn.l2_loss(x),
    "Identity": lambda tf, x: tf.identity(x),
    "StopGradient": lambda tf, x: tf.stop_gradient(x),
    "ZerosLike": lambda tf, x: tf.zeros_like(x),
    "OnesLike": lambda tf, x: tf.ones_like(x),
    "Shape": lambda tf, x: tf.shape(x),
    "Size": lambda tf, x: tf.size(x),
    "Rank": lambda tf, x: tf.rank(x),
    "Sort": lambda tf, x: tf.sort(x),
    "ArgSort": lambda tf, x: tf.argsort(x),
    "RandomShuffle": lambda tf, x: tf.random.shuffle(x, seed=1),
}

_BINARY_FLOAT = {
    "AddV2": lambda tf, x, y: tf.math.add(x, y),
    "Sub": lambda tf, x, y: tf.math.subtract(x, y),
    "Mul": lambda tf, x, y: tf.math.multiply(x, y),
    "RealDiv": lambda tf, x, y: tf.math.divide(x, y),
    "FloorDiv": lambda tf, x, y: tf.math.floordiv(x, y),
    "FloorMod": lambda tf, x, y: tf.math.floormod(x, y),
    "Pow": lambda tf, x, y: tf.math.pow(x, y),
    "DivNoNan": lambda tf, x, y: tf.math.divide_no_nan(x, y),
    "MulNoNan": lambda tf, x, y: tf.math.multiply_no_nan(x, y),
    "SquaredDifference": lambda tf, x, y: tf.math.squared_difference(x, y),
    "Maximum": lambda tf, x, y: tf.math.maximum(x, y),
    "Minimum": lambda tf, x, y: tf.math.minimum(x, y),
    "Atan2": lambda tf, x, y: tf.math.atan2(x, y),
    "Equal": lambda tf, x, y: tf.math.equal(x, y),
    "NotEqual": lambda tf, x, y: tf.math.not_equal(x, y),
    "Less": lambda tf, x, y: tf.math.less(x, y),
    "LessEqual": lambda tf, x, y: tf.math.less_equal(x, y),
    "Greater": lambda tf, x, y: tf.math.greater(x, y),
    "GreaterEqual": lambda tf, x, y: tf.math.greater_equal(x, y),
    "Complex": lambda tf, x, y: tf.complex(x, y),
    "AddN": lambda tf, x, y: tf.math.add_n([x, y]),
    "SigmoidCrossEntropyWithLogits": lambda tf, x, y: tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=y),
    "SoftmaxCrossEntropyWithLogits": lambda tf, x, y: tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=y),
}

_BINARY_INT = {
    "TruncateDiv": lambda tf, x, y: tf.truncatediv(x, y),
    "TruncateMod": lambda tf, x, y: tf.truncatemod(x, y),
    "BitwiseAnd": lambda tf, x, y: tf.bitwise.bitwise_and(x, y),
    "BitwiseOr": lambda tf, x, y: tf.bitwise.bitwise_or(x, y),
    "BitwiseXor": lambda tf, x, y: tf.bitwise.bitwise_xor(x, y),
    "LeftShift": lambda tf, x, y: tf.bitwise.left_shift(x, y),
    "RightShift": lambda tf, x, y: tf.bitwise.right_shift(x, y),
}

_REDUCE_FLOAT = {
    "Sum": lambda tf, x, axis: tf.math.reduce_sum(x, axis=axis),
    "Mean": lambda tf, x, axis: tf.math.reduce_mean(x, axis=axis),
    "Prod": lambda tf, x, axis: tf.math.reduce_prod(x, axis=axis),
    "Max": lambda tf, x, axis: tf.math.reduce_max(x, axis=axis),
    "Min": lambda tf, x, axis: tf.math.reduce_min(x, axis=axis),
    "EuclideanNorm": lambda tf, x, axis: tf.math.reduce_euclidean_norm(x, axis=axis),
    "ArgMax": lambda tf, x, axis: tf.math.argmax(x, axis=axis),
    "ArgMin": lambda tf, x, axis: tf.math.argmin(x, axis=axis),
    "Cumsum": lambda tf, x, axis: tf.math.cumsum(x, axis=axis),
    "Cumprod": lambda tf, x, axis: tf.math.cumprod(x, axis=axis),
    "CumulativeLogsumexp": lambda tf, x, axis: tf.math.cumulative_logsumexp(x, axis=axis),
    "ReverseV2": lambda tf, x, axis: tf.reverse(x, axis=[axis]),
    "ExpandDims": lambda tf, x, axis: tf.expand_dims(x, axis),
    "Unpack": lambda tf, x, axis: tf.unstack(x, axis=axis),
}

CASES = (
    [Case(op, fn, x=T("float", X)) for op, fn in _UNARY_FLOAT.items()]
    + [Case(op, fn, x=T("float", X), y=T("float", F(lo=0.3))) for op, fn in _BINARY_FLOAT.items()]
    + [Case(op, fn, x=T("int", X_INT), y=T("int", X_INT // 2 + 1)) for op, fn in _BINARY_INT.items()]
    + [Case(op, fn, x=T("float", X), axis=P("axis", 1)) for op, fn in _REDUCE_FLOAT.items()]
    + [
        # Add (not AddV2) is what tf.add builds for strings.
        Case("Add", lambda tf, x, y: tf.math.add(x, y), x=T("string", np.array(["a", "b"])),
             y=T("string", np.array(["c", "d"]))),
        Case("Invert", lambda tf, x: tf.bitwise.invert(x), x=T("int", X_INT)),
        Case("LogicalNot", lambda tf, x: tf.math.logical_not(x), x=T("bool", X_BOOL)),
        Case("LogicalAnd", lambda tf, x, y: tf.math.logical_and(x, y), x=T("bool", X_BOOL), y=T("bool", ~X_BOOL)),
        Case("LogicalOr", lambda tf, x, y: tf.math.logical_or(x, y), x=T("bool", X_BOOL), y=T("bool", ~X_BOOL)),
        Case("Any", lambda tf, x, axis: tf.math.reduce_any(x, axis=axis), x=T("bool", X_BOOL), axis=P("axis", 1)),
        Case("All", lambda tf, x, axis: tf.math.reduce_all(x, axis=axis), x=T("bool", X_BOOL), axis=P("axis", 1)),
        Case("Conj", lambda tf, x: tf.math.conj(x), x=T("complex", X_COMPLEX)),
        Case("Real", lambda tf, x: tf.math.real(x), x=T("complex", X_COMPLEX)),
        Case("Imag", lambda tf, x: tf.math.imag(x), x=T("complex", X_COMPLEX)),
        Case("Angle", lambda tf, x: tf.math.angle(x), x=T("complex", X_COMPLEX)),
        Case("ComplexAbs", lambda tf, x: tf.math.abs(x), x=T("complex", X_COMPLEX)),
        Case("LeakyRelu", lambda tf, x, alpha: tf.nn.leaky_relu(x, alpha=alpha), x=T("float", X),
             alpha=P("number", 0.2)),
        Case("CheckNumerics", lambda tf, x, message: tf.debugging.check_numerics(x, message), x=T("float", X),
             message=P("string", "checked")),
        Case("BiasAdd", lambda tf, x, bias: tf.nn.bias_add(x, bias), x=T("float", X),
             bias=T("float", F((3,)))),
        Case("SparseSoftmaxCrossEntropyWithLogits",
             lambda tf, labels, logits: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
             labels=T("int", np.array([0, 2], np.int32)), logits=T("float", X)),
        Case("Dropout", lambda tf, x, rate: tf.nn.dropout(x, rate=rate, seed=1), x=T("float", X),
             rate=P("number", 0.5)),
        Case("Moments", lambda tf, x, axes: tf.nn.moments(x, axes=axes), x=T("float", X), axes=P("ints", [0])),
        Case("BatchNormalization",
             lambda tf, x, mean, variance: tf.nn.batch_normalization(x, mean, variance, None, None, 1e-3),
             x=T("float", X), mean=T("float", F((3,))), variance=T("float", F((3,)))),
        Case("DenseBincount", lambda tf, x, minlength: tf.math.bincount(x, minlength=minlength),
             x=T("int", X_INT), minlength=P("size", 4)),
        Case("Cast", lambda tf, x: tf.cast(x, tf.int32), x=T("float", X)),
        # Linear algebra
        Case("MatMul", lambda tf, a, b: tf.linalg.matmul(a, b), a=T("float", X), b=T("float", F((3, 2)))),
        Case("BatchMatMulV2", lambda tf, a, b: tf.linalg.matmul(a, b), a=T("float", F((2, 2, 3))),
             b=T("float", F((2, 3, 2)))),
        Case("MatrixInverse", lambda tf, x: tf.linalg.inv(x), x=T("matrix", SQUARE)),
        Case("MatrixDeterminant", lambda tf, x: tf.linalg.det(x), x=T("matrix", SQUARE)),
        Case("LogMatrixDeterminant", lambda tf, x: tf.linalg.slogdet(x), x=T("matrix", SQUARE)),
        Case("Cholesky", lambda tf, x: tf.linalg.cholesky(x), x=T("matrix", SQUARE)),
        Case("MatrixSolve", lambda tf, a, b: tf.linalg.solve(a, b), a=T("matrix", SQUARE),
             b=T("float", F((2, 1)))),
        Case("MatrixDiagV3", lambda tf, x: tf.linalg.diag(x), x=T("float", X)),
        Case("MatrixDiagPartV3", lambda tf, x: tf.linalg.diag_part(x), x=T("float", X)),
        Case("MatrixBandPart", lambda tf, x, lower, upper: tf.linalg.band_part(x, lower, upper), x=T("float", X),
             lower=P("size", 1), upper=P("size", 0)),
        Case("Einsum", lambda tf, a, b: tf.einsum("ij,jk->ik", a, b), a=T("float", X), b=T("float", F((3, 2)))),
        Case("ConjugateTranspose", lambda tf, x: tf.transpose(x, conjugate=True), x=T("complex", X_COMPLEX)),
    ]
)
