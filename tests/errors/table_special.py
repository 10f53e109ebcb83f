"""Sweep table, part 4: special functions and the matrix decompositions/functions (see sweep.py).

An entry whose op type the registry does not hold (a family not in this build) is skipped by the test.
"""
import numpy as np

from sweep import F, Case, T

X = F()
SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
COMPLEX_SQUARE = SQUARE.astype(np.complex64)
UPPER = np.array([[2.0, 1.0], [0.0, 3.0]], np.float32)

_UNARY = {
    "BesselI0": lambda tf, x: tf.math.bessel_i0(x),
    "BesselI0e": lambda tf, x: tf.math.bessel_i0e(x),
    "BesselI1": lambda tf, x: tf.math.bessel_i1(x),
    "BesselI1e": lambda tf, x: tf.math.bessel_i1e(x),
    "Digamma": lambda tf, x: tf.math.digamma(x),
    "Erfc": lambda tf, x: tf.math.erfc(x),
    "Erfinv": lambda tf, x: tf.math.erfinv(x),
    "Lgamma": lambda tf, x: tf.math.lgamma(x),
    "Ndtri": lambda tf, x: tf.math.ndtri(x),
    "Diag": lambda tf, x: tf.linalg.tensor_diag(x),
}

_BINARY = {
    "Igamma": lambda tf, x, y: tf.math.igamma(x, y),
    "Igammac": lambda tf, x, y: tf.math.igammac(x, y),
    "Polygamma": lambda tf, x, y: tf.math.polygamma(x, y),
    "Xdivy": lambda tf, x, y: tf.math.xdivy(x, y),
    "Xlog1py": lambda tf, x, y: tf.math.xlog1py(x, y),
    "Xlogy": lambda tf, x, y: tf.math.xlogy(x, y),
    "Zeta": lambda tf, x, y: tf.math.zeta(x, y),
    "Cross": lambda tf, x, y: tf.linalg.cross(x, y),
}

_MATRIX = {
    "Eig": lambda tf, x: tf.linalg.eig(x),
    "Lu": lambda tf, x: tf.linalg.lu(x),
    "MatrixExponential": lambda tf, x: tf.linalg.expm(x),
    "MatrixSquareRoot": lambda tf, x: tf.linalg.sqrtm(x),
    "Qr": lambda tf, x: tf.linalg.qr(x),
    "SelfAdjointEigV2": lambda tf, x: tf.linalg.eigh(x),
    "Svd": lambda tf, x: tf.linalg.svd(x),
}

CASES = (
    [Case(op, fn, x=T("float", X)) for op, fn in _UNARY.items()]
    + [Case(op, fn, x=T("float", F(lo=1.5, hi=2.5)), y=T("float", F(lo=0.3))) for op, fn in _BINARY.items()]
    + [Case(op, fn, x=T("matrix", SQUARE)) for op, fn in _MATRIX.items()]
    + [
        Case("DiagPart", lambda tf, x: tf.linalg.tensor_diag_part(x), x=T("matrix", SQUARE)),
        Case("Betainc", lambda tf, a, b, x: tf.math.betainc(a, b, x), a=T("float", X + 1), b=T("float", X + 2),
             x=T("float", X)),
        Case("MatrixLogarithm", lambda tf, x: tf.linalg.logm(x), x=T("complex", COMPLEX_SQUARE)),
        Case("MatrixSetDiagV3", lambda tf, x, d: tf.linalg.set_diag(x, d), x=T("float", X), d=T("float", F((2,)))),
        Case("MatrixSolveLs", lambda tf, a, b: tf.linalg.lstsq(a, b), a=T("matrix", SQUARE), b=T("float", F((2, 1)))),
        Case("MatrixTriangularSolve", lambda tf, a, b: tf.linalg.triangular_solve(a, b, lower=False),
             a=T("matrix", UPPER), b=T("float", F((2, 1)))),
        Case("TridiagonalSolve", lambda tf, d, rhs: tf.linalg.tridiagonal_solve(d, rhs),
             d=T("float", np.array([[0.0, 1.0, 1.0], [4.0, 4.0, 4.0], [1.0, 1.0, 0.0]], np.float32)),
             rhs=T("float", F((3, 1)))),
    ]
)
