"""Matrix products: `tf.matmul` (MatMul / BatchMatMulV2), `tf.einsum` (Einsum) and `tf.tensordot`.

`tf.matmul` picks TensorFlow's op the way TensorFlow does: MatMul when both operands have rank <= 2,
BatchMatMulV2 (broadcasting batch dimensions) otherwise. `tensordot` is an Einsum whose equation is
built from `axes`, which gives the same result as TensorFlow's transpose/reshape/MatMul chain.
"""
import string as _string

import numpy as np

from ..framework import errors
from ..framework.tensor import Tensor
from ..types import dtypes as _dt
from ..types.shape import TensorShape
from .convert import convert_to_tensor
from .infer import broadcast_shape
from .registry import OpDef, apply, constant_value, FLOAT, COMPLEX
from . import array as _array
from . import creation as _creation
from . import grad_util as _grad_util
from . import math as _math

_MATMUL_TYPES = FLOAT + (_dt.int32, _dt.int64) + COMPLEX
_BF16 = _dt.bfloat16._np


def _dims_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _product(a, b):
    """np.matmul / einsum helper: bfloat16 has no NumPy matmul loop, so it is computed in float32."""
    if a.dtype == _BF16:
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(_BF16)
    return np.matmul(a, b)


def _swap(a):
    return np.swapaxes(a, -1, -2)


# -- MatMul (rank 2) ----------------------------------------------------------------------------

def _matmul_kernel(a, b, transpose_a=False, transpose_b=False):
    for i, x in enumerate((a, b)):
        if x.ndim < 2:
            raise errors.InvalidArgumentError(None, None, f"In[{i}] ndims must be >= 2")
    x = _swap(a) if transpose_a else a
    y = _swap(b) if transpose_b else b
    if x.shape[-1] != y.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {_dims_text(a.shape)}, In[1]: {_dims_text(b.shape)}")
    return _product(x, y)


def _infer_matmul(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    dtype = inputs[0].dtype
    for s in (a, b):
        if s.rank is not None and s.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.rank} for 'MatMul' with input shapes: "
                             f"{_shape_text(a)}, {_shape_text(b)}.")
    ad = a.as_list() if a.rank is not None else [None, None]
    bd = b.as_list() if b.rank is not None else [None, None]
    if attrs.get("transpose_a"):
        ad = ad[::-1]
    if attrs.get("transpose_b"):
        bd = bd[::-1]
    _check_inner(ad[1], bd[0], "MatMul", a, b)
    return [(dtype, TensorShape([ad[0], bd[1]]))]


def _shape_text(shape):
    return "?" if shape.rank is None else _dims_text(shape.as_list())


def _check_inner(k1, k2, op_name, a, b):
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2} for '{op_name}' with input shapes: "
                         f"{_shape_text(a)}, {_shape_text(b)}.")


def _matmul_grad(op, grad):
    # C = op(A) op(B) with op a plain transpose; for complex inputs the gradient uses conj(A), conj(B).
    a, b = _math.conj(op.inputs[0]), _math.conj(op.inputs[1])
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    if not ta and not tb:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not ta:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if not tb:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)]


MATMUL = OpDef("MatMul", _infer_matmul, _matmul_kernel, same_dtype=True, allowed=_MATMUL_TYPES,
               input_names=("a", "b"), grad=_matmul_grad)


# -- BatchMatMulV2 ----------------------------------------------------------------------------------

def _adjoint(x):
    return np.conj(_swap(x)) if x.dtype.kind == "c" else _swap(x)


def _batch_matmul_kernel(a, b, adj_x=False, adj_y=False):
    for i, x in enumerate((a, b)):
        if x.ndim < 2:
            raise errors.InvalidArgumentError(None, None, f"In[{i}] ndims must be >= 2")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"In[0] and In[1] must have compatible batch dimensions: {_dims_text(a.shape)} vs. "
                        f"{_dims_text(b.shape)}") from None
    x = _adjoint(a) if adj_x else a
    y = _adjoint(b) if adj_y else b
    if x.shape[-1] != y.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: {_dims_text(a.shape)}, In[1]: {_dims_text(b.shape)}")
    return _product(x, y)


