"""Matrix decompositions of `tf.linalg`: `svd` (Svd), `qr` (Qr), `eigh`/`eigvalsh` (SelfAdjointEigV2),
`eig`/`eigvals` (Eig) and `lu` (Lu), each a batched op over the innermost two dimensions.

Kernels are NumPy's LAPACK routines (half precision is computed in float32, as NumPy has no half LAPACK);
the factors agree with TensorFlow's up to the signs/phases of singular and eigen vectors, which neither
library fixes. Gradients follow the published derivations TensorFlow uses (Svd, Qr, SelfAdjointEigV2, Eig),
written with tensorflux ops so that they work on the eager tape and inside traced graphs.
"""
import collections as _collections

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, COMPLEX
from ..shapes import creators as _creators
from ..shapes import shaping as _shaping
from ..math import arith as _math
from ..math import complex as _complex
from ..array import join as _join
from .matrix import matmul, adjoint, diag, diag_part, band_part, solve
from .structured import set_diag, triangular_solve

_EIG_TYPES = (_dt.float64, _dt.float32, _dt.float16) + COMPLEX  # TensorFlow's T of Svd, Qr, SelfAdjointEigV2
_HALF = np.dtype(np.float16)

Svd = _collections.namedtuple("Svd", ["s", "u", "v"])
Qr = _collections.namedtuple("Qr", ["q", "r"])
Lu = _collections.namedtuple("Lu", ["lu", "p"])


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def _check_rank(x):
    if x.ndim < 2:
        raise _bad(f"Input tensor 0 must have rank >= 2, got {x.ndim}")


def _check_square(x):
    _check_rank(x)
    if x.shape[-1] != x.shape[-2]:
        raise _bad("Input matrix must be square.")


def _wide(x):
    """LAPACK has no half precision: compute float16 in float32 (cast back by the caller)."""
    return x.astype(np.float32) if x.dtype == _HALF else x


def _matrix_dims(shape, op_name, square=False):
    """(batch dims, rows, cols) of a static shape, with TensorFlow's rank/squareness errors; None if unknown."""
    dims = shape._dims
    if dims is None:
        return None
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)} for '{op_name}'")
    rows, cols = dims[-2], dims[-1]
    if square and rows is not None and cols is not None and rows != cols:
        raise ValueError(f"Dimensions must be equal, but are {rows} and {cols} for '{op_name}'")
    return list(dims[:-2]), rows, cols


def _min(a, b):
    return None if a is None or b is None else min(a, b)


def _operand(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def _safe_reciprocal(x, epsilon=1e-20):
    # x / (x^2 + eps): 1/x away from 0 and 0 at 0, so equal eigen/singular values give no infinities.
    return _math.multiply(x, _math.reciprocal(_math.add(_math.multiply(x, x), _math.cast(epsilon, x.dtype))))


def _pairwise_reciprocal(values):
    """F[i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it."""
    differences = _math.subtract(_shaping.expand_dims(values, -2), _shaping.expand_dims(values, -1))
    return set_diag(_safe_reciprocal(differences), _creators.zeros_like(values))


# -- Svd ---------------------------------------------------------------------------------------------

def _svd_kernel(x, compute_uv=True, full_matrices=False):
    _check_rank(x)
    a = _wide(x)
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-1][:-1] + (0,), a.real.dtype)
        empty = np.zeros((), x.dtype)  # TensorFlow leaves u and v unset (scalars) without compute_uv
        return s.astype(x.dtype), empty, empty
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    v = np.conj(np.swapaxes(vh, -1, -2))
    return s.astype(x.dtype), u.astype(x.dtype), v.astype(x.dtype)


def _infer_svd(inputs, attrs):
    x = inputs[0]
    found = _matrix_dims(x.shape, "Svd")
    if found is None:
        unknown = TensorShape(None)
        return [(x.dtype, unknown)] * 3
    batch, m, n = found
    p = _min(m, n)
    if not attrs.get("compute_uv", True):
        return [(x.dtype, TensorShape(batch + [p])), (x.dtype, TensorShape([])), (x.dtype, TensorShape([]))]
    full = attrs.get("full_matrices", False)
    return [(x.dtype, TensorShape(batch + [p])), (x.dtype, TensorShape(batch + [m, m if full else p])),
            (x.dtype, TensorShape(batch + [n, n if full else p]))]


