"""Fidelity tests adapted from TensorFlow's guide "Introduction to modules, layers, and models"
(tensorflow/docs, site/en/guide/intro_to_modules.ipynb).

Each test replays, in its own words, one runnable example of the guide (with the setup of the earlier
cells it builds on) under tensorflux and compares what it prints with what TensorFlow 2.21 (Keras 3.15)
printed for the same code. A notebook cell whose last line displays a value is adapted to
`print(repr(value))`.

Adaptations and omissions:
- The guide's layers draw their weights with `tf.random.normal`; here they draw them from `_bell`, a
  deterministic stand-in that still gives new values at every draw, so that the printed results and
  variables check the modules, not TensorFlow's random stream (random streams are covered by
  test_fidelity_guide_random_numbers.py).
- Checkpoints, SavedModels, `.keras` files and the TensorBoard log directory are written under pytest's
  tmp_path. The shell cells (`!ls my_checkpoint*`, `!ls -l the_saved_model[/variables]`) are replayed as
  sorted directory listings of the file names (sizes and dates left out: they vary).
- `%load_ext tensorboard` and `%tensorboard --logdir logs/func` (the TensorBoard UI) are left out; the
  graph-tracing cell that feeds TensorBoard is kept and checks the event file it writes.
- `import keras` / `@keras.saving.register_keras_serializable()` is spelled
  `tf.keras.utils.register_keras_serializable()`, the same function reached through `tf.keras` (tests
  import only tensorflux; TF 2.21's `tf.keras` has no `saving` attribute).
- After loading the SavedModel the guide calls `my_model` again (evidently meaning the loaded model, as
  its text says); the test calls the loaded model with the two inputs the saved function was traced for.
"""
import os
import sys
from datetime import datetime

import numpy as np
import pytest

import tensorflux as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fidelity_guide_grads_modules_rng import expect  # noqa: E402


_draws = [0]


def _restart_stream():
    _draws[0] = 0


@pytest.fixture(autouse=True)
def _fresh_stream():
    _restart_stream()


def _bell(shape):
    """A deterministic stand-in for `tf.random.normal(shape)`: values in [-1.3, 1.3] of a sine ramp whose
    phase moves on at every draw, so that each draw gives new values (restarted before every test)."""
    phase = 3.0 + 0.77 * _draws[0]
    _draws[0] += 1
    values = 1.3 * np.sin(np.arange(int(np.prod(shape))) * 2.3 + phase)
    return tf.constant(values.reshape(shape).astype(np.float32))


class ScalarModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_variable = tf.Variable(5.0, name="train_me")
        self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

    def __call__(self, value):
        return self.a_variable * value + self.non_trainable_variable


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(_bell([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, inputs):
        return tf.nn.relu(tf.matmul(inputs, self.w) + self.b)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, inputs):
        return self.dense_2(self.dense_1(inputs))


class FlexibleDenseModule(tf.Module):
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, inputs):
        if not self.is_built:  # the first call decides the input size
            self.w = tf.Variable(_bell([inputs.shape[-1], self.out_features]), name='w')
            self.b = tf.Variable(tf.zeros([self.out_features]), name='b')
            self.is_built = True
        return tf.nn.relu(tf.matmul(inputs, self.w) + self.b)


class FlexibleSequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = FlexibleDenseModule(out_features=3)
        self.dense_2 = FlexibleDenseModule(out_features=2)

    def __call__(self, inputs):
        return self.dense_2(self.dense_1(inputs))


class TracedSequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    @tf.function
    def __call__(self, inputs):
        return self.dense_2(self.dense_1(inputs))


