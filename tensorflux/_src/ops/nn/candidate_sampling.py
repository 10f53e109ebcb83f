"""Candidate sampling for large output spaces: the samplers of `tf.random` (all, uniform, log-uniform,
fixed-unigram and learned-unigram candidates, as TensorFlow's stateful *CandidateSampler ops with seed/seed2), `tf.nn.
compute_accidental_hits` (ComputeAccidentalHits), and the sampled losses `tf.nn.nce_loss` and
`tf.nn.sampled_softmax_loss` built on them as TensorFlow builds them.

Expected counts follow TensorFlow's formula: p * num_sampled when every try was kept, else
1 - (1 - p) ** num_tries (sampling without replacement needs `num_tries` draws). The draws themselves come
from NumPy's Philox generator keyed by the op's seeds, so a seeded sampler repeats its sequence, but the
candidates differ from TensorFlow's (whose sampler RNG is not reproduced here); with `sampled_values`
given, the losses equal TensorFlow's.
"""
import collections
import threading

import numpy as np

from ...framework import errors
from ...framework.tensor import Tensor
from ...types import dtypes as _dt
from ...types.shape import TensorShape
from ..convert import convert_to_tensor
from ..registry import OpDef, apply
from ..shapes import shaping as _shaping
from ..shapes import shape_ops as _shape_ops
from ..shapes import creators as _creators
from ..math import arith as _math
from ..math import reduce as _reduce
from ..array import gather as _gather
from ..array import join as _join
from ..array import scatter as _scatter
from ..random import seeds as _seeds
from ..linalg.matrix import matmul
from .losses import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits

CandidateSamplerOutput = collections.namedtuple("CandidateSampler",
                                                ["sampled_candidates", "true_expected_count",
                                                 "sampled_expected_count"])

_streams = {}
_streams_lock = threading.Lock()


def _generator(seed, seed2):
    """The op's random stream: one per (seed, seed2) so a seeded sampler continues its sequence."""
    if not seed and not seed2:
        return np.random.Generator(np.random.Philox())
    with _streams_lock:
        key = (int(seed), int(seed2))
        if key not in _streams:
            _streams[key] = np.random.Generator(np.random.Philox(key=int(seed) << 32 | int(seed2)))
        return _streams[key]


def _expected(p, num_sampled, tries):
    if tries == num_sampled:
        return p * num_sampled
    return -np.expm1(tries * np.log1p(-p))


def _draw(probabilities, num_sampled, unique, rng):
    """(candidates, number of tries) drawn from `probabilities` (with rejection of repeats if `unique`)."""
    if not unique:
        return rng.choice(len(probabilities), size=num_sampled, p=probabilities), num_sampled
    chosen, seen, tries = [], set(), 0
    while len(chosen) < num_sampled:
        value = int(rng.choice(len(probabilities), p=probabilities))
        tries += 1
        if value not in seen:
            seen.add(value)
            chosen.append(value)
    return np.array(chosen), tries


def _sampler_kernel(distribution):
    def kernel(true_classes, num_true, num_sampled, unique, range_max, seed=0, seed2=0, **params):
        if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
            raise errors.InvalidArgumentError(None, None, f"true_classes must be a matrix [batch, {num_true}]")
        if unique and num_sampled > range_max:
            raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
        p = distribution(range_max, **params)
        sampled, tries = _draw(p, num_sampled, unique, _generator(seed, seed2))
        classes = np.clip(true_classes, 0, range_max - 1)
        true_counts = np.where((true_classes >= 0) & (true_classes < range_max),
                               _expected(p[classes], num_sampled, tries), 0.0)
        return (sampled.astype(np.int64), true_counts.astype(np.float32),
                _expected(p[sampled], num_sampled, tries).astype(np.float32))
    return kernel


def _uniform(range_max):
    return np.full(range_max, 1.0 / range_max)


def _log_uniform(range_max):
    k = np.arange(range_max, dtype=np.float64)
    return (np.log(k + 2.0) - np.log(k + 1.0)) / np.log(range_max + 1.0)


def _fixed_unigram(range_max, unigrams=(), distortion=1.0, num_reserved_ids=0):
    weights = np.zeros(range_max)
    values = np.asarray(unigrams, np.float64) ** distortion
    if len(values) + num_reserved_ids != range_max:
        raise errors.InvalidArgumentError(
            None, None, f"range_max must equal the number of unigrams plus num_reserved_ids: {range_max} vs "
                        f"{len(values)} + {num_reserved_ids}")
    weights[num_reserved_ids:] = values
    return weights / weights.sum()


def _infer_sampler(inputs, attrs):
    batch = inputs[0].shape._dims[0] if inputs[0].shape.rank == 2 else None
    n = attrs["num_sampled"]
    return [(_dt.int64, TensorShape([n])), (_dt.float32, TensorShape([batch, attrs["num_true"]])),
            (_dt.float32, TensorShape([n]))]


