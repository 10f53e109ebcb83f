"""Custom gradients through a SavedModel, in TensorFlow's form: IdentityN(ys..., xs...) with a
`_gradient_op_type`, the traced gradient function in the library's `registered_gradients`, and its None
places in the object graph's output signature (what TensorFlow 2.21 writes, recorded below)."""
import numpy as np
import pytest

import tensorflux as tf
from tensorflux._src.io.formats.custom_gradients import place_gradients
from tensorflux._src.io.saved_model.load import read_saved_model


@tf.custom_gradient
def _clip_gradient(value):
    def grad_fn(upstream):
        return tf.clip_by_norm(upstream, 0.5)
    return value, grad_fn


@tf.custom_gradient
def _scaled_pair(a, b):
    def grad_fn(upstream):
        return upstream * 3.0, upstream * -1.0
    return a * b, grad_fn


class _Module(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def clip(self, value):
        return _clip_gradient(value)

    @tf.function(input_signature=[tf.TensorSpec([2]), tf.TensorSpec([2])])
    def pair(self, a, b):
        return tf.reduce_sum(_scaled_pair(a, b))


def _save(tmp_path, **options):
    path = str(tmp_path / "custom_gradient")
    tf.saved_model.save(_Module(), path, options=tf.saved_model.SaveOptions(**options))
    return path


def _library(path):
    return read_saved_model(path).meta_graphs[0].graph_def.library


def test_the_loaded_function_keeps_the_custom_gradient(tmp_path):
    restored = tf.saved_model.load(_save(tmp_path))
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = restored.clip(v * v)
    assert float(out) == 4.0
    assert float(tape.gradient(out, v)) == 2.0        # TensorFlow 2.21: the upstream 4 clipped to 0.5, times 4
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 7.0])
    with tf.GradientTape() as tape:
        out = restored.pair(a, b)
    grad_a, grad_b = tape.gradient(out, [a, b])
    assert float(out) == 19.0
    assert grad_a.numpy().tolist() == [3.0, 3.0] and grad_b.numpy().tolist() == [-1.0, -1.0]


def test_the_file_holds_tensorflows_form(tmp_path):
    library = _library(_save(tmp_path))
    registered = {g.registered_op_type: g.gradient_func for g in library.registered_gradients}
    functions = {f.signature.name: f for f in library.function}
    identities = [n for f in library.function for n in f.node_def if n.op == "IdentityN"]
    assert sorted(n.attr["_gradient_op_type"].s.decode() for n in identities) == sorted(registered)
    clip = next(n for n in identities if len(n.input) == 2)      # IdentityN(y, x)
    gradient = functions[registered[clip.attr["_gradient_op_type"].s.decode()]]
    assert [a.name for a in gradient.signature.input_arg] == ["result_grads_0", "result_grads_1"]
    assert len(gradient.signature.output_arg) == 1                # None for y, then x's gradient
    saved = read_saved_model(str(tmp_path / "custom_gradient")).meta_graphs[0].object_graph_def
    signature = saved.concrete_functions[gradient.signature.name].output_signature
    assert [v.WhichOneof("kind") for v in signature.list_value.values] == ["none_value", "tensor_spec_value"]


def test_without_the_option_no_gradient_function_is_written(tmp_path):
    path = _save(tmp_path, experimental_custom_gradients=False)
    library = _library(path)
    assert not library.registered_gradients
    assert any(n.attr["_gradient_op_type"].s for f in library.function for n in f.node_def if n.op == "IdentityN")
    restored = tf.saved_model.load(path)
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = restored.clip(v * v)
    assert float(tape.gradient(out, v)) == 4.0        # IdentityN's own gradient


def test_a_function_traced_outside_a_tape_keeps_its_custom_gradient():
    f = tf.function(lambda x: _clip_gradient(x * 1.0))
    f.get_concrete_function(tf.TensorSpec([]))       # traced with nothing recording
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        out = f(v * v)
    assert float(tape.gradient(out, v)) == 2.0


def test_gradients_are_placed_as_the_saved_signature_says():
    spec = tf.TensorSpec([])
    assert place_gradients(["g"], [None, spec], 2) == [None, "g"]
    assert place_gradients(["g", "h"], [spec, None, spec], 3) == ["g", None, "h"]
    assert place_gradients(["g"], None, 3) == [None, None, "g"]              # no signature: the last ones
    with pytest.raises(ValueError, match="returned 3 gradients for an op of 2 inputs"):
        place_gradients(["g", "h", "i"], None, 2)


def test_layer_normalization_saves_as_tensorflow_ops(tmp_path):
    inputs = tf.keras.Input((4, 6))
    outputs = tf.keras.layers.LayerNormalization(gamma_initializer="random_normal",
                                                 beta_initializer="random_normal")(inputs)
    model = tf.keras.Model(inputs, outputs)
    x = np.random.default_rng(0).standard_normal((3, 4, 6)).astype(np.float32)
    path = str(tmp_path / "layer_norm")
    model.export(path)
    ops = {n.op for f in _library(path).function for n in f.node_def}
    assert "FusedLayerNorm" not in ops and {"Mean", "SquaredDifference", "Rsqrt"} <= ops
    # the graph's Mean sums in TensorFlow's order, the fused kernel in NumPy's: equal to rounding
    np.testing.assert_allclose(tf.saved_model.load(path).serve(tf.constant(x)).numpy(), model(x).numpy(),
                               rtol=1e-5, atol=1e-6)

