"""SavedModels with composite (tf.SparseTensor / tf.RaggedTensor) inputs and outputs, both ways with real
TensorFlow (runs only when TENSORFLOW_PYTHON names an interpreter with it): TensorFlow loads and calls
tensorflux's functions and signatures with equal results, and tensorflux loads TensorFlow's."""
import inspect

import numpy as np

import tensorflux as tf

from _tensorflow_side import run_tensorflow

# The same module and calls run on both sides: defined here, and sent to TensorFlow as their source text.
class Composites(tf.Module):
    @tf.function(input_signature=[tf.SparseTensorSpec([None, 3], tf.float32)])
    def sparse(self, s):
        return {"dense": tf.sparse.to_dense(s), "same": s}

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def ragged(self, r):
        return r * 2.0

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
    def make(self, x):
        lengths = tf.stack([tf.constant(1, tf.int64), tf.size(x, out_type=tf.int64) - 1])
        return {"rg": tf.RaggedTensor.from_row_lengths(x, lengths), "n": tf.size(x)}


def sparse_json(s):
    return {"indices": s.indices.numpy().tolist(), "values": s.values.numpy().tolist(),
            "dense_shape": s.dense_shape.numpy().tolist()}


def calls(m):
    """Every function and signature of a loaded Composites, called; what they return as JSON values."""
    sp = tf.sparse.from_dense(tf.constant([[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]]))
    out = m.sparse(sp)
    made = m.make(tf.constant([1, 2, 3], tf.int64))
    sig = m.signatures
    ragged_sig = sig["ragged"](r=tf.constant([1.0, 2.0, 3.0]), r_1=tf.constant([0, 1, 3], tf.int64))
    sparse_sig = sig["sparse"](s=tf.constant([[0, 2]], tf.int64), s_1=tf.constant([5.0]),
                               s_2=tf.constant([1, 3], tf.int64))
    return {"ragged": m.ragged(tf.ragged.constant([[1.0], [2.0, 3.0]])).to_list(),
            "dense": out["dense"].numpy().tolist(), "same": sparse_json(out["same"]),
            "make": [made["rg"].to_list(), int(made["n"])],
            "ragged_sig": ragged_sig["output_0"].to_list(),
            "sparse_sig": [sparse_sig["dense"].numpy().tolist(), sparse_json(sparse_sig["same"])],
            "make_sig": sig["make"](x=tf.constant([4, 5], tf.int64))["rg"].to_list(),
            "inputs": {k: sorted(v.structured_input_signature[1]) for k, v in sig.items()},
            "outputs": {k: {n: type(s).__name__ for n, s in v.structured_outputs.items()} for k, v in sig.items()}}


_SHARED = "\n\n".join(inspect.getsource(x) for x in (Composites, sparse_json, calls))
_TF_LOAD = "import json, sys, tensorflow as tf\n" + _SHARED + """
print(json.dumps(calls(tf.saved_model.load(sys.argv[1]))))
"""
_TF_SAVE = "import json, sys, tensorflow as tf\n" + _SHARED + """
m = Composites()
tf.saved_model.save(m, sys.argv[1], signatures={"sparse": m.sparse, "ragged": m.ragged, "make": m.make})
print(json.dumps(calls(tf.saved_model.load(sys.argv[1]))))
"""

EXPECTED = {
    "ragged": [[2.0], [4.0, 6.0]],
    "dense": [[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]],
    "same": {"indices": [[0, 0], [0, 2], [1, 2]], "values": [1.0, 2.0, 4.0], "dense_shape": [2, 3]},
    "make": [[[1], [2, 3]], 3],
    "ragged_sig": [[2.0], [4.0, 6.0]],
    "sparse_sig": [[[0.0, 0.0, 5.0]], {"indices": [[0, 2]], "values": [5.0], "dense_shape": [1, 3]}],
    "make_sig": [[4], [5]],
    "inputs": {"make": ["x"], "ragged": ["r", "r_1"], "sparse": ["s", "s_1", "s_2"]},
    "outputs": {"make": {"n": "TensorSpec", "rg": "RaggedTensorSpec"},
                "ragged": {"output_0": "RaggedTensorSpec"},
                "sparse": {"dense": "TensorSpec", "same": "SparseTensorSpec"}},
}


def test_tensorflow_loads_tensorflux_composite_functions_and_signatures(tmp_path):
    module = Composites()
    path = str(tmp_path / "ours")
    tf.saved_model.save(module, path, signatures={"sparse": module.sparse, "ragged": module.ragged,
                                                  "make": module.make})
    got = run_tensorflow(_TF_LOAD, path)
    assert got == EXPECTED
    assert calls(tf.saved_model.load(path)) == EXPECTED


def test_tensorflux_loads_tensorflow_composite_functions_and_signatures(tmp_path):
    path = str(tmp_path / "theirs")
    theirs = run_tensorflow(_TF_SAVE, path)
    assert theirs == EXPECTED
    assert calls(tf.saved_model.load(path)) == EXPECTED
    np.testing.assert_array_equal(tf.saved_model.load(path).ragged(tf.ragged.constant([[3.0]])).flat_values.numpy(),
                                  [6.0])
