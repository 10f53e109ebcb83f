"""A concrete function held as an attribute is a SavedModel child of kind `bare_concrete_function`, as
TensorFlow 2.21 writes it: loaded back as a function called positionally."""
import numpy as np

import tensorflux as tf
from tensorflux._src.io.saved_model.load import read_saved_model


def test_a_concrete_function_attribute_round_trips(tmp_path):
    module = tf.Module()
    module.scale = tf.Variable(3.0)
    module.cf = tf.function(lambda x: x * module.scale + 1.0).get_concrete_function(tf.TensorSpec([2]))
    path = str(tmp_path / "bare")
    tf.saved_model.save(module, path)
    nodes = read_saved_model(path).meta_graphs[0].object_graph_def.nodes
    bare = [n.bare_concrete_function for n in nodes if n.WhichOneof("kind") == "bare_concrete_function"]
    assert [(list(b.argument_keywords), b.allowed_positional_arguments) for b in bare] == [(["x"], 1)]
    loaded = tf.saved_model.load(path)
    np.testing.assert_array_equal(loaded.cf(tf.constant([1.0, 2.0])).numpy(), [4.0, 7.0])
    loaded.scale.assign(0.5)                   # the loaded function reads the loaded variable
    np.testing.assert_array_equal(loaded.cf(tf.constant([2.0, 4.0])).numpy(), [2.0, 3.0])