def _svd_grad(op, grad_s, grad_u, grad_v):
    # Gradient of A = U diag(s) V^H (Townsend's derivation, as TensorFlow's SvdGrad), arranged so m <= n.
    a = op.inputs[0]
    s = op.outputs[0]
    dims = a.shape._dims
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner "
                                  "matrix shape.")
    full_matrices = op.attrs.get("full_matrices", False)
    compute_uv = op.attrs.get("compute_uv", True)
    m, n = dims[-2], dims[-1]
    if compute_uv and full_matrices and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when full_matrices is "
                                  "True")
    grad_s = grad_s if grad_s is not None else _creators.zeros_like(s)
    grad_s_mat = diag(grad_s)
    if not compute_uv:
        _, u, v = svd(a, compute_uv=True)
        return [matmul(matmul(u, grad_s_mat), v, adjoint_b=True)]
    u, v = op.outputs[1], op.outputs[2]
    grad_u = grad_u if grad_u is not None else _creators.zeros_like(u)
    grad_v = grad_v if grad_v is not None else _creators.zeros_like(v)
    use_adjoint = m > n
    if use_adjoint:
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    s_mat = diag(s)
    f = _pairwise_reciprocal(_math.square(s))
    s_inv_mat = diag(_math.divide_no_nan(_math.cast(1, s.dtype), s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    u_gu = matmul(u, grad_u, adjoint_a=True)
    v_gv = matmul(v1, grad_v1, adjoint_a=True)
    f_u = _math.multiply(f, u_gu)
    f_v = _math.multiply(f, v_gv)
    term1_nouv = _math.add(grad_s_mat, _math.add(matmul(_math.add(f_u, adjoint(f_u)), s_mat),
                                                 matmul(s_mat, _math.add(f_v, adjoint(f_v)))))
    term1 = matmul(u, matmul(term1_nouv, v1, adjoint_b=True))
    if m == n:
        grad_a = term1
    else:
        gv1t = adjoint(grad_v1)
        term2_nous = _math.subtract(gv1t, matmul(matmul(gv1t, v1), v1, adjoint_b=True))
        if full_matrices:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            term2_nous = _math.subtract(term2_nous, matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True))
        term2 = matmul(matmul(u, s_inv_mat), term2_nous)
        grad_a = _math.add(term1, term2)
    if a.dtype.is_complex:
        # The phase of each singular vector pair is free; this term fixes the gradient's imaginary part.
        l = diag(diag_part(v_gv))
        term3 = matmul(u, matmul(matmul(s_inv_mat, _math.subtract(adjoint(l), l)), v1, adjoint_b=True))
        grad_a = _math.add(grad_a, _math.multiply(_math.cast(0.5, a.dtype), term3))
    return [adjoint(grad_a) if use_adjoint else grad_a]


SVD = OpDef("Svd", _infer_svd, _svd_kernel, allowed=_EIG_TYPES, input_names=("input",), multi=True,
            grad=_svd_grad)
SVD.none_grads = True


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """`tf.linalg.svd`: singular values `s` (descending) and, with `compute_uv`, `u` and `v` such that
    tensor = u @ diag(s) @ adjoint(v), per matrix in the innermost two dims."""
    tensor = _operand(tensor)
    s, u, v = apply(SVD, (tensor,), {"compute_uv": bool(compute_uv), "full_matrices": bool(full_matrices)},
                    name or "Svd")
    if tensor.dtype.is_complex:  # the op's s has the input's dtype; the singular values are real
        s = _complex.real(s)
    return Svd(s, u, v) if compute_uv else s


# -- Qr ----------------------------------------------------------------------------------------------

def _qr_kernel(x, full_matrices=False):
    _check_rank(x)
    q, r = np.linalg.qr(_wide(x), mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _infer_qr(inputs, attrs):
    x = inputs[0]
    found = _matrix_dims(x.shape, "Qr")
    if found is None:
        return [(x.dtype, TensorShape(None))] * 2
    batch, m, n = found
    p = m if attrs.get("full_matrices", False) else _min(m, n)
    return [(x.dtype, TensorShape(batch + [m, p])), (x.dtype, TensorShape(batch + [p, n]))]


def _right_triangular_solve(x, r):
    """X R^-H for upper-triangular R, as (R^-1 X^H)^H."""
    return adjoint(triangular_solve(r, adjoint(x), lower=False, adjoint=False))


def _qr_grad_square_and_deep(q, r, dq, dr):
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = _math.subtract(qdq, adjoint(qdq))
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = _math.subtract(rdr, adjoint(rdr))
    tril = band_part(_math.add(qdq_, rdr_), -1, 0)
    grad_a = matmul(q, _math.add(dr, _right_triangular_solve(tril, r)))
    grad_b = _right_triangular_solve(_math.subtract(dq, matmul(q, qdq)), r)
    result = _math.add(grad_a, grad_b)
    if q.dtype.is_complex:
        m = _math.subtract(rdr, adjoint(qdq))
        eye_m = set_diag(_creators.zeros_like(m), diag_part(m))
        correction = _math.subtract(eye_m, _math.cast(_complex.real(eye_m), q.dtype))
        result = _math.add(result, _right_triangular_solve(matmul(q, adjoint(correction)), r))
    return result


def _qr_grad(op, dq, dr):
    # Gradient of A = QR (TensorFlow's QrGrad): square and tall matrices directly; a wide A = [X, Y] with
    # R = [U, V] reduces to the square X = QU.
    a = op.inputs[0]
    q, r = op.outputs
    dims = a.shape._dims
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError("QrGrad not implemented with dynamic shapes.")
    m, n = dims[-2], dims[-1]
    if op.attrs.get("full_matrices", False) and m > n:
        raise NotImplementedError("QrGrad not implemented when nrows > ncols and full_matrices is true.")
    dq = dq if dq is not None else _creators.zeros_like(q)
    dr = dr if dr is not None else _creators.zeros_like(r)
    if m >= n:
        return [_qr_grad_square_and_deep(q, r, dq, dr)]
    y = a[..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dx = _qr_grad_square_and_deep(q, u, _math.add(dq, matmul(y, dv, adjoint_b=True)), du)
    dy = matmul(q, dv)
    return [_join.concat([dx, dy], axis=-1)]


QR = OpDef("Qr", _infer_qr, _qr_kernel, allowed=_EIG_TYPES, input_names=("input",), multi=True, grad=_qr_grad)
QR.none_grads = True


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TensorFlow's argument name
    """`tf.linalg.qr`: Q (orthonormal columns) and upper-triangular R with input = Q @ R, per matrix."""
    q, r = apply(QR, (_operand(input),), {"full_matrices": bool(full_matrices)}, name or "Qr")
    return Qr(q, r)


# -- SelfAdjointEigV2 ------------------------------------------------------------------------------

def _eigh_kernel(x, compute_v=True):
    _check_square(x)
    a = _wide(x)
    if not compute_v:
        return np.linalg.eigvalsh(a, UPLO="L").astype(x.dtype), np.zeros((), x.dtype)
    e, v = np.linalg.eigh(a, UPLO="L")  # TensorFlow reads the lower triangle too
    return e.astype(x.dtype), v.astype(x.dtype)


def _infer_eigh(inputs, attrs):
    x = inputs[0]
    found = _matrix_dims(x.shape, "SelfAdjointEigV2", square=True)
    if found is None:
        return [(x.dtype, TensorShape(None))] * 2
    batch, m, n = found
    n = m if m is not None else n
    v_shape = TensorShape(batch + [n, n]) if attrs.get("compute_v", True) else TensorShape([])
    return [(x.dtype, TensorShape(batch + [n])), (x.dtype, v_shape)]


def _eigh_grad(op, grad_e, grad_v):
    # A = V diag(e) V^H: grad_A = V (diag(grad_e) + F o (V^H grad_V)) V^H, F_ij = 1/(e_j - e_i); the op
    # reads only the lower triangle, so the gradient is symmetrised onto it.
    e = op.outputs[0]
    grad_e = grad_e if grad_e is not None else _creators.zeros_like(e)
    if op.attrs.get("compute_v", True):
        v = op.outputs[1]
        f = _pairwise_reciprocal(e)
        inner = diag(grad_e)
        if grad_v is not None:
            inner = _math.add(inner, _math.multiply(f, matmul(v, grad_v, adjoint_a=True)))
    else:
        _, v = eigh(op.inputs[0])
        inner = diag(grad_e)
    grad_a = matmul(v, matmul(_math.cast(inner, v.dtype), v, adjoint_b=True))
    grad_a = band_part(_math.add(grad_a, adjoint(grad_a)), -1, 0)
    grad_a = set_diag(grad_a, _math.multiply(_math.cast(0.5, grad_a.dtype), diag_part(grad_a)))
    return [grad_a]


SELF_ADJOINT_EIG = OpDef("SelfAdjointEigV2", _infer_eigh, _eigh_kernel, allowed=_EIG_TYPES,
                         input_names=("input",), multi=True, grad=_eigh_grad)
SELF_ADJOINT_EIG.none_grads = True


def eigh(tensor, name=None):
    """`tf.linalg.eigh`: eigenvalues (ascending) and eigenvectors (columns) of self-adjoint matrices; only
    the lower triangle is read."""
    e, v = apply(SELF_ADJOINT_EIG, (_operand(tensor),), {"compute_v": True}, name or "SelfAdjointEigV2")
    return e, v


def eigvalsh(tensor, name=None):
    """`tf.linalg.eigvalsh`: the eigenvalues (ascending) of self-adjoint matrices."""
    e, _ = apply(SELF_ADJOINT_EIG, (_operand(tensor),), {"compute_v": False}, name or "SelfAdjointEigV2")
    return e


# -- Eig ---------------------------------------------------------------------------------------------

_EIG_OUT = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
            np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


def _eig_kernel(x, Tout=None, compute_v=True):  # noqa: N803 - TensorFlow's attr name
    _check_square(x)
    out = _EIG_OUT[np.dtype(x.dtype)]
    if not compute_v:
        return np.linalg.eigvals(x).astype(out), np.zeros((), out)
    e, v = np.linalg.eig(x)
    return e.astype(out), v.astype(out)


def _infer_eig(inputs, attrs):
    x = inputs[0]
    out = _dt.complex128 if x.dtype in (_dt.float64, _dt.complex128) else _dt.complex64
    found = _matrix_dims(x.shape, "Eig", square=True)
    if found is None:
        return [(out, TensorShape(None))] * 2
    batch, m, n = found
    n = m if m is not None else n
    v_shape = TensorShape(batch + [n, n]) if attrs.get("compute_v", True) else TensorShape([])
    return [(out, TensorShape(batch + [n])), (out, v_shape)]


def _eig_grad(op, grad_e, grad_v):
    # A = V diag(e) V^-1 (V's columns of unit norm): grad_A = V^-H (diag(grad_e) + F* o (V^H grad_V -
    # V^H V diag(Re(V^H grad_V)))) V^H, cast back to A's dtype.
    e = op.outputs[0]
    grad_e = grad_e if grad_e is not None else _creators.zeros_like(e)
    if op.attrs.get("compute_v", True):
        v = op.outputs[1]
        vt = adjoint(v)
        mid = diag(grad_e)
        if grad_v is not None:
            f = _math.conj(_pairwise_reciprocal(e))
            vgv = matmul(vt, grad_v)
            real_diag = diag(diag_part(_math.cast(_complex.real(vgv), vgv.dtype)))
            mid = _math.add(mid, _math.multiply(f, _math.subtract(vgv, matmul(matmul(vt, v), real_diag))))
    else:
        _, v = eig(op.inputs[0])
        vt = adjoint(v)
        mid = diag(grad_e)
    grad_a = solve(vt, matmul(mid, vt))
    a = op.inputs[0]
    return [grad_a if a.dtype.is_complex else _complex.real(grad_a)]


EIG = OpDef("Eig", _infer_eig, _eig_kernel, allowed=(_dt.float32, _dt.float64) + COMPLEX, input_names=("input",),
            multi=True, grad=_eig_grad)
EIG.none_grads = True


def _eig_attrs(tensor, compute_v):
    out = _dt.complex128 if tensor.dtype in (_dt.float64, _dt.complex128) else _dt.complex64
    return {"Tout": out, "compute_v": compute_v}


def eig(tensor, name=None):
    """`tf.linalg.eig`: complex eigenvalues and unit-norm eigenvectors (columns) of square matrices."""
    tensor = _operand(tensor)
    e, v = apply(EIG, (tensor,), _eig_attrs(tensor, True), name or "Eig")
    return e, v


def eigvals(tensor, name=None):
    """`tf.linalg.eigvals`: the complex eigenvalues of square matrices."""
    tensor = _operand(tensor)
    e, _ = apply(EIG, (tensor,), _eig_attrs(tensor, False), name or "Eig")
    return e


# -- Lu ----------------------------------------------------------------------------------------------

def _lu_kernel(x, output_idx_type=_dt.int32):
    _check_square(x)
    n = x.shape[-1]
    work = _wide(x).reshape((-1, n, n)).copy()
    perm = np.tile(np.arange(n), (work.shape[0], 1))
    rows = np.arange(work.shape[0])
    for k in range(n):  # Doolittle elimination with partial pivoting, vectorised over the batch
        pivot = k + np.argmax(np.abs(work[:, k:, k]), axis=1)
        swap = pivot != k
        if swap.any():
            b = rows[swap]
            work[b, k], work[b, pivot[swap]] = work[b, pivot[swap]].copy(), work[b, k].copy()
            perm[b, k], perm[b, pivot[swap]] = perm[b, pivot[swap]].copy(), perm[b, k].copy()
        if k + 1 < n:
            with np.errstate(divide="ignore", invalid="ignore"):
                work[:, k + 1:, k] /= work[:, k, k][:, None]
            work[:, k + 1:, k + 1:] -= work[:, k + 1:, k][:, :, None] * work[:, k, k + 1:][:, None, :]
    index = _dt.as_dtype(output_idx_type)._np
    return work.reshape(x.shape).astype(x.dtype), perm.reshape(x.shape[:-1]).astype(index)


def _infer_lu(inputs, attrs):
    x = inputs[0]
    index = attrs.get("output_idx_type", _dt.int32)
    found = _matrix_dims(x.shape, "Lu", square=True)
    if found is None:
        return [(x.dtype, TensorShape(None)), (index, TensorShape(None))]
    batch, m, n = found
    n = m if m is not None else n
    return [(x.dtype, TensorShape(batch + [n, n])), (index, TensorShape(batch + [n]))]


LU = OpDef("Lu", _infer_lu, _lu_kernel, allowed=_EIG_TYPES, input_names=("input",), multi=True)


def lu(input, output_idx_type=_dt.int32, name=None):  # noqa: A002
    """`tf.linalg.lu`: the LU factorisation with partial pivoting: `lu` holds L (unit diagonal, below) and U
    (on and above the diagonal), `p` the row permutation (row i of P @ input is input[p[i]])."""
    output_idx_type = _dt.as_dtype(output_idx_type)
    if output_idx_type not in (_dt.int32, _dt.int64):
        raise TypeError(f"Value for attr 'output_idx_type' of {output_idx_type.name} is not in the list of "
                        "allowed values: int32, int64")
    lu_matrix, p = apply(LU, (_operand(input),), {"output_idx_type": output_idx_type}, name or "Lu")
    return Lu(lu_matrix, p)


API = {
    "": ["eig", "eigvals"],
    "linalg": ["svd", "qr", "eigh", "eigvalsh", "eig", "eigvals", "lu"],
}
