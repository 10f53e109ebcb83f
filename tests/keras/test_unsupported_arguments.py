"""Keras 3 arguments tensorflux does not implement raise NotImplementedError naming the feature (never a
silent default); their default values are accepted as Keras accepts them; arguments tensorflux used to
drop silently are honoured. Keras' own errors and configs recorded with TensorFlow 2.21 + Keras 3.15."""
import numpy as np
import pytest

import tensorflux as tf

keras = tf.keras


@pytest.mark.parametrize("make, feature", [
    (lambda: keras.layers.Dense(3, lora_rank=2), "LoRA"),
    (lambda: keras.layers.Dense(3, lora_alpha=4.0), "LoRA"),
    (lambda: keras.layers.Dense(3, quantization_config={"mode": "int8"}), "quantization"),
    (lambda: keras.layers.Conv2D(3, 3, lora_rank=2), "LoRA"),
    (lambda: keras.layers.Embedding(3, 3, lora_rank=2), "LoRA"),
    (lambda: keras.layers.Embedding(3, 3, lora_alpha=2.0), "LoRA"),
    (lambda: keras.layers.BatchNormalization(renorm=True), "batch renormalization"),
    (lambda: keras.layers.InputLayer(shape=(None,), ragged=True), "ragged"),
    (lambda: keras.layers.Dense(3, dtype="mixed_float16"), "mixed-precision"),
    (lambda: keras.layers.Dense(3, dtype="float64"), "float32 only"),
    (lambda: keras.layers.Conv2D(3, 3, data_format="channels_first"), "channels_last"),
    (lambda: keras.layers.MultiHeadAttention(2, 4, flash_attention=True), "flash_attention"),
    (lambda: keras.layers.Resizing(3, 3, pad_to_aspect_ratio=True), "pad_to_aspect_ratio"),
    (lambda: keras.optimizers.Adam(use_ema=True), "use_ema"),
    (lambda: keras.optimizers.SGD(gradient_accumulation_steps=2), "gradient_accumulation_steps"),
    (lambda: keras.mixed_precision.set_global_policy("mixed_float16"), "mixed precision"),
    (lambda: keras.config.set_image_data_format("channels_first"), "channels_last"),
])
def test_unimplemented_keras_features_raise_not_implemented(make, feature):
    with pytest.raises(NotImplementedError, match=feature):
        make()


def test_defaults_of_unimplemented_features_are_accepted_as_keras():
    dense = keras.layers.Dense(3, lora_rank=None, lora_alpha=None, quantization_config=None)
    assert "lora_rank" not in dense.get_config() and dense.get_config()["quantization_config"] is None
    keras.layers.Embedding(3, 3, lora_rank=None, lora_alpha=None, quantization_config=None)
    keras.layers.InputLayer(shape=(None,), ragged=False)
    norm = keras.layers.BatchNormalization(renorm=False, renorm_clipping=None, renorm_momentum=0.9)
    config = norm.get_config()
    assert (config["renorm"], config["renorm_clipping"], config["renorm_momentum"]) == (False, None, 0.9)


def test_invalid_values_keep_keras_value_errors():
    with pytest.raises(ValueError, match=r"The `data_format` argument must be one of"):
        keras.layers.Conv2D(3, 3, data_format="channels_middle")
    with pytest.raises(ValueError, match="Unknown `floatx` value: float7"):
        keras.backend.set_floatx("float7")


def test_terminate_on_nan_raise_error():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.array([[1.0, np.nan], [0.0, 1.0]], np.float32)
    with pytest.raises(RuntimeError, match=r"^NaN or Inf loss encountered at batch \d\. Loss value: nan\. "
                                           r"Terminating training immediately\.$"):
        model.fit(x, np.zeros((2, 1), np.float32), batch_size=1, epochs=1, verbose=0,
                  callbacks=[keras.callbacks.TerminateOnNaN(raise_error=True)])


