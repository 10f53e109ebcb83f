"""tf.io.write_graph writes a traced function's GraphDef as protobuf text or binary that parses back."""
import pytest

import tensorflux as tf


def test_write_graph_text_and_binary(tmp_path):
    concrete = tf.function(lambda x: x * 2.0 + 1.0).get_concrete_function(tf.TensorSpec([3], tf.float32))
    path = tf.io.write_graph(concrete.graph, str(tmp_path / "out"), "g.pbtxt")
    assert path == str(tmp_path / "out" / "g.pbtxt")
    text = open(path).read()
    assert 'op: "Placeholder"' in text and "versions" in text
    graph_def = concrete.graph.as_graph_def()
    binary = tf.io.write_graph(graph_def, str(tmp_path), "g.pb", as_text=False)
    parsed = type(graph_def)()
    parsed.ParseFromString(open(binary, "rb").read())
    assert parsed == graph_def
    from google.protobuf import text_format
    assert text_format.Parse(text, type(graph_def)()) == graph_def


def test_write_graph_rejects_other_objects(tmp_path):
    with pytest.raises(TypeError, match="GraphDef"):
        tf.io.write_graph(object(), str(tmp_path), "x.pbtxt")
