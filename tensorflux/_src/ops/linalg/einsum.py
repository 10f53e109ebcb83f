"""`tf.einsum` (Einsum) and `tf.tensordot`, plus the operand and shape-text helpers the matrix ops share.

`tensordot` is an Einsum whose equation is built from `axes`, which gives the same result as
TensorFlow's transpose/reshape/MatMul chain. `linalg.py` re-exports both under `tf.linalg`.
"""
import string as _string

import numpy as np

from ...framework import errors
from ...framework.context import state as _state
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..infer import broadcast_shape
from ..registry import OpDef, apply, constant_value, FLOAT, COMPLEX
from ..shapes import common as _common
from . import blas_threads as _blas
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


# -- Einsum's kernel: contractions as BLAS matrix products ----------------------------------------
# np.einsum without optimisation loops in C over every label, and even with it only hands contractions
# without shared batch labels to BLAS. Attention's products ("aecd,abcd->acbe") share batch labels, so
# the kernel lowers each pair of operands to one np.matmul on a stack of matrices instead: the
# operands are transposed (usually a view) to (batch..., free, contracted) and (batch..., contracted,
# free), flattened to 2-D per batch entry, multiplied, and the product is viewed back in the output's
# order. Three or more operands are contracted pairwise in the order np.einsum_path chooses. The plan
# depends on the equation and the shapes only, so it is made once and cached (the graph's shape
# inference makes it while tracing when the shapes are static).

# Products run under blas_threads' policy (OpenBLAS on one thread, big products shared out in blocks
# over worker threads), like every other product kernel.


_PLANS = {}
_PLAN_LIMIT = 1024          # distinct (equation, shapes) kept; a model uses a few dozen

# A layer's projection of a [batch, sequence, features] input is one tall float32 product, [6400, 32] @
# [32, 64] in the keras-io transformer: a millisecond, below blas_threads' size for sharing a product out,
# so it ran on the calling thread alone. OpenBLAS computes a float32 product in panels of 768 rows of
# `a` (its SGEMM_P for the Haswell and Zen kernels this machine runs), so blocks of whole panels give the
# unsplit product's bits exactly (checked on every shape of that model: blocks at other boundaries
# change the last digits). Such products are cut into blocks of whole panels and shared out over the
# worker threads. Products above blas_threads.PARALLEL_MIN_FLOPS keep that module's policy.
TALL_PANEL_ROWS = 768
TALL_MIN_FLOPS = 1 << 21
_F32 = np.dtype(np.float32)