def test_sparse_categorical_crossentropy_axis_as_keras():
    loss = keras.losses.SparseCategoricalCrossentropy(axis=1)
    assert loss.get_config() == {"name": "sparse_categorical_crossentropy", "reduction": "sum_over_batch_size",
                                 "from_logits": False, "ignore_class": None}
    value = loss(np.array([0, 1]), np.array([[0.2, 0.8, 0.0], [0.1, 0.6, 0.3]], np.float32))
    np.testing.assert_allclose(float(value), 1.0601317882537842, rtol=1e-6)
    with pytest.raises(ValueError, match=r"^Only axis=-1 is currently supported\. Received: axis=0$"):
        keras.losses.SparseCategoricalCrossentropy(axis=0)(np.array([0, 1]), np.full((2, 3), 0.5, np.float32))


@pytest.mark.parametrize("metric, config", [
    (lambda: keras.metrics.BinaryAccuracy(), {"name": "binary_accuracy", "dtype": "float32", "threshold": 0.5}),
    (lambda: keras.metrics.BinaryAccuracy(threshold=0.7),
     {"name": "binary_accuracy", "dtype": "float32", "threshold": 0.7}),
    (lambda: keras.metrics.TopKCategoricalAccuracy(k=3), {"name": "top_k_categorical_accuracy", "dtype": "float32",
                                                          "k": 3}),
    (lambda: keras.metrics.SparseTopKCategoricalAccuracy(),
     {"name": "sparse_top_k_categorical_accuracy", "dtype": "float32", "k": 5}),
    (lambda: keras.metrics.CosineSimilarity(), {"name": "cosine_similarity", "dtype": "float32"}),
])
def test_metric_configs_keep_their_arguments_as_keras(metric, config):
    assert metric().get_config() == config


def test_binary_accuracy_threshold_is_applied():
    metric = keras.metrics.BinaryAccuracy(threshold=0.7)
    metric.update_state([[1.0], [1.0]], [[0.6], [0.8]])
    assert float(metric.result()) == 0.5


@pytest.mark.parametrize("loss, config", [
    (lambda: keras.losses.BinaryCrossentropy(), {"name": "binary_crossentropy", "reduction": "sum_over_batch_size",
                                                 "from_logits": False, "label_smoothing": 0.0, "axis": -1}),
    (lambda: keras.losses.CategoricalCrossentropy(), {"name": "categorical_crossentropy",
                                                      "reduction": "sum_over_batch_size", "from_logits": False,
                                                      "label_smoothing": 0.0, "axis": -1}),
    (lambda: keras.losses.SparseCategoricalCrossentropy(), {"name": "sparse_categorical_crossentropy",
                                                            "reduction": "sum_over_batch_size", "from_logits": False,
                                                            "ignore_class": None}),
    (lambda: keras.losses.BinaryFocalCrossentropy(), {"name": "binary_focal_crossentropy",
                                                      "reduction": "sum_over_batch_size", "from_logits": False,
                                                      "label_smoothing": 0.0, "axis": -1,
                                                      "apply_class_balancing": False, "alpha": 0.25, "gamma": 2.0}),
])
def test_loss_configs_keep_their_arguments_as_keras(loss, config):
    # these arguments used to be left out of get_config(), so a loss rebuilt from its config lost them
    assert loss().get_config() == config
    assert type(loss()).from_config(config).get_config() == config


def test_export_of_vocabulary_lookups_is_not_implemented(tmp_path):
    model = keras.Sequential([keras.Input((3,), dtype="string"), keras.layers.StringLookup(vocabulary=["a", "b"])])
    with pytest.raises(NotImplementedError, match="Exporting a Keras vocabulary lookup .*StringLookup"):
        model.export(str(tmp_path / "exported"), verbose=False)
    assert not (tmp_path / "exported").exists()


def test_export_formats_other_than_saved_model_are_not_implemented(tmp_path):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    with pytest.raises(NotImplementedError, match="format='tf_saved_model'` only"):
        model.export(str(tmp_path / "m"), format="onnx")
    with pytest.raises(ValueError, match="Unrecognized format=pickle"):
        model.export(str(tmp_path / "m"), format="pickle")