def _sampler_op(name, distribution):
    op = OpDef(name, _infer_sampler, _sampler_kernel(distribution), stateful=True, input_names=("true_classes",),
               multi=True)
    op.none_grads = True
    return op


_learned_counts = {}  # (range_max, seed, seed2) -> the counts of a LearnedUnigram sampler (its op state)


def _learned_unigram_kernel(true_classes, num_true, num_sampled, unique, range_max, seed=0, seed2=0):
    # TensorFlow's sampler starts every class at weight 1, samples, then adds the batch's true classes.
    with _streams_lock:
        counts = _learned_counts.setdefault((int(range_max), int(seed), int(seed2)), np.ones(range_max))
        probabilities = counts / counts.sum()
    result = _sampler_kernel(lambda n: probabilities)(true_classes, num_true, num_sampled, unique, range_max, seed,
                                                       seed2)
    with _streams_lock:
        valid = true_classes[(true_classes >= 0) & (true_classes < range_max)]
        np.add.at(counts, valid, 1.0)
    return result


UNIFORM_SAMPLER = _sampler_op("UniformCandidateSampler", _uniform)
LEARNED_UNIGRAM_SAMPLER = OpDef("LearnedUnigramCandidateSampler", _infer_sampler, _learned_unigram_kernel,
                                stateful=True, input_names=("true_classes",), multi=True)
LEARNED_UNIGRAM_SAMPLER.none_grads = True
LOG_UNIFORM_SAMPLER = _sampler_op("LogUniformCandidateSampler", _log_uniform)
FIXED_UNIGRAM_SAMPLER = _sampler_op("FixedUnigramCandidateSampler", _fixed_unigram)


