"""`tf.SparseTensor` and the `tf.sparse` ops.

A SparseTensor is three tensors: `indices` (int64 [N, rank], one row per stored value), `values` ([N])
and `dense_shape` (int64 [rank]). It is a composite (framework/composite.py), so it crosses tf.function
boundaries as those three tensors. The ops are OpDefs with TensorFlow's op type names (SparseToDense,
SparseReorder, SparseTensorDenseMatMul, …) whose NumPy kernels work on the components, with gradients for
the values (and dense operands) where TensorFlow has them.

sparse_tensor.py   the SparseTensor class, SparseTensorSpec, component conversion helpers
conversion.py      from_dense, to_dense, reorder, reshape, reset_shape, eye, to_indicator, fill_empty_rows
arith.py           add, maximum/minimum, sparse_dense_matmul, reduce_sum/max, softmax, map_values, segments
structure.py       concat, slice, split, retain, transpose, expand_dims, mask, bincount, cross, cross_hashed
embedding.py       tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse (their input is sparse)
"""
