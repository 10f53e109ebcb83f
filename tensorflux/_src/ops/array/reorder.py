"""Ops that reorder elements: transpose (Transpose, ConjugateTranspose) and reverse (ReverseV2); their
kernels return NumPy views.

Each op is one OpDef (TensorFlow's op type name, static inference, vectorised NumPy kernel) plus its
public function with TensorFlow's signature. Things TensorFlow takes as tensors that users compute are
op inputs whose values inference reads with `constant_value`; static configuration are attrs.
"""
import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply, constant_value
from ..shapes.common import _UNKNOWN, bad, static_int_tuple



# ---------------------------------------------------------------------------------------------------
# Transpose, reverse
# ---------------------------------------------------------------------------------------------------

def _perm_problem(perm, rank):
    if len(perm) != rank:
        return f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}"
    seen = set()
    for p in perm:
        if not -rank <= p < rank:
            return f"{p} is out of range [0 .. {rank})"
        seen.add(p % rank)
    for i in range(rank):
        if i not in seen:
            return f"{i} is missing from {{{','.join(str(p) for p in perm)}}}."
    return None


def _transpose_kernel(x, perm=None):
    if perm is not None:
        problem = _perm_problem(perm, x.ndim)
        if problem:
            raise bad(problem)
    return np.transpose(x, perm)


def _conjugate_transpose_kernel(x, perm=None):
    return np.conj(_transpose_kernel(x, perm))


def _transpose_infer(inputs, attrs):
    x = inputs[0]
    perm = attrs.get("perm")
    dims = x.shape._dims
    if dims is None:
        return [(x.dtype, _UNKNOWN if perm is None else TensorShape((None,) * len(perm)))]
    if perm is None:
        return [(x.dtype, TensorShape(dims[::-1]))]
    if len(perm) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(perm)}")
    problem = _perm_problem(perm, len(dims))
    if problem:
        raise ValueError(problem)
    return [(x.dtype, TensorShape(tuple(dims[p] for p in perm)))]


def _transpose_grad(op, grad):
    perm = op.attrs.get("perm")
    attrs = None if perm is None else {"perm": _inverse_permutation(perm)}
    return [apply(op.opdef, (grad,), attrs, "transpose")]


TRANSPOSE = OpDef("Transpose", _transpose_infer, _transpose_kernel, grad=_transpose_grad)
CONJUGATE_TRANSPOSE = OpDef("ConjugateTranspose", _transpose_infer, _conjugate_transpose_kernel,
                            grad=_transpose_grad)


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """`tf.transpose`: permutes dimensions (reverses them by default); `conjugate` for complex inputs."""
    a = convert_to_tensor(a)
    attrs = None if perm is None else {"perm": static_int_tuple(perm, "perm")}
    op = CONJUGATE_TRANSPOSE if conjugate and a.dtype.is_complex else TRANSPOSE
    return apply(op, (a,), attrs, name)




def _reverse_axes(axis, rank, static):
    seen = []
    for i, a in enumerate(axis):
        if not -rank <= a < rank:
            msg = f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}"
            raise ValueError(msg) if static else bad(msg)
        a %= rank
        if a in seen:
            msg = f"axis {a} specified more than once."
            raise ValueError(msg) if static else bad(msg)
        seen.append(a)
    return tuple(seen)


def _reverse_kernel(x, axis):
    return np.flip(x, _reverse_axes(axis, x.ndim, False)) if axis else x


def _reverse_infer(inputs, attrs):
    x = inputs[0]
    if x.shape._dims is not None:
        _reverse_axes(attrs["axis"], len(x.shape._dims), True)
    return [(x.dtype, x.shape)]


def _reverse_grad(op, grad):
    return [apply(REVERSE, (grad,), {"axis": op.attrs["axis"]}, "ReverseV2")]


REVERSE = OpDef("ReverseV2", _reverse_infer, _reverse_kernel, grad=_reverse_grad, input_names=("tensor", "axis"))


def reverse(tensor, axis, name=None):
    """`tf.reverse`: reverses the listed dimensions."""
    tensor = convert_to_tensor(tensor)
    if np.ndim(constant_value(axis) if isinstance(axis, Tensor) else axis) != 1:
        raise errors.eager_error(errors.InvalidArgumentError,
                                 f"'dims' must be 1-dimension, not {np.ndim(axis)}", "ReverseV2")
    return apply(REVERSE, (tensor,), {"axis": static_int_tuple(axis, "axis")}, name or "ReverseV2")

def _inverse_permutation(perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p % len(perm)] = i
    return tuple(inverse)


API = {"": ["transpose", "reverse"]}