class MyDense(tf.keras.layers.Layer):
    def __init__(self, in_features, out_features, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(_bell([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def call(self, inputs):
        return tf.nn.relu(tf.matmul(inputs, self.w) + self.b)


class FlexibleDense(tf.keras.layers.Layer):
    def __init__(self, out_features, **kwargs):
        super().__init__(**kwargs)
        self.out_features = out_features

    def build(self, input_shape):
        self.w = tf.Variable(_bell([input_shape[-1], self.out_features]), name='w')
        self.b = tf.Variable(tf.zeros([self.out_features]), name='b')

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MySequentialModel(tf.keras.Model):
    def __init__(self, name=None, **kwargs):
        super().__init__(**kwargs)
        self.dense_1 = FlexibleDense(out_features=3)
        self.dense_2 = FlexibleDense(out_features=2)

    def call(self, inputs):
        return self.dense_2(self.dense_1(inputs))


_registered = []


def _register_model_class():
    """The guide decorates MySequentialModel with register_keras_serializable(); done on first need here,
    so that a missing decorator fails only the test that saves and loads the model."""
    if not _registered:
        tf.keras.utils.register_keras_serializable()(MySequentialModel)
        _registered.append(True)


def test_simple_module_call(capsys):
    module = ScalarModule(name="simple")
    print(repr(module(tf.constant(5.0))))
    expect(capsys, """
<tf.Tensor: shape=(), dtype=float32, numpy=30.0>
""")


def test_simple_module_variable_collections(capsys):
    module = ScalarModule(name="simple")
    print("trainable variables:", module.trainable_variables)
    print("all variables:", module.variables)
    expect(capsys, """
trainable variables: (<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>,)
all variables: (<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>, <tf.Variable 'do_not_train_me:0' shape=() dtype=float32, numpy=5.0>)
""")


def test_two_layer_module_results(capsys):
    model = SequentialModule(name="the_model")
    print("Model results:", model(tf.constant([[2.0, 2.0, 2.0]])))
    expect(capsys, """
Model results: tf.Tensor([[3.265882  3.5264583]], shape=(1, 2), dtype=float32)
""")


def test_submodules_are_collected(capsys):
    model = SequentialModule(name="the_model")
    print("Submodules:", model.submodules)
    expect(capsys, """
Submodules: (<test_fidelity_guide_intro_to_modules.Dense object at 0x7fcd820d3f10>, <test_fidelity_guide_intro_to_modules.Dense object at 0x7fcd7f9051d0>)
""")


def test_variables_of_nested_modules(capsys):
    model = SequentialModule(name="the_model")
    for var in model.variables:
        print(var, "\n")
    expect(capsys, """
<tf.Variable 'b:0' shape=(3,) dtype=float32, numpy=array([0., 0., 0.], dtype=float32)> 

<tf.Variable 'w:0' shape=(3, 3) dtype=float32, numpy=
array([[ 0.183456  , -1.0819477 ,  1.2582955 ],
       [-0.59479666, -0.46569806,  1.2153636 ],
       [-1.1538371 ,  0.32218447,  0.7245096 ]], dtype=float32)> 

<tf.Variable 'b:0' shape=(2,) dtype=float32, numpy=array([0., 0.], dtype=float32)> 

<tf.Variable 'w:0' shape=(3, 2) dtype=float32, numpy=
array([[-0.7642142 , -0.2750464 ],
       [ 1.1307279 , -1.2317073 ],
       [ 0.51058626,  0.5513246 ]], dtype=float32)> 
""")


def test_variables_created_on_first_call(capsys):
    model = FlexibleSequentialModule(name="the_model")
    print("Model results:", model(tf.constant([[2.0, 2.0, 2.0]])))
    expect(capsys, """
Model results: tf.Tensor([[3.265882  3.5264583]], shape=(1, 2), dtype=float32)
""")


def _written_checkpoint(tmp_path):
    model = FlexibleSequentialModule(name="the_model")
    model(tf.constant([[2.0, 2.0, 2.0]]))
    prefix = str(tmp_path / "my_checkpoint")
    written = tf.train.Checkpoint(model=model).write(prefix)
    return prefix, written


def test_checkpoint_write_and_files(capsys, tmp_path):
    prefix, written = _written_checkpoint(tmp_path)
    print(repr(written))
    print(sorted(name for name in os.listdir(tmp_path) if name.startswith("my_checkpoint")))
    expect(capsys, """
'<tmp>/my_checkpoint'
['my_checkpoint.data-00000-of-00001', 'my_checkpoint.index']
""", tmp_path=tmp_path)


def test_checkpoint_list_variables(capsys, tmp_path):
    prefix, _ = _written_checkpoint(tmp_path)
    print(repr(tf.train.list_variables(prefix)))
    expect(capsys, """
[('_CHECKPOINTABLE_OBJECT_GRAPH', []), ('model/dense_1/b/.ATTRIBUTES/VARIABLE_VALUE', [3]), ('model/dense_1/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 3]), ('model/dense_2/b/.ATTRIBUTES/VARIABLE_VALUE', [2]), ('model/dense_2/w/.ATTRIBUTES/VARIABLE_VALUE', [3, 2])]
""")


def test_checkpoint_restore_into_new_model(capsys, tmp_path):
    prefix, _ = _written_checkpoint(tmp_path)
    fresh = FlexibleSequentialModule()
    tf.train.Checkpoint(model=fresh).restore(prefix)
    print(repr(fresh(tf.constant([[2.0, 2.0, 2.0]]))))
    expect(capsys, """
<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[3.265882 , 3.5264583]], dtype=float32)>
""")


def test_traced_module_two_input_shapes(capsys):
    model = TracedSequentialModule(name="the_model")
    print(model([[2.0, 2.0, 2.0]]))
    print(model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))
    expect(capsys, """
tf.Tensor([[3.265882  3.5264583]], shape=(1, 2), dtype=float32)
tf.Tensor(
[[[3.265882  3.5264583]
  [3.265882  3.5264583]]], shape=(1, 2, 2), dtype=float32)
""")


def test_trace_graph_for_tensorboard(capsys, tmp_path):
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    logdir = str(tmp_path / "logs" / "func" / stamp)
    writer = tf.summary.create_file_writer(logdir)
    fresh = TracedSequentialModule()  # a fresh function, so that this call traces it
    tf.summary.trace_on(graph=True)
    tf.profiler.experimental.start(logdir)
    try:
        z = print(fresh(tf.constant([[2.0, 2.0, 2.0]])))
        with writer.as_default():
            tf.summary.trace_export(name="my_func_trace", step=0, profiler_outdir=logdir)
    finally:
        try:
            tf.profiler.experimental.stop()
        except Exception:
            pass
    writer.flush()
    print(z)
    print(any(name.startswith("events.out.tfevents.") for name in os.listdir(logdir)))
    expect(capsys, """
tf.Tensor([[3.265882  3.5264583]], shape=(1, 2), dtype=float32)
None
True
""")


def _saved_traced_model(tmp_path):
    model = TracedSequentialModule(name="the_model")
    model([[2.0, 2.0, 2.0]])
    model([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]])
    export_dir = str(tmp_path / "the_saved_model")
    tf.saved_model.save(model, export_dir)
    return export_dir


def test_saved_model_directory_layout(capsys, tmp_path):
    export_dir = _saved_traced_model(tmp_path)
    print(sorted(os.listdir(export_dir)))
    print(sorted(os.listdir(os.path.join(export_dir, "variables"))))
    expect(capsys, """
['assets', 'fingerprint.pb', 'saved_model.pb', 'variables']
['variables.data-00000-of-00001', 'variables.index']
""")


def test_saved_model_load_and_call(capsys, tmp_path):
    export_dir = _saved_traced_model(tmp_path)
    restored = tf.saved_model.load(export_dir)
    print(isinstance(restored, SequentialModule))
    print(isinstance(restored, TracedSequentialModule))
    print(restored([[2.0, 2.0, 2.0]]))
    print(restored([[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]]))
    expect(capsys, """
False
False
tf.Tensor([[3.265882  3.5264583]], shape=(1, 2), dtype=float32)
tf.Tensor(
[[[3.265882  3.5264583]
  [3.265882  3.5264583]]], shape=(1, 2, 2), dtype=float32)
""")


def test_keras_layer_from_module(capsys):
    layer = MyDense(name="simple", in_features=3, out_features=3)
    print(repr(layer(tf.constant([[2.0, 2.0, 2.0]]))))
    print(repr(layer.variables))
    expect(capsys, """
<tf.Tensor: shape=(1, 3), dtype=float32, numpy=array([[0.       , 0.       , 6.3963375]], dtype=float32)>
[]
""")


def test_keras_layer_rejects_python_list_input():
    # The guide calls the layer on a bare Python list; Keras 3 (TF 2.21) refuses it.
    layer = MyDense(name="simple", in_features=3, out_features=3)
    with pytest.raises(ValueError) as info:
        layer([[2.0, 2.0, 2.0]])
    assert str(info.value) == (
        "Only input tensors may be passed as positional arguments. The following argument value "
        "should be passed as a keyword argument: 2.0 (of type <class 'float'>)")


def test_keras_layer_build_creates_variables(capsys):
    layer = FlexibleDense(out_features=3)
    print(repr(layer.variables))
    print("Model results:", layer(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])))
    print(repr(layer.variables))
    expect(capsys, """
[]
Model results: tf.Tensor(
[[-3.1303554 -2.4509227  6.3963375]
 [-4.695533  -3.6763837  9.594506 ]], shape=(2, 3), dtype=float32)
[]
""")