def _tall_product(a, b):
    """`a @ b` for 2-D float32 matrices, in blocks of whole OpenBLAS panels over the worker threads when
    `a` holds two panels or more and the product is worth a hand-over; else `_blas.matmul(a, b)`."""
    m, k = a.shape
    n = b.shape[1]
    if (m < 2 * TALL_PANEL_ROWS or not TALL_MIN_FLOPS <= m * k * n < _blas.PARALLEL_MIN_FLOPS
            or a.dtype != _F32 or b.dtype != _F32 or _blas.usable_workers() < 2):
        return _blas.matmul(a, b)
    out = np.empty((m, n), _F32)
    blocks = -(-m // TALL_PANEL_ROWS)

    def run_block(i):
        lo = i * TALL_PANEL_ROWS
        hi = lo + TALL_PANEL_ROWS
        np.matmul(a[lo:hi], b, out=out[lo:hi])
    _blas.run_blocks(run_block, blocks)
    return out


# A stack of products sharing batch labels (attention's [batch, heads] stacks of [queries, keys]) is
# computed by np.matmul on the transposed views as they are, in blocks of the first batch label over the
# worker threads, each product into its place in the einsum's output (a strided view of it when the
# output's order interleaves batch and free labels): flattening the batch labels would copy both
# operands whenever they are not adjacent in memory (0.15-0.3 ms per 1.6 MB operand here), and
# writing [batch, heads, queries, d] then transposing to [batch, queries, heads, d] copies the result
# (0.9 ms for an attention output). Each matrix is still one whole sgemm call, as in one flattened
# np.matmul, and sgemm's bits do not depend on the leading dimensions, so the bits are the same.
def _stacked_product(a, b, out=None):
    """np.matmul(a, b) for stacks with one batch shape, into `out` (a view of batch + (m, n)) if given."""
    batch = a.shape[:-2]
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if (b.shape[:-2] != batch or a.dtype != b.dtype or a.dtype.kind != "f" or batch[0] < 2
            or int(np.prod(batch, dtype=np.int64)) * m * k * n < _blas.PARALLEL_MIN_FLOPS
            or _blas.usable_workers() < 2):
        product = _blas.matmul(a, b)
        if out is None:
            return product
        out[...] = product
        return out
    if out is None:
        out = np.empty(batch + (m, n), a.dtype)
    step = -(-batch[0] // _blas.BLOCKS)

    def run_block(i):
        lo, hi = i * step, min(batch[0], (i + 1) * step)
        np.matmul(a[lo:hi], b[lo:hi], out=out[lo:hi])
    _blas.run_blocks(run_block, -(-batch[0] // step))
    return out


def _blas_ready(m):
    """Whether np.matmul can hand the innermost 2-D matrices of `m` to BLAS as they are laid out."""
    item = m.itemsize
    s_row, s_col = m.strides[-2], m.strides[-1]
    rows, cols = m.shape[-2], m.shape[-1]
    if s_col == item and s_row % item == 0 and s_row >= max(cols, 1) * item:
        return True
    return s_row == item and s_col % item == 0 and s_col >= max(rows, 1) * item


def _matrix_stack(x, perm, batch_shape, rows, cols):
    """x transposed by `perm` and viewed as `batch_shape + (rows, cols)`, copied only if BLAS needs it."""
    m = x.transpose(perm).reshape(batch_shape + (rows, cols))
    return m if _blas_ready(m) else np.ascontiguousarray(m)


def _pair_step(x_labels, y_labels, keep, sizes, order=None):
    """Contracts two operands; returns (step, result labels). `keep` holds the labels still needed
    (the output's and the remaining operands'); `order`, on the last step, is the output's labels, so the
    result's batch and free labels come out in that order and the final transpose is a view or nothing."""
    rank_of = order.index if order is not None else None
    batch = [c for c in x_labels if c in y_labels and c in keep]
    contracted = [c for c in x_labels if c in y_labels and c not in keep]
    free_x = [c for c in x_labels if c not in y_labels]
    free_y = [c for c in y_labels if c not in x_labels]
    if order is not None:
        batch.sort(key=rank_of)
        free_x.sort(key=rank_of)
        free_y.sort(key=rank_of)
        # The output reads (batch, y's free, x's free): swap the operands so no transpose is left over.
        swap = bool(free_x and free_y) and rank_of(free_y[0]) < rank_of(free_x[0])
    else:
        swap = False
    batch_shape = tuple(sizes[c] for c in batch)
    rows = int(np.prod([sizes[c] for c in free_x], dtype=np.int64))
    cols = int(np.prod([sizes[c] for c in free_y], dtype=np.int64))
    depth = int(np.prod([sizes[c] for c in contracted], dtype=np.int64))
    perm_x = [x_labels.index(c) for c in batch + free_x + contracted]
    perm_y = [y_labels.index(c) for c in batch + contracted + free_y]
    result_labels = batch + free_x + free_y
    result_shape = batch_shape + tuple(sizes[c] for c in free_x + free_y)
    if not contracted:
        # No sum: a broadcast multiplication (outer or Hadamard product) needs no GEMM.
        x_view = (batch_shape + tuple(sizes[c] for c in free_x) + (1,) * len(free_y))
        y_view = (batch_shape + (1,) * len(free_x) + tuple(sizes[c] for c in free_y))

        def step(x, y):
            return np.multiply(x.transpose(perm_x).reshape(x_view), y.transpose(perm_y).reshape(y_view))
    elif rows == 1 and cols == 1:
        # Batched dot products: one C loop beats a GEMM call per batch entry.
        equation = _pair_equation(x_labels, y_labels, result_labels)

        def step(x, y):
            return np.einsum(equation, x, y)
    else:
        if swap:   # the product y·x: its rows are y's free labels
            result_labels = batch + free_y + free_x
            result_shape = batch_shape + tuple(sizes[c] for c in free_y + free_x)
            first = ([x_labels.index(c) for c in batch + contracted + free_x], (depth, rows))
            second = ([y_labels.index(c) for c in batch + free_y + contracted], (cols, depth))
            first, second = second, first
        else:
            first, second = (perm_x, (rows, depth)), (perm_y, (depth, cols))
        (perm_a, dims_a), (perm_b, dims_b) = first, second

        if not batch_shape:
            def step(x, y):
                a, b = (y, x) if swap else (x, y)
                return _tall_product(_matrix_stack(a, perm_a, batch_shape, *dims_a),
                                     _matrix_stack(b, perm_b, batch_shape, *dims_b)).reshape(result_shape)
        else:
            def step(x, y, out=None):
                a, b = (y, x) if swap else (x, y)
                return _stacked_product(_matrix_stack(a, perm_a, batch_shape, *dims_a),
                                        _matrix_stack(b, perm_b, batch_shape, *dims_b), out).reshape(result_shape)
            step.single_free_labels = len(free_x) == 1 and len(free_y) == 1
    return step, result_labels


def _pair_equation(x_labels, y_labels, out_labels):
    return f"{''.join(x_labels)},{''.join(y_labels)}->{''.join(out_labels)}"


def _explicit_terms(equation, shapes):
    """The equation with each ellipsis written as letters (right-aligned, as broadcasting aligns), plus
    each label's size; a size-1 ellipsis dim broadcast against a larger one is dropped from its operand
    (listed in `squeeze`). None when the labels run out."""
    terms, out = _parse_equation(equation)
    used = set("".join(terms) + out)
    spare = [c for c in _string.ascii_letters if c not in used]
    widest = max((len(s) - len(t.replace("...", "")) for t, s in zip(terms, shapes) if "..." in t), default=0)
    if widest > len(spare):
        return None
    dots = spare[:widest]
    sizes, labelled = {}, []
    for term, shape in zip(terms, shapes):
        before, has_dots, after = term.partition("...")
        own = dots[widest - (len(shape) - len(before) - len(after)):] if has_dots else []
        labels = list(before) + own + list(after)
        labelled.append(labels)
        for c, d in zip(labels, shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = d
    before, _, after = out.partition("...")
    out_labels = list(before) + (dots if "..." in out else []) + list(after)
    squeeze = [tuple(k for k, (c, d) in enumerate(zip(labels, shape)) if d == 1 and sizes[c] != 1)
               for labels, shape in zip(labelled, shapes)]
    labelled = [[c for k, c in enumerate(labels) if k not in drop] for labels, drop in zip(labelled, squeeze)]
    return labelled, out_labels, sizes, squeeze


def _make_plan(equation, shapes):
    """A function of the operand arrays computing the einsum, or None to leave it to np.einsum (one
    operand: a transpose or a sum, which np.einsum does without copying)."""
    if len(shapes) < 2:
        return None
    explicit = _explicit_terms(equation, shapes)
    if explicit is None:
        return None
    terms, out_labels, sizes, squeeze = explicit
    # Labels one operand holds alone (summed away) or twice (diagonals) are settled on that operand first.
    prepare = []
    for i, labels in enumerate(terms):
        others = set(out_labels).union(*(set(t) for j, t in enumerate(terms) if j != i))
        reduced = [c for k, c in enumerate(labels) if c in others and c not in labels[:k]]
        if reduced != labels:
            prepare.append((i, _pair_equation(labels, [], reduced).replace(",->", "->")))
            terms[i] = reduced
    path = _contraction_order(terms, sizes)
    steps = []
    live = list(terms)
    for n, (i, j) in enumerate(path):
        x_labels, y_labels = live[i], live[j]
        rest = [t for k, t in enumerate(live) if k not in (i, j)]
        keep = set(out_labels).union(*(set(t) for t in rest))
        last = n == len(path) - 1
        step, labels = _pair_step(x_labels, y_labels, keep, sizes, out_labels if last else None)
        steps.append((i, j, step))
        live = rest + [labels]
    final_perm = [live[0].index(c) for c in out_labels]
    if final_perm == list(range(len(final_perm))):
        final_perm = None
    # A last product whose result would be transposed into the output's order writes there directly.
    into_output = final_perm is not None and getattr(steps[-1][2], "single_free_labels", False)
    if into_output:
        out_shape = tuple(sizes[c] for c in out_labels)
        result_order = list(np.argsort(final_perm))

    def run(arrays):
        arrays = list(arrays)
        for i, drop in enumerate(squeeze):
            if drop:
                arrays[i] = arrays[i].squeeze(drop)
        for i, subscripts in prepare:
            arrays[i] = np.einsum(subscripts, arrays[i])
        for n, (i, j, step) in enumerate(steps):
            x, y = arrays[i], arrays[j]
            arrays = [a for k, a in enumerate(arrays) if k not in (i, j)]
            if into_output and n == len(steps) - 1:
                final = np.empty(out_shape, np.result_type(x, y))
                view = final.transpose(result_order)
                if _blas_ready(view):
                    step(x, y, view)
                    return final
            arrays.append(step(x, y))
        result = arrays[0]
        return result if final_perm is None else result.transpose(final_perm)

    return run


def _contraction_order(terms, sizes):
    """Pairs of positions (in the shrinking operand list, the product appended last), as np.einsum_path
    orders them: the exhaustive search for up to four operands, the greedy one beyond."""
    if len(terms) == 2:
        return [(0, 1)]
    equation = ",".join("".join(t) for t in terms)
    stand_ins = [np.broadcast_to(np.zeros((), np.float32), tuple(sizes[c] for c in t)) for t in terms]
    path, _ = np.einsum_path(equation, *stand_ins, optimize="optimal" if len(terms) <= 4 else "greedy")
    pairs = [tuple(sorted(p)) for p in path[1:]]
    if any(len(p) != 2 for p in pairs):  # NumPy found no order better than all at once: go left to right
        return [(0, 1)] * (len(terms) - 1)
    return pairs


def _einsum_plan(equation, shapes):
    key = (equation, shapes)
    plan = _PLANS.get(key, False)
    if plan is False:
        if len(_PLANS) >= _PLAN_LIMIT:
            _PLANS.clear()
        plan = _PLANS[key] = _make_plan(equation, shapes)
    return plan


_WIDENED = {_BF16: np.float32, np.dtype(np.float16): np.float32}   # no BLAS for these: computed in float32


def _einsum_kernel(*arrays, equation):
    shapes = tuple(a.shape for a in arrays)
    plan = _PLANS.get((equation, shapes), False)
    if plan is False:  # first time for these shapes: check them (raising TensorFlow's errors), then plan
        _einsum_shape(equation, shapes, static=False)
        plan = _einsum_plan(equation, shapes)
    dtype = arrays[0].dtype
    wide = _WIDENED.get(dtype)
    if wide is not None:
        arrays = [a.astype(wide) for a in arrays]
    result = np.asarray(np.einsum(equation, *arrays) if plan is None else plan(arrays))
    if not result.flags.c_contiguous:  # the product viewed in the output's order: give later ops rows
        result = result.copy()
    return result.astype(dtype, copy=False)


def _infer_einsum(inputs, attrs):
    shapes = [None if t.shape.rank is None else t.shape.as_list() for t in inputs]
    dims = _einsum_shape(attrs["equation"], shapes, static=True)
    if all(s is not None and None not in s for s in shapes):  # plan the contraction while tracing
        _einsum_plan(attrs["equation"], tuple(tuple(s) for s in shapes))
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
    attrs = {"equation": equation.replace(" ", "")}
    graph = _state.graph
    if graph is None:
        return apply(EINSUM, tuple(tensors), attrs, "Einsum")
    with graph.name_scope(name or "einsum"):   # TensorFlow's node is `einsum/Einsum`
        return apply(EINSUM, tuple(tensors), attrs, "Einsum")


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
