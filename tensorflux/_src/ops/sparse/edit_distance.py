"""`tf.edit_distance`: the Levenshtein distance between the sequences of two SparseTensors. Each position of
the leading dimensions holds one sequence (its entries ordered by the last index); the result is a float32
tensor over the leading dimensions (the larger of the two shapes), divided by the truth's length with
`normalize` (a position with no truth gives inf, or 0 when the hypothesis is empty too)."""
import numpy as np

from ...framework import errors
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..registry import OpDef, apply, dtype_error_name
from .sparse_tensor import SparseTensor

__all__ = ["edit_distance"]


def _sequences(indices, values):
    rows = {}
    for position, value in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
        rows.setdefault(position[:-1], []).append(value)
    return rows


def _levenshtein(a, b):
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _edit_distance_kernel(h_indices, h_values, h_shape, t_indices, t_values, t_shape, normalize):
    if len(h_shape) != len(t_shape):
        raise errors.InvalidArgumentError(None, None, f"hypothesis_shape and truth_shape must have the same rank: "
                                                      f"{len(h_shape)} vs {len(t_shape)}")
    for which, indices, shape in (("hypothesis", h_indices, h_shape), ("truth", t_indices, t_shape)):
        if (shape < 0).any() or (indices < 0).any():   # TensorFlow's kernel rejects them; never a value
            raise errors.InvalidArgumentError(None, None, f"{which} indices and shape must be non-negative: "
                                                          f"shape {shape.tolist()}")
    out_shape = tuple(int(max(a, b)) for a, b in zip(h_shape[:-1], t_shape[:-1]))
    out = np.zeros(out_shape, dtype=np.float32)
    hypotheses, truths = _sequences(h_indices, h_values), _sequences(t_indices, t_values)
    for position in set(hypotheses) | set(truths):
        hyp, truth = hypotheses.get(position, []), truths.get(position, [])
        distance = np.float32(_levenshtein(hyp, truth))
        if normalize:
            distance = distance / np.float32(len(truth)) if truth else np.float32(np.inf)
        out[position] = distance
    return out


def _edit_distance_infer(inputs, attrs):
    rank = inputs[2].shape.num_elements() if inputs[2].shape.is_fully_defined() else None
    return [(_dt.float32, TensorShape(None if rank is None else [None] * (rank - 1)))]


EDIT_DISTANCE = OpDef("EditDistance", _edit_distance_infer, _edit_distance_kernel,
                      input_names=("hypothesis_indices", "hypothesis_values", "hypothesis_shape", "truth_indices",
                                   "truth_values", "truth_shape"))


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """`tf.edit_distance(hypothesis, truth, normalize=True)`: per-sequence Levenshtein distances."""
    if not isinstance(hypothesis, SparseTensor):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor):
        raise TypeError("Truth must be a SparseTensor.")
    if truth.values.dtype is not hypothesis.values.dtype:
        raise errors.eager_error(
            errors.InvalidArgumentError,
            f"cannot compute EditDistance as input #4(zero-based) was expected to be a "
            f"{dtype_error_name(hypothesis.values.dtype)} tensor but is a {dtype_error_name(truth.values.dtype)} "
            f"tensor", "EditDistance", kernel=False)
    inputs = (hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices, truth.values,
              truth.dense_shape)
    return apply(EDIT_DISTANCE, inputs, {"normalize": bool(normalize)}, name)


API = {"": __all__}