def _sample(op, true_classes, num_true, num_sampled, unique, range_max, seed, name, **extra):
    true_classes = _math.cast(true_classes if isinstance(true_classes, Tensor) else convert_to_tensor(true_classes),
                              _dt.int64)
    seed1, seed2 = _seeds.get_seed(seed)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max), "seed": seed1 or 0, "seed2": seed2 or 0, **extra}
    return CandidateSamplerOutput(*apply(op, (true_classes,), attrs, name or op.name))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """`tf.random.uniform_candidate_sampler`: num_sampled classes drawn uniformly from [0, range_max)."""
    return _sample(UNIFORM_SAMPLER, true_classes, num_true, num_sampled, unique, range_max, seed, name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """`tf.random.log_uniform_candidate_sampler`: classes drawn with P(k) = log((k+2)/(k+1)) /
    log(range_max+1) (Zipf-like: small ids are frequent)."""
    return _sample(LOG_UNIFORM_SAMPLER, true_classes, num_true, num_sampled, unique, range_max, seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                                      name=None):
    """`tf.random.learned_unigram_candidate_sampler`: classes drawn in proportion to how often they were
    seen as true classes by this sampler so far (every class starts at one)."""
    return _sample(LEARNED_UNIGRAM_SAMPLER, true_classes, num_true, num_sampled, unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """`tf.random.fixed_unigram_candidate_sampler`: classes drawn with probability proportional to
    unigrams ** distortion (reserved ids first, never drawn); `vocab_file` is not read by tensorflux."""
    if vocab_file:
        raise ValueError("tensorflux's fixed_unigram_candidate_sampler takes `unigrams`, not a vocab_file")
    if num_shards != 1 or shard != 0:
        raise ValueError("tensorflux's fixed_unigram_candidate_sampler does not shard (num_shards=1, shard=0)")
    return _sample(FIXED_UNIGRAM_SAMPLER, true_classes, num_true, num_sampled, unique, range_max, seed, name,
                   unigrams=tuple(float(u) for u in unigrams), distortion=float(distortion),
                   num_reserved_ids=int(num_reserved_ids))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """`tf.random.all_candidate_sampler`: the candidates 0..num_sampled-1, each expected once."""
    true_classes = true_classes if isinstance(true_classes, Tensor) else convert_to_tensor(true_classes)
    sampled = _creators.range(0, int(num_sampled), 1, dtype=_dt.int64)
    true_counts = _creators.ones_like(true_classes, dtype=_dt.float32)
    return CandidateSamplerOutput(sampled, true_counts, _creators.ones([int(num_sampled)], dtype=_dt.float32))


# -- ComputeAccidentalHits ----------------------------------------------------------------------------

def _accidental_hits_kernel(true_classes, sampled_candidates, num_true, seed=0, seed2=0):
    rows, ids = [], []
    positions = {}
    for j, value in enumerate(sampled_candidates.tolist()):
        positions.setdefault(value, []).append(j)
    for i, row in enumerate(true_classes.tolist()):
        for value in row:
            for j in positions.get(value, ()):
                rows.append(i)
                ids.append(j)
    lowest = np.finfo(np.float32).min
    return (np.array(rows, np.int32), np.array(ids, np.int64), np.full(len(rows), lowest, np.float32))


COMPUTE_ACCIDENTAL_HITS = OpDef(
    "ComputeAccidentalHits",
    lambda i, a: [(_dt.int32, TensorShape([None])), (_dt.int64, TensorShape([None])),
                  (_dt.float32, TensorShape([None]))],
    _accidental_hits_kernel, input_names=("true_classes", "sampled_candidates"), multi=True)
COMPUTE_ACCIDENTAL_HITS.none_grads = True


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """`tf.nn.compute_accidental_hits`: (rows, sample positions, -FLT_MAX weights) where a sampled
    candidate equals one of the row's true classes."""
    true_classes = _math.cast(_tensor(true_classes), _dt.int64)
    sampled = _math.cast(_tensor(sampled_candidates), _dt.int64)
    return apply(COMPUTE_ACCIDENTAL_HITS, (true_classes, sampled), {"num_true": int(num_true)},
                 name or "ComputeAccidentalHits")


def _tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=dtype)


# -- sampled losses ----------------------------------------------------------------------------------

def _sum_rows(x):
    return _reduce.reduce_sum(x, axis=1)


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                            subtract_log_q, remove_accidental_hits, seed):
    """(logits [batch, num_true + num_sampled], labels) of the true and sampled classes, as TensorFlow."""
    if isinstance(weights, (list, tuple)):
        weights = _join.concat([_tensor(w) for w in weights], 0) if len(weights) > 1 else _tensor(weights[0])
    if isinstance(biases, (list, tuple)):
        biases = _join.concat([_tensor(b) for b in biases], 0) if len(biases) > 1 else _tensor(biases[0])
    weights, inputs = _tensor(weights), _tensor(inputs)
    biases = _tensor(biases, weights.dtype)
    labels = _math.cast(_tensor(labels), _dt.int64)
    labels_flat = _shaping.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (_shape_ops.stop_gradient(_tensor(v)) for v in sampled_values)
    sampled = _math.cast(sampled, _dt.int64)
    count = _shape_ops.shape(labels_flat)[0]
    all_ids = _join.concat([labels_flat, sampled], 0)
    all_w = _gather.gather(weights, all_ids)
    all_b = _gather.gather(biases, all_ids)
    true_w, sampled_w = all_w[:count], all_w[count:]
    true_b, sampled_b = all_b[:count], all_b[count:]
    sampled_logits = _math.add(matmul(inputs, sampled_w, transpose_b=True), sampled_b)
    dim = _shape_ops.shape(true_w)[1:2]
    true_w = _shaping.reshape(true_w, _join.concat([convert_to_tensor([-1, num_true]), dim], 0))
    dots = _reduce.reduce_sum(_math.multiply(_shaping.expand_dims(inputs, 1), true_w), axis=-1)
    true_logits = _math.add(_shaping.reshape(dots, [-1, num_true]), _shaping.reshape(true_b, [-1, num_true]))
    if remove_accidental_hits:
        rows, ids, hit_weights = compute_accidental_hits(labels, sampled, num_true)
        indices = _join.stack([_math.cast(rows, _dt.int64), ids], axis=1)
        shape = _join.stack([_math.cast(_shape_ops.shape(labels)[0], _dt.int64),
                             convert_to_tensor(int(num_sampled), dtype=_dt.int64)])
        sampled_logits = _math.add(sampled_logits, _scatter.scatter_nd(
            indices, _math.cast(hit_weights, sampled_logits.dtype), shape))
    if subtract_log_q:
        true_logits = _math.subtract(true_logits, _math.log(_math.cast(true_expected, true_logits.dtype)))
        sampled_logits = _math.subtract(sampled_logits, _math.log(_math.cast(sampled_expected, true_logits.dtype)))
    logits = _join.concat([true_logits, sampled_logits], 1)
    targets = _join.concat([_math.divide(_creators.ones_like(true_logits), float(num_true)),
                            _creators.zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, name="nce_loss"):
    """`tf.nn.nce_loss`: the noise-contrastive estimation loss per example (sigmoid cross-entropy of the
    true and sampled logits, corrected by log expected counts)."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                              sampled_values, True, remove_accidental_hits, None)
    return _sum_rows(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits))


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, seed=None, name="sampled_softmax_loss"):
    """`tf.nn.sampled_softmax_loss`: softmax cross-entropy over the true and num_sampled sampled classes
    (a cheap estimate of the full softmax loss for training)."""
    logits, targets = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                              sampled_values, True, remove_accidental_hits, seed)
    return softmax_cross_entropy_with_logits(labels=_shape_ops.stop_gradient(targets), logits=logits)


API = {
    "random": ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "fixed_unigram_candidate_sampler",
               "learned_unigram_candidate_sampler", "all_candidate_sampler"],
    "nn": ["fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler", "all_candidate_sampler", "compute_accidental_hits", "nce_loss",
           "sampled_softmax_loss"],
}
