"""SavedModels holding TensorFlow's sparse reductions (SparseReduceSum, SparseReduceSumSparse, SparseReduceMax,
SparseReduceMaxSparse, with their `reduction_axes` input), both ways with real TensorFlow (runs only when
TENSORFLOW_PYTHON names an interpreter with it): TensorFlow loads and calls tensorflux's export with
equal results, and tensorflux loads TensorFlow's."""
import inspect

import tensorflux as tf

from _tensorflow_side import run_tensorflow


# The same module and calls run on both sides: defined here, and sent to TensorFlow as their source text.
class Reductions(tf.Module):
    @tf.function(input_signature=[tf.SparseTensorSpec([None, 3, 2], tf.float32)])
    def reduce(self, sp):
        summed = tf.sparse.reduce_sum(sp, axis=[-1, 0], keepdims=True, output_is_sparse=True)
        biggest = tf.sparse.reduce_max(sp, axis=2, output_is_sparse=True)
        return {"sum": tf.sparse.reduce_sum(sp, axis=1), "sum_all": tf.sparse.reduce_sum(sp),
                "sum_sparse": tf.sparse.to_dense(summed), "max": tf.sparse.reduce_max(sp, axis=0),
                "max_sparse": tf.sparse.to_dense(biggest)}


def calls(m):
    sp = tf.sparse.SparseTensor([[0, 1, 0], [0, 2, 1], [1, 0, 1], [1, 2, 1]], [1.0, 2.0, 3.0, 4.0], [2, 3, 2])
    return {k: v.numpy().tolist() for k, v in sorted(m.reduce(sp).items())}


_SHARED = "\n\n".join(inspect.getsource(x) for x in (Reductions, calls))
_TF_LOAD = "import json, sys, tensorflow as tf\n" + _SHARED + """
print(json.dumps(calls(tf.saved_model.load(sys.argv[1]))))
"""
_TF_SAVE = "import json, sys, tensorflow as tf\n" + _SHARED + """
m = Reductions()
tf.saved_model.save(m, sys.argv[1])
print(json.dumps(calls(m)))
"""


def test_tensorflow_loads_tensorflux_sparse_reductions(tmp_path):
    path = str(tmp_path / "ours")
    tf.saved_model.save(Reductions(), path)
    assert run_tensorflow(_TF_LOAD, path) == calls(tf.saved_model.load(path))


def test_tensorflux_loads_tensorflows_sparse_reductions(tmp_path):
    path = str(tmp_path / "theirs")
    theirs = run_tensorflow(_TF_SAVE, path)
    assert calls(tf.saved_model.load(path)) == theirs
