"""Arithmetic simplification: ops that provably return their input unchanged are dropped.

    x * 1, 1 * x, x + 0, 0 + x, x - 0, x / 1      → x   (the constant may not widen x: see below)
    transpose(transpose(x, p), q) with p[q] = id  → x
    identity(identity(x))                         → x   (a returned Identity returns x itself)
    cast(x, x.dtype), reshape(x, x.shape)         → x

The constant of an arithmetic identity must not change x's shape or dtype by broadcasting: it is a
scalar, or each of its dims is 1 or equal to x's (statically known) dim, with no more dims than x.
`x + 0.0` → `x` maps a `-0.0` in x to itself where NumPy would give `+0.0` (as TensorFlow's grappler
does); every other rule is exact, NaN and infinities included. Only ops of the registry's own OpDef
are rewritten, so an op with an overridden gradient keeps its meaning.
"""
import numpy as np

from ...ops.registry import OPS
from .rewrite import Rewrite, const_value

__all__ = ["simplify_arithmetic", "added_zero_source"]

# op type -> ((input index of x, index of the constant, constant value, rewrite kind), ...)
_NEUTRAL = {
    "Mul": ((0, 1, 1, "x*1"), (1, 0, 1, "1*x")),
    "AddV2": ((0, 1, 0, "x+0"), (1, 0, 0, "0+x")),
    "Add": ((0, 1, 0, "x+0"), (1, 0, 0, "0+x")),
    "Sub": ((0, 1, 0, "x-0"),),
    "RealDiv": ((0, 1, 1, "x/1"),),
    "Div": ((0, 1, 1, "x/1"),),
}


def simplify_arithmetic(ops):
    """One forward walk over `ops`; returns a PassResult (ops, remap, counts by rule)."""
    rw = Rewrite()
    for op in ops:
        inputs = rw.inputs_of(op)
        if op.opdef is not None and OPS.get(op.type) is op.opdef and rw.replaceable(op):
            found = _simplified(op, inputs)
            if found is not None:
                source, kind = found
                out = op.outputs[0]
                if source.dtype is out.dtype and source.shape._dims == out.shape._dims:
                    rw.replace(op, [source], kind)
                    continue
        rw.keep(op, inputs)
    return rw.result()


def added_zero_source(op):
    """The position of x when `op` is `x + 0` or `0 + x` that simplify_arithmetic drops, else None: the one
    rule that can change a value (a -0.0 in x stays -0.0), so the first call's interpreter, which runs no
    passes, applies it too and every call of a function gives the same bits."""
    if op.type not in ("AddV2", "Add") or op.opdef is None or OPS.get(op.type) is not op.opdef:
        return None
    found = _simplified(op, op.inputs)
    if found is None:
        return None
    source, out = found[0], op.outputs[0]
    if source.dtype is not out.dtype or source.shape._dims != out.shape._dims:
        return None
    return 0 if source is op.inputs[0] else 1


def _simplified(op, inputs):
    """(tensor op computes, rule name) when a rule applies, else None."""
    kind = op.type
    if kind in _NEUTRAL:
        for x_index, c_index, neutral, rule in _NEUTRAL[kind]:
            x, c = inputs[x_index], inputs[c_index]
            value = const_value(c)
            if value is not None and _all_equal(value, neutral) and _broadcasts_into(value.shape, x.shape._dims):
                return x, rule
        return None
    if kind == "Identity":
        return inputs[0], "identity chain"
    if kind == "Cast":
        return (inputs[0], "same-dtype cast") if inputs[0].dtype is op.outputs[0].dtype else None
    if kind == "Reshape":
        return (inputs[0], "same-shape reshape") if _same_static_shape(inputs[0].shape, op.outputs[0].shape) else None
    if kind == "Transpose":
        inner = inputs[0].op
        if inner.type == "Transpose" and inner.opdef is op.opdef and _inverse(inner, op):
            return inner.inputs[0], "double transpose"
    return None


def _all_equal(value, neutral):
    if value.dtype.kind in "OSUb":  # strings concatenate, bools are no ring here
        return False
    try:
        if value.ndim == 0:
            return bool(value == neutral)
        with np.errstate(all="ignore"):
            return bool(np.all(value == neutral))
    except (TypeError, ValueError):  # quantized record dtypes do not compare with numbers
        return False


def _broadcasts_into(c_shape, x_dims):
    """Whether broadcasting a constant of shape `c_shape` against x leaves x's shape as it is."""
    if len(c_shape) == 0:
        return True
    if x_dims is None or len(c_shape) > len(x_dims):
        return False
    return all(c == 1 or c == x for c, x in zip(reversed(c_shape), reversed(x_dims)))


def _same_static_shape(before, after):
    """Whether a reshape from `before` to `after` must be the identity.

    Equal fully known shapes are; so are equal shapes with one unknown dim at the same place, when the
    known dims multiply to a positive number (the element count then fixes the unknown dim).
    """
    a, b = before._dims, after._dims
    if a is None or a != b:
        return False
    unknown = a.count(None)
    if unknown == 0:
        return True
    return unknown == 1 and int(np.prod([d for d in a if d is not None])) > 0


def _inverse(inner, outer):
    """Whether transposing by `inner`'s perm, then `outer`'s, leaves every axis in place."""
    p, q = inner.attrs.get("perm"), outer.attrs.get("perm")
    if p is None and q is None:
        return True  # reversing the axes twice, whatever the rank
    rank = len(p) if p is not None else len(q)
    p = tuple(range(rank - 1, -1, -1)) if p is None else tuple(i % rank for i in p)
    q = tuple(range(rank - 1, -1, -1)) if q is None else tuple(i % rank for i in q)
    if len(p) != rank or len(q) != rank:
        return False
    return all(p[q[j]] == j for j in range(rank))