def _infer_batch_matmul(inputs, attrs):
    a, b = inputs[0].shape, inputs[1].shape
    dtype = inputs[0].dtype
    for s in (a, b):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank} for 'BatchMatMulV2' with input "
                             f"shapes: {_shape_text(a)}, {_shape_text(b)}.")
    if a.rank is None or b.rank is None:
        return [(dtype, TensorShape(None))]
    ad, bd = a.as_list(), b.as_list()
    m, ka = (ad[-1], ad[-2]) if attrs.get("adj_x") else (ad[-2], ad[-1])
    kb, n = (bd[-1], bd[-2]) if attrs.get("adj_y") else (bd[-2], bd[-1])
    _check_inner(ka, kb, "BatchMatMulV2", a, b)
    batch = broadcast_shape(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return [(dtype, TensorShape(batch.as_list() + [m, n]))]


def _batch_matmul_grad(op, grad):
    # C = op(X) op(Y) with op the adjoint; batch dims that were broadcast are summed back.
    x, y = op.inputs
    adj_x, adj_y = op.attrs.get("adj_x", False), op.attrs.get("adj_y", False)
    if not adj_x and not adj_y:
        gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
    elif not adj_x:
        gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    elif not adj_y:
        gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
    else:
        gx, gy = matmul(y, grad, adjoint_a=True, adjoint_b=True), matmul(grad, x, adjoint_a=True, adjoint_b=True)
    return [_grad_util.reduce_to(gx, x), _grad_util.reduce_to(gy, y)]


BATCH_MATMUL = OpDef("BatchMatMulV2", _infer_batch_matmul, _batch_matmul_kernel, same_dtype=True,
                     allowed=_MATMUL_TYPES, input_names=("x", "y"), grad=_batch_matmul_grad)


def _convert(value, other):
    """A non-tensor operand: Python values take `other`'s dtype as a hint; NumPy values keep theirs."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic)) or not isinstance(other, Tensor):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype_hint=other.dtype)


def _pair(a, b):
    a = _convert(a, b)
    return a, _convert(b, a)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None):
    """`tf.linalg.matmul`: the matrix product of the innermost two dimensions (batch dimensions broadcast).

    The `*_is_sparse` flags are TensorFlow's performance hints; the product is computed densely.
    """
    if transpose_a and adjoint_a:
        raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. Received `transpose_a`="
                         f"{transpose_a}, `adjoint_a`={adjoint_a}.")
    if transpose_b and adjoint_b:
        raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. Received `transpose_b`="
                         f"{transpose_b}, `adjoint_b`={adjoint_b}.")
    a, b = _pair(a, b)
    name = name or "MatMul"
    rank_a, rank_b = a.shape.rank, b.shape.rank
    complex_adjoint = (adjoint_a or adjoint_b) and a.dtype.is_complex
    if rank_a is not None and rank_b is not None and rank_a <= 2 and rank_b <= 2 and not complex_adjoint:
        attrs = None
        if transpose_a or transpose_b or adjoint_a or adjoint_b:
            attrs = {"transpose_a": bool(transpose_a or adjoint_a), "transpose_b": bool(transpose_b or adjoint_b)}
        return apply(MATMUL, (a, b), attrs, name)
    if a.dtype.is_complex and (transpose_a or transpose_b):
        raise ValueError("transpose of complex batched matrices is not supported; use adjoint_a/adjoint_b")
    attrs = None
    if transpose_a or transpose_b or adjoint_a or adjoint_b:
        attrs = {"adj_x": bool(transpose_a or adjoint_a), "adj_y": bool(transpose_b or adjoint_b)}
    return apply(BATCH_MATMUL, (a, b), attrs, name)


# -- Einsum -------------------------------------------------------------------------------------

def _parse_equation(equation):
    """(input terms, output term) of an einsum equation; implicit outputs follow NumPy/TensorFlow."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    for term in terms + [out]:
        bad = set(term.replace("...", "")) - set(_string.ascii_letters)
        if bad or term.replace("...", "").count(".") or term.count("...") > 1:
            raise ValueError(f"Invalid einsum equation {equation!r}: subscripts must be letters and at most "
                             f"one ellipsis per term.")
    if not arrow:
        letters = "".join(terms).replace("...", "")
        out = ("..." if any("..." in t for t in terms) else "") + \
            "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for c in out.replace("...", ""):
        if not any(c in t for t in terms):
            raise ValueError(f"Invalid einsum equation {equation!r}: output label {c!r} does not appear in "
                             f"the inputs.")
    return terms, out


def _split_term(term, dims, index):
    """Maps each label of `term` to its dim in `dims` (None dims = unknown); returns (labels, ellipsis)."""
    before, dots, after = term.partition("...")
    n = len(before) + len(after)
    if dims is None:
        return {c: None for c in before + after}, None
    rank = len(dims)
    if (not dots and rank != n) or (dots and rank < n):
        raise errors.InvalidArgumentError(None, None, f"Expected input {index} to have rank {n} but got: {rank}")
    labels = {}
    ellipsis = dims[len(before):rank - len(after)] if dots else ()
    for pos, c in list(enumerate(before)) + [(rank - len(after) + i, c) for i, c in enumerate(after)]:
        labels.setdefault(c, []).append((pos, dims[pos]))
    return labels, ellipsis


def _einsum_shape(equation, shapes, static):
    """The output dims (list, None entries unknown) or None for unknown rank; raises TF's errors.

    `static` selects ValueError (graph construction) instead of InvalidArgumentError (run time).
    """
    terms, out = _parse_equation(equation)
    known = {}
    ellipses = []
    for i, (term, dims) in enumerate(zip(terms, shapes)):
        try:
            labels, ellipsis = _split_term(term, dims, i)
        except errors.InvalidArgumentError as e:
            if static:
                raise ValueError(e.message) from None
            raise
        ellipses.append(ellipsis)
        for c, places in labels.items():
            for pos, d in (places if isinstance(places, list) else []):
                if d is None:
                    continue
                if known.get(c) is None:
                    known[c] = d
                elif known[c] != d:
                    if static:
                        raise ValueError(f"Dimensions must be equal, but are {known[c]} and {d} for 'Einsum' "
                                         f"with input shapes: "
                                         f"{', '.join(_shape_text(TensorShape(s)) for s in shapes)}.")
                    raise errors.InvalidArgumentError(
                        None, None, f"Expected dimension {known[c]} at axis {pos} of the input shaped "
                                    f"{_dims_text(dims)} but got dimension {d}")
            known.setdefault(c, None)
    result = []
    before, dots, after = out.partition("...")
    if dots:
        if any(e is None and "..." in t for t, e in zip(terms, ellipses)):
            return None  # an input of unknown rank feeds the ellipsis
        batch = TensorShape(())
        for e in ellipses:
            if e is not None:
                batch = broadcast_shape(batch, TensorShape(list(e)))
        result = [known.get(c) for c in before] + batch.as_list() + [known.get(c) for c in after]
    else:
        result = [known.get(c) for c in out]
    return result


def _einsum_kernel(*arrays, equation):
    _einsum_shape(equation, [a.shape for a in arrays], static=False)
    dtype = arrays[0].dtype
    if dtype == _BF16:
        return np.einsum(equation, *[a.astype(np.float32) for a in arrays]).astype(_BF16)
    return np.asarray(np.einsum(equation, *arrays)).astype(dtype, copy=False)


def _infer_einsum(inputs, attrs):
    shapes = [None if t.shape.rank is None else t.shape.as_list() for t in inputs]
    dims = _einsum_shape(attrs["equation"], shapes, static=True)
    return [(inputs[0].dtype, TensorShape(dims))]


# -- Einsum's gradient ----------------------------------------------------------------------------
# The gradient for input i is another einsum: the output gradient contracted with the other inputs,
# written with input i's subscripts as the output. Three things need care:
# * a label repeated inside term i (a diagonal, "ii->i") cannot be an einsum output, so its second
#   occurrence is renamed and an identity matrix joins the operands to put the gradient on the diagonal;
# * a label only term i has (summed away, "ij->i") cannot be an output either: the gradient is computed
#   without it and broadcast along it;
# * ellipsis dims are the broadcast of all inputs' ellipses, so the gradient is computed with the
#   ellipsis in front and summed down to input i's own ellipsis dims.

def _split_labels(term):
    before, dots, after = term.partition("...")
    return before, bool(dots), after


def _dim_of(x, position, shape_tensor):
    """Dimension `position` of x (negative counts from the end): an int when static, else a 1-vector."""
    dims = x.shape._dims
    if dims is not None and dims[position] is not None:
        return int(dims[position])
    end = position + 1 if position != -1 else None
    return shape_tensor[position:end]


def _shape_from(pieces):
    """A shape from ints and 1-vectors: a list when every piece is static, else an int32 tensor."""
    if all(isinstance(p, int) for p in pieces):
        return pieces
    return _array.concat([convert_to_tensor([p], dtype=_dt.int32) if isinstance(p, int) else p
                          for p in pieces], 0)


def _einsum_input_grad(terms, out, grad, inputs, i):
    x = inputs[i]
    before, has_dots, after = _split_labels(terms[i])
    used = set("".join(terms) + out)
    fresh = iter(c for c in _string.ascii_letters if c not in used)
    shape_x = None if x.shape.is_fully_defined() else _array.shape(x)  # only for dims unknown statically
    positions = list(range(len(before))) + [k - len(after) for k in range(len(after))]
    labels = []        # term i's labels, with repeats renamed
    diagonals = []     # (subscripts, identity) operands that rebuild repeated labels
    for label, position in zip(before + after, positions):
        if label in labels:
            twin = next(fresh)
            n = _dim_of(x, position, shape_x)
            size = n if isinstance(n, int) else _array.reshape(n, [])
            diagonals.append((label + twin, _creation.eye(size, dtype=grad.dtype)))
            label = twin
        labels.append(label)
    other_terms = [terms[j] for j in range(len(terms)) if j != i]
    available = set(out + "".join(other_terms) + "".join(s for s, _ in diagonals))
    kept = [k for k, label in enumerate(labels) if label in available]
    kept_labels = "".join(labels[k] for k in kept)
    # Ellipsis dims reach the gradient when the output gradient or another input has them.
    dots_elsewhere = "..." in out or any("..." in t for t in other_terms)
    result_subscripts = ("..." if dots_elsewhere else "") + kept_labels
    subscripts = [out] + other_terms + [s for s, _ in diagonals]
    operands = [grad] + [_math.conj(inputs[j]) for j in range(len(inputs)) if j != i] + [e for _, e in diagonals]
    equation = ",".join(subscripts) + "->" + result_subscripts
    g = grad if equation == f"{out}->{out}" else apply(EINSUM, tuple(operands), {"equation": equation}, "Einsum")
    ellipsis_dims = []
    if has_dots:
        rank = x.shape.rank
        if rank is not None:
            ellipsis_dims = [_dim_of(x, k, shape_x) for k in range(len(before), rank - len(after))]
        else:
            ellipsis_dims = [shape_x[len(before):(-len(after) or None)]]
    if dots_elsewhere:  # sum the broadcast ellipsis (and dims x had as 1) down to x's own
        own = (ellipsis_dims if has_dots else []) + [_dim_of(x, positions[k], shape_x) for k in kept]
        target = _shape_from(own)
        static = isinstance(target, list)
        if not (static and g.shape.is_fully_defined() and g.shape.as_list() == target):
            target = _array.index_input(target, "Tshape", "SumToShape") if static else target
            g = apply(_grad_util.SUM_TO_SHAPE, (g, target), None, "SumToShape")
        kept_before = "".join(labels[k] for k in kept if k < len(before))
        if has_dots and kept_before:  # move the ellipsis back between its labels
            rest = kept_labels[len(kept_before):]
            g = einsum(f"...{kept_labels}->{kept_before}...{rest}", g)
    if len(kept) < len(labels):  # labels summed away in the forward pass: broadcast along them
        kept_set = set(kept)
        pieces = [(_dim_of(x, positions[k], shape_x) if k in kept_set else 1) for k in range(len(before))]
        if has_dots and dots_elsewhere:  # otherwise the forward pass allowed only an empty ellipsis
            pieces += ellipsis_dims
        pieces += [(_dim_of(x, positions[k], shape_x) if k in kept_set else 1)
                   for k in range(len(before), len(labels))]
        g = _array.reshape(g, _shape_from(pieces))
        full = x.shape.as_list() if x.shape.is_fully_defined() else shape_x
        g = _array.broadcast_to(g, full)
    return g


def _einsum_grad(op, grad):
    terms, out = _parse_equation(op.attrs["equation"])
    return [_einsum_input_grad(terms, out, grad, op.inputs, i) for i in range(len(op.inputs))]


EINSUM = OpDef("Einsum", _infer_einsum, _einsum_kernel, same_dtype=True, allowed=_MATMUL_TYPES,
               input_names=("inputs",) * 3, grad=_einsum_grad)


def einsum(equation, *inputs, **kwargs):
    """`tf.einsum`: a tensor contraction written in Einstein notation (`"ij,jk->ik"`)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)  # TensorFlow's contraction-order hint; NumPy's einsum picks its own
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}. "
                        f"Expected: name, optimize")
    terms, _ = _parse_equation(equation)
    if len(terms) != len(inputs):
        raise ValueError(f"Got {len(inputs)} inputs for equation \"{equation}\", expecting {len(terms)}")
    tensors = []
    for x in inputs:
        tensors.append(_convert(x, tensors[0] if tensors else None))
    return apply(EINSUM, tuple(tensors), {"equation": equation.replace(" ", "")}, name or "einsum")


def _static_axes(axes):
    if isinstance(axes, Tensor):
        value = constant_value(axes)
        if value is None:
            raise ValueError("tensordot requires `axes` to be statically known")
        axes = value.tolist()
    if isinstance(axes, np.ndarray):
        axes = axes.tolist()
    return axes


def tensordot(a, b, axes, name=None):
    """`tf.tensordot`: sums the products of `a` and `b` over the given axes.

    `axes` is N (the last N axes of `a` with the first N of `b`) or a pair of axis lists.
    """
    a, b = _pair(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None:
        raise ValueError("tensordot needs operands of known rank in tensorflux.")
    axes = _static_axes(axes)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {n}.")
        if n > ra:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                             f"Received {n}, vs tensor dimensions {ra}.")
        a_axes, b_axes = list(range(ra - n, ra)), list(range(n))
    else:
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        a_axes = [a_axes] if isinstance(a_axes, int) else list(a_axes)
        b_axes = [b_axes] if isinstance(b_axes, int) else list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        a_axes = [x % ra if -ra <= x < ra else _axis_error(x, ra) for x in a_axes]
        b_axes = [x % rb if -rb <= x < rb else _axis_error(x, rb) for x in b_axes]
    letters = _string.ascii_letters
    if ra + rb > len(letters):
        raise ValueError("tensordot supports at most 52 dimensions in total.")
    a_labels = list(letters[:ra])
    b_labels = list(letters[ra:ra + rb])
    for i, j in zip(a_axes, b_axes):
        b_labels[j] = a_labels[i]
    out = [a_labels[i] for i in range(ra) if i not in a_axes] + [b_labels[j] for j in range(rb) if j not in b_axes]
    equation = f"{''.join(a_labels)},{''.join(b_labels)}->{''.join(out)}"
    return apply(EINSUM, (a, b), {"equation": equation}, name or "Tensordot")


def _axis_error(axis, rank):
    raise ValueError(f"axis {axis} is out of bounds for tensor of rank {rank}")


API = {
    "": ["matmul", "einsum", "tensordot"],
    "linalg": ["matmul", "einsum", "tensordot"],
}
