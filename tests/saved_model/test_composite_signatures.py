"""SavedModel functions and signatures whose inputs or outputs are composite tensors (tf.SparseTensor,
tf.RaggedTensor), saved and loaded by tensorflux: the specs are written as TensorFlow's TypeSpecProto, a
signature takes a composite as its component tensors (`r`, `r_1`, TensorFlow's names) and returns
composite outputs as `composite_tensor` TensorInfos; loaded functions take and return composites."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.framework.errors import DataLossError
from tensorflux._src.io.formats import protos
from tensorflux._src.io.saved_model import structures


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


def _saved(tmp_path):
    module = Composites()
    path = str(tmp_path / "composites")
    tf.saved_model.save(module, path, signatures={"sparse": module.sparse, "ragged": module.ragged,
                                                  "make": module.make})
    return module, tf.saved_model.load(path), path


def _assert_ragged_equal(got, want):
    assert isinstance(got, tf.RaggedTensor)
    assert got.to_list() == want.to_list()


def _assert_sparse_equal(got, want):
    assert isinstance(got, tf.SparseTensor)
    for a, b in ((got.indices, want.indices), (got.values, want.values), (got.dense_shape, want.dense_shape)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_loaded_functions_take_and_return_composites(tmp_path):
    module, loaded, _ = _saved(tmp_path)
    ragged = tf.ragged.constant([[1.0], [2.0, 3.0]])
    _assert_ragged_equal(loaded.ragged(ragged), module.ragged(ragged))
    sparse = tf.sparse.from_dense(tf.constant([[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]]))
    got, want = loaded.sparse(sparse), module.sparse(sparse)
    np.testing.assert_array_equal(got["dense"].numpy(), want["dense"].numpy())
    _assert_sparse_equal(got["same"], want["same"])
    made = loaded.make(tf.constant([1, 2, 3], tf.int64))
    assert made["rg"].to_list() == [[1], [2, 3]] and int(made["n"]) == 3


def test_signatures_take_components_and_return_composites(tmp_path):
    _, loaded, _ = _saved(tmp_path)
    ragged = loaded.signatures["ragged"]
    assert ragged.structured_input_signature == (
        (), {"r": tf.TensorSpec([None], tf.float32, "r"), "r_1": tf.TensorSpec([None], tf.int64, "r_1")})
    assert ragged.structured_outputs == {"output_0": tf.RaggedTensorSpec([None, None], tf.float32, 1, tf.int64)}
    out = ragged(r=tf.constant([1.0, 2.0, 3.0]), r_1=tf.constant([0, 1, 3], tf.int64))
    assert out["output_0"].to_list() == [[2.0], [4.0, 6.0]]
    sparse = loaded.signatures["sparse"]
    assert sorted(sparse.structured_input_signature[1]) == ["s", "s_1", "s_2"]
    out = sparse(s=tf.constant([[0, 2]], tf.int64), s_1=tf.constant([5.0]), s_2=tf.constant([1, 3], tf.int64))
    np.testing.assert_array_equal(out["dense"].numpy(), [[0.0, 0.0, 5.0]])
    assert out["same"].values.numpy().tolist() == [5.0]
    made = loaded.signatures["make"]
    assert made.structured_outputs["rg"] == tf.RaggedTensorSpec([2, None], tf.int64, 1, tf.int64)
    assert made(x=tf.constant([4, 5], tf.int64))["rg"].to_list() == [[4], [5]]


def test_signature_def_describes_composite_outputs_as_tensorflow_does(tmp_path):
    _, _, path = _saved(tmp_path)
    saved = protos.load("saved_model").SavedModel()
    with open(f"{path}/saved_model.pb", "rb") as f:
        saved.ParseFromString(f.read())
    signature = saved.meta_graphs[0].signature_def["ragged"]
    assert sorted(signature.inputs) == ["r", "r_1"]
    assert signature.inputs["r_1"].name == "ragged_r_1:0"
    composite = signature.outputs["output_0"].composite_tensor
    assert composite.type_spec.type_spec_class_name == "RaggedTensorSpec"
    assert composite.type_spec.num_flat_components == 2
    assert [c.name for c in composite.components] == ["StatefulPartitionedCall_ragged:0",
                                                      "StatefulPartitionedCall_ragged:1"]
    made = saved.meta_graphs[0].signature_def["make"]
    assert made.outputs["n"].name == "StatefulPartitionedCall_make:0"
    assert [c.name for c in made.outputs["rg"].composite_tensor.components] == [
        "StatefulPartitionedCall_make:1", "StatefulPartitionedCall_make:2"]


@pytest.mark.parametrize("spec", [tf.RaggedTensorSpec([None, None], tf.float32),
                                  tf.RaggedTensorSpec([2, None, 3], tf.int32, 1, tf.int32),
                                  tf.SparseTensorSpec([None, 3], tf.int64)])
def test_composite_specs_round_trip_as_type_spec_protos(spec):
    message = structures.encode(spec)
    assert message.WhichOneof("kind") == "type_spec_value"
    assert structures.decode(message) == spec


def test_unknown_or_malformed_type_specs_are_refused():
    message = structures.encode(tf.SparseTensorSpec([None, 3], tf.float32))
    message.type_spec_value.type_spec_class = 13   # EXTENSION_TYPE_SPEC: never built from a file
    message.type_spec_value.type_spec_class_name = "Evil"
    with pytest.raises(DataLossError, match="does not read the saved TypeSpec"):
        structures.decode(message)
    message = structures.encode(tf.RaggedTensorSpec([None, None], tf.float32))
    message.type_spec_value.type_state.tuple_value.values[2].string_value = "1"
    with pytest.raises(DataLossError, match="RaggedTensorSpec has the state"):
        structures.decode(message)
