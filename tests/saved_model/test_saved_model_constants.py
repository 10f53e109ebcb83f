"""tf.saved_model's constants hold TensorFlow 2.21's values (recorded), and the files tensorflux writes
use them."""
import os

import tensorflux as tf

TENSORFLOW = {
    "ASSETS_DIRECTORY": "assets", "ASSETS_KEY": "saved_model_assets", "CLASSIFY_INPUTS": "inputs",
    "CLASSIFY_METHOD_NAME": "tensorflow/serving/classify", "CLASSIFY_OUTPUT_CLASSES": "classes",
    "CLASSIFY_OUTPUT_SCORES": "scores", "DEBUG_DIRECTORY": "debug", "DEBUG_INFO_FILENAME_PB": "saved_model_debug_info.pb",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY": "serving_default", "GPU": "gpu", "PREDICT_INPUTS": "inputs",
    "PREDICT_METHOD_NAME": "tensorflow/serving/predict", "PREDICT_OUTPUTS": "outputs", "REGRESS_INPUTS": "inputs",
    "REGRESS_METHOD_NAME": "tensorflow/serving/regress", "REGRESS_OUTPUTS": "outputs",
    "SAVED_MODEL_FILENAME_PB": "saved_model.pb", "SAVED_MODEL_FILENAME_PBTXT": "saved_model.pbtxt",
    "SAVED_MODEL_SCHEMA_VERSION": 1, "SERVING": "serve", "TPU": "tpu", "TRAINING": "train",
    "VARIABLES_DIRECTORY": "variables", "VARIABLES_FILENAME": "variables",
}


def test_constants_have_tensorflows_values():
    assert {name: getattr(tf.saved_model, name) for name in TENSORFLOW} == TENSORFLOW


def test_a_saved_model_uses_them(tmp_path):
    module = tf.Module()
    module.v = tf.Variable(1.0)
    module.f = tf.function(lambda x: x * module.v, input_signature=[tf.TensorSpec([], tf.float32)])
    tf.saved_model.save(module, str(tmp_path), signatures=module.f)
    assert os.path.exists(tmp_path / tf.saved_model.SAVED_MODEL_FILENAME_PB)
    assert os.path.exists(tmp_path / tf.saved_model.VARIABLES_DIRECTORY / (tf.saved_model.VARIABLES_FILENAME + ".index"))
    loaded = tf.saved_model.load(str(tmp_path), tags=[tf.saved_model.SERVING])
    assert list(loaded.signatures) == [tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
