"""`tf.einsum` (Einsum) and `tf.tensordot`, plus the operand and shape-text helpers the matrix ops share.

`tensordot` is an Einsum whose equation is built from `axes`, which gives the same result as
TensorFlow's transpose/reshape/MatMul chain. `linalg.py` re-exports both under `tf.linalg`.
"""
import string as _string

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value, FLOAT, COMPLEX
from ..shapes import common as _common
from ..array import join as _join
from ..shapes import shape_ops as _shape_ops
from ..shapes import shaping as _shaping
from ..array import creation as _creation
from ..math import summation as _summation
from ..math import arith as _math

MATMUL_TYPES = FLOAT + (_dt.int32, _dt.int64) + COMPLEX  # also MatMul's and BatchMatMulV2's
_BF16 = _dt.bfloat16._np


def convert_operand(value, other):
    """A non-tensor operand: Python values take `other`'s dtype as a hint; NumPy values keep theirs."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic)) or not isinstance(other, Tensor):
        return convert_to_tensor(value)
    return convert_to_tensor(value, dtype_hint=other.dtype)


def operand_pair(a, b):
    a = convert_operand(a, b)
    return a, convert_operand(b, a)


def shape_text(shape):
    return "?" if shape.rank is None else dims_text(shape.as_list())


def dims_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


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
                                         f"{', '.join(shape_text(TensorShape(s)) for s in shapes)}.")
                    raise errors.InvalidArgumentError(
                        None, None, f"Expected dimension {known[c]} at axis {pos} of the input shaped "
                                    f"{dims_text(dims)} but got dimension {d}")
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
    return _join.concat([convert_to_tensor([p], dtype=_dt.int32) if isinstance(p, int) else p
                          for p in pieces], 0)


def _einsum_input_grad(terms, out, grad, inputs, i):
    x = inputs[i]
    before, has_dots, after = _split_labels(terms[i])
    used = set("".join(terms) + out)
    fresh = iter(c for c in _string.ascii_letters if c not in used)
    shape_x = None if x.shape.is_fully_defined() else _shape_ops.shape(x)  # only for dims unknown statically
    positions = list(range(len(before))) + [k - len(after) for k in range(len(after))]
    labels = []        # term i's labels, with repeats renamed
    diagonals = []     # (subscripts, identity) operands that rebuild repeated labels
    for label, position in zip(before + after, positions):
        if label in labels:
            twin = next(fresh)
            n = _dim_of(x, position, shape_x)
            size = n if isinstance(n, int) else _shaping.reshape(n, [])
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
            target = _common.index_input(target, "Tshape", "SumToShape") if static else target
            g = apply(_summation.SUM_TO_SHAPE, (g, target), None, "SumToShape")
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
        g = _shaping.reshape(g, _shape_from(pieces))
        full = x.shape.as_list() if x.shape.is_fully_defined() else shape_x
        g = _shaping.broadcast_to(g, full)
    return g


def _einsum_grad(op, grad):
    terms, out = _parse_equation(op.attrs["equation"])
    return [_einsum_input_grad(terms, out, grad, op.inputs, i) for i in range(len(op.inputs))]


EINSUM = OpDef("Einsum", _infer_einsum, _einsum_kernel, same_dtype=True, allowed=MATMUL_TYPES,
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
        tensors.append(convert_operand(x, tensors[0] if tensors else None))
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
    a, b = operand_pair(a, b)
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


API = {}
