"""`tf.RaggedTensor` and the `tf.ragged` ops, plus the string ops whose results are ragged.

A RaggedTensor is `values` partitioned into rows by `row_splits` (nested for several ragged dimensions);
it is a composite (framework/composite.py) whose components are `flat_values` and the row splits of each
level. Its operations are composed of tensorflux's dense ops on those components, so they run eagerly and
inside tf.function, and gradients reach `flat_values`.

ragged_tensor.py   the RaggedTensor class (factories, row-partition views, to_tensor/to_list, repr) and
                   RaggedTensorSpec
indexing.py        rt[...]
ragged_ops.py      tf.ragged: constant, range, boolean_mask, stack, stack_dynamic_partitions,
                   map_flat_values, segment ids <-> row splits; reductions, concat and stack over ragged
dispatch.py        TensorFlow's automatic dispatch: tf.math element-wise ops, reductions, tf.concat and
                   tf.stack accept RaggedTensors; RaggedTensor's Python operators
ragged_strings.py  tf.strings ops returning ragged results: split, bytes_split, unicode_split/decode/encode,
                   ngrams (ops.strings sits below this room)
"""
