"""Sweep table, part 6: op families added after the first recording -- SparseTensor ops (`tf.sparse`),
RaggedTensor and ragged string ops (`tf.ragged`, `tf.strings`), and the newer `tf.image` box ops.

The sparse cases build a SparseTensor from three tensor slots (indices, values, dense shape), so a
malformed slot is caught by the SparseTensor constructor or by the op, as in TensorFlow.
"""
import numpy as np

from sweep import F, Case, P, T

IDX = np.array([[0, 1], [1, 0]], np.int64)
VAL = F((2,))
SHAPE = np.array([2, 3], np.int64)
STRINGS = np.array(["a b", "c d e"])
BOXES = np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 2.0, 1.0, 3.0]], np.float32)
SCORES = np.array([0.9, 0.8, 0.7], np.float32)


def _sp(tf, i, v, s):
    return tf.sparse.SparseTensor(i, v, s)


def _sparse(op, fn, **extra):
    return Case(op, lambda tf, i, v, s, **kw: fn(tf, _sp(tf, i, v, s), **kw), i=T("int", IDX), v=T("float", VAL),
                s=T("int", SHAPE), **extra)


CASES = [
    _sparse("SparseToDense", lambda tf, sp: tf.sparse.to_dense(sp)),
    _sparse("SparseReorder", lambda tf, sp: tf.sparse.reorder(sp)),
    _sparse("SparseReshape", lambda tf, sp, shape: tf.sparse.reshape(sp, shape), shape=P("shape", [3, 2])),
    _sparse("SparseAdd", lambda tf, sp: tf.sparse.add(sp, sp)),
    _sparse("SparseTensorDenseAdd", lambda tf, sp, dense: tf.sparse.add(sp, dense), dense=T("float", F((2, 3)))),
    _sparse("SparseTensorDenseMatMul", lambda tf, sp, dense: tf.sparse.sparse_dense_matmul(sp, dense),
            dense=T("float", F((3, 2)))),
    _sparse("SparseSparseMaximum", lambda tf, sp: tf.sparse.maximum(sp, sp)),
    _sparse("SparseSparseMinimum", lambda tf, sp: tf.sparse.minimum(sp, sp)),
    _sparse("SparseReduceMax", lambda tf, sp, axis: tf.sparse.reduce_max(sp, axis=axis), axis=P("axis", 1)),
    _sparse("SparseReduceMaxSparse", lambda tf, sp, axis: tf.sparse.reduce_max(sp, axis=axis, output_is_sparse=True),
            axis=P("axis", 1)),
    _sparse("SparseReduceSumSparse", lambda tf, sp, axis: tf.sparse.reduce_sum(sp, axis=axis, output_is_sparse=True),
            axis=P("axis", 1)),
    _sparse("SparseReduceSum", lambda tf, sp, axis: tf.sparse.reduce_sum(sp, axis=axis), axis=P("axis", 1)),
    _sparse("SparseFillEmptyRows", lambda tf, sp: tf.sparse.fill_empty_rows(sp, 0.0)),
    _sparse("SparseConcat", lambda tf, sp: tf.sparse.concat(0, [sp, sp])),
    _sparse("SparseSlice", lambda tf, sp, size: tf.sparse.slice(sp, [0, 0], size), size=P("ints", [1, 2])),
    Case("SparseBincount", lambda tf, i, v, s: tf.sparse.bincount(tf.sparse.SparseTensor(i, v, s)),
         i=T("int", IDX), v=T("int", np.array([1, 3], np.int32)), s=T("int", SHAPE)),
    Case("SparseCrossV2", lambda tf, a, b: tf.sparse.cross([a, b]), a=T("string", np.array([["a"], ["b"]])),
         b=T("string", np.array([["c"], ["d"]]))),
    Case("SparseCrossHashed", lambda tf, a, b, n: tf.sparse.cross_hashed([a, b], num_buckets=n),
         a=T("string", np.array([["a"], ["b"]])), b=T("string", np.array([["c"], ["d"]])), n=P("size", 10)),
    Case("RaggedBincount", lambda tf, v, s: tf.math.bincount(tf.RaggedTensor.from_row_splits(v, s), axis=-1),
         v=T("int", np.array([1, 3, 0], np.int32)), s=T("int", np.array([0, 2, 3], np.int64))),
    Case("RaggedRange", lambda tf, starts, limits: tf.ragged.range(starts, limits),
         starts=T("int", np.array([0, 2], np.int32)), limits=T("int", np.array([3, 5], np.int32))),
    Case("RaggedReduceJoin", lambda tf, s: tf.strings.reduce_join(tf.strings.split(s), axis=1),
         s=T("string", STRINGS)),
    Case("BytesSplit", lambda tf, s: tf.strings.bytes_split(s), s=T("string", STRINGS)),
    Case("StringNGrams", lambda tf, s, width: tf.strings.ngrams(s, width), s=T("string", np.array(["a", "b", "c"])),
         width=P("size", 2)),
    Case("StringSplitV2", lambda tf, s: tf.strings.split(s), s=T("string", STRINGS)),
    Case("UnicodeDecodeWithOffsets", lambda tf, s: tf.strings.unicode_decode_with_offsets(s, "UTF-8"),
         s=T("string", STRINGS)),
    Case("UnicodeEncode", lambda tf, codes: tf.strings.unicode_encode(codes, "UTF-8"),
         codes=T("int", np.array([[72, 105], [104, 105]], np.int32))),
    Case("UnicodeTranscode", lambda tf, s: tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"),
         s=T("string", STRINGS)),
    Case("UnsortedSegmentJoin", lambda tf, s, ids, n: tf.strings.unsorted_segment_join(s, ids, n),
         s=T("string", STRINGS), ids=T("int", np.array([1, 0], np.int32)), n=P("size", 2)),
    Case("CropAndResize", lambda tf, image, boxes, size: tf.image.crop_and_resize(image, boxes, [0], size),
         image=T("float", F((1, 4, 4, 1))), boxes=T("float", np.array([[0.0, 0.0, 1.0, 1.0]], np.float32)),
         size=P("ints", [2, 2])),
    Case("NonMaxSuppressionV5", lambda tf, boxes, scores, n: tf.image.non_max_suppression_with_scores(
        boxes, scores, n), boxes=T("float", BOXES), scores=T("float", SCORES), n=P("size", 2)),
    Case("NonMaxSuppressionWithOverlaps", lambda tf, overlaps, scores, n: tf.image.non_max_suppression_overlaps(
        overlaps, scores, n), overlaps=T("float", F((3, 3))), scores=T("float", SCORES), n=P("size", 2)),
    Case("CombinedNonMaxSuppression", lambda tf, boxes, scores, n: tf.image.combined_non_max_suppression(
        boxes, scores, n, n), boxes=T("float", BOXES.reshape(1, 3, 1, 4)), scores=T("float", SCORES.reshape(1, 3, 1)),
         n=P("size", 2)),
]