def test_keras_layer_rejects_incompatible_input(capsys):
    layer = FlexibleDense(out_features=3)
    layer(tf.constant([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        print("Model results:", layer(tf.constant([[2.0, 2.0, 2.0, 2.0]])))
    message = str(info.value)
    # Key parts of TensorFlow 2.21's message.
    assert "Exception encountered when calling FlexibleDense.call()" in message
    assert "Matrix size-incompatible: In[0]: [1,4], In[1]: [3,3] [Op:MatMul]" in message
    assert "Arguments received by FlexibleDense.call():" in message
    assert "inputs=tf.Tensor(shape=(1, 4), dtype=float32)" in message


def test_keras_model_subclass(capsys):
    model = MySequentialModel(name="the_model")
    print("Model results:", model(tf.constant([[2.0, 2.0, 2.0]])))
    print(repr(model.variables))
    expect(capsys, """
Model results: tf.Tensor([[12.762002 -8.837105]], shape=(1, 2), dtype=float32)
[]
""")


def test_keras_model_has_no_submodules():
    # Keras 3 models are not tf.Module subclasses: the guide's `.submodules` cell fails in TF 2.21.
    model = MySequentialModel(name="the_model")
    model(tf.constant([[2.0, 2.0, 2.0]]))
    with pytest.raises(AttributeError) as info:
        model.submodules
    assert str(info.value) == "'MySequentialModel' object has no attribute 'submodules'"


def _functional_model():
    inputs = tf.keras.Input(shape=[3, ])
    hidden = FlexibleDense(3)(inputs)
    outputs = FlexibleDense(2)(hidden)
    return tf.keras.Model(inputs=inputs, outputs=outputs)


def test_functional_model_summary(capsys):
    tf.keras.backend.clear_session()  # layer and model names are numbered per session
    model = _functional_model()
    model.summary()
    expect(capsys, """
Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ input_layer (InputLayer)        │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ flexible_dense (FlexibleDense)  │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ flexible_dense_1                │ (None, 2)              │             0 │
│ (FlexibleDense)                 │                        │               │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
""")


def test_functional_model_call(capsys):
    model = _functional_model()
    print(repr(model(tf.constant([[2.0, 2.0, 2.0]]))))
    expect(capsys, """
<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[2.8868172, 7.406271 ]], dtype=float32)>
""")


def test_keras_file_save_and_load(capsys, tmp_path):
    _register_model_class()
    model = MySequentialModel(name="the_model")
    print(repr(model(tf.constant([[2.0, 2.0, 2.0]]))))
    path = str(tmp_path / "exname_of_file.keras")
    model.save(path)
    rebuilt = tf.keras.models.load_model(path)
    print(type(rebuilt).__name__)
    print(repr(rebuilt(tf.constant([[2.0, 2.0, 2.0]]))))
    expect(capsys, """
<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[12.762002, -8.837105]], dtype=float32)>
MySequentialModel
<tf.Tensor: shape=(1, 2), dtype=float32, numpy=array([[1.4517405, 8.456904 ]], dtype=float32)>
""")
